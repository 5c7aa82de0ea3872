"""Env steps/s as a stock script drives a gymnasium id: CleanRL's ``ppo.py`` makes a ``SyncVectorEnv`` of 4
envs, each wrapped in ``RecordEpisodeStatistics``, and feeds it actions. ``--actions any`` draws them
uniformly over the whole action space (an untrained policy without masks: nearly all illegal, so about every
other step is a new game), ``--actions legal`` uniformly over each env's legal actions (a masked policy):
``python -m benchmarks.vector_env_speed --env-id ffo_env/French-compact-v0 --actions any --steps 400``.

Prints one JSON line: env steps, wall and process CPU seconds and both rates (on a shared machine the CPU
rate is the steadier one). Used for the speed figures of docs/guide/compact_observation.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np


def measure(
    env_id: str, actions: str, steps: int, n_envs: int = 4, seed: int = 1, warmup: int = 20
) -> dict[str, Any]:
    """Rates of ``steps`` vector steps (``n_envs`` env steps each) after ``warmup`` untimed ones."""
    import gymnasium as gym

    from benchmarks.speed_parts import register_gym_ids

    register_gym_ids()
    envs = gym.vector.SyncVectorEnv(
        [lambda: gym.wrappers.RecordEpisodeStatistics(gym.make(env_id)) for _ in range(n_envs)]
    )
    envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    n_act = int(envs.single_action_space.n)  # type: ignore[attr-defined]

    def draw() -> np.ndarray:
        if actions == "any":
            return rng.integers(0, n_act, size=n_envs)
        out = []
        for e in envs.envs:
            legal = np.flatnonzero(e.unwrapped.action_masks())  # type: ignore[attr-defined]
            out.append(int(rng.choice(legal)) if legal.size else 0)  # none: this step resets the env
        return np.array(out)

    for _ in range(warmup):
        envs.step(draw())
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        envs.step(draw())
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    envs.close()
    n = steps * n_envs
    return {
        "env_id": env_id,
        "actions": actions,
        "env_steps": n,
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "steps_per_s": round(n / wall, 1),
        "steps_per_cpu_s": round(n / cpu, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.vector_env_speed", description=(__doc__ or "").strip().splitlines()[0]
    )
    p.add_argument(
        "--env-id",
        default=None,
        help="a registered gymnasium id (default: the default game's French -compact-v0 id, "
        "ffo_env/French-compact-v0)",
    )
    p.add_argument(
        "--actions",
        choices=("any", "legal"),
        default="any",
        help="uniform over all actions or the legal ones",
    )
    p.add_argument("--steps", type=int, default=400, help="timed vector steps (4 env steps each)")
    p.add_argument("--seed", type=int, default=1, help="seed of the envs' reset and of the actions")
    args = p.parse_args(argv)
    if args.steps < 1:
        print(f"error: --steps must be at least 1, got {args.steps}", file=sys.stderr)
        return 2
    import gymnasium as gym

    from benchmarks.speed_parts import gym_id, register_gym_ids
    from ffo_env.games import DEFAULT_GAME

    if args.env_id is None:
        args.env_id = gym_id(DEFAULT_GAME, "compact")
    try:
        register_gym_ids()
        gym.spec(args.env_id)
    except gym.error.Error as e:
        print(f"error: --env-id {args.env_id!r}: {e}", file=sys.stderr)
        return 2
    print(json.dumps(measure(args.env_id, args.actions, args.steps, seed=args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
