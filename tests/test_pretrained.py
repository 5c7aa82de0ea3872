"""The pretrained policies shipped in agents/ffo/pretrained_policies/: agent name ``pretrained``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from conftest import play_aec, play_single  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.ffo.policy import PolicyAgent, PolicyLoadError  # noqa: E402
from agents.ffo.pretrained import PRETRAINED_DIR, load_pretrained, pretrained_metadata  # noqa: E402
from ffo_env.cli import main as ffo  # noqa: E402

SIDES = ("french", "german")


@pytest.mark.parametrize("side", SIDES)
def test_pretrained_resolves_to_the_shipped_policy_of_the_side(side: str) -> None:
    agent = make_agent("pretrained", side, seed=1)
    assert isinstance(agent, PolicyAgent)
    assert agent.side == side and agent.name == "pretrained"


@pytest.mark.parametrize("side", SIDES)
def test_shipped_policy_files_are_small_weights_only_and_documented(side: str) -> None:
    import torch

    pt = PRETRAINED_DIR / f"{side}.pt"
    assert 0 < pt.stat().st_size <= 10 * 1024 * 1024
    state = torch.load(pt, weights_only=True)  # raises on anything but tensors and containers
    assert all(isinstance(v, torch.Tensor) for v in state.values())
    release = pretrained_metadata(side)["extra"]["release"]
    assert "train_release.yaml" in release["command"]
    assert release["config"]["seed"] == release["seed"]
    assert release["train_seconds"] > 0
    opponents = {r["opponent"] for r in release["evaluation"]}
    assert {"random", "heuristic"} <= opponents
    for row in release["evaluation"]:
        assert row["games"] >= 200  # the tournament size
        lo, hi = row["wilson95"]
        assert lo <= row["win_rate"] <= hi
    assert (PRETRAINED_DIR / "MODEL_CARD.md").read_text().startswith("# Pretrained policies")


def test_shipped_policies_beat_random() -> None:
    """Each side wins a majority of 10 seeded games against ``random`` (the model card: French 200/200,
    German 196/200 over 200 games each)."""
    from agents.harness import run_tournament

    summary = run_tournament(
        pairings=[("pretrained", "random"), ("random", "pretrained")],
        games=10,
        seed=2024,
        workers=1,
        progress=False,
    )
    french, german = summary["pairings"]
    assert french["french_wins"] >= 6, french
    assert german["german_wins"] >= 6, german


def test_pretrained_plays_in_ffo_play_and_ffo_eval(tmp_path: Path) -> None:
    assert ffo(["play", "--french", "pretrained", "--german", "pretrained", "--seed", "3"]) == 0
    out = tmp_path / "eval"
    assert (
        ffo(
            [
                "eval",
                "--pairings",
                "pretrained:heuristic",
                "--games",
                "1",
                "--out",
                str(out),
                "--workers",
                "1",
            ]
        )
        == 0
    )
    assert json.loads((out / "results.json").read_text())["pairings"][0]["french"] == "pretrained"


def test_pretrained_in_the_aec_loop_and_as_the_wrappers_opponent() -> None:
    from agents.gym_entry import make_single_agent_env

    assert play_aec({s: make_agent("pretrained", s, seed=0) for s in SIDES}, seed=5, max_steps=300) > 0
    assert play_single(make_single_agent_env(side="french", opponent="pretrained"), seed=0, max_steps=400) > 1


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("data_version", "reconstruction-v0", "game data"),
        ("engine", "0.0.0", "rules engine"),
        ("observation_spec_hash", "0000000000000000", "observation spec"),
    ],
)
def test_a_mismatched_pretrained_policy_is_refused_with_what_to_do(
    tmp_path: Path, field: str, value: str, message: str
) -> None:
    for suffix in (".pt", ".json"):
        shutil.copy(PRETRAINED_DIR / f"german{suffix}", tmp_path / f"german{suffix}")
    meta = json.loads((tmp_path / "german.json").read_text())
    meta[field] = value
    (tmp_path / "german.json").write_text(json.dumps(meta))
    with pytest.raises(PolicyLoadError, match=message) as err:
        load_pretrained("german", directory=tmp_path)
    assert "train_release.yaml" in str(err.value) and "ffo release" in str(err.value)


def test_a_missing_pretrained_policy_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(PolicyLoadError, match="no pretrained french policy") as err:
        load_pretrained("french", directory=tmp_path)
    assert "ffo release" in str(err.value)


def test_a_pretrained_file_of_the_other_side_is_refused(tmp_path: Path) -> None:
    for suffix in (".pt", ".json"):
        shutil.copy(PRETRAINED_DIR / f"german{suffix}", tmp_path / f"french{suffix}")
    with pytest.raises(PolicyLoadError, match="holds a german policy"):
        load_pretrained("french", directory=tmp_path)


@pytest.mark.parametrize("threads", [1, 2, None])
def test_policy_inference_runs_on_its_threads_and_restores_the_process_setting(threads: int | None) -> None:
    """A policy agent's forward pass runs on ``threads`` torch threads; the process's setting is back after."""
    import torch

    from ffo_env.ffo.env import make_game

    agent = load_pretrained("german", threads=threads)
    seen: list[int] = []
    forward = agent.policy.get_distribution

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(torch.get_num_threads())
        return forward(*args, **kwargs)

    agent.policy.get_distribution = spy
    before = torch.get_num_threads()
    torch.set_num_threads(3)
    try:
        state = make_game("fixed").new_initial_state(5)
        while state.current_agent != "german":
            state.apply_action(state.legal_actions()[0])
        action = agent.act_state(state)
        assert action in state.legal_actions()
        assert seen == [3 if threads is None else threads]
        assert torch.get_num_threads() == 3
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("threads", [0, -1, 1.5, True, "2"])
def test_a_bad_thread_count_is_refused(threads: object) -> None:
    with pytest.raises(ValueError, match="threads must be an integer >= 1 or None"):
        load_pretrained("french", threads=threads)  # type: ignore[arg-type]


def test_policy_agent_plays_what_sb3s_predict_plays() -> None:
    """``PolicyAgent.act`` is ``predict(deterministic=True)`` without its per-call overhead (agents/ffo/policy.py):
    the same action at every position of a heuristic game, for both sides."""
    from agents.registry import make_agent
    from ffo_env.ffo.encoding.observation import encoder_for
    from ffo_env.ffo.env import make_game

    agents = {s: load_pretrained(s) for s in ("french", "german")}
    bots = {s: make_agent("heuristic", s, seed=2) for s in ("french", "german")}
    state = make_game("random").new_initial_state(21)
    checked = 0
    while not state.is_terminal() and checked < 60:
        side = state.current_agent
        legal = state.legal_actions()
        if len(legal) > 1:
            enc = encoder_for(state.game)
            obs = enc.encode(state, 0 if side == "french" else 1, legal=legal)
            mask = enc.mask(state, legal)
            want, _ = agents[side].policy.predict(obs, action_masks=mask, deterministic=True)
            assert agents[side].act(obs, mask) == int(want)
            checked += 1
        state.apply_action(bots[side].act_state(state))
    assert checked == 60
