"""The ``policy`` reference row of ``ffo benchmark run`` (benchmarks/protocol/policy_row.py): a trained policy
file measured on a task as a row ``policy:LABEL`` (issue 60 item 3: the campaign's policies join the benchmark)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks.protocol.policy_row import is_policy_row
from ffo_env.cli import main

ROOT = Path(__file__).resolve().parents[1]
GERMAN = ROOT / "agents" / "ffo" / "pretrained_policies" / "german.pt"
FRENCH = ROOT / "agents" / "ffo" / "pretrained_policies" / "french.pt"
TASK = "ffo/german-endgame/v2"


def _run(*argv: str) -> int:
    return main(
        ["benchmark", "run", "--task", TASK, "--seeds", "1", "--eval-games", "2", "--no-progress", *argv]
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """The shipped German policy as ``policy:shipped`` and as the ``pretrained`` row, on the same seeds."""
    root = tmp_path_factory.mktemp("policy_row")
    own = root / "own.pt"
    shutil.copyfile(GERMAN, own)
    shutil.copyfile(GERMAN.with_suffix(".json"), own.with_suffix(".json"))
    assert _run("--algo", "policy", "--policy", str(own), "--label", "shipped", "--out", str(root / "p")) == 0
    assert _run("--algo", "pretrained", "--out", str(root / "pre")) == 0
    return root


def _runs_of(folder: Path, row: str) -> dict:
    return json.loads((folder / "results.json").read_text())["ffo_env"][TASK][row]


def test_a_policy_file_is_a_row_named_by_its_label_with_the_files_sha256(runs):
    import hashlib

    got = _runs_of(runs / "p", "policy:shipped")
    assert set(got) == {"seed_0"}
    meta = got["seed_0"]["run_meta"]
    assert meta["algorithm"] == "policy:shipped" and meta["complete"]
    files = meta["hyperparameters"]["policy_files"]
    sha = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in (GERMAN, GERMAN.with_suffix(".json"))}
    assert files == {
        "german": {
            "path": str(runs / "own.pt"),
            "sha256": sha[GERMAN],
            "metadata_sha256": sha[GERMAN.with_suffix(".json")],
        }
    }
    plan = json.loads((runs / "p" / "plan.json").read_text())
    assert plan["algorithm"] == "policy" and plan["targets"] == [0]


def test_the_shipped_file_as_a_policy_row_scores_what_the_pretrained_row_scores(runs):
    # the same agent (the same weights, seeded the same way) on the same games: the same scores, game by game
    mine, theirs = _runs_of(runs / "p", "policy:shipped"), _runs_of(runs / "pre", "pretrained")
    for seed in ("seed_0",):
        assert mine[seed]["step_0"]["eval"] == theirs[seed]["step_0"]["eval"]  # per game scores and VP


def test_a_report_shows_a_policy_row_as_a_reference_row(runs, tmp_path, capsys):
    assert main(["benchmark", "report", str(runs), "--out", str(tmp_path / "rep"), "--reps", "200"]) == 0
    capsys.readouterr()
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert set(rep["tasks"][TASK]["algorithms"]) == {"policy:shipped", "pretrained"}
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| task | `pretrained` | `policy:shipped` |" in md  # references first, the policy row beside them
    assert is_policy_row("policy:shipped") and not is_policy_row("maskable_ppo")


def test_a_resumed_policy_run_refuses_a_file_that_changed(runs, capsys):
    (runs / "own.pt").write_bytes(FRENCH.read_bytes())
    try:
        assert main(["benchmark", "run", "--resume", str(runs / "p"), "--no-progress"]) != 0
        err = capsys.readouterr().err
        assert "changed since the run started" in err and "own.pt" in err and "Traceback" not in err
    finally:
        shutil.copyfile(GERMAN, runs / "own.pt")
    assert (
        main(["benchmark", "run", "--resume", str(runs / "p"), "--no-progress"]) == 0
    )  # the same bytes again


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--algo", "policy"], "--algo policy needs --policy FILE"),
        (["--algo", "expert", "--policy", str(GERMAN)], "--policy and --label go with --algo policy"),
        (["--algo", "policy", "--policy", str(FRENCH)], "not a ffo policy of the german side"),
        (["--algo", "policy", "--policy", "no/such.pt"], "no/such.pt: no such file"),
        (["--algo", "policy", "--policy", f"french={GERMAN}"], "learner plays german, not 'french'"),
        (
            ["--algo", "policy", "--policy", str(GERMAN), "--policy", str(GERMAN)],
            "two files for the german side",
        ),
        (["--algo", "policy", "--policy", str(GERMAN), "--label", "a b"], "--label 'a b'"),
    ],
)
def test_bad_policy_arguments_are_one_error_and_write_nothing(argv, message, tmp_path, capsys):
    out = tmp_path / "run"
    assert _run(*argv, "--out", str(out)) != 0
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not out.exists() or not any(p.name != ".lock" for p in out.iterdir())
