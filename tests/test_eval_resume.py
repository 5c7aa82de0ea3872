"""``ffo eval`` keeps every finished game on disk, resumes a killed tournament, and never overwrites one
without being asked."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents.harness import TournamentExists, run_tournament
from ffo_env.cli import main as ffo

PAIRS = [("heuristic", "random"), ("random", "pass")]
GAME_KEYS = ("pairing", "game", "seed", "winner", "vp", "turn", "decisions")


def _games(out: Path) -> list[tuple]:
    with open(out / "games.csv", newline="", encoding="utf-8") as f:
        return [tuple(row[k] for k in GAME_KEYS) for row in csv.DictReader(f)]


def test_finished_games_are_logged_as_they_finish(tmp_path: Path) -> None:
    run_tournament(PAIRS, games=3, seed=7, workers=1, out=tmp_path, progress=False)
    lines = (tmp_path / "games.jsonl").read_text().splitlines()
    assert sorted((json.loads(x)["pairing"], json.loads(x)["game"]) for x in lines) == [
        (p, g) for p in range(2) for g in range(3)
    ]
    plan = json.loads((tmp_path / "tournament.json").read_text())
    assert plan["pairings"] == [list(p) for p in PAIRS] and plan["games"] == 3


def test_games_are_played_seed_by_seed_across_pairings(tmp_path: Path) -> None:
    """A tournament stopped early holds the same seeds for every pairing (so an ``ffo compare`` killed half
    way is already paired): one worker plays game 0 of each pairing, then game 1 of each, ..."""
    run_tournament(PAIRS, games=3, seed=7, workers=1, out=tmp_path, progress=False)
    lines = (tmp_path / "games.jsonl").read_text().splitlines()
    played = [(json.loads(x)["game"], json.loads(x)["pairing"]) for x in lines]
    assert played == [(g, p) for g in range(3) for p in range(2)]


def test_resume_after_a_torn_log_plays_only_the_missing_games_and_gives_the_same_results(
    tmp_path: Path,
) -> None:
    full, part = tmp_path / "full", tmp_path / "part"
    run_tournament(PAIRS, games=3, seed=7, workers=1, out=full, progress=False)
    run_tournament(PAIRS, games=3, seed=7, workers=1, out=part, progress=False, overwrite=True)
    lines = (part / "games.jsonl").read_text().splitlines()
    # what a kill leaves: 4 finished games and half a line; no results yet
    (part / "games.jsonl").write_text("\n".join(lines[:4]) + "\n" + lines[4][: len(lines[4]) // 2])
    for name in ("results.json", "games.csv", "pairings.csv", "ratings.csv"):
        (part / name).unlink()
    summary = run_tournament(PAIRS, games=3, seed=7, workers=1, out=part, progress=False, resume=True)
    assert summary["config"]["resumed_games"] == 4
    assert _games(part) == _games(full)
    a = json.loads((full / "results.json").read_text())["pairings"]
    b = json.loads((part / "results.json").read_text())["pairings"]
    drop = ("seconds_per_game",)
    assert [{k: v for k, v in p.items() if k not in drop} for p in a] == [
        {k: v for k, v in p.items() if k not in drop} for p in b
    ]


def test_an_existing_tournament_is_not_overwritten_without_force(tmp_path: Path) -> None:
    run_tournament(PAIRS[:1], games=1, seed=0, workers=1, out=tmp_path, progress=False)
    before = (tmp_path / "results.json").read_bytes()
    with pytest.raises(TournamentExists, match="--resume.*--force"):
        run_tournament(PAIRS[:1], games=1, seed=1, workers=1, out=tmp_path, progress=False)
    assert (tmp_path / "results.json").read_bytes() == before
    run_tournament(PAIRS[:1], games=1, seed=1, workers=1, out=tmp_path, progress=False, overwrite=True)
    assert json.loads((tmp_path / "results.json").read_text())["config"]["first_seed"] == 1


def test_resume_with_other_settings_is_refused(tmp_path: Path) -> None:
    run_tournament(PAIRS[:1], games=2, seed=0, workers=1, out=tmp_path, progress=False)
    with pytest.raises(TournamentExists, match="games"):
        run_tournament(PAIRS[:1], games=5, seed=0, workers=1, out=tmp_path, progress=False, resume=True)


def test_cli_refuses_an_existing_out_and_resumes_with_its_own_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    args = [
        "eval",
        "--pairings",
        "heuristic:random",
        "--games",
        "2",
        "--workers",
        "1",
        "--no-progress",
        "--quiet",
    ]
    assert ffo([*args, "--out", str(out)]) == 0
    capsys.readouterr()
    assert ffo([*args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--resume" in err and "--force" in err and "Traceback" not in err
    assert ffo(["eval", "--resume", str(out), "--workers", "1", "--no-progress", "--quiet"]) == 0
    assert ffo([*args, "--out", str(out), "--force"]) == 0


@pytest.mark.parametrize(
    "edit",
    [
        {"games": "x"},
        {"games": 0},
        {"seed": None},
        {"setup": "sideways"},
        {"html": "yes"},
        {"pairings": [["random"]]},
        {"pairings": "random:pass"},
        {"format": "other"},
    ],
)
def test_a_damaged_tournament_file_is_one_error_on_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: dict
) -> None:
    run_tournament(PAIRS[:1], games=1, seed=0, workers=1, out=tmp_path, progress=False)
    plan = json.loads((tmp_path / "tournament.json").read_text())
    plan.update(edit)
    (tmp_path / "tournament.json").write_text(json.dumps(plan))
    before = (tmp_path / "results.json").read_bytes()
    capsys.readouterr()
    assert ffo(["eval", "--resume", str(tmp_path), "--no-progress", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "tournament.json" in err and "Traceback" not in err
    assert (tmp_path / "results.json").read_bytes() == before


def test_cli_without_out_never_reuses_a_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["eval", "--pairings", "random:pass", "--games", "1", "--workers", "1", "--no-progress", "--quiet"]
    assert ffo(args) == 0 and ffo(args) == 0
    assert len(list((tmp_path / "runs").glob("eval-*"))) == 2


def test_a_killed_eval_resumes_to_the_uninterrupted_results(tmp_path: Path) -> None:
    args = [
        "--pairings",
        "heuristic:random,random:heuristic",
        "--games",
        "6",
        "--seed",
        "3",
        "--no-progress",
        "--quiet",
    ]
    full = tmp_path / "full"
    assert ffo(["eval", *args, "--workers", "1", "--out", str(full)]) == 0
    killed = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ffo_env.cli", "eval", *args, "--workers", "2", "--out", str(killed)],
        env=dict(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    log = killed / "games.jsonl"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if log.exists() and len(log.read_text().splitlines()) >= 3:
            break
        time.sleep(0.05)
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (killed / "results.json").exists() or proc.returncode == 0
    assert ffo(["eval", "--resume", str(killed), "--workers", "1", "--no-progress", "--quiet"]) == 0
    assert _games(killed) == _games(full)


@pytest.mark.slow
def test_an_eval_killed_many_times_resumes_to_the_uninterrupted_results(tmp_path: Path) -> None:
    args = [
        "--pairings",
        "heuristic:random,random:heuristic",
        "--games",
        "12",
        "--seed",
        "11",
        "--no-progress",
        "--quiet",
    ]
    full = tmp_path / "full"
    assert ffo(["eval", *args, "--workers", "1", "--out", str(full)]) == 0
    out = tmp_path / "killed"
    log = out / "games.jsonl"
    kills = 0
    for target in (1, 3, 5, 8, 11, 14, 17, 20):
        cmd = (
            ["eval", *args, "--workers", "2", "--out", str(out)]
            if kills == 0
            else ["eval", "--resume", str(out), "--workers", "2", "--no-progress", "--quiet"]
        )
        proc = subprocess.Popen(
            [sys.executable, "-m", "ffo_env.cli", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        while proc.poll() is None and not (log.exists() and len(log.read_text().splitlines()) >= target):
            time.sleep(0.02)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
    assert kills >= 6
    assert ffo(["eval", "--resume", str(out), "--workers", "1", "--no-progress", "--quiet"]) == 0
    assert _games(out) == _games(full)
