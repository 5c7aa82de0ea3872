"""The entry point of the gymnasium ids (:mod:`ffo_env.envs.registration`): a single-agent env whose
opponent may be given by name (``"random"``, ``"heuristic"``, ``"policy:PATH"``, ...)."""

from __future__ import annotations

from typing import Any

from agents.registry import make_agent
from ffo_env.ffo.single_agent import FFOSingleAgentEnv

__all__ = ["make_single_agent_env"]


def make_single_agent_env(side: str = "french", opponent: Any = "random", **kwargs: Any) -> FFOSingleAgentEnv:
    """:class:`FFOSingleAgentEnv` for ``side``; a string ``opponent`` is an agent name for the other side.

    ``"random"`` plays from the env's own seeded generator (the fastest opponent)."""
    if isinstance(opponent, str):
        other = "german" if side == "french" else "french"
        opponent = None if opponent == "random" else make_agent(opponent, other)
    return FFOSingleAgentEnv(side=side, opponent=opponent, **kwargs)
