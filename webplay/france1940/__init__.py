"""Browser play of *France, 1940* (``ffo play --game france1940 --french human``), as :mod:`webplay.games`
asks of a game (the layout of issue 62: ``webplay/<game>/``):

- :mod:`.session` - :class:`~webplay.france1940.session.France1940Session` (``Session``), a
  :class:`webplay.game_session.PlaySession` (the turn, the human's decision checked against
  ``State.legal_actions()``, the bot steps, the record and its viewer written at the end are the base
  class's) that adds what the game shows: the human's choices with where on the map each is picked, and
  the position drawn with the human's side's eyes (the core's visibility, F60/P3);
- :mod:`.page` - ``page(session)``: the HTML page (the map's static base and the page's script), served by
  :mod:`webplay.app` at ``/``;
- ``static/`` - the page's HTML and JavaScript (the map's CSS and layer script are the replay viewer's,
  ``ffo_env/france1940/render/static``).

:mod:`webplay.app` and :mod:`webplay.command` reach these by the game's package name (:mod:`webplay.games`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from webplay.france1940.page import page
from webplay.france1940.session import France1940Session

__all__ = ["Session", "new_session", "page"]

Session = France1940Session


def new_session(args: argparse.Namespace, record_path: Path) -> France1940Session:
    """The session of ``ffo play --game france1940``'s arguments."""
    return France1940Session(args.french, args.german, seed=args.seed, record_path=record_path)
