"""``ffo eval`` / ``ffo ladder`` / ``ffo compare`` with ``--game springtime`` (issue 41 item 4): smoke runs with
tiny game counts, the game recorded in the tournament folder, and one clear error for an unknown game, a
mismatched resume and France Fights On's own options."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from agents.harness import run_tournament
from ffo_env.cli import main as ffo
from ffo_env.games import game_info


def _err(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and len(err.splitlines()) == 1, err
    return err


def test_eval_game_springtime_plays_and_names_the_game(tmp_path: Path) -> None:
    out = tmp_path / "ev"
    rc = ffo(
        [
            "eval",
            "--game",
            "springtime",
            "--pairings",
            "heuristic:random,random:heuristic",
            "--games",
            "2",
            "--workers",
            "1",
            "--save-records",
            "1",
            "--no-progress",
            "--out",
            str(out),
        ]
    )
    assert rc == 0
    plan = json.loads((out / "tournament.json").read_text())
    results = json.loads((out / "results.json").read_text())
    assert plan["game"] == results["config"]["game"] == "springtime"
    assert (
        results["config"]["data_version"]
        == game_info("springtime").recorder(game_info("springtime").new_state(0)).record()["data"]
    )
    p0, p1 = results["pairings"]
    assert p0["french_wins"] == 2 and p1["german_wins"] == 2  # the heuristic beats random on both sides
    assert sum(p0["results"].values()) == 2 and "vp_mean" not in p0
    with open(out / "games.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 4 and {"result", "morale"} <= set(rows[0]) and "vp" not in rows[0]
    records = sorted((out / "records").glob("*.json"))
    assert len(records) == 2
    info = game_info("springtime")
    final = info.replay(info.load_record(records[0]))  # the saved record verifies
    assert final.is_terminal()


def test_eval_resume_with_another_game_is_one_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sfh = tmp_path / "sfh"
    run_tournament([("random", "random")], games=1, workers=1, out=sfh, progress=False, game="springtime")
    capsys.readouterr()
    assert ffo(["eval", "--resume", str(sfh), "--no-progress"]) == 2
    err = _err(capsys)
    assert "plays springtime, not ffo" in err and "--game springtime" in err
    assert ffo(["eval", "--resume", str(sfh), "--game", "springtime", "--no-progress", "--quiet"]) == 0
    capsys.readouterr()
    ffo_dir = tmp_path / "ffo"
    run_tournament([("random", "random")], games=1, workers=1, out=ffo_dir, progress=False)
    plan = json.loads((ffo_dir / "tournament.json").read_text())
    assert plan["game"] == "ffo"
    assert ffo(["eval", "--resume", str(ffo_dir), "--game", "springtime", "--no-progress"]) == 2
    assert "plays ffo, not springtime" in _err(capsys)


def test_a_tournament_folder_without_a_game_is_france_fights_on(tmp_path: Path) -> None:
    """Folders written before the suite had games resume as France Fights On tournaments."""
    out = tmp_path / "old"
    run_tournament([("random", "pass")], games=2, workers=1, out=out, progress=False)
    plan = json.loads((out / "tournament.json").read_text())
    del plan["game"]
    (out / "tournament.json").write_text(json.dumps(plan))
    lines = (out / "games.jsonl").read_text().splitlines()
    (out / "games.jsonl").write_text(lines[0] + "\n")
    summary = run_tournament([("random", "pass")], games=2, workers=1, out=out, progress=False, resume=True)
    assert summary["config"]["resumed_games"] == 1 and summary["config"]["game"] == "ffo"


def test_unknown_game_and_ffo_only_options_are_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        run_tournament([("random", "random")], games=1, workers=1, progress=False, game="chess")
    with pytest.raises(SystemExit) as e:
        ffo(["eval", "--game", "chess"])
    assert e.value.code == 2
    assert "invalid choice: 'chess'" in capsys.readouterr().err
    base = ["eval", "--game", "springtime", "--games", "1", "--no-progress", "--out", str(tmp_path / "x")]
    assert ffo([*base, "--pairings", "heuristic:cautious:random"]) == 2
    assert "unknown agent of springtime" in _err(capsys)
    assert ffo([*base, "--pairings", "random:random", "--setup", "fixed"]) == 2
    assert "France Fights On" in _err(capsys)
    assert not (tmp_path / "x").exists()  # nothing written


def test_ladder_game_springtime_smoke(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lad"
    rc = ffo(
        [
            "ladder",
            "--game",
            "springtime",
            "--agents",
            "random,pass,heuristic",
            "--games",
            "1",
            "--workers",
            "1",
            "--no-progress",
            "--out",
            str(out),
        ]
    )
    assert rc == 0
    doc = json.loads((out / "ladder.json").read_text())
    assert doc["game"] == "springtime" and {r["agent"] for r in doc["ratings"]} == {
        "random",
        "pass",
        "heuristic",
    }
    assert "game springtime" in (out / "ladder.md").read_text()
    capsys.readouterr()
    assert (
        ffo(["ladder", "--game", "springtime", "--agents", "random,nobody", "--out", str(tmp_path / "y")])
        == 2
    )
    assert "unknown agent of springtime 'nobody'" in _err(capsys)


def test_compare_game_springtime_smoke(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cmp"
    rc = ffo(
        [
            "compare",
            "--game",
            "springtime",
            "--side",
            "german",
            "--a",
            "random",
            "--b",
            "heuristic",
            "--opponent",
            "random",
            "--games",
            "2",
            "--workers",
            "1",
            "--no-progress",
            "--out",
            str(out),
        ]
    )
    assert rc == 0
    result = json.loads((out / "compare.json").read_text())
    assert result["game"] == "springtime" and "Morale" in result["score"]
    md = (out / "compare.md").read_text()
    assert "French Morale" in md and "VP" not in md  # the units of the game compared


def test_eval_html_writes_the_springtime_viewer_of_each_saved_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ffo_env.springtime.render.viewer import build_viewer_html

    out = tmp_path / "ev"
    args = [
        "eval",
        "--game",
        "springtime",
        "--pairings",
        "heuristic:random",
        "--workers",
        "1",
        "--no-progress",
    ]
    assert ffo([*args, "--games", "2", "--save-records", "1", "--html", "--quiet", "--out", str(out)]) == 0
    records = sorted((out / "records").glob("*.json"))
    pages = sorted((out / "records").glob("*.html"))
    assert len(records) == 1 and [p.with_suffix(".json") for p in pages] == records  # one game of two saved
    info = game_info("springtime")
    # the game's own viewer of the verified record, as 'ffo replay --game springtime --html' writes it
    assert pages[0].read_text(encoding="utf-8") == build_viewer_html(info.load_record(records[0]))
    with open(out / "games.csv", newline="", encoding="utf-8") as f:
        assert len(list(csv.DictReader(f))) == 2
    capsys.readouterr()
    seed_dir = tmp_path / "one"
    assert ffo([*args, "--record-seed", "4", "--html", "--out", str(seed_dir)]) == 0
    printed = capsys.readouterr().out
    page = next((seed_dir / "records").glob("*seed4.html"))
    assert f"viewer to {page}" in printed and page.with_suffix(".json").exists()


@pytest.mark.parametrize(
    "command",
    [
        ["eval", "--pairings", "random:random", "--games", "1"],
        ["ladder", "--agents", "random,pass", "--games", "1"],
        [
            "compare",
            "--side",
            "french",
            "--a",
            "random",
            "--b",
            "pass",
            "--opponent",
            "random",
            "--games",
            "1",
        ],
        ["play"],
        ["play", "--french", "human"],  # the web UI: refused before its record folder is made
    ],
)
def test_data_is_france_fights_on_s_option_and_one_error_with_springtime(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    out = tmp_path / "x"
    where = (
        ["--record", str(out / "r.json")] if command[0] == "play" else ["--out", str(out), "--no-progress"]
    )
    for data in (
        ["--data", "reconstruction-v2", *command],
        [*command, "--data", "nonsense"],
    ):  # before or after the command name
        capsys.readouterr()
        assert ffo([*data, "--game", "springtime", *where]) == 2
        err = _err(capsys)
        assert f"--data {data[data.index('--data') + 1]}:" in err and "France Fights On" in err
    assert not out.exists()  # nothing written


def test_replay_with_data_is_one_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = tmp_path / "g.json"
    assert ffo(["play", "--game", "springtime", "--seed", "1", "--record", str(rec)]) == 0
    capsys.readouterr()
    assert (
        ffo(["replay", "--game", "springtime", str(rec), "--data", "v2", "--html", str(tmp_path / "g.html")])
        == 2
    )
    assert "--data v2" in _err(capsys) and not (tmp_path / "g.html").exists()


@pytest.mark.parametrize("game", ["ffo", "springtime"])
def test_eval_html_without_saved_records_is_one_error(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a viewer goes beside a saved record: --html alone would write nothing and say nothing
    out = tmp_path / "ev"
    args = [
        "eval",
        "--game",
        game,
        "--pairings",
        "random:random",
        "--games",
        "1",
        "--html",
        "--out",
        str(out),
    ]
    assert ffo(args) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "--save-records" in err
    assert not out.exists()  # nothing written
