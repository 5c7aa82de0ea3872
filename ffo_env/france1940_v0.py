"""*France, 1940*, version 0 of its environments, named as PettingZoo names its games:
``from ffo_env import france1940_v0; france1940_v0.env(); france1940_v0.parallel_env()``.

The spec is the docstring of :mod:`ffo_env.france1940.env`.
"""

from __future__ import annotations

from ffo_env.france1940.env import France1940SingleAgentEnv, env, parallel_env, raw_env

__all__ = ["France1940SingleAgentEnv", "env", "parallel_env", "raw_env"]
