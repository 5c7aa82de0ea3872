"""Slow tests of the benchmark protocol: every algorithm and every task with tiny budgets, and a killed run
that resumes to the same result as an uninterrupted one (``pytest -m slow tests/test_benchmark_protocol_slow.py``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from benchmark_support import kill_after_points

from benchmarks.protocol.tasks import TASKS
from ffo_env.cli import main

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]


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
    return json.loads((out / "results.json").read_text())["ffo_env"][task][algo]["seed_0"]


@pytest.mark.parametrize(
    "algo", ["maskable_ppo", "maskable_ppo_pretrained", "dagger_expert", "ppo_mlp_compact", "untrained"]
)
def test_every_algorithm_runs_the_endgame_task_with_a_tiny_budget(algo, tmp_path):
    run = _run(
        tmp_path / algo, "ffo/french-endgame/v2", algo, "--budget", "300", "--evals", "2", "--eval-games", "2"
    )
    last = run[[k for k in run if k.startswith("step_")][-1]]
    learns = algo != "untrained"
    assert ("step_1" in run) == learns
    if learns:
        assert last["step_count"] >= 300 and last["train_seconds"] > 0
    assert 0.0 <= last["score"][0] <= 1.0 and run["run_meta"]["complete"]


@pytest.mark.parametrize("task", sorted(TASKS))
def test_every_task_runs_with_a_reference_agent(task, tmp_path):
    run = _run(tmp_path / "r", task, "random", "--eval-games", "1")
    assert run["run_meta"]["task"] == task and run["run_meta"]["fingerprint"]


def test_self_play_trains_both_sides(tmp_path):
    run = _run(
        tmp_path / "sp",
        "ffo/selfplay-ladder/v1",
        "dagger_expert",
        "--budget",
        "200",
        "--evals",
        "2",
        "--eval-games",
        "1",
    )
    assert run["step_1"]["step_count"] == 200
    assert set(run["step_1"]["eval"]["elo"]) == {"french", "german"}


@pytest.mark.parametrize("algo", ["dagger_expert", "maskable_ppo"])
def test_a_killed_run_resumes_to_the_result_of_an_uninterrupted_one(algo, tmp_path):
    args = [
        "--task",
        "ffo/french-endgame/v2",
        "--algo",
        algo,
        "--seeds",
        "1",
        "--evals",
        "4",
        "--eval-games",
        "2",
    ]
    args += ["--budget", "300" if algo == "dagger_expert" else "3000", "--no-progress"]
    killed = tmp_path / "killed"
    cmd = [sys.executable, "-m", "ffo_env.cli", "benchmark", "run", *args, "--out", str(killed)]
    rows_at_kill = kill_after_points(cmd, killed, 2, ROOT)
    assert 2 <= rows_at_kill < 4
    assert main(["benchmark", "run", "--resume", str(killed), "--no-progress"]) == 0
    straight = tmp_path / "straight"
    assert main(["benchmark", "run", *args, "--out", str(straight)]) == 0

    def steps(folder: Path) -> list[tuple[int, list[float], list[float]]]:
        run = json.loads((folder / "results.json").read_text())["ffo_env"]["ffo/french-endgame/v2"][algo][
            "seed_0"
        ]
        assert run["run_meta"]["complete"]
        return [
            (run[k]["step_count"], run[k]["score"], run[k]["eval"]["opponents"]["expert"]["per_game"])
            for k in sorted((k for k in run if k.startswith("step_")), key=lambda k: int(k[5:]))
        ]

    resumed = json.loads((killed / "results.json").read_text())["ffo_env"]["ffo/french-endgame/v2"][algo][
        "seed_0"
    ]
    assert resumed["run_meta"]["resumed"] == 1
    assert steps(killed) == steps(straight)
