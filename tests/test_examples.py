"""Every example runs, with a tiny budget, as a user would start it (a subprocess from the repo root)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from benchmark_support import kill_after_points

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> list[dict]:
    out = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def test_sb3_maskable_ppo_example():
    (res,) = _run(
        "examples/sb3_maskable_ppo.py",
        "--timesteps",
        "64",
        "--n-steps",
        "32",
        "--eval-games",
        "1",
        "--max-steps",
        "40",
    )
    assert res["env_id"] == "ffo_env/French-flat-v0" and res["eval_games"] == 1


@pytest.mark.parametrize("mask", ["true", "false"])
def test_cleanrl_masked_ppo_example_runs_from_the_id_alone(mask):
    rows = _run(
        "examples/cleanrl_masked_ppo.py",
        "--env-id",
        "ffo_env:ffo_env/German-flat-v0",
        "--total-timesteps",
        "64",
        "--num-steps",
        "16",
        "--num-envs",
        "2",
        "--use-mask",
        mask,
    )
    assert [r["iteration"] for r in rows] == [1, 2] and rows[-1]["global_step"] == 64


def test_openspiel_bridge_example():
    pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install 'ffo_env[openspiel]')")
    (res,) = _run(
        "examples/ffo/openspiel_bridge.py", "--games", "1", "--simulations", "2", "--max-decisions", "20"
    )
    assert res["games"] == 1 and res["decisions"] == 20


def test_rllib_multi_agent_example():
    pytest.importorskip("ray.rllib", reason="the rllib extra is not installed")
    rows = _run(
        "examples/rllib_multi_agent.py",
        "--iterations",
        "1",
        "--num-env-runners",
        "1",
        "--batch",
        "256",
        "--max-steps",
        "200",
    )
    assert [r["iteration"] for r in rows] == [1] and rows[0]["env_steps"] >= 256


def test_benchmark_reinforce_example_registers_runs_and_resumes_its_algorithm(tmp_path):
    """docs/tutorials/own_algorithm.md: a learner of the user's own, run by the protocol's own commands."""
    out = tmp_path / "r"
    run = ["examples/ffo/benchmark_reinforce.py", "run", "--task", "ffo/french-endgame/v2", "--algo", "reinforce",
           "--seeds", "1", "--budget", "64", "--eval-games", "2", "--out", str(out), "--no-progress"]  # fmt: skip
    _run(*run)
    doc = json.loads((out / "results.json").read_text())
    seed = doc["ffo_env"]["ffo/french-endgame/v2"]["reinforce"]["seed_0"]
    assert seed["run_meta"]["complete"] and seed["run_meta"]["hyperparameters"]["episodes_per_update"] == 8
    points = [seed[f"step_{j}"] for j in range(6)]
    assert points[0]["step_count"] == 0 and points[-1]["step_count"] >= 64
    assert all(0.0 <= p["score"][0] <= 1.0 for p in points)
    # the protocol's own command does not know the algorithm: one error line that says where it is known
    plain = subprocess.run([sys.executable, "-m", "ffo_env.cli", "benchmark", "run", "--resume", str(out)],
                           cwd=ROOT, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert plain.returncode == 2 and "known only to a process that registered it" in plain.stderr
    assert "Traceback" not in plain.stderr
    _run("examples/ffo/benchmark_reinforce.py", "run", "--resume", str(out), "--no-progress")
    assert json.loads((out / "results.json").read_text())["ffo_env"] == doc["ffo_env"]


@pytest.mark.slow
def test_a_killed_benchmark_reinforce_run_resumes_to_the_result_of_an_uninterrupted_one(tmp_path):
    """The tutorial's claim for a learner of one's own: seeded by (seed, interval) from fresh environments and
    restored from its checkpoint, a run killed after its second point and resumed gives every point (scores and
    each evaluation game) of a run never stopped."""
    script = [sys.executable, "examples/ffo/benchmark_reinforce.py", "run"]
    args = ["--task", "ffo/french-endgame/v2", "--algo", "reinforce", "--seeds", "1", "--evals", "4",
            "--eval-games", "2", "--budget", "3000", "--no-progress"]  # fmt: skip
    killed, straight = tmp_path / "killed", tmp_path / "straight"

    assert 2 <= kill_after_points([*script, *args, "--out", str(killed)], killed, 2, ROOT, timeout=600) < 4
    _run(*script[1:], "--resume", str(killed), "--no-progress")
    _run(*script[1:], *args, "--out", str(straight))

    def steps(folder: Path) -> list[tuple[int, list[float], list[float]]]:
        run = json.loads((folder / "results.json").read_text())["ffo_env"]["ffo/french-endgame/v2"][
            "reinforce"
        ]
        run = run["seed_0"]
        assert run["run_meta"]["complete"]
        return [
            (run[k]["step_count"], run[k]["score"], run[k]["eval"]["opponents"]["expert"]["per_game"])
            for k in sorted((k for k in run if k.startswith("step_")), key=lambda k: int(k[5:]))
        ]

    resumed = json.loads((killed / "results.json").read_text())["ffo_env"]["ffo/french-endgame/v2"][
        "reinforce"
    ]
    assert resumed["seed_0"]["run_meta"]["resumed"] == 1
    assert steps(killed) == steps(straight)


def test_german_compact_stock_script_runs_at_a_tiny_budget():
    """Issue 60's stock script: MaskablePPO("MlpPolicy") defaults on the registered German-compact id, the same
    evaluation games before and after training (one game each here; one 2,048-decision rollout is trained)."""
    (res,) = _run("examples/ffo/german_compact_stock.py", "--timesteps", "64", "--games", "1")
    # the id's defaults (issue 60): the candidate-slot action layout and the potential reward
    assert res["env_id"] == "ffo_env/German-compact-v0" and res["reward"] == "potential"
    assert res["action_layout"] == "slots" and res["slot_count"] == 8
    for when in ("before", "after"):
        r = res[when]
        assert len(r["wins"]) == 1 and r["mean_return"] in (
            -1.0,
            1.0,
        )  # the potential reward sums to the result
        assert r["win_rate"] == r["wins"][0] and r["mean_decisions"] > 50
    assert res["paired"]["rise"] == res["after"]["win_rate"] - res["before"]["win_rate"]


def test_german_compact_stock_script_plays_a_fixed_control_policy():
    """``--control``: a fixed slot policy on the same evaluation games, no training (the control of the
    slot-order experiment, docs/experiments/2026-11-28-german-compact-slots.md)."""
    (res,) = _run(
        "examples/ffo/german_compact_stock.py",
        "--control",
        "slot0",
        "--slot-order",
        "overstack_last",
        "--games",
        "1",
    )
    assert res["control"] == "slot0" and res["slot_order"] == "overstack_last"
    assert len(res["result"]["wins"]) == 1 and res["result"]["wins"][0] in (0, 1)


def test_german_compact_stock_script_controls_with_a_slot_count_and_an_opponent():
    """``--control uniform --slot-count 16 --opponent heuristic``: the options reach the env."""
    (res,) = _run(
        "examples/ffo/german_compact_stock.py",
        "--control",
        "uniform",
        "--slot-count",
        "16",
        "--opponent",
        "heuristic",
        "--games",
        "1",
    )
    assert (res["control"], res["slot_count"], res["opponent"]) == ("uniform", 16, "heuristic")
    assert res["result"]["wins"][0] in (0, 1) and res["result"]["mean_vp"] == res["result"]["vp"][0]
