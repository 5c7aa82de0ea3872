"""Pipelined rollouts (``vec_env: pipelined``, training/pipeline.py): the worker's rollouts are sampled by the
weights of exactly one update before, fill the buffer as the plain loop does, replay their episodes to the
callbacks, reproduce with one seed, and every failure of the worker is one clear error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from conftest import tiny_train_args  # noqa: E402

from agents.ffo.policy import PolicyLoadError  # noqa: E402
from ffo_env.cli import main as ffo  # noqa: E402
from training.config import ConfigError, TrainConfig, load_config  # noqa: E402
from training.model import build_model, build_vec_env  # noqa: E402
from training.pipeline import PipelinedVecEnv, RolloutWorkerError  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
QUICK = ROOT / "configs" / "ffo" / "train_quick.yaml"
N_STEPS, N_ENVS = 8, 2


def _cfg(**changes: Any) -> TrainConfig:
    cfg = load_config(QUICK)
    cfg.vec_env = "pipelined"
    cfg.n_envs = N_ENVS
    cfg.ppo.n_steps = N_STEPS
    cfg.ppo.batch_size = 8
    cfg.ppo.n_epochs = 1
    cfg.ppo.learning_rate = 1e-2  # large steps: consecutive weights give clearly different log-probabilities
    cfg.max_steps = 10  # short episodes (truncated): every env ends some within 24 decisions
    cfg.opponents = {"random": 1.0}
    for key, value in changes.items():
        setattr(cfg, key, value)
    return cfg


def _model(cfg: TrainConfig, tmp_path: Path, seed: int = 3) -> Any:
    env = build_vec_env(cfg, "french", [])
    assert isinstance(env, PipelinedVecEnv)
    return build_model(cfg, env, tmp_path / "tb", seed)


def _weights(model: Any) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.policy.state_dict().items()}


def _log_probs_and_values(model: Any, weights: dict[str, torch.Tensor]) -> tuple[np.ndarray, np.ndarray]:
    """Log-probabilities of the buffer's actions and the values of its observations under ``weights``."""
    buf = model.rollout_buffer
    saved = _weights(model)
    model.policy.load_state_dict(weights)
    try:
        obs = {k: torch.from_numpy(v.reshape(-1, *v.shape[2:])) for k, v in buf.observations.items()}
        actions = torch.from_numpy(buf.actions.reshape(-1))
        masks = buf.action_masks.reshape(-1, buf.mask_dims)
        with torch.no_grad():
            values, log_prob, _ = model.policy.evaluate_actions(obs, actions, action_masks=masks)
    finally:
        model.policy.load_state_dict(saved)
    return log_prob.numpy(), values.numpy().reshape(-1)


def _collect(model: Any) -> None:
    from stable_baselines3.common.callbacks import CallbackList

    callback = CallbackList([])
    callback.init_callback(model)
    assert model.collect_rollouts(model.env, callback, model.rollout_buffer, N_STEPS)


def test_rollouts_are_sampled_by_the_weights_one_update_before(tmp_path: Path) -> None:
    """Rollout k + 1 is sampled by the weights the learner had when it took rollout k: the log-probabilities
    stored with its samples are those weights' (not the weights of the update made meanwhile), while its
    values are the learner's current critic's (refreshed before the advantages are computed)."""
    model = _model(_cfg(), tmp_path)
    model._setup_learn(N_STEPS * N_ENVS)
    try:
        history = [_weights(model)]
        stale_values = 0.0
        for _ in range(4):
            _collect(model)
            buf = model.rollout_buffer
            log_probs, values = buf.log_probs.reshape(-1).copy(), buf.values.reshape(-1).copy()
            behaviour = _log_probs_and_values(model, history[max(0, len(history) - 2)])
            current = _log_probs_and_values(model, history[-1])
            # rows of the buffer are (step, env); evaluate_actions above read them in the same order
            np.testing.assert_allclose(log_probs, behaviour[0], atol=1e-4)
            np.testing.assert_allclose(values, current[1], atol=1e-4)
            if len(history) >= 2:  # the update made meanwhile gives other log-probabilities and values
                assert np.abs(log_probs - current[0]).max() > 1e-3
                stale_values = max(stale_values, float(np.abs(values - behaviour[1]).max()))
            model.train()
            history.append(_weights(model))
        assert stale_values > 1e-3  # the refresh replaced values that differed
    finally:
        model.env.close()


def test_proximal_rollouts_clip_to_the_learners_weights_and_keep_the_sampling_ones(tmp_path: Path) -> None:
    """ppo.proximal (decoupled PPO): the buffer's log-probabilities, around which the update clips, are the
    learner's current weights' (the proximal policy); the sampling weights' (one update behind) are kept
    beside them for the importance weight, and the minibatches carry both."""
    from training.model import DecoupledSamples

    model = _model(_cfg(), tmp_path)
    model.proximal = True
    model._setup_learn(N_STEPS * N_ENVS)
    try:
        history = [_weights(model)]
        for _ in range(3):
            _collect(model)
            buf = model.rollout_buffer
            behaviour = _log_probs_and_values(model, history[max(0, len(history) - 2)])[0]
            current = _log_probs_and_values(model, history[-1])[0]
            np.testing.assert_allclose(buf.log_probs.reshape(-1), current, atol=1e-4)
            np.testing.assert_allclose(buf.behaviour_log_probs.reshape(-1), behaviour, atol=1e-4)
            if len(history) >= 2:
                assert np.abs(current - behaviour).max() > 1e-3
            (batch,) = list(buf.get(N_STEPS * N_ENVS))
            assert isinstance(batch, DecoupledSamples)
            model.train()
            assert "train/behaviour_weight" in model.logger.name_to_value
            history.append(_weights(model))
    finally:
        model.env.close()


def test_proximal_needs_the_pipelined_env(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("vec_env: dummy\nppo: {proximal: true}\n")
    with pytest.raises(ConfigError, match="ppo.proximal: expected false unless vec_env is pipelined"):
        load_config(tmp_path / "c.yaml")


def test_a_truncated_game_is_bootstrapped_with_the_learners_current_critic(tmp_path: Path) -> None:
    """A game cut off by the step limit inside a rollout earns gamma x the value of its terminal observation
    (sb3's timeout bootstrap) by the learner's current weights, not the sampling weights; other rewards are
    the env's."""
    model = _model(_cfg(), tmp_path)
    model._setup_learn(N_STEPS * N_ENVS)
    env = model.env
    seen: list[tuple[np.ndarray, list[Any]]] = []
    exchange = env.exchange

    def spy(m: Any) -> Any:
        data, episodes = exchange(m)
        seen.append((data["rewards"].copy(), episodes))
        return data, episodes

    env.exchange = spy
    try:
        truncated = 0
        for _ in range(3):
            weights = _weights(model)
            _collect(model)
            raw, episodes = seen[-1]
            expected = raw.copy()
            for step, idx, _, terminal in episodes:
                if terminal is None:
                    continue
                truncated += 1
                with torch.no_grad():
                    value = model.policy.predict_values(model.policy.obs_to_tensor(terminal)[0])
                expected[step, idx] += model.gamma * float(value[0])
            np.testing.assert_allclose(model.rollout_buffer.rewards, expected, atol=1e-5)
            assert all(torch.equal(v, weights[k]) for k, v in model.policy.state_dict().items())
            model.train()
        assert truncated > 0  # 10-decision games: the step limit cuts some off in every rollout
        assert not np.allclose(model.rollout_buffer.rewards, seen[-1][0])
    finally:
        env.close()


def test_without_prefetch_a_pipelined_run_is_the_in_process_run_exactly(tmp_path: Path) -> None:
    """The worker's collection, the buffer filling and the replay to the callbacks are the plain loop's: with
    no rollout run ahead and the learner's torch RNG state handed over, four iterations give bit-identical
    samples and weights. What is left between the two modes is the one update of lag."""
    runs = []
    for mode in ("dummy", "pipelined"):
        cfg = _cfg()  # 10-decision episodes: resets and the timeout bootstrap happen inside the rollouts
        if mode == "dummy":
            cfg.vec_env = "dummy"
            env = build_vec_env(cfg, "french", [])
        else:
            env = PipelinedVecEnv(cfg, "french", [], prefetch=False)
        model = build_model(cfg, env, tmp_path / mode, 5)
        try:
            model.learn(total_timesteps=4 * N_STEPS * N_ENVS)
        finally:
            env.close()
        buf = model.rollout_buffer
        runs.append((_weights(model), buf.actions.copy(), buf.log_probs.copy(), buf.returns.copy()))
    (w0, *rest0), (w1, *rest1) = runs
    for a, b in zip(rest0, rest1, strict=True):
        np.testing.assert_array_equal(a, b)
    for key in w0:
        assert torch.equal(w0[key], w1[key]), key


def test_the_worker_finds_the_plane_entries_the_learner_would(tmp_path: Path) -> None:
    """The rollout worker sends the planes' non-zero entries with the rollout (the learner's minibatches read
    those instead of the planes): exactly the entries the learner finds from the rollout's planes itself."""
    from training.planes import plane_entries_of

    model = _model(_cfg(), tmp_path)
    model._setup_learn(N_STEPS * N_ENVS)
    try:
        for _ in range(2):
            _collect(model)
            buf = model.rollout_buffer
            assert buf.shipped_entries is not None and buf.plane_entries is not None
            planes = buf.observations["planes"]
            own = plane_entries_of(buf.planes_reader, planes.reshape(-1, *planes.shape[2:]))
            assert torch.equal(buf.shipped_entries, own) and torch.equal(buf.plane_entries[0], own)
            assert own.shape[1] > 0
            model.train()
    finally:
        model.env.close()


def test_a_rollout_with_more_plane_entries_than_its_slot_holds_is_read_from_its_planes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slot has room for ENTRIES_PER_SAMPLE entries a sample on average; a rollout with more sends none, and
    the learner finds them from the planes: the same minibatches either way."""
    import training.pipeline as pipeline
    from training.planes import plane_entries_of

    monkeypatch.setattr(pipeline, "ENTRIES_PER_SAMPLE", 1)  # far fewer than any observation has
    model = _model(_cfg(), tmp_path)
    model._setup_learn(N_STEPS * N_ENVS)
    try:
        _collect(model)
        buf = model.rollout_buffer
        assert buf.shipped_entries is None and buf.plane_entries is not None
        planes = buf.observations["planes"]
        own = plane_entries_of(buf.planes_reader, planes.reshape(-1, *planes.shape[2:]))
        assert torch.equal(buf.plane_entries[0], own)
    finally:
        model.env.close()


def test_buffer_holds_legal_actions_and_the_worker_returns(tmp_path: Path) -> None:
    """Read after the env (and its shared memory) is gone: the buffer owns its rows (a view of the shared
    memory would be a segmentation fault here)."""
    model = _model(_cfg(), tmp_path)
    model._setup_learn(N_STEPS * N_ENVS)
    try:
        _collect(model)
    finally:
        model.env.close()
    buf = model.rollout_buffer
    assert buf.full and buf.pos == N_STEPS
    chosen = np.take_along_axis(buf.action_masks, buf.actions.astype(np.int64), axis=2)
    assert (chosen == 1).all()  # every sampled action was legal under the mask stored with it
    assert buf.observations["planes"].dtype == np.uint8 and buf.observations["planes"].any()
    assert np.isfinite(buf.returns).all() and np.isfinite(buf.advantages).all()
    assert model.num_timesteps == N_STEPS * N_ENVS


def test_episodes_reach_the_callbacks_as_in_the_plain_loop(tmp_path: Path) -> None:
    from stable_baselines3.common.callbacks import BaseCallback

    class Episodes(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.calls = 0
            self.ended: list[dict[str, Any]] = []

        def _on_step(self) -> bool:
            self.calls += 1
            infos, dones = self.locals["infos"], self.locals["dones"]
            assert len(infos) == N_ENVS
            for info, done in zip(infos, dones, strict=True):
                assert bool(done) == ("episode" in info)
                if done:
                    self.ended.append(info)
            return True

    model = _model(_cfg(), tmp_path)
    seen = Episodes()
    try:
        model.learn(total_timesteps=3 * N_STEPS * N_ENVS, callback=seen)
    finally:
        model.env.close()
    assert seen.calls == 3 * N_STEPS
    assert seen.ended, "10-decision episodes end within 24 decisions of each env"
    for info in seen.ended:
        assert {"winner", "vp", "opponent", "episode"} <= set(info)
        assert "terminal_observation" not in info
    assert len(model.ep_info_buffer) == len(seen.ended)


def test_one_seed_gives_one_pipelined_run(tmp_path: Path) -> None:
    runs = []
    for i in range(2):
        model = _model(_cfg(), tmp_path / str(i))
        try:
            model.learn(total_timesteps=3 * N_STEPS * N_ENVS)
        finally:
            model.env.close()
        runs.append(_weights(model))
    for key in runs[0]:
        assert torch.equal(runs[0][key], runs[1][key]), key


def test_a_second_learn_resets_the_workers_games(tmp_path: Path) -> None:
    """``learn()`` again with ``reset_num_timesteps=True`` resets the env: the rollout under way is dropped
    and every env of the worker starts a new game (the first row of the next rollout starts episodes)."""
    model = _model(_cfg(max_steps=3000), tmp_path)
    try:
        model.learn(total_timesteps=N_STEPS * N_ENVS)
        assert model.env._pending is not None  # the next rollout is under way
        model.learn(total_timesteps=N_STEPS * N_ENVS)
        starts = model.rollout_buffer.episode_starts
        assert model.num_timesteps == N_STEPS * N_ENVS
        assert (starts[0] == 1).all() and not starts[1:].any()
    finally:
        model.env.close()


def test_the_env_cannot_be_stepped_action_by_action_and_closes_once(tmp_path: Path) -> None:
    env = build_vec_env(_cfg(), "french", [])
    with pytest.raises(RolloutWorkerError, match="stepped by its rollout worker"):
        env.step(np.zeros(N_ENVS, dtype=np.int64))
    with pytest.raises(RolloutWorkerError, match="worker process"):
        env.env_method("action_masks")
    env.close()
    env.close()


def test_a_worker_that_cannot_start_is_one_clear_error(tmp_path: Path) -> None:
    cfg = _cfg(opponents={"snapshots": 1.0})
    env = PipelinedVecEnv(cfg, "french", [str(tmp_path / "missing.pt")])
    model = build_model(cfg, env, tmp_path / "tb", 0)
    with pytest.raises(PolicyLoadError, match="missing.pt: a policy needs both"):  # the worker's own error
        model.learn(total_timesteps=N_STEPS * N_ENVS)
    assert env.closed


def test_a_worker_that_dies_is_one_clear_error(tmp_path: Path) -> None:
    model = _model(_cfg(), tmp_path)
    model.learn(total_timesteps=N_STEPS * N_ENVS)
    env = model.env
    env._proc.kill()
    env._proc.join()
    with pytest.raises(RolloutWorkerError, match="died"):
        model.learn(total_timesteps=N_STEPS * N_ENVS, reset_num_timesteps=False)
    assert env.closed


def test_pipelined_is_a_vec_env_choice_of_the_config(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("vec_env: threads\n")
    with pytest.raises(ConfigError, match="pipelined"):
        load_config(tmp_path / "c.yaml")


def test_ffo_train_runs_and_resumes_pipelined(tmp_path: Path) -> None:
    settings = {
        "vec_env": "pipelined",
        "n_envs": "2",
        "ppo.n_steps": "16",
        "ppo.batch_size": "16",
        "steps_per_round": "64",
        "checkpoint_every": "32",
        "pretrain.teacher": "''",
        "eval.games": "1",
        "eval.workers": "1",
        "eval.opponents": "[random]",
        "ppo.anchor_kl": "0.0",
    }
    out = tmp_path / "runs"
    assert ffo(["train", "--config", str(QUICK), "--out", str(out), *tiny_train_args(settings)]) == 0
    (run,) = list(out.iterdir())
    progress = json.loads((run / "progress.json").read_text())
    assert progress["done"] == ["r0:french", "r0:german"]
    assert progress["timesteps"] == {"french": 64, "german": 64}
    args = ["train", "--resume", str(run), "--set", "rounds=2", "--no-eval"]
    assert ffo([*args, *tiny_train_args(settings, without=("rounds",))]) == 0
    progress = json.loads((run / "progress.json").read_text())
    assert progress["done"][-2:] == ["r1:french", "r1:german"]
    assert progress["timesteps"] == {"french": 128, "german": 128}
    assert (run / "policies" / "german.pt").exists()
