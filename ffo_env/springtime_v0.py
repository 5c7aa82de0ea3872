"""Springtime for Hitler, version 0 of its environments, named as PettingZoo names its games:
``from ffo_env import springtime_v0; springtime_v0.env(); springtime_v0.parallel_env()``.

The spec is the docstring of :mod:`ffo_env.springtime.env`.
"""

from __future__ import annotations

from ffo_env.springtime.env import SpringtimeSingleAgentEnv, env, parallel_env, raw_env

__all__ = ["SpringtimeSingleAgentEnv", "env", "parallel_env", "raw_env"]
