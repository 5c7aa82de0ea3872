"""ffo_env: France Fights On (World at War #39) as a reinforcement-learning environment.

``ffo_env.ffo.core`` is the rules engine (pure Python + numpy). The PettingZoo
environment (``ffo_env.env``, ``ffo_env.raw_env``, ``ffo_env.parallel_env``) is imported
lazily so that the core can be used without gymnasium or pettingzoo installed. With gymnasium
installed, importing ``ffo_env`` registers the ids ``ffo_env/French-v0``, ``ffo_env/German-v0``,
``ffo_env/French-flat-v0`` and ``ffo_env/German-flat-v0`` (:mod:`ffo_env.envs.registration`), and those of
the other games. ``ffo_env.france1940_v0`` (*France, 1940*) is imported on first use.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_LAZY = {"env": "ffo_env.ffo.env", "raw_env": "ffo_env.ffo.env", "parallel_env": "ffo_env.ffo.env"}
_GAME_MODULES = ("france1940_v0",)  # the other games' PettingZoo-style modules, imported on first use


def _install_moved_names() -> None:
    """The old import paths of modules moved by issue 62 answer with the moved modules (:mod:`ffo_env._moved`)."""
    from ffo_env._moved import install

    install()


_install_moved_names()


def _register_gymnasium_ids() -> None:
    try:
        import gymnasium  # noqa: F401
    except ImportError:  # the core works without gymnasium; the ids need it
        return
    from ffo_env.envs.registration import register_envs

    register_envs()


_register_gymnasium_ids()


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in _GAME_MODULES:  # ``ffo_env.france1940_v0`` without importing it first (issue 63)
        import importlib

        return importlib.import_module(f"ffo_env.{name}")
    raise AttributeError(f"module 'ffo_env' has no attribute {name!r}")
