"""The RL campaign's training paths (issue 60): the critic warm-up, kickstarting from a scripted teacher, and
``ffo train`` with a ``curve:`` section, which trains round by round and resumes to the same curve."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch as th  # noqa: E402

from training.config import ConfigError, TrainConfig, load_config  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _tiny(**kw: object) -> TrainConfig:
    cfg = TrainConfig(n_envs=2, vec_env="dummy", opponents={"random": 1.0}, **kw)  # type: ignore[arg-type]
    cfg.policy.cnn_dim, cfg.policy.channels, cfg.policy.spatial, cfg.policy.net_arch = 16, 4, 2, [8]
    cfg.ppo.n_steps, cfg.ppo.batch_size, cfg.ppo.n_epochs = 16, 16, 2
    cfg.ppo.learning_rate = 1e-2
    return cfg


def _rollout(cfg: TrainConfig, tmp_path: Path, side: str = "german") -> object:
    from training.model import build_model, build_vec_env

    env = build_vec_env(cfg, side, [])
    model = build_model(cfg, env, tmp_path / "tb", 0)
    model._setup_learn(cfg.ppo.n_steps * cfg.n_envs, None)
    model.collect_rollouts(
        model.env, model._init_callback(None), model.rollout_buffer, cfg.ppo.n_steps, use_masking=True
    )
    env.close()
    return model


def test_critic_warmup_fits_the_critic_and_leaves_every_policy_weight_as_it_was(tmp_path: Path) -> None:
    cfg = _tiny()
    cfg.ppo.critic_warmup = 1
    model = _rollout(cfg, tmp_path)
    policy = model.policy  # type: ignore[attr-defined]
    critic = {
        n for n, _ in policy.named_parameters() if n.startswith(("value_net.", "mlp_extractor.value_body."))
    }
    assert critic
    before = {n: p.detach().clone() for n, p in policy.named_parameters()}
    from training.critic_warmup import in_critic_warmup, rollouts_before

    assert rollouts_before(model) == 0 and in_critic_warmup(model)
    model.train()  # type: ignore[attr-defined]
    after = dict(policy.named_parameters())
    assert all(th.equal(before[n], after[n]) for n in before if n not in critic)
    assert any(not th.equal(before[n], after[n]) for n in critic)
    model.num_timesteps += cfg.ppo.n_steps * cfg.n_envs  # type: ignore[attr-defined]
    assert not in_critic_warmup(model)  # the second rollout is a PPO update
    state = copy.deepcopy(policy.state_dict())
    model.train()  # type: ignore[attr-defined]
    moved = dict(policy.named_parameters())
    assert any(not th.equal(state[n], moved[n]) for n in state if n not in critic and n in moved)


def test_critic_warmup_of_a_games_mlp_fits_its_critic_alone(tmp_path: Path) -> None:
    """France 1940's network (sb3's MlpPolicy over the compact observation) has a critic body of its own: the
    warm-up fits it and leaves every weight the policy uses as it was, as for the hex network (it was refused
    for every MLP, so a run from an imitation policy took its first PPO steps on the imitation's critic)."""
    overrides = {
        "ppo.critic_warmup": 1,
        "ppo.n_steps": 16,
        "ppo.batch_size": 16,
        "ppo.learning_rate": 1e-2,
        "opponents": {"random": 1.0},
        "policy.net_arch": [8],
    }
    cfg = load_config(ROOT / "configs" / "france1940" / "campaign_french.yaml", overrides)
    model = _rollout(cfg, tmp_path, side="french")
    policy = model.policy  # type: ignore[attr-defined]
    critic = {
        n for n, _ in policy.named_parameters() if n.startswith(("value_net.", "mlp_extractor.value_net."))
    }
    assert critic and len(critic) < len(dict(policy.named_parameters()))
    before = {n: p.detach().clone() for n, p in policy.named_parameters()}
    from training.critic_warmup import in_critic_warmup

    assert in_critic_warmup(model)
    model.train()  # type: ignore[attr-defined]
    after = dict(policy.named_parameters())
    assert all(th.equal(before[n], after[n]) for n in before if n not in critic)
    assert all(not th.equal(before[n], after[n]) for n in critic)
    model.num_timesteps += cfg.ppo.n_steps * cfg.n_envs  # type: ignore[attr-defined]
    assert not in_critic_warmup(model)
    model.train()  # type: ignore[attr-defined]
    assert any(not th.equal(before[n], p) for n, p in policy.named_parameters() if n not in critic)


def test_critic_warmup_is_refused_where_the_critic_shares_the_policys_weights() -> None:
    """France Fights On's network without the spatial head: its critic reads features the policy trains."""
    with pytest.raises(ConfigError, match=r"ppo\.critic_warmup: expected 0 with .*shares weights"):
        load_config(
            ROOT / "configs" / "campaign.yaml", {"policy.spatial": 0, "ppo.anchor_kl": 0, "init_policy": {}}
        )


def test_teacher_labels_in_the_buffer_are_the_teachers_moves_at_the_observations_acted_on(
    tmp_path: Path,
) -> None:
    """The buffer's label of row t is what the teacher answered at the observation the learner acted on in
    step t (a slip of one step would label every decision with the next one's move), every label is legal
    there, and asking the teacher changes nothing in the games (same rewards and observations)."""
    from training.envs import build_local_vec_env

    cfg = _tiny()
    cfg.ppo.teacher, cfg.ppo.teacher_coef = "heuristic", 1.0
    model = _rollout(cfg, tmp_path)
    buf = model.rollout_buffer  # type: ignore[attr-defined]
    labels = buf.teacher_actions.reshape(cfg.ppo.n_steps, cfg.n_envs)
    actions = buf.actions.reshape(cfg.ppo.n_steps, cfg.n_envs).astype(np.int64)
    masks = buf.action_masks.reshape(cfg.ppo.n_steps, cfg.n_envs, -1)
    assert (labels >= 0).all()
    assert all(masks[t, e, labels[t, e]] for t in range(cfg.ppo.n_steps) for e in range(cfg.n_envs))
    labelled = build_local_vec_env(cfg, "german", [])
    plain = build_local_vec_env(replace(cfg, ppo=replace(cfg.ppo, teacher_coef=0.0)), "german", [])
    labelled.seed(0)  # as build_model(..., seed=0) seeded the model's envs
    plain.seed(0)
    obs_l, obs_p = labelled.reset(), plain.reset()
    for t in range(cfg.ppo.n_steps):
        assert list(labelled.get_attr("teacher_label")) == labels[t].tolist()
        assert np.array_equal(obs_l["globals"], obs_p["globals"])
        obs_l, r_l, d_l, _ = labelled.step(actions[t])
        obs_p, r_p, d_p, _ = plain.step(actions[t])
        assert np.array_equal(r_l, r_p) and np.array_equal(d_l, d_p)
    labelled.close()
    plain.close()


def test_teacher_loss_is_the_cross_entropy_on_the_labelled_rows() -> None:
    from agents.ffo.network import LegalCategorical
    from training.teacher_labels import teacher_loss

    logits = th.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, 0.0], [3.0, 0.0, 0.0]])
    masks = th.tensor([[True, True, False], [True, True, True], [True, False, True]])
    dist = LegalCategorical(logits, masks)
    ce, agree, share = teacher_loss(dist, th.tensor([1, -1, 2]))
    want = -(th.log_softmax(th.tensor([0.0, 1.0]), 0)[1] + th.log_softmax(th.tensor([3.0, 0.0]), 0)[1]) / 2
    assert float(ce) == pytest.approx(float(want), rel=1e-5)
    assert agree == pytest.approx(0.5) and share == pytest.approx(2 / 3)
    none, _, _ = teacher_loss(dist, th.tensor([-1, -1, -1]))
    assert float(none) == 0.0


def test_kickstarted_update_moves_the_policy_toward_the_teachers_moves(tmp_path: Path) -> None:
    from training.model import ppo_update
    from training.teacher_labels import TEACHER_KEY

    cfg = _tiny()
    cfg.ppo.teacher, cfg.ppo.teacher_coef = "heuristic", 1.0
    model = _rollout(cfg, tmp_path)
    policy = model.policy  # type: ignore[attr-defined]
    state = copy.deepcopy(policy.state_dict())
    opt = copy.deepcopy(policy.optimizer.state_dict())

    def logp_teacher() -> float:
        total = 0.0
        with th.no_grad():
            for s in model.rollout_buffer.get(32):  # type: ignore[attr-defined]
                policy.evaluate_actions(s.observations, s.actions.flatten(), action_masks=s.action_masks)
                total += float(policy.action_dist.distribution.log_prob(s.observations[TEACHER_KEY]).sum())
        return total

    def after(coef: float) -> float:
        policy.load_state_dict(state)
        policy.optimizer.load_state_dict(copy.deepcopy(opt))
        model.teacher_coef = coef  # type: ignore[attr-defined]
        np.random.seed(3)
        ppo_update(model)
        return logp_teacher()

    plain, kicked = after(0.0), after(20.0)
    assert kicked > plain


def _campaign_cfg(rounds: int) -> TrainConfig:
    cfg = _tiny(sides=["german"], rounds=rounds, steps_per_round=32, reward="shaped", max_steps=400)
    cfg.curve.every, cfg.curve.games, cfg.curve.seed, cfg.curve.opponent = 1, 2, 500, "random"
    return cfg


def _final_weights(run: Path) -> dict[str, th.Tensor]:
    return th.load(run / "snapshots" / "german_r1.pt", map_location="cpu", weights_only=True)


def test_a_campaign_resumed_after_its_first_round_reaches_the_same_curve_and_weights(tmp_path: Path) -> None:
    """A run killed inside round 1 has on disk what a run stopped after round 0 has (a campaign writes no
    checkpoint inside a round), so resuming that reaches the uninterrupted run's weights and curve."""
    from training.campaign import round_config, run_campaign
    from training.run_folder import RunFolder
    from training.train import train

    whole = RunFolder(tmp_path / "whole")
    run_campaign(_campaign_cfg(2), whole, train, progress_bar=False)
    split = RunFolder(tmp_path / "split")
    run_campaign(_campaign_cfg(1), split, train, progress_bar=False)
    assert not (split.root / "snapshots" / "german_r1.pt").exists()
    run_campaign(_campaign_cfg(2), split, train, progress_bar=False)
    a, b = _final_weights(whole.root), _final_weights(split.root)
    assert a.keys() == b.keys() and all(th.equal(a[k], b[k]) for k in a)
    curve_a = json.loads((whole.root / "curve" / "curve.json").read_text())["points"]
    curve_b = json.loads((split.root / "curve" / "curve.json").read_text())["points"]
    assert [p["point"] for p in curve_a] == ["r0", "r1"]
    assert curve_a == curve_b
    assert round_config(_campaign_cfg(2), 1).checkpoint_every > 10**12  # no checkpoint inside a round
    rounds = (whole.root / "curve" / "rounds.csv").read_text().splitlines()
    assert rounds[0].startswith("round,side,seconds,decisions,load1") and len(rounds) == 3


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("curve.every", -1, "curve.every"),
        ("curve.opponent", "nobody", "curve.opponent"),
        ("ppo.teacher_coef", 0.5, "ppo.teacher"),
        ("ppo.critic_warmup", -2, "ppo.critic_warmup"),
    ],
)
def test_campaign_config_errors_name_the_key(key: str, value: object, words: str) -> None:
    overrides = {key: value}
    if key == "curve.opponent":
        overrides["curve.every"] = 1
    with pytest.raises(ConfigError, match=words.replace(".", r"\.")):
        load_config(ROOT / "configs" / "ffo" / "train_quick.yaml", overrides)


def test_a_curve_refuses_the_pipelined_envs() -> None:
    with pytest.raises(ConfigError, match="vec_env"):
        load_config(ROOT / "configs" / "ffo" / "train_quick.yaml", {"curve.every": 1, "vec_env": "pipelined"})


TINY = [
    "--set",
    "rounds=1",
    "--set",
    "steps_per_round=32",
    "--set",
    "n_envs=2",
    "--set",
    "ppo.n_steps=16",
    "--set",
    "ppo.batch_size=16",
    "--set",
    "ppo.critic_warmup=1",
    "--set",
    "curve.games=1",
    "--set",
    "curve.opponent=random",
    "--set",
    "opponents={random: 1.0}",
]


def _train(config: str, tmp_path: Path, extra: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    """``ffo train --config CONFIG`` with the tiny budget (and ``extra`` settings), its folder in ``tmp_path``."""
    cmd = [
        sys.executable,
        "-m",
        "ffo_env.cli",
        "train",
        "--config",
        config,
        "--out",
        str(tmp_path),
        "--no-eval",
    ]
    return subprocess.run(
        [*cmd, "--no-progress", *TINY, *(extra or [])],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _smoke(config: str, tmp_path: Path, extra: list[str] | None = None) -> dict[str, object]:
    done = _train(config, tmp_path, extra)
    assert done.returncode == 0, done.stderr[-2000:]
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    return json.loads((run / "curve" / "curve.json").read_text())


def test_the_kickstart_campaign_config_runs_with_a_tiny_budget(tmp_path: Path) -> None:
    curve = _smoke("configs/campaign_kickstart.yaml", tmp_path)
    assert [(p["side"], p["point"]) for p in curve["points"]] == [("german", "start"), ("german", "r0")]  # type: ignore[index]


@pytest.mark.slow
def test_the_campaign_config_runs_with_a_tiny_budget(tmp_path: Path) -> None:
    curve = _smoke("configs/campaign.yaml", tmp_path)
    points = {(p["side"], p["point"]) for p in curve["points"]}  # type: ignore[index]
    assert points == {("german", "start"), ("german", "r0"), ("french", "start"), ("french", "r0")}


def test_a_curve_point_is_paired_with_the_start_on_its_seeds() -> None:
    """Seeds won only at the point / only at the start, the exact sign test on them, the French VP change."""
    from agents.paired import sign_test_p
    from training.campaign import _paired_with_start

    start = {
        s: {"seed": s, "winner": w, "vp": vp}
        for s, w, vp in [(0, "german", 20), (1, "french", 30), (2, "french", 28)]
    }
    point = [
        {"seed": 0, "winner": "french", "vp": 26},  # lost what the start won
        {"seed": 1, "winner": "german", "vp": 22},  # won what the start lost
        {"seed": 2, "winner": "german", "vp": 24},
        {"seed": 9, "winner": "german", "vp": 10},  # no start game on this seed: not paired
    ]
    row = _paired_with_start("german", start, point)
    assert (row["paired_games"], row["after_only"], row["before_only"]) == (3, 2, 1)
    assert row["sign_p"] == round(sign_test_p(2, 1), 4) == 1.0
    assert row["vp_change"] == round((6 - 8 - 4) / 3, 3)
    assert row["vp_change_se"] > 0
    french = _paired_with_start("french", start, point)
    assert (french["after_only"], french["before_only"]) == (1, 2)


def test_a_france1940_campaign_curve_plays_its_own_game_and_measures_the_allied_vp_margin(
    tmp_path: Path,
) -> None:
    """The curve of another game of the suite plays that game (a France 1940 snapshot was once handed to France
    Fights On's harness) and reports that game's figure, paired with the start."""
    curve = _smoke(
        "configs/france1940/campaign_french.yaml",
        tmp_path,
        # the shipped policy's relu units (the config's are tanh); no critic warm-up: an MLP has no such head
        [
            "--set",
            "init_policy={french: pretrained}",
            "--set",
            "policy.activation=relu",
            "--set",
            "ppo.critic_warmup=0",
        ],
    )
    points: list[dict[str, Any]] = curve["points"]  # type: ignore[assignment]
    assert [(p["side"], p["point"]) for p in points] == [("french", "start"), ("french", "r0")]
    start, r0 = points
    assert start["opponent"] == "german random" and isinstance(start["mean_french_vp_margin"], float)
    assert r0["paired_games"] == 1 and isinstance(r0["vp_margin_change"], float)
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    text = (run / "curve" / "curve.md").read_text()
    assert "mean Allied VP margin |" in text and "French VP" not in text


def test_the_france1940_german_campaign_starts_from_dagger_and_its_curve_starts_there(tmp_path: Path) -> None:
    """``configs/france1940/campaign_german.yaml``: DAgger from the German expert, then PPO; the curve's start
    point is the DAgger policy (the snapshot ``german_pretrain``), paired with the rounds on the same seeds."""
    config = "configs/france1940/campaign_german.yaml"
    cfg = load_config(ROOT / config)
    assert (cfg.game, cfg.sides, cfg.pretrain.teacher, cfg.pretrain.sides) == (
        "france1940",
        ["german"],
        "expert",
        ["german"],
    )
    assert cfg.rounds * cfg.steps_per_round >= 2_000_000 and cfg.curve.opponent == "heuristic"
    tiny_pretrain = ["pretrain.decisions=48", "pretrain.iterations=2", "pretrain.opponents={random: 1.0}"]
    extra = ["--set", "ppo.critic_warmup=0"] + [a for kv in tiny_pretrain for a in ("--set", kv)]
    curve = _smoke(config, tmp_path, extra)
    points: list[dict[str, Any]] = curve["points"]  # type: ignore[assignment]
    assert [(p["side"], p["point"]) for p in points] == [("german", "start"), ("german", "r0")]
    assert points[0]["opponent"] == "french random" and points[1]["paired_games"] == 1
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert (run / "snapshots" / "german_pretrain.pt").is_file()


def test_the_untrained_start_point_is_the_network_the_first_round_starts_from(tmp_path: Path) -> None:
    """A side trained from scratch has no start policy; the campaign's start point is the network its round 0
    builds (``_restore`` with no checkpoint): the same weights, and other weights under another seed."""
    from training.campaign import round_config
    from training.run_folder import RunFolder
    from training.train import _probe_env, _restore, export_untrained

    cfg = round_config(load_config(ROOT / "configs" / "france1940" / "campaign_french.yaml"), 0)
    run = RunFolder(tmp_path / "run")
    run.make_folders()

    def weights(seed: int) -> dict[str, th.Tensor]:
        path = tmp_path / f"untrained-{seed}.pt"
        export_untrained(replace(cfg, seed=seed), run, "french", path)
        saved: dict[str, th.Tensor] = th.load(path, map_location="cpu", weights_only=True)
        return saved

    probe = _probe_env(cfg, "french")
    try:
        model = _restore(cfg, "french", probe, run, False, run.new_progress())
    finally:
        probe.close()
    first = model.policy.state_dict()
    exported = weights(cfg.seed)
    assert exported.keys() == first.keys()
    assert all(th.equal(exported[k], first[k]) for k in first)
    other = weights(cfg.seed + 1)
    assert not all(th.equal(other[k], first[k]) for k in first)


def test_a_from_scratch_campaign_curve_starts_at_the_untrained_network(tmp_path: Path) -> None:
    """The France 1940 Allied campaign trains from scratch: its curve's first point plays the untrained
    network (``curve/untrained-french.pt``, in no opponent pool), and round 0 pairs with it."""
    curve = _smoke("configs/france1940/campaign_french.yaml", tmp_path, ["--set", "ppo.critic_warmup=0"])
    points: list[dict[str, Any]] = curve["points"]  # type: ignore[assignment]
    assert [(p["side"], p["point"]) for p in points] == [("french", "start"), ("french", "r0")]
    start, r0 = points
    assert start["snapshot"] == "curve/untrained-french.pt" and start["decisions"] == 0
    assert r0["paired_games"] == 1
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    progress = json.loads((run / "progress.json").read_text())
    assert not any("untrained" in s for snaps in progress["snapshots"].values() for s in snaps)
    # a run of the version before, which had no start point, gains it when it resumes
    first = (run / "curve" / "untrained-french.pt").read_bytes()
    for name in ("untrained-french.pt", "untrained-french.json"):
        (run / "curve" / name).unlink()
    shutil.rmtree(run / "curve" / "start-french")
    resumed = subprocess.run(
        [sys.executable, "-m", "ffo_env.cli", "train", "--resume", str(run), "--no-eval", "--no-progress"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert (run / "curve" / "untrained-french.pt").read_bytes() == first
    again = json.loads((run / "curve" / "curve.json").read_text())["points"]
    assert [(p["side"], p["point"]) for p in again] == [("french", "start"), ("french", "r0")]
    assert again[0]["wins"] == start["wins"] and again[1]["paired_games"] == 1


def test_a_curve_point_is_paired_on_the_games_own_figure() -> None:
    from training.campaign import _paired_with_start, paired_keys

    start = {
        0: {"seed": 0, "winner": "german", "vp_margin": -30},
        1: {"seed": 1, "winner": "french", "vp_margin": 5},
    }
    point = [{"seed": 0, "winner": "french", "vp_margin": 2}, {"seed": 1, "winner": "french", "vp_margin": 9}]
    row = _paired_with_start("french", start, point, "vp_margin")
    assert tuple(row) == paired_keys("vp_margin")
    assert (row["after_only"], row["before_only"], row["vp_margin_change"]) == (1, 0, 18.0)
    unmeasured = [{"seed": 0, "winner": "french", "vp_margin": None}, point[1]]
    assert _paired_with_start("french", start, unmeasured, "vp_margin")["vp_margin_change"] is None


def test_a_curve_opponent_is_an_agent_of_the_configs_game() -> None:
    """France 1940's German-only ``expert-attack`` is a curve opponent of a France 1940 campaign, and France
    Fights On's ``german_expert`` is not (it was checked against France Fights On's agents, and would have
    failed at the first curve point, after a round of training)."""
    config = ROOT / "configs" / "france1940" / "campaign_french.yaml"
    assert load_config(config, {"curve.opponent": "expert-attack"}).curve.opponent == "expert-attack"
    with pytest.raises(ConfigError, match=r"curve\.opponent: expected an agent name of france1940"):
        load_config(config, {"curve.opponent": "german_expert"})


def test_an_init_policy_with_other_units_than_the_config_is_refused(tmp_path: Path) -> None:
    """France 1940's shipped Allied policy has relu units; under the campaign config's tanh units its weights
    would load (the activation is no weight) and compute another function: one error naming the setting."""
    extra = ["--set", "ppo.critic_warmup=0", "--set", "init_policy={french: pretrained}"]
    done = _train("configs/france1940/campaign_french.yaml", tmp_path, extra)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert (
        "init_policy.french: its network has relu units" in done.stderr
        and "policy.activation: relu" in done.stderr
    )


def test_a_sign_test_p_that_rounds_to_zero_reads_as_below_its_precision() -> None:
    """A point that lost every one of 64 discordant seeds has p ~ 1e-19, stored to 4 decimals as 0: the
    curve says p < 0.0001, not p = 0."""
    from agents.paired import sign_test_p
    from training.campaign import _sign_p_text

    assert round(sign_test_p(0, 64), 4) == 0.0
    assert _sign_p_text(round(sign_test_p(0, 64), 4)) == "p < 0.0001"
    assert _sign_p_text(round(sign_test_p(2, 1), 4)) == "p = 1"
    assert _sign_p_text(0.0312) == "p = 0.031"


def test_ppo_normalize_advantage_reaches_the_model_and_takes_only_a_bool(tmp_path: Path) -> None:
    """``ppo.normalize_advantage`` (sb3's; default true) is handed to MaskablePPO, whose update reads it; a value
    that is not a bool is refused naming the key."""
    from training.model import build_model, build_vec_env

    config = ROOT / "configs" / "france1940" / "campaign_german.yaml"
    overrides: dict[str, Any] = {"opponents": {"random": 1.0}, "policy.net_arch": [8], "pretrain.teacher": ""}
    assert load_config(config, overrides).ppo.normalize_advantage is True
    cfg = load_config(config, {**overrides, "ppo.normalize_advantage": False})
    env = build_vec_env(cfg, "german", [])
    try:
        model = build_model(cfg, env, tmp_path / "tb", 0)
    finally:
        env.close()
    assert model.normalize_advantage is False
    with pytest.raises(ConfigError, match=r"ppo\.normalize_advantage"):
        load_config(config, {**overrides, "ppo.normalize_advantage": "no"})
