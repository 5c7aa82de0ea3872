"""ffo_env: France Fights On (World at War #39) as a reinforcement-learning environment.

``ffo_env.core`` is the rules engine (pure Python + numpy). The PettingZoo
environment (``ffo_env.env``, ``ffo_env.raw_env``) is imported lazily so that the
core can be used without gymnasium or pettingzoo installed.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_LAZY = {"env": "ffo_env.envs.aec", "raw_env": "ffo_env.envs.aec", "parallel_env": "ffo_env.envs.aec"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ffo_env' has no attribute {name!r}")
