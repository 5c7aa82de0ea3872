"""Springtime for Hitler in the benchmark protocol (issue 41 item 7): its tasks, their fingerprints, runs.

Fast tests first; the learning algorithms with tiny budgets and a resumed run are marked slow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.protocol.tasks import TASKS, fingerprint_inputs, get_task
from ffo_env.cli import main

SFH = sorted(t for t in TASKS if t.startswith("springtime/"))


def _ffo(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _run(out: Path, task: str, algo: str, *extra: str) -> dict:
    argv = [
        "benchmark",
        "run",
        "--task",
        task,
        "--algo",
        algo,
        "--seeds",
        "1",
        "--out",
        str(out),
        "--no-progress",
    ]
    assert main([*argv, *extra]) == 0
    return json.loads((out / "results.json").read_text())


def test_tasks_list_both_games_with_a_game_field(capsys):
    code, out, _ = _ffo(capsys, "benchmark", "tasks", "--json")
    assert code == 0
    rows = {r["id"]: r for r in json.loads(out)}
    assert {r["game"] for r in rows.values()} == {"ffo", "springtime"}
    assert all(r["game"] == r["id"].split("/")[0] for r in rows.values())
    sides = {(rows[t]["side"], rows[t]["opponent"]) for t in SFH}
    assert sides == {(s, o) for s in ("french", "german") for o in ("random", "heuristic", "expert")}
    assert all(rows[t]["kind"] == "full" for t in SFH)
    code, out, _ = _ffo(capsys, "benchmark", "tasks")
    assert code == 0 and "springtime/german-vs-heuristic/v1  springtime" in out


def test_springtime_fingerprints_cover_its_own_engine_data_observation_and_bots():
    task = get_task("springtime/german-vs-heuristic/v1")
    inputs = fingerprint_inputs(task)
    assert inputs["game"] == "springtime" and inputs["engine"].startswith("springtime-core")
    assert inputs["data"]["version"].startswith("sfh-") and inputs["observation"]
    assert set(inputs["bots"]) == {"expert", "heuristic", "random"}
    ffo = fingerprint_inputs(get_task("ffo/german-vs-heuristic/v1"))
    assert "game" not in ffo and ffo["data"] != inputs["data"]  # FFO's inputs (and fingerprints) as they were


def test_a_springtime_reference_run_writes_the_documented_layout(tmp_path):
    doc = _run(tmp_path / "r", "springtime/german-vs-random/v1", "random", "--eval-games", "2")
    assert doc["meta"]["game"] == "springtime" and doc["meta"]["engine"].startswith("springtime-core")
    run = doc["ffo_env"]["springtime/german-vs-random/v1"]["random"]["seed_0"]
    assert (
        run["run_meta"]["fingerprint"]
        == json.loads(
            (Path(__file__).resolve().parents[1] / "benchmarks/protocol/data/fingerprints.json").read_text()
        )["springtime/german-vs-random/v1"]
    )
    ev = run["step_0"]["eval"]["opponents"]["random"]
    assert ev["games"] == 2 and len(ev["per_game"]) == 2 and "mean_morale" in ev


def test_report_of_one_game_keeps_only_its_tasks(tmp_path, capsys):
    _run(tmp_path / "runs" / "sfh", "springtime/german-vs-random/v1", "random", "--eval-games", "1")
    _run(tmp_path / "runs" / "sfh-x", "springtime/german-vs-random/v1", "expert", "--eval-games", "1")
    runs = str(tmp_path / "runs")
    code, out, err = _ffo(capsys, "benchmark", "report", runs, "--out", str(tmp_path / "rep"),
                          "--game", "springtime", "--reps", "100")  # fmt: skip
    assert code == 0, err
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert list(rep["tasks"]) == ["springtime/german-vs-random/v1"]
    assert set(rep["tasks"]["springtime/german-vs-random/v1"]["algorithms"]) == {"random", "expert"}
    code, _, err = _ffo(capsys, "benchmark", "report", runs, "--out", str(tmp_path / "rep2"),
                        "--game", "ffo")  # fmt: skip
    assert code == 2 and "no result of a ffo task" in err and not (tmp_path / "rep2").exists()


def test_dagger_is_refused_on_a_springtime_task_with_one_error(tmp_path, capsys):
    out = tmp_path / "d"
    code, _, err = _ffo(capsys, "benchmark", "run", "--task", "springtime/french-vs-heuristic/v1", "--algo",
                        "dagger_expert", "--out", str(out), "--no-progress")  # fmt: skip
    assert code == 2 and err.startswith("error: ") and "ffo tasks only" in err and err.count("\n") == 1
    assert not out.exists()


@pytest.mark.slow
@pytest.mark.parametrize("algo", ["maskable_ppo", "ppo_mlp_compact", "untrained"])
def test_every_algorithm_runs_a_springtime_task_with_a_tiny_budget(algo, tmp_path):
    task = "springtime/german-vs-heuristic/v1"
    doc = _run(tmp_path / algo, task, algo, "--budget", "300", "--evals", "2", "--eval-games", "2")
    run = doc["ffo_env"][task][algo]["seed_0"]
    assert run["run_meta"]["observation"] == "flat" and run["run_meta"]["hyperparameters"]
    learns = algo != "untrained"
    assert ("step_1" in run) == learns
    last = run[[k for k in run if k.startswith("step_")][-1]]
    if learns:
        assert last["step_count"] >= 300 and last["train_seconds"] > 0
    assert 0.0 <= last["score"][0] <= 1.0 and run["run_meta"]["complete"]


@pytest.mark.slow
def test_a_springtime_run_killed_after_its_first_interval_resumes_as_an_uninterrupted_one(tmp_path):
    """The run stops right after point 1 is written (its checkpoint kept, point 0's deleted); resumed, it
    ends with the same decisions and scores as the uninterrupted run."""
    from benchmarks.protocol import run as runner

    task = "springtime/french-vs-heuristic/v1"
    whole = _run(
        tmp_path / "whole", task, "maskable_ppo", "--budget", "1100", "--evals", "3", "--eval-games", "2"
    )
    whole_run = whole["ffo_env"][task]["maskable_ppo"]["seed_0"]

    class Killed(Exception):
        pass

    def kill_after_point_1(seed: int, j: int, row: dict) -> None:
        if j == 1:
            raise Killed

    part = tmp_path / "part"
    plan = runner.make_plan(task, "maskable_ppo", 1100, None, 1, 0, 3, 2, ["test"])
    runner.start(plan, part)
    with pytest.raises(Killed):
        runner.run_seed(part, plan, 0, on_point=kill_after_point_1)
    assert [p.name for p in (part / "seed-0").glob("point-*")] == ["point-1"]
    assert main(["benchmark", "run", "--resume", str(part), "--no-progress"]) == 0
    resumed = json.loads((part / "results.json").read_text())["ffo_env"][task]["maskable_ppo"]["seed_0"]
    assert resumed["run_meta"]["resumed"] == 1 and resumed["run_meta"]["complete"]
    for j in range(3):
        assert resumed[f"step_{j}"]["step_count"] == whole_run[f"step_{j}"]["step_count"]
        assert resumed[f"step_{j}"]["eval"] == whole_run[f"step_{j}"]["eval"]
