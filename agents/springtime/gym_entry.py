"""Springtime for Hitler's name of the suite's one Gymnasium entry point (:func:`agents.gym_entry.make_game_env`),
``agents.springtime.gym_entry:make_springtime_env``, kept for code that names it."""

from __future__ import annotations

from typing import Any

from agents.gym_entry import make_game_env

__all__ = ["make_springtime_env"]


def make_springtime_env(side: str = "french", opponent: Any = "random", **kwargs: Any) -> Any:
    """:class:`~ffo_env.springtime.env.SpringtimeSingleAgentEnv` for ``side``; a string ``opponent`` names a bot
    of the other side (``"random"`` plays from the env's own seeded generator)."""
    return make_game_env("springtime", side, opponent, **kwargs)
