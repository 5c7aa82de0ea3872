"""Every bad command line ends with one clear line and a non-zero exit, never a traceback (``--debug`` shows it)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ffo_env.cli import main


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's own usage errors
        code = int(e.code or 0)
    err = capsys.readouterr().err
    return code, err


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--french", "nosuch"],
        ["play", "--german", "policy:/no/such/policy.pt"],
        ["eval", "--games", "0"],
        ["eval", "--workers", "0"],
        ["replay", "/no/such/record.json"],
        ["play", "--seed", "x"],
        ["nosuchcommand"],
        ["eval", "--agents", ""],
        ["eval", "--agents", " , "],
        ["eval", "--pairings", ","],
        ["eval", "--resume", "/no/such/tournament"],
        ["train", "--set", "ppo.n_epochs=-1"],
        ["train", "--set", "ppo.gamma=5"],
        ["train", "--set", "ppo.learning_rate=.nan"],
        ["train", "--set", "run_name=../../x"],
        ["train", "--set", "policy.cnn_dim=3000000"],
        ["train", "--set", "device=gpu7"],
        ["train", "--set", "eval.opponents=[grandmaster]"],
        ["train", "--set", "eval.games=0"],
        ["train", "--resume", "/no/such/run"],
    ],
)
def test_bad_command_lines_fail_with_one_clear_line(argv, capsys):
    code, err = _run(argv, capsys)
    assert code != 0
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith(("error:", "ffo: error:", "ffo ")), err


def test_a_damaged_record_is_one_error_line(tmp_path, capsys):
    p = tmp_path / "game.json"
    p.write_text(json.dumps({"format": "ffo-game-record", "record_version": 1, "engine": "ffo-engine-2"}))
    code, err = _run(["replay", str(p)], capsys)
    assert code == 2 and "Traceback" not in err and err.startswith("error:")


def test_eval_refuses_a_one_side_bot_in_the_other_seat_with_nothing_written(tmp_path, capsys):
    out = tmp_path / "t"
    argv = ["eval", "--game", "france1940", "--pairings", "expert-attack:random", "--games", "1"]
    code, err = _run([*argv, "--workers", "1", "--out", str(out), "--no-progress"], capsys)
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines() == [
        "error: agent 'expert-attack' of france1940 plays only the german side, not the french"
    ]
    assert not out.exists()


@pytest.mark.parametrize("game", ["ffo", "france1940"])
def test_eval_refuses_a_policy_that_does_not_load_with_nothing_written(game, tmp_path, capsys):
    out = tmp_path / "t"
    missing = tmp_path / "no_such.pt"
    argv = ["eval", "--game", game, "--pairings", f"expert:policy:{missing}", "--games", "1"]
    code, err = _run([*argv, "--workers", "1", "--out", str(out), "--no-progress"], capsys)
    assert code == 2 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "no_such" in lines[0]
    assert not out.exists()


def test_play_refuses_to_overwrite_a_record_without_force(tmp_path, capsys):
    rec = tmp_path / "game.json"
    rec.write_text("precious")
    code, err = _run(["play", "--record", str(rec)], capsys)
    assert code == 2 and "--force" in err and rec.read_text() == "precious"
    code, _ = _run(["play", "--record", str(rec), "--force"], capsys)
    assert code == 0 and json.loads(rec.read_text())["format"] == "ffo-game-record"


def test_play_refuses_an_unwritable_record_path_before_the_game(tmp_path, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    code = main(["play", "--record", str(blocker / "game.json")])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in err
    assert err.startswith(f"error: cannot write {blocker / 'game.json'}"), err
    assert out == ""  # refused before the game: a played game prints its result first
    code, err = _run(["play", "--french", "human", "--record", str(blocker / "game.json")], capsys)
    assert code == 2 and err.startswith("error: cannot write"), err


def test_bench_refuses_an_unwritable_report_path_before_measuring(tmp_path, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    code = main(["bench", "--quick", "--out", str(blocker / "bench.json")])
    out, err = capsys.readouterr()
    assert code == 2 and err.startswith(f"error: cannot write {blocker / 'bench.json'}"), err
    assert out == ""  # nothing was measured: a bench prints its figures as it goes
    code = main(["bench", "--quick", "--profile", str(blocker / "p.txt")])
    assert code == 2 and "cannot write" in capsys.readouterr().err


def test_debug_shows_the_traceback():
    with pytest.raises(ValueError, match="unknown agent"):
        main(["--debug", "play", "--french", "nosuch"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(junk=st.text(min_size=1, max_size=40).filter(lambda s: not s.startswith("-") and "\x00" not in s))
def test_fuzzed_record_paths_and_agent_names_never_give_a_traceback(junk, capsys, tmp_path):
    for argv in (["replay", str(tmp_path / junk)], ["play", "--french", junk, "--german", "nosuch"]):
        code, err = _run(argv, capsys)
        assert code != 0 and "Traceback" not in err


def test_a_reader_that_goes_away_gets_no_error_line() -> None:
    """``ffo benchmark tasks | head``: the pipe is closed before the command prints."""
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "ffo_env.cli", "benchmark", "tasks"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert err == ""
