"""Evaluation harness: Wilson intervals, reproducibility across workers, outputs, CLI."""

from __future__ import annotations

import csv
import functools
import json

import pytest

from agents.base import RandomAgent
from agents.harness import round_robin, run_tournament, wilson_interval
from ffo_env.cli import main


@pytest.mark.parametrize(
    "wins,n,lo,hi",
    [
        (0, 10, 0.0, 0.27753),  # standard table values (z = 1.95996)
        (10, 10, 0.72247, 1.0),
        (5, 10, 0.23659, 0.76341),
        (81, 263, 0.25529, 0.36624),  # Newcombe (1998), Stat. Med. 17:857, table I
        (95, 100, 0.88825, 0.97846),
    ],
)
def test_wilson_interval_known_values(wins: int, n: int, lo: float, hi: float) -> None:
    got = wilson_interval(wins, n)
    assert got[0] == pytest.approx(lo, abs=1e-4)
    assert got[1] == pytest.approx(hi, abs=1e-4)


def test_wilson_interval_edge_cases() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(1, 2)
    assert 0 < lo < 0.5 < hi < 1


def _strip(summary: dict) -> list:
    out = []
    for p in summary["pairings"]:
        q = dict(p)
        q.pop("seconds_per_game")
        out.append(q)
    return out


def test_same_seeds_same_results_across_workers() -> None:
    pairings = [("heuristic", "random"), ("random", "heuristic")]
    one = run_tournament(pairings, games=3, seed=40, workers=1, progress=False)
    two = run_tournament(pairings, games=3, seed=40, workers=2, progress=False)
    assert _strip(one) == _strip(two)
    assert one["ratings"] == two["ratings"]
    assert one["pairings"][0]["seeds"] == [40, 41, 42]


def _random_factory(side: str, seed: int) -> RandomAgent:
    return RandomAgent(seed=seed)


def test_agent_factories_and_outputs(tmp_path) -> None:
    named = functools.partial(_random_factory)
    named.agent_name = "my_policy"  # type: ignore[attr-defined]
    s = run_tournament(
        [(named, "pass"), ("random", named)],
        games=2,
        seed=5,
        workers=2,
        out=tmp_path,
        save_records=1,
        progress=False,
    )
    assert [p["french"] for p in s["pairings"]] == ["my_policy", "random"]
    assert set(s["ratings"]) == {"my_policy@french", "pass@german", "random@french", "my_policy@german"}
    for f in ("results.json", "pairings.csv", "games.csv", "ratings.csv"):
        assert (tmp_path / f).exists()
    rows = list(csv.DictReader(open(tmp_path / "games.csv")))
    assert len(rows) == 4 and {r["seed"] for r in rows} == {"5", "6"}
    assert len(list((tmp_path / "records").glob("*.json"))) == 2
    res = json.loads((tmp_path / "results.json").read_text())
    assert res["config"]["games_per_pairing"] == 2


def test_round_robin() -> None:
    assert round_robin(["a", "b"]) == [("a", "a"), ("a", "b"), ("b", "a"), ("b", "b")]


def test_a_round_robin_plays_each_agent_on_the_sides_it_can_play(tmp_path) -> None:
    from agents.ffo.pretrained import pretrained_path
    from agents.registry import agent_sides

    french = f"policy:{pretrained_path('french')}"
    both = ("french", "german")
    assert agent_sides(french) == ("french",) and agent_sides("german_expert") == ("german",)
    assert agent_sides("french_heuristic_cautious") == ("french",) and agent_sides("heuristic") == both
    # an unreadable policy file may play either side: loading it then says what is wrong
    assert agent_sides(f"policy:{tmp_path / 'missing.pt'}") == both
    (tmp_path / "list.json").write_text("[1, 2]")
    assert agent_sides(f"policy:{tmp_path / 'list.pt'}") == both
    assert round_robin(["random", french, "german_expert"]) == [
        ("random", "random"), ("random", "german_expert"), (french, "random"), (french, "german_expert")
    ]  # fmt: skip


def test_eval_help(capsys) -> None:
    with pytest.raises(SystemExit) as e:
        main(["eval", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for flag in ("--pairings", "--games", "--workers", "--save-records", "--record-seed", "--setup", "--out"):
        assert flag in out


def test_eval_smoke_run(tmp_path, capsys) -> None:
    rc = main(
        [
            "eval",
            "--pairings",
            "heuristic:random",
            "--games",
            "2",
            "--workers",
            "1",
            "--out",
            str(tmp_path),
            "--no-progress",
            "--save-records",
            "1",
        ]
    )
    assert rc == 0
    out = capsys.readouterr().out
    assert "heuristic" in out and "95% CI" in out
    rows = list(csv.DictReader(open(tmp_path / "pairings.csv")))
    assert rows[0]["french"] == "heuristic" and rows[0]["games"] == "2"
    from ffo_env.ffo.core.record import load_record, replay

    rec = next((tmp_path / "records").glob("*.json"))
    assert replay(load_record(rec)).is_terminal()


def test_eval_record_seed(tmp_path, capsys) -> None:
    rc = main(
        ["eval", "--pairings", "heuristic:aggressive:pass", "--record-seed", "3", "--out", str(tmp_path)]
    )
    assert rc == 0
    assert "seed 3" in capsys.readouterr().out
    assert len(list((tmp_path / "records").glob("*seed3.json"))) == 1


def test_eval_rejects_unknown_agent(tmp_path, capsys) -> None:
    assert main(["eval", "--pairings", "nobody:random", "--out", str(tmp_path)]) == 2
    assert "unknown agent" in capsys.readouterr().err
