"""Agents by name, for every game of the suite: the command line, the evaluation harness and training.

``make_agent(name, side, seed, game=...)`` builds the agent called ``name`` of the game ``game`` (default
:data:`ffo_env.games.DEFAULT_GAME`). The registry names no game: each game's agents live in its own package of
this layer, ``agents.<package>`` (:attr:`ffo_env.games.GameInfo.package_name`: ``agents.ffo``,
``agents.springtime``, ``agents.france1940``), which offers what :class:`GameAgents` lists; the registry
imports it when first asked. A new game adds ``agents/<game>/`` and its registry entry in
:mod:`ffo_env.games`, and edits nothing here.

What each game's package offers:

- ``AGENT_NAMES``: its agents' names (``policy:PATH`` apart: a trained policy file of that game);
- ``make_agent(name, side, seed=None, **kwargs)``: the agent, or one ``ValueError`` naming the known names;
- optionally ``is_agent_name(name)`` (names built from parts, e.g. France Fights On's ``lookahead:policy:PATH``;
  default: one of ``AGENT_NAMES`` or ``policy:PATH``) and ``agent_sides(name)`` (the sides an agent can play;
  default: both).

France Fights On's names (``random``, ``pass``, ``heuristic``, ``expert``, ``pretrained``, ``policy:PATH``,
``lookahead:...``, each side's bots and parameter files) are listed in :mod:`agents.ffo`, Springtime for
Hitler's in :mod:`agents.springtime`, France 1940's in :mod:`agents.france1940`. ``AGENT_NAMES`` and
``register`` of this module are the default game's (the names before issue 62 moved them, kept one release).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Protocol

from agents.policy_io import is_policy_name
from ffo_env.games import DEFAULT_GAME, SIDES, game_info

__all__ = ["GameAgents", "agent_names", "agent_sides", "game_agents", "is_agent_name", "make_agent"]


class GameAgents(Protocol):
    """What a game's package of agents (``agents.<package>``) offers the registry."""

    AGENT_NAMES: Sequence[str]

    def make_agent(self, name: str, side: str, seed: int | None = None, **kwargs: Any) -> Any: ...


def game_agents(game: str = DEFAULT_GAME) -> ModuleType:
    """The package of ``game``'s agents, ``agents.<package>`` (an unknown game is one clear error)."""
    return importlib.import_module(f"agents.{game_info(game).package_name}")


def agent_names(game: str = DEFAULT_GAME) -> tuple[str, ...]:
    """The agent names of ``game`` (``policy:PATH`` apart)."""
    return tuple(game_agents(game).AGENT_NAMES)


def is_agent_name(name: object, game: str = DEFAULT_GAME) -> bool:
    """A name an agent of ``game`` has, or ``policy:PATH`` (whether PATH loads is checked when it is made)."""
    module = game_agents(game)
    own = getattr(module, "is_agent_name", None)
    if own is not None:
        return bool(own(name))
    return isinstance(name, str) and (name in module.AGENT_NAMES or is_policy_name(name))


def agent_sides(name: str, game: str = DEFAULT_GAME) -> tuple[str, ...]:
    """The sides the agent called ``name`` of ``game`` can play (both, unless the game's package says)."""
    own = getattr(game_agents(game), "agent_sides", None)
    return tuple(own(name)) if own is not None else SIDES


def make_agent(name: str, side: str, seed: int | None = None, **kwargs: Any) -> Any:
    """Build the agent called ``name`` to play ``side`` (``"french"`` or ``"german"``) of the game ``game=``
    (keyword, default France Fights On); the other keywords go to the game's own ``make_agent`` (France Fights
    On's heuristic bots take ``config=PATH``)."""
    game = kwargs.pop("game", DEFAULT_GAME)
    if side not in SIDES:
        raise ValueError(f"side must be 'french' or 'german', got {side!r}")
    return game_agents(game).make_agent(name, side, seed, **kwargs)


def __getattr__(name: str) -> Any:
    """``AGENT_NAMES`` and ``register``: the default game's (their home before issue 62, kept one release)."""
    if name in ("AGENT_NAMES", "register"):
        return getattr(game_agents(DEFAULT_GAME), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
