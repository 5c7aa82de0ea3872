"""Browser play of France Fights On (``ffo play --french human``), as :mod:`webplay.games` asks of a game.

- :mod:`.session` - :class:`~webplay.ffo.session.GameSession` (``Session``), a
  :class:`webplay.game_session.PlaySession` that adds what the game shows: the board with the fog of war an
  agent gets (rule 3.6, R3), the battles, the human's choices with where on the board each is picked;
- :mod:`.page` - ``page(session)``: the HTML page (the board drawn by the replay viewer's code,
  ``ffo_env/ffo/render/static``), served by :mod:`webplay.app` at ``/``;
- ``static/`` - the page's HTML and JavaScript.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from webplay.ffo.page import page
from webplay.ffo.session import GameSession

__all__ = ["Session", "new_session", "page"]

Session = GameSession


def new_session(args: argparse.Namespace, record_path: Path) -> GameSession:
    """The session of ``ffo play``'s arguments (``--setup``: the setup mode, R2)."""
    return GameSession(args.french, args.german, seed=args.seed, setup=args.setup, record_path=record_path)
