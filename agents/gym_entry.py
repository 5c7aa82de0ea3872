"""The entry point of the gymnasium ids (:mod:`ffo_env.envs.registration`): a single-agent env whose
opponent may be given by name (``"random"``, ``"heuristic"``, ``"policy:PATH"``, ...)."""

from __future__ import annotations

from typing import Any

from agents.registry import make_agent
from ffo_env.ffo.single_agent import FFOSingleAgentEnv

__all__ = ["make_game_env", "make_single_agent_env"]

ACTION_LAYOUTS = ("core", "slots")


def make_single_agent_env(
    side: str = "french", opponent: Any = "random", action_layout: str = "core", **kwargs: Any
) -> FFOSingleAgentEnv:
    """:class:`FFOSingleAgentEnv` for ``side``; a string ``opponent`` is an agent name for the other side.

    ``"random"`` plays from the env's own seeded generator (the fastest opponent). ``action_layout="slots"``
    gives :class:`~ffo_env.ffo.slot_env.FFOSlotEnv` (candidate slots, compact observation only);
    ``"core"`` the core's action space (one action per hex, unit and special)."""
    if action_layout not in ACTION_LAYOUTS:
        raise ValueError(f"action_layout must be one of {ACTION_LAYOUTS}, got {action_layout!r}")
    if isinstance(opponent, str):
        other = "german" if side == "french" else "french"
        opponent = None if opponent == "random" else make_agent(opponent, other)
    if action_layout == "slots":
        from ffo_env.ffo.slot_env import FFOSlotEnv

        return FFOSlotEnv(side=side, opponent=opponent, **kwargs)
    return FFOSingleAgentEnv(side=side, opponent=opponent, **kwargs)


def make_game_env(game: str, side: str = "french", opponent: Any = "random", **kwargs: Any) -> Any:
    """The one-side env of ``game`` (:meth:`ffo_env.games.GameInfo.single_agent_env`) for ``side``; a string
    ``opponent`` is an agent name of that game for the other side (``"random"``: the env's own seeded
    generator). The entry point of France 1940's ids (issue 63)."""
    from ffo_env.games import game_info

    info = game_info(game)
    if isinstance(opponent, str):
        other = "german" if side == "french" else "french"
        opponent = None if opponent == "random" else make_agent(opponent, other, game=game)
    return info.single_agent_env(side=side, opponent=opponent, **kwargs)
