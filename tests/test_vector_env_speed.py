"""benchmarks/vector_env_speed.py: a tiny run of each action mode, and bad input refused."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from benchmarks.vector_env_speed import main, measure


@pytest.mark.parametrize("actions", ["any", "legal"])
def test_measure_counts_every_env_step(actions: str) -> None:
    r = measure("ffo_env/French-compact-v0", actions, steps=3, warmup=1)
    assert r["env_steps"] == 12 and r["actions"] == actions
    assert r["steps_per_s"] > 0 and r["steps_per_cpu_s"] > 0


def test_cli_prints_one_json_line() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "benchmarks.vector_env_speed", "--steps", "2"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(p.stdout.strip().splitlines()[-1])["env_steps"] == 8


def test_bad_input_is_one_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--steps", "0"]) == 2
    assert main(["--env-id", "ffo_env/Nope-v0", "--steps", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("error: ") for line in err)


def test_null_env_has_the_real_spaces_and_ends_every_step() -> None:
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    import benchmarks.null_env  # noqa: F401 - registers the stand-ins

    env = gym.make("ffo_bench/Null-compact-v0")
    real = gym.make("ffo_env/French-compact-v0")
    assert env.observation_space == real.observation_space and env.action_space == real.action_space
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    _, reward, terminated, truncated, _ = env.step(0)
    assert reward == -1.0 and terminated and not truncated
    check_env(env.unwrapped)
