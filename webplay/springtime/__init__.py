"""Browser play of Springtime for Hitler (``ffo play --game springtime --french human``), as
:mod:`webplay.games` asks of a game.

- :mod:`.session` - :class:`~webplay.springtime.session.SpringtimeSession` (``Session``), a
  :class:`webplay.game_session.PlaySession` that adds what the game shows: the map drawn with the human's
  eyes (S59: their own held Event marker by name, the opponent's as "a marker") and the human's choices with
  where on the map each is picked;
- :mod:`.page` - ``page(session)``: the HTML page (the map's skeleton, the replay viewer's CSS), served by
  :mod:`webplay.app` at ``/``;
- ``static/`` - the page's HTML and JavaScript.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from webplay.springtime.page import page
from webplay.springtime.session import SpringtimeSession

__all__ = ["Session", "new_session", "page"]

Session = SpringtimeSession


def new_session(args: argparse.Namespace, record_path: Path) -> SpringtimeSession:
    """The session of ``ffo play --game springtime``'s arguments."""
    return SpringtimeSession(args.french, args.german, seed=args.seed, record_path=record_path)
