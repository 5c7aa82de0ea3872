"""Imitation warm start (training/imitation.py): labels, DAgger mixing, returns, fitting."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from ffo_env.ffo.core.actions import Special  # noqa: E402
from ffo_env.ffo.core.game import Game  # noqa: E402
from training.config import TrainConfig  # noqa: E402
from training.imitation import CollectJob, Dataset, agreement, collect, fit  # noqa: E402


def _job(**kw: object) -> CollectJob:
    base = dict(
        side="german",
        teacher="pass",
        opponents={"random": 1.0},
        snapshots=[],
        setup="random",
        reward="win",
        max_steps=3000,
        gamma=1.0,
        decisions=120,
        seed=11,
        student=None,
        beta=1.0,
    )
    base.update(kw)
    return CollectJob(**base)  # type: ignore[arg-type]


def _model(tmp_path: Path) -> object:
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.envs import make_env_fn
    from training.model import build_model
    from training.opponents import OpponentPool

    cfg = TrainConfig(n_envs=1, vec_env="dummy")
    cfg.policy.cnn_dim, cfg.policy.channels, cfg.policy.net_arch = 32, 8, [32]
    env = DummyVecEnv([make_env_fn(cfg, "german", OpponentPool("french", {"random": 1.0}), 0)])
    return build_model(cfg, env, tmp_path / "tb", 0)


def test_collect_labels_each_decision_with_the_teachers_choice() -> None:
    pass_action = Game().layout.special(Special.PASS)
    d = collect(_job())
    assert len(d["action"]) == 120
    for mask, a in zip(d["mask"], d["action"], strict=True):
        assert mask[a], "the label is a legal action of the recorded mask"
        # the pass bot: PASS when legal, else the first legal action (or staying put, a hex)
        assert a == pass_action if mask[pass_action] else (a == np.flatnonzero(mask)[0] or a < 1530)


def test_collect_returns_are_the_discounted_game_result() -> None:
    d = collect(_job(decisions=1500))
    done = d["has_return"]
    assert done.any() and not done.all(), "the game cut by the budget has no return"
    # reward "win", gamma 1: every decision of a finished game returns the result, +1 or -1
    assert set(np.unique(d["ret"][done])) <= {-1.0, 1.0}
    assert (d["ret"][~done] == 0).all()
    assert d["games"][0] >= 1


def test_collect_keep_fraction_spreads_the_budget_over_more_games() -> None:
    full = collect(_job(decisions=400))
    sparse = collect(_job(decisions=400, keep=0.25))
    assert len(sparse["action"]) == 400
    assert sparse["games"][0] >= 2 * full["games"][0], (full["games"], sparse["games"])
    assert all(m[a] for m, a in zip(sparse["mask"], sparse["action"], strict=True))
    done = sparse["has_return"]
    assert done.any() and set(np.unique(sparse["ret"][done])) <= {-1.0, 1.0}  # win reward, gamma 1


def test_dagger_plays_the_students_moves_and_keeps_the_teachers_labels(tmp_path: Path) -> None:
    from agents.ffo.policy import export_policy

    pass_action = Game().layout.special(Special.PASS)
    student = export_policy(_model(tmp_path), tmp_path / "student.pt", side="german")
    teacher_only = collect(_job(decisions=300))
    mixed = collect(_job(decisions=300, student=str(student), beta=0.0))
    # the same seed, but the untrained student moves elsewhere than the pass bot: other positions
    assert not np.array_equal(teacher_only["planes"], mixed["planes"])
    for mask, a in zip(mixed["mask"], mixed["action"], strict=True):
        assert a == pass_action if mask[pass_action] else (a == np.flatnonzero(mask)[0] or a < 1530)


def test_dataset_batches_gather_across_parts_in_index_order() -> None:
    ds = Dataset()
    ds.add({"action": np.array([0, 1, 2]), "x": np.array([10, 11, 12]), "games": np.zeros(3)})
    ds.add({"action": np.array([3, 4]), "x": np.array([13, 14])})
    b = ds.batch(np.array([4, 0, 3, 2]))
    assert ds.n == 5 and "games" not in b
    assert b["action"].tolist() == [0, 2, 3, 4] and b["x"].tolist() == [10, 12, 13, 14]


def test_fit_brings_the_policy_to_the_teachers_choices(tmp_path: Path) -> None:
    model = _model(tmp_path)
    ds = Dataset()
    ds.add(collect(_job(teacher="heuristic", decisions=96)))
    idx = np.arange(ds.n)
    before = agreement(model.policy, ds, idx)["all"]  # type: ignore[attr-defined]
    losses = fit(
        model.policy,
        ds,
        idx,
        epochs=40,
        batch_size=32,
        lr=2e-3,
        value_coef=0.5,
        seed=0,  # type: ignore[attr-defined]
        progress=False,
    )
    after = agreement(model.policy, ds, idx)["all"]  # type: ignore[attr-defined]
    # a sign error or a misaligned label would leave it at chance (~0.2)
    assert after >= max(0.6, before + 0.4), (before, after, losses)


def test_imitation_speed_figure_fits_real_teacher_decisions() -> None:
    from training.imitation import measure_imitation_speed

    r = measure_imitation_speed(seconds=0.1, decisions=64)
    assert r["samples"] >= 64 and r["samples_per_s"] > 0 and r["batch_size"] == 64
    assert r["config"].endswith("train_quick.yaml")
