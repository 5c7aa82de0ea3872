"""The entry point of the Springtime gymnasium ids (:mod:`ffo_env.envs.registration`): the opponent may be
given by name (``"random"``, ``"pass"``, ``"heuristic"``)."""

from __future__ import annotations

from typing import Any

from agents.springtime import make_agent
from ffo_env.springtime.env import SpringtimeSingleAgentEnv

__all__ = ["make_springtime_env"]


def make_springtime_env(
    side: str = "french", opponent: Any = "random", **kwargs: Any
) -> SpringtimeSingleAgentEnv:
    """:class:`SpringtimeSingleAgentEnv` for ``side``; a string ``opponent`` names a bot of the other side
    (``"random"`` plays from the env's own seeded generator)."""
    if isinstance(opponent, str):
        other = "german" if side == "french" else "french"
        opponent = None if opponent == "random" else make_agent(opponent, other)
    return SpringtimeSingleAgentEnv(side=side, opponent=opponent, **kwargs)
