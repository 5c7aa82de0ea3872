"""``ffo compare``: two agents of one side against one opponent on the same seeds, through the tournament
harness (its journal and resume), summarised by agents.paired."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.compare import compare_from_plan, pairings_of
from ffo_env.cli import main as ffo


def test_pairings_and_their_inverse() -> None:
    assert pairings_of("french", "a", "b", "o") == [("a", "o"), ("b", "o")]
    assert pairings_of("german", "a", "b", "o") == [("o", "a"), ("o", "b")]
    for side in ("french", "german"):
        pairs = [list(p) for p in pairings_of(side, "heuristic", "expert", "heuristic")]
        assert compare_from_plan(pairs) == (side, "heuristic", "expert", "heuristic")
    with pytest.raises(ValueError, match="share an opponent"):
        compare_from_plan([["a", "b"], ["c", "d"]])


def test_compare_writes_the_paired_result_of_its_games_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cmp"
    args = ["compare", "--side", "german", "--a", "pass", "--b", "random", "--opponent", "random"]
    assert (
        ffo([*args, "--games", "3", "--workers", "1", "--seed", "5", "--out", str(out), "--no-progress"]) == 0
    )
    result = json.loads((out / "compare.json").read_text())
    rows = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and {r["seed"] for r in rows} == {5, 6, 7}
    by = {(r["german"], r["seed"]): r for r in rows}
    assert (
        result["a"]["name"] == "pass" and result["b"]["name"] == "random" and result["opponent"] == "random"
    )
    assert result["seeds"] == [5, 7] and result["games"] == 3
    assert result["a"]["wins"] == sum(by["pass", s]["winner"] == "german" for s in (5, 6, 7))
    assert result["b"]["wins"] == sum(by["random", s]["winner"] == "german" for s in (5, 6, 7))
    vp = sum(by["random", s]["vp"] - by["pass", s]["vp"] for s in (5, 6, 7)) / 3
    assert result["vp_difference"]["french_vp_b_minus_a"] == pytest.approx(vp)
    assert result["vp_difference"]["gain_for_side"] == pytest.approx(-vp)
    assert "Paired comparison, german side, against random" in (out / "compare.md").read_text()
    # a kill that lost the last game: the resume plays it again and gives the same comparison
    lines = (out / "games.jsonl").read_text().splitlines()
    (out / "games.jsonl").write_text("\n".join(lines[:-1]) + "\n")
    (out / "compare.json").unlink()
    assert ffo(["compare", "--resume", str(out), "--no-progress"]) == 0
    again = json.loads((out / "compare.json").read_text())
    assert {k: again[k] for k in ("a", "b", "win_rate_difference")} == {
        k: result[k] for k in ("a", "b", "win_rate_difference")
    }


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--side", "french", "--a", "pass", "--b", "pass", "--opponent", "random"], "compare two different"),
        (
            ["--side", "german", "--a", "french_heuristic", "--b", "pass", "--opponent", "random"],
            "cannot play",
        ),
        (
            ["--game", "france1940", "--side", "french", "--a", "heuristic", "--b", "expert-attack"]
            + ["--opponent", "expert"],
            "--b 'expert-attack' cannot play the french side",  # a German-only bot of France 1940
        ),
        (["--side", "french", "--a", "pass", "--b", "random"], "give --opponent"),
        (["--side", "french", "--a", "nobody", "--b", "random", "--opponent", "random"], "unknown agent"),
    ],
)
def test_bad_options_are_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    assert ffo(["compare", *extra, "--out", str(tmp_path / "x"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert not (tmp_path / "x").exists()


def _rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


def test_a_games_reused_from_an_eval_give_the_comparison_a_full_run_gives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--a-games takes A's games from an earlier tournament: only B's are played (and K of A's again to
    check them), and the comparison equals the one that plays both."""
    run = ["--games", "3", "--workers", "1", "--seed", "5", "--no-progress"]
    base = tmp_path / "eval"
    assert ffo(["eval", "--pairings", "random:pass,heuristic:pass", *run, "--out", str(base)]) == 0
    cmp = ["compare", "--side", "german", "--a", "pass", "--b", "random", "--opponent", "random", *run]
    assert ffo([*cmp, "--out", str(tmp_path / "full")]) == 0
    assert ffo([*cmp, "--out", str(tmp_path / "reused"), "--a-games", str(base), "--verify", "1"]) == 0
    assert "3 games of A taken from" in capsys.readouterr().out
    full = json.loads((tmp_path / "full" / "compare.json").read_text())
    reused = json.loads((tmp_path / "reused" / "compare.json").read_text())
    keys = ("a", "b", "seeds", "win_rate_difference", "vp_difference")
    assert {k: reused[k] for k in keys} == {k: full[k] for k in keys}
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in _rows(tmp_path / "reused")]
    assert sorted(strip, key=lambda r: (r["pairing"], r["game"])) == [
        {k: v for k, v in r.items() if k != "seconds"}
        for r in sorted(_rows(tmp_path / "full"), key=lambda r: (r["pairing"], r["game"]))
    ]


@pytest.mark.parametrize(
    "eval_args, message",
    [
        (["--pairings", "random:random"], "no games of random (French) vs pass"),
        (["--pairings", "random:pass", "--seed", "6"], "its seed is 6"),
        (["--pairings", "random:pass", "--setup", "fixed"], "its setup is 'fixed'"),
    ],
)
def test_a_games_from_another_tournament_is_one_error_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], eval_args: list[str], message: str
) -> None:
    base = tmp_path / "eval"
    run = ["--games", "2", "--workers", "1", "--no-progress"]
    assert ffo(["eval", "--seed", "5", *run, *eval_args, "--out", str(base)]) == 0
    capsys.readouterr()
    cmp = [
        "compare",
        "--side",
        "german",
        "--a",
        "pass",
        "--b",
        "random",
        "--opponent",
        "random",
        "--seed",
        "5",
    ]
    assert ffo([*cmp, *run, "--out", str(tmp_path / "c"), "--a-games", str(base)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "c").exists()


def test_a_games_of_a_changed_agent_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A reused game that does not replay the same (here: its log edited) stops the comparison."""
    base = tmp_path / "eval"
    run = ["--games", "2", "--workers", "1", "--seed", "5", "--no-progress"]
    assert ffo(["eval", "--pairings", "random:pass", *run, "--out", str(base)]) == 0
    rows = _rows(base)
    rows[0]["decisions"] += 1
    (base / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    capsys.readouterr()
    cmp = ["compare", "--side", "german", "--a", "pass", "--b", "random", "--opponent", "random", *run]
    assert ffo([*cmp, "--out", str(tmp_path / "c"), "--a-games", str(base)]) == 2
    err = capsys.readouterr().err
    assert "seed 5 played again differs in decisions" in err and not (tmp_path / "c").exists()


def test_a_games_into_a_folder_holding_a_tournament_or_with_a_negative_verify_is_one_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = tmp_path / "eval"
    run = ["--games", "2", "--workers", "1", "--seed", "5", "--no-progress"]
    assert ffo(["eval", "--pairings", "random:pass", *run, "--out", str(base)]) == 0
    cmp = ["compare", "--side", "german", "--a", "pass", "--b", "random", "--opponent", "random", *run]
    assert ffo([*cmp, "--out", str(tmp_path / "c"), "--a-games", str(base), "--verify", "-1"]) == 2
    assert "--verify must be >= 0" in capsys.readouterr().err and not (tmp_path / "c").exists()
    before = (base / "games.jsonl").read_text()
    assert ffo([*cmp, "--out", str(base), "--a-games", str(base)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "already holds a tournament" in err and err.count("\n") == 1
    assert (base / "games.jsonl").read_text() == before
