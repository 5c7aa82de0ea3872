"""The ladder's ratings (Bradley-Terry per agent and side, Laplace intervals) and ``ffo ladder``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.ladder import ELO, fit_ratings
from ffo_env.cli import main as ffo


def _expected_results(true: dict[str, float], games: int) -> list[tuple[str, str, int, int]]:
    rows = []
    for f in [k for k in true if k.endswith("@french")]:
        for g in [k for k in true if k.endswith("@german")]:
            p = 1.0 / (1.0 + 10 ** ((true[g] - true[f]) / 400))
            rows.append((f.split("@")[0], g.split("@")[0], round(games * p), games))
    return rows


def test_fit_recovers_known_ratings_and_their_order() -> None:
    true = {
        "random@french": 200.0,
        "a@french": 500.0,
        "b@french": 900.0,
        "random@german": 0.0,
        "a@german": 300.0,
        "b@german": 650.0,
    }
    fitted = fit_ratings(_expected_results(true, 20_000))
    centre = sum(true.values()) / len(true)
    for k, v in true.items():
        mid, lo, hi = fitted[k]
        assert abs(mid - (v - centre)) < 10, (k, mid, v - centre)
        assert lo <= v - centre <= hi


def test_ratings_are_centred_and_intervals_widen_with_fewer_games() -> None:
    true = {"random@french": 100.0, "x@french": 400.0, "random@german": 0.0, "x@german": 250.0}
    many = fit_ratings(_expected_results(true, 5_000))
    few = fit_ratings(_expected_results(true, 50))
    assert sum(v[0] for v in many.values()) == pytest.approx(0.0, abs=1e-6)
    width = lambda r, k: r[k][2] - r[k][1]  # noqa: E731
    assert width(few, "x@french") > 3 * width(many, "x@french")


def test_a_clean_sweep_gives_a_finite_rating_with_a_wide_interval() -> None:
    fitted = fit_ratings([("strong", "random", 200, 200), ("random", "random", 100, 200)])
    mid, lo, hi = fitted["strong@french"]
    assert np.isfinite([mid, lo, hi]).all() and mid > fitted["random@french"][0] + 400
    assert hi - lo > 200


def test_one_elo_is_the_logistic_scale() -> None:
    assert ELO == pytest.approx(400 / np.log(10))


def test_ffo_ladder_writes_a_table_and_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ladder"
    args = ["ladder", "--agents", "random,pass,heuristic", "--games", "2", "--workers", "1", "--no-progress"]
    assert ffo([*args, "--out", str(out)]) == 0
    table = capsys.readouterr().out
    assert "| `heuristic` |" in table and "| `pass` |" in table
    doc = json.loads((out / "ladder.json").read_text())
    assert {r["agent"] for r in doc["ratings"]} == {"random", "pass", "heuristic"}
    assert doc["config"]["data_version"] and doc["config"]["engine"]
    assert len(json.loads((out / "results.json").read_text())["pairings"]) == 9
    assert (out / "ladder.md").read_text().startswith("Ladder: 2 games per pairing")
    (out / "ladder.md").unlink()
    assert ffo(["ladder", "--resume", str(out), "--workers", "1", "--no-progress"]) == 0
    assert (out / "ladder.md").exists()


def _games(out: Path) -> dict[tuple[str, str, int], dict[str, object]]:
    rows = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    return {(str(r["french"]), str(r["german"]), int(r["game"])): r for r in rows}


def test_ffo_ladder_add_joins_an_agent_and_plays_only_its_pairings(tmp_path: Path) -> None:
    """``--resume DIR --add heuristic`` keeps the two-agent ladder's games as they were played (not again) and
    plays the new pairings: the result is the three-agent ladder's, game for game."""
    small, fresh = tmp_path / "small", tmp_path / "fresh"
    run = ["--games", "2", "--workers", "1", "--no-progress"]
    assert ffo(["ladder", "--agents", "random,pass", *run, "--out", str(small)]) == 0
    before = _games(small)
    assert len(before) == 8
    assert (
        ffo(["ladder", "--resume", str(small), "--add", "heuristic", "--workers", "1", "--no-progress"]) == 0
    )
    after = _games(small)
    assert len(after) == 18
    for key, row in before.items():  # the same row, seconds included: kept, not replayed
        assert after[key] == {**row, "pairing": after[key]["pairing"]}
    assert ffo(["ladder", "--agents", "random,pass,heuristic", *run, "--out", str(fresh)]) == 0
    rerun = _games(fresh)
    assert set(rerun) == set(after)
    for key, row in rerun.items():
        assert {**after[key], "seconds": 0} == {**row, "seconds": 0}
    grown = json.loads((small / "ladder.json").read_text())
    assert {r["agent"] for r in grown["ratings"]} == {"random", "pass", "heuristic"}
    assert grown["ratings"] == json.loads((fresh / "ladder.json").read_text())["ratings"]


def test_a_ladder_whose_log_still_has_the_old_pairing_numbers_resumes_right(tmp_path: Path) -> None:
    """A kill between the new plan and the renumbered log: the rows are matched to pairings by their agents."""
    from agents import harness

    out = tmp_path / "ladder"
    assert (
        ffo(
            [
                "ladder",
                "--agents",
                "random,pass",
                "--games",
                "1",
                "--workers",
                "1",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    log = (out / "games.jsonl").read_text()
    harness.extend_tournament(out, harness.round_robin(["random", "pass", "heuristic"]))
    (out / "games.jsonl").write_text(log)  # as if killed before the log was rewritten
    assert ffo(["ladder", "--resume", str(out), "--workers", "1", "--no-progress"]) == 0
    games = _games(out)
    assert len(games) == 9
    plan = json.loads((out / "tournament.json").read_text())
    results = json.loads((out / "results.json").read_text())
    for p, pairing in enumerate(results["pairings"]):
        assert [pairing["french"], pairing["german"]] == plan["pairings"][p]
        assert pairing["games"] == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["ladder", "--agents", "random,pass", "--add", "heuristic"],
        ["ladder", "--agents", "random"],
        ["ladder", "--agents", "random,random"],
        ["ladder", "--agents", "random,nosuch"],
        ["ladder", "--games", "0"],
        ["ladder", "--resume", "/no/such/ladder"],
        ["ladder", "--agents", "french_heuristic,french_expert"],
        ["eval", "--agents", "german_heuristic,german_expert", "--games", "1"],
    ],
)
def test_bad_ladder_command_lines_are_one_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert ffo(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "Traceback" not in err


def test_a_one_side_agent_plays_only_its_side_in_a_ladder(tmp_path: Path) -> None:
    """A policy file and a one-side bot join a ladder on their own side only (a ladder once asked the French
    policy to play German and stopped), with no rating for the side they do not play; resume and --add work."""
    from agents.ffo.pretrained import pretrained_path

    german = f"policy:{pretrained_path('german')}"
    out = tmp_path / "ladder"
    run = ["--games", "1", "--workers", "1", "--no-progress"]
    assert ffo(["ladder", "--agents", f"random,french_heuristic,{german}", *run, "--out", str(out)]) == 0
    pairs = {(f, g) for f, g, _ in _games(out)}
    assert pairs == {("random", "random"), ("random", german), ("french_heuristic", "random"),
                     ("french_heuristic", german)}  # fmt: skip
    ratings = {r["agent"]: r for r in json.loads((out / "ladder.json").read_text())["ratings"]}
    assert (
        ratings["french_heuristic"]["german_elo"] is None
        and ratings["french_heuristic"]["french_elo"] is not None
    )
    assert ratings[german]["french_elo"] is None and ratings[german]["german_elo"] is not None
    assert ffo(["ladder", "--resume", str(out), "--workers", "1", "--no-progress"]) == 0
    assert (
        ffo(["ladder", "--resume", str(out), "--add", "german_heuristic", "--workers", "1", "--no-progress"])
        == 0
    )
    pairs = {(f, g) for f, g, _ in _games(out)}
    assert (
        len(pairs) == 6
        and ("random", "german_heuristic") in pairs
        and ("german_heuristic", "random") not in pairs
    )


def test_a_one_side_bot_of_france1940_plays_only_its_side_in_a_ladder(tmp_path: Path) -> None:
    """The round robin asks the ladder's game which sides a bot plays: France 1940's German-only
    ``expert-attack`` (unknown to France Fights On) once made the ladder ask it to play the Allies and stop."""
    from agents import harness

    assert harness.round_robin(["random", "expert-attack"], "france1940") == [
        ("random", "random"),
        ("random", "expert-attack"),
    ]
    with pytest.raises(ValueError, match="no agent plays the french side"):
        harness.check_both_sides_played(["expert-attack"], "--agents", "france1940")
    out = tmp_path / "ladder"
    run = ["--game", "france1940", "--games", "1", "--workers", "1", "--no-progress"]
    assert ffo(["ladder", "--agents", "random,expert-attack", *run, "--out", str(out)]) == 0
    assert {(f, g) for f, g, _ in _games(out)} == {("random", "random"), ("random", "expert-attack")}
    assert (
        ffo(["ladder", "--game", "france1940", "--resume", str(out), "--workers", "1", "--no-progress"]) == 0
    )
