"""The one entry point of every game's Gymnasium ids (:mod:`ffo_env.envs.registration`): a one-side env of a
game of the suite whose opponent may be given by name (``"random"``, ``"heuristic"``, ``"policy:PATH"``, ...).

``make_game_env(game, side, opponent, **kwargs)`` serves every game; ``make_single_agent_env`` (France Fights
On's ids before issue 62) and ``agents.springtime.gym_entry.make_springtime_env`` are the same function for
one game, kept under their names.
"""

from __future__ import annotations

from typing import Any

from agents.registry import make_agent
from ffo_env.games import DEFAULT_GAME, game_info

__all__ = ["make_game_env", "make_single_agent_env"]


def make_game_env(game: str, side: str = "french", opponent: Any = "random", **kwargs: Any) -> Any:
    """The one-side env of ``game`` (:meth:`ffo_env.games.GameInfo.single_agent_env`) for ``side``; a string
    ``opponent`` is an agent name of that game for the other side (``"random"``: the env's own seeded
    generator, the fastest opponent); the other keywords are the game's env options (France Fights On's
    ``action_layout``: ``"core"`` or ``"slots"``, ``observation_format``, ``reward``, ``setup``, ...)."""
    info = game_info(game)
    if isinstance(opponent, str):
        other = "german" if side == "french" else "french"
        opponent = None if opponent == "random" else make_agent(opponent, other, game=game)
    return info.single_agent_env(side=side, opponent=opponent, **kwargs)


def make_single_agent_env(side: str = "french", opponent: Any = "random", **kwargs: Any) -> Any:
    """The default game's (France Fights On's) one-side env: :func:`make_game_env` of that game."""
    return make_game_env(DEFAULT_GAME, side, opponent, **kwargs)
