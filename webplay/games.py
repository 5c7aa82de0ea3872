"""Each game's web play, found by the game's package name: ``webplay.<package>``.

The server (:mod:`webplay.app`) and ``ffo play`` with a human side (:mod:`webplay.command`) name no game:
they import the game's package of this layer (:attr:`ffo_env.games.GameInfo.package_name`: ``webplay.ffo``,
``webplay.springtime``, ``webplay.france1940``), which offers what :class:`GameWebplay` lists. A new game
adds ``webplay/<game>/`` and edits nothing here.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from ffo_env.games import game_info

__all__ = ["GameWebplay", "game_webplay"]


class GameWebplay(Protocol):
    """What a game's web play package (``webplay.<package>``) offers."""

    Session: type[Any]  # its webplay.game_session.PlaySession: what a human sees and how a choice is shown

    def page(self, session: Any) -> str:
        """The HTML page of ``session``, served at ``/`` (the position itself comes from ``/api/state``)."""
        ...

    def new_session(self, args: argparse.Namespace, record_path: Path) -> Any:
        """A session from ``ffo play``'s arguments (the players, the seed and the game's own options)."""
        ...


def game_webplay(game: str) -> ModuleType:
    """The package of ``game``'s web play, ``webplay.<package>`` (an unknown game is one clear error)."""
    return importlib.import_module(f"webplay.{game_info(game).package_name}")
