"""``ffo play`` with ``human`` on one or both sides: serve the game on 127.0.0.1 and play it in the browser
(any game of the suite, ``--game G``: its session is built by its web play package, :mod:`webplay.games`)."""

from __future__ import annotations

import argparse
import logging
import time
import webbrowser
from pathlib import Path

from ffo_env.atomic import check_writable
from ffo_env.games import DEFAULT_GAME, refuse_game_options
from webplay.game_session import HUMAN
from webplay.games import game_webplay


def default_record_path(seed: int) -> Path:
    return Path("runs") / "play" / f"seed{seed}-{time.strftime('%Y%m%d-%H%M%S')}.json"


def run(args: argparse.Namespace) -> int:
    from webplay.app import LocalServer

    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port {args.port} is not a TCP port (0..65535; 0 = any free port)")
    game = getattr(args, "game", DEFAULT_GAME)
    refuse_game_options(args)  # another game's own options (--setup, --data ...): before anything is written
    record = Path(args.record) if args.record else default_record_path(args.seed)
    check_writable(record)  # before a person plays a whole game, not after
    check_writable(record.with_suffix(".html"))
    session = game_webplay(game).new_session(args, record)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request on the console
    server = LocalServer(session, port=args.port)
    sides = ", ".join(f"{s}: {'you' if p == HUMAN else p}" for s, p in session.players.items())
    print(f"{session.info.title}, seed {args.seed} ({sides})")
    print(f"open {server.url} in a browser; Ctrl+C stops the server")
    print(f"the game record will be written to {record} (and a viewer to {record.with_suffix('.html')})")
    if args.open_browser:
        webbrowser.open(server.url)
    try:
        server.server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server.server_close()
    if session.saved:
        print(f"record written to {session.saved['record']}; viewer {session.saved['viewer']}")
    else:
        print("stopped before the end of the game: no record written")
    return 0
