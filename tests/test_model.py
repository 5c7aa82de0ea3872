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


def _rollout_model(tmp_path: Path, n_epochs: int = 2) -> object:
    """A tiny model with one rollout collected (3 envs x 24 steps, minibatches of 24)."""
    from training.config import TrainConfig
    from training.model import build_model, build_vec_env

    cfg = TrainConfig(n_envs=3, vec_env="dummy", opponents={"random": 1.0})
    cfg.policy.cnn_dim, cfg.policy.channels, cfg.policy.spatial, cfg.policy.net_arch = 16, 4, 2, [8]
    cfg.ppo.n_steps, cfg.ppo.batch_size, cfg.ppo.n_epochs = 24, 24, n_epochs
    cfg.ppo.learning_rate = 1e-2  # large steps: the anchored and plain updates must visibly differ
    env = build_vec_env(cfg, "french", [])
    model = build_model(cfg, env, tmp_path / "tb", 0)
    model._setup_learn(cfg.ppo.n_steps * cfg.n_envs, None)
    model.collect_rollouts(
        model.env, model._init_callback(None), model.rollout_buffer, cfg.ppo.n_steps, use_masking=True
    )
    env.close()
    return model


def _params_after(model: object, update: object, state: dict, opt: dict) -> list[th.Tensor]:
    import copy

    model.policy.load_state_dict(state)  # type: ignore[attr-defined]
    model.policy.optimizer.load_state_dict(copy.deepcopy(opt))  # type: ignore[attr-defined]
    np.random.seed(11)  # the minibatch permutation
    update(model)  # type: ignore[operator]
    return [p.detach().clone() for p in model.policy.parameters()]  # type: ignore[attr-defined]


def test_anchored_update_with_weight_0_is_sb3_contribs_update(tmp_path: Path) -> None:
    """``ppo_update`` copies sb3-contrib's ``MaskablePPO.train`` to add one loss term: with
    ``anchor_kl = 0`` it must step the weights exactly as the library does (this fails if the library's
    update changes under it)."""
    import copy

    from sb3_contrib import MaskablePPO

    from training.model import ppo_update

    model = _rollout_model(tmp_path)
    state = copy.deepcopy(model.policy.state_dict())  # type: ignore[attr-defined]
    opt = copy.deepcopy(model.policy.optimizer.state_dict())  # type: ignore[attr-defined]
    model.set_anchor()  # type: ignore[attr-defined]
    model.anchor_kl = 0.0  # type: ignore[attr-defined]
    ours = _params_after(model, ppo_update, state, opt)
    theirs = _params_after(model, MaskablePPO.train, state, opt)
    assert all(th.allclose(a, b, atol=1e-6) for a, b in zip(ours, theirs, strict=True))
    assert any(not th.equal(a, b) for a, b in zip(ours, state.values(), strict=False))


def test_decoupled_update_with_the_sampling_policy_as_proximal_is_sb3_contribs_update(tmp_path: Path) -> None:
    """ppo.proximal's update: with the proximal policy equal to the sampling one (weight exp(0) = 1) it steps
    the weights exactly as the library's PPO; with other sampling log-probabilities it steps them otherwise."""
    import copy

    from sb3_contrib import MaskablePPO

    from training.model import ppo_update

    model = _rollout_model(tmp_path)
    state = copy.deepcopy(model.policy.state_dict())  # type: ignore[attr-defined]
    opt = copy.deepcopy(model.policy.optimizer.state_dict())  # type: ignore[attr-defined]
    buf = model.rollout_buffer  # type: ignore[attr-defined]
    theirs = _params_after(model, MaskablePPO.train, state, opt)
    buf.behaviour_log_probs = buf.log_probs.copy()
    ours = _params_after(model, ppo_update, state, opt)
    assert all(th.allclose(a, b, atol=1e-6) for a, b in zip(ours, theirs, strict=True))
    buf.behaviour_log_probs = buf.log_probs - 0.5 * np.random.default_rng(0).random(buf.log_probs.shape)
    weighted = _params_after(model, ppo_update, state, opt)
    assert any(not th.allclose(a, b, atol=1e-6) for a, b in zip(weighted, theirs, strict=True))


def test_anchor_kl_holds_the_policy_near_where_it_started(tmp_path: Path) -> None:
    """ppo.anchor_kl: the KL to the anchor is 0 before the first step (the anchor is the starting policy)
    and the anchored update ends nearer the anchor than the plain one on the same rollout."""
    import copy

    from training.model import legal_kl, ppo_update

    model = _rollout_model(tmp_path, n_epochs=4)
    state = copy.deepcopy(model.policy.state_dict())  # type: ignore[attr-defined]
    opt = copy.deepcopy(model.policy.optimizer.state_dict())  # type: ignore[attr-defined]
    model.set_anchor()  # type: ignore[attr-defined]

    def kl_to_anchor() -> float:
        from agents.ffo.network import LegalCategorical

        total, n = 0.0, 0
        with th.no_grad():
            for s in model.rollout_buffer.get(24):  # type: ignore[attr-defined]
                dists = []
                for pol in (model.policy, model.anchor):  # type: ignore[attr-defined]
                    feats = pol.extract_features(s.observations)
                    dists.append(
                        LegalCategorical(
                            pol.action_net(pol.mlp_extractor.forward_actor(feats)), s.action_masks
                        )
                    )
                kl = legal_kl(dists[0], dists[1])
                total, n = total + float(kl.sum()), n + len(kl)
        return total / n

    assert kl_to_anchor() == pytest.approx(0.0, abs=1e-7)
    model.anchor_kl = 0.0  # type: ignore[attr-defined]
    _params_after(model, ppo_update, state, opt)
    free = kl_to_anchor()
    model.anchor_kl = 50.0  # type: ignore[attr-defined]
    _params_after(model, ppo_update, state, opt)
    held = kl_to_anchor()
    assert free > 0 and held < 0.5 * free
    assert "train/anchor_kl" in model.logger.name_to_value  # type: ignore[attr-defined]
