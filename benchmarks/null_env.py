"""Zero-cost stand-ins with the spaces of the French flat and compact ids, to measure what a training script
costs by itself per step: the ceiling of its speed on any env with those spaces.

Importing the module registers ``ffo_bench/Null-flat-v0`` and ``ffo_bench/Null-compact-v0``. Their
observation and action spaces are those of the default game's French ``-flat-v0`` and ``-compact-v0`` ids
(``ffo_env/French-flat-v0`` and ``ffo_env/French-compact-v0``);
every observation is the same constant vector and every step ends the episode with reward -1, as an illegal
action does on the real ids (so an unmasked script resets as often as there). For CleanRL's ``ppo.py``:
``python ppo.py --env-id benchmarks.null_env:ffo_bench/Null-compact-v0 --total-timesteps 2048``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

__all__ = ["NullEnv"]

FORMATS = ("flat", "compact")


def real_id(fmt: str) -> str:
    """The registry's default game's French Gymnasium id with the ``fmt`` observation."""
    from benchmarks.speed_parts import gym_id
    from ffo_env.games import DEFAULT_GAME

    return gym_id(DEFAULT_GAME, fmt)


class NullEnv(gym.Env):
    """The spaces of a real id (``fmt``: ``"flat"`` or ``"compact"``) and nothing else."""

    def __init__(self, fmt: str = "compact") -> None:
        if fmt not in FORMATS:
            raise ValueError(f"fmt must be one of {sorted(FORMATS)}, got {fmt!r}")
        from benchmarks.speed_parts import register_gym_ids

        register_gym_ids()
        real = gym.make(real_id(fmt))
        self.observation_space = real.observation_space
        self.action_space = real.action_space
        real.close()
        box = self.observation_space
        assert isinstance(box, gym.spaces.Box)
        self._obs = np.clip(np.zeros(box.shape, dtype=box.dtype), box.low, box.high)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        return self._obs.copy(), {}

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return self._obs.copy(), -1.0, True, False, {}


for _fmt in FORMATS:
    _id = f"ffo_bench/Null-{_fmt}-v0"
    if _id not in gym.registry:
        gym.register(_id, entry_point="benchmarks.null_env:NullEnv", kwargs={"fmt": _fmt})
