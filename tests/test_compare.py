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
