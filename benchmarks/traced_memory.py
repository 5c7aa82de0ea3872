"""Peak traced memory of N environments stepping together."""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np

from ffo_env.games import DEFAULT_GAME, game_info


def memory(n_envs: int, steps: int = 300, game: str = DEFAULT_GAME) -> float:
    """Peak traced Python + numpy memory (MiB) of ``n_envs`` AEC environments of ``game`` (default: the
    registry's default game) created, reset and stepped."""
    make = game_info(game).aec_env
    gc.collect()
    tracemalloc.start()
    envs = [make() for _ in range(n_envs)]
    rng = np.random.default_rng(0)
    for i, env in enumerate(envs):
        env.reset(seed=i)
        for _ in range(steps):
            obs, _r, term, trunc, _info = env.last()
            action = None if (term or trunc) else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            if not env.agents:
                env.reset(seed=i + 1000)
    _cur, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del envs
    return peak / 2**20
