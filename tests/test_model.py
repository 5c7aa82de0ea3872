"""training/model.py: the rollout buffer that copies observations once gives SB3's samples, and rollouts
run without autograd."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import gymnasium as gym  # noqa: E402
import torch as th  # noqa: E402

from training.model import ppo_classes  # noqa: E402


def _filled(buffer_class: type, n_envs: int = 3, steps: int = 4) -> object:
    space = gym.spaces.Dict(
        {
            "planes": gym.spaces.Box(0, 255, (2, 3, 5), np.uint8),
            "units": gym.spaces.Box(-1, 1, (4, 2), np.float32),
        }
    )
    buf = buffer_class(steps, space, gym.spaces.Discrete(6), n_envs=n_envs)
    rng = np.random.default_rng(0)
    for t in range(steps):
        obs = {
            "planes": rng.integers(0, 255, (n_envs, 2, 3, 5), dtype=np.uint8),
            "units": rng.random((n_envs, 4, 2), dtype=np.float32),
        }
        action = np.array([[t * n_envs + e] for e in range(n_envs)])  # each sample's action names it
        masks = rng.random((n_envs, 6)) > 0.5
        buf.add(
            obs,
            action,
            rng.random(n_envs),
            np.zeros(n_envs),
            th.as_tensor(rng.random(n_envs)),
            th.as_tensor(rng.random(n_envs)),
            action_masks=masks,
        )
    buf.compute_returns_and_advantage(th.zeros(n_envs), np.zeros(n_envs))
    return buf


def _by_action(batches: list) -> dict[int, dict[str, np.ndarray]]:
    out = {}
    for s in batches:
        for i, a in enumerate(s.actions.flatten().tolist()):
            out[int(a)] = {
                "planes": s.observations["planes"][i].numpy(),
                "units": s.observations["units"][i].numpy(),
                "mask": s.action_masks[i].numpy(),
                "adv": float(s.advantages[i]),
                "ret": float(s.returns[i]),
                "logp": float(s.old_log_prob[i]),
                "v": float(s.old_values[i]),
            }
    return out


def test_minibatches_hold_the_same_samples_as_sb3s_buffer() -> None:
    from sb3_contrib.common.maskable.buffers import MaskableDictRolloutBuffer

    _, fast = ppo_classes()
    want = _by_action(list(_filled(MaskableDictRolloutBuffer).get(5)))  # type: ignore[attr-defined]
    got_batches = list(_filled(fast).get(5))  # type: ignore[attr-defined]
    got = _by_action(got_batches)
    assert sorted(got) == sorted(want) == list(range(12))
    for a, w in want.items():
        for k, v in w.items():
            assert np.array_equal(got[a][k], v), (a, k)
    assert [len(b.actions) for b in got_batches] == [5, 5, 2]
    assert got_batches[0].observations["planes"].dtype == th.uint8  # the planes stay bytes


def test_rollouts_run_in_inference_mode_and_updates_still_learn(tmp_path: Path) -> None:
    from training.config import TrainConfig
    from training.model import build_model, build_vec_env

    cfg = TrainConfig(n_envs=2, vec_env="dummy", opponents={"random": 1.0})
    cfg.policy.cnn_dim, cfg.policy.channels, cfg.policy.spatial, cfg.policy.net_arch = 16, 4, 2, [8]
    cfg.ppo.n_steps, cfg.ppo.batch_size, cfg.ppo.n_epochs = 16, 16, 1
    env = build_vec_env(cfg, "french", [])
    model = build_model(cfg, env, tmp_path / "tb", 0)
    seen = []
    policy_forward = model.policy.forward

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(th.is_inference_mode_enabled())
        return policy_forward(*args, **kwargs)

    model.policy.forward = spy
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(total_timesteps=32)
    env.close()
    assert seen and all(seen)
    assert any(not th.equal(a, b) for a, b in zip(before, model.policy.parameters(), strict=True))


def test_update_reads_the_rollouts_log_probs_and_values(tmp_path: Path) -> None:
    """Before any gradient step the update must see exactly what the rollout saw: its minibatches carry the
    planes' non-zero entries instead of the planes (HexFeatures), renumbered per minibatch, so a slip there
    would make every PPO ratio wrong while the losses still look like learning."""
    from training.config import TrainConfig
    from training.model import build_model, build_vec_env

    cfg = TrainConfig(n_envs=3, vec_env="dummy", opponents={"random": 1.0})
    cfg.policy.cnn_dim, cfg.policy.channels, cfg.policy.spatial, cfg.policy.net_arch = 16, 4, 2, [8]
    cfg.ppo.n_steps, cfg.ppo.batch_size, cfg.ppo.n_epochs = 24, 20, 1
    env = build_vec_env(cfg, "french", [])
    model = build_model(cfg, env, tmp_path / "tb", 0)
    assert model.rollout_buffer.planes_reader is not None  # the sparse path is the one under test
    model._setup_learn(cfg.ppo.n_steps * cfg.n_envs, None)
    model.collect_rollouts(
        model.env, model._init_callback(None), model.rollout_buffer, cfg.ppo.n_steps, use_masking=True
    )
    env.close()
    seen = 0
    with th.no_grad():
        for s in model.rollout_buffer.get(cfg.ppo.batch_size):
            assert "planes" not in s.observations
            values, logp, _ = model.policy.evaluate_actions(
                s.observations, s.actions.flatten(), action_masks=s.action_masks
            )
            assert th.allclose(logp, s.old_log_prob, atol=1e-5)
            assert th.allclose(values.flatten(), s.old_values, atol=1e-5)
            seen += len(s.actions)
    assert seen == cfg.ppo.n_steps * cfg.n_envs
