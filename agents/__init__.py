"""Agents: scripted bots and loaders of trained policies, behind one interface (:mod:`agents.base`).

Every game's agents live in its own package (``agents.ffo``, ``agents.springtime``, ``agents.france1940``);
:func:`make_agent` (:mod:`agents.registry`) builds one by name and game, and the evaluation harness (``ffo
eval``, :func:`agents.harness.run_tournament`) plays them against each other. ``AGENT_NAMES``, ``register``
and ``PassAgent`` are the default game's (France Fights On's, :mod:`agents.ffo`), kept under these names.
"""

from __future__ import annotations

from typing import Any

from agents.base import Agent, ObservationAgent, RandomAgent
from agents.registry import make_agent
from ffo_env._moved import install

install()  # the old import paths of agents.<bot> modules moved by issue 62 (before any of them is imported)

__all__ = ["AGENT_NAMES", "Agent", "ObservationAgent", "PassAgent", "RandomAgent", "make_agent", "register"]


def __getattr__(name: str) -> Any:
    """The default game's ``AGENT_NAMES``, ``register`` and ``PassAgent`` (their names before issue 62)."""
    if name in ("AGENT_NAMES", "register", "PassAgent"):
        from agents.registry import game_agents

        return getattr(game_agents(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
