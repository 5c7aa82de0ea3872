"""The Flask app of web play and its local server (127.0.0.1 only).

Flask (with Werkzeug's threaded server) rather than an ASGI stack: the game is one local session whose bot
steps are short synchronous calls into the core, so a plain WSGI app is the least machinery; Werkzeug's
``make_server`` also gives tests a server they can start on a free port and shut down in-process.

Routes: ``GET /`` the page; ``GET /api/state`` the position as the human may see it and their legal
choices; ``POST /api/act`` ``{"action": int}`` a human decision; ``POST /api/bot`` one bot decision (the
page calls it in a loop, with a pause, so that bot moves are animated); ``GET /api/record`` the game record.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.serving import BaseWSGIServer, make_server

from webplay.game_session import PlayError
from webplay.games import game_webplay

__all__ = ["create_app", "LocalServer"]

LOCALHOST = "127.0.0.1"


def _page(session: Any) -> str:
    """The page of ``session``'s game, by its web play package (``webplay.<package>.page``)."""
    html: str = game_webplay(session.game).page(session)
    return html


def create_app(session: Any) -> Flask:
    """The app of one game: a :class:`~webplay.game_session.PlaySession` of any game of the suite (each
    game's ``webplay.<package>.Session``), with the same routes for all."""
    app = Flask("webplay")
    page = _page(session)

    def _int_arg(name: str) -> int:
        raw = request.args.get(name, "0")
        try:
            return max(0, int(raw))
        except ValueError:
            raise PlayError(f"query parameter {name}={raw!r} is not an integer") from None

    @app.errorhandler(PlayError)
    def _refused(e: PlayError) -> tuple[Response, int]:
        return jsonify({"error": str(e)}), 400

    @app.get("/")
    def index() -> Response:
        return Response(page, mimetype="text/html")

    @app.get("/api/state")
    def state() -> Response:
        return jsonify(session.view(_int_arg("since_dice"), _int_arg("since_decision")))

    @app.post("/api/act")
    def act() -> Response:
        body: Any = request.get_json(silent=True)
        if not isinstance(body, dict) or "action" not in body:
            raise PlayError('send JSON {"action": <integer>}')
        session.act(body["action"])
        return jsonify(session.view(_int_arg("since_dice"), _int_arg("since_decision")))

    @app.post("/api/bot")
    def bot() -> Response:
        moved = session.bot_step()
        out = session.view(_int_arg("since_dice"), _int_arg("since_decision"))
        out["moved"] = moved
        return jsonify(out)

    @app.get("/api/record")
    def record() -> Response:
        game = session.game
        rec = session.record()  # the game's record (France Fights On's names its players)
        return Response(
            json.dumps(rec, indent=1),
            mimetype="application/json",
            headers={"Content-Disposition": f"attachment; filename={game}-seed{session.seed}.json"},
        )

    return app


class LocalServer:
    """The app on 127.0.0.1 (port 0 = a free port chosen by the OS), served from a background thread."""

    def __init__(self, session: Any, port: int = 0) -> None:
        self.session = session
        self.server: BaseWSGIServer = make_server(LOCALHOST, port, create_app(session), threaded=True)
        self.port = self.server.server_port
        self.url = f"http://{LOCALHOST}:{self.port}/"
        self._thread: threading.Thread | None = None

    def start(self) -> LocalServer:
        self._thread = threading.Thread(target=self.server.serve_forever, name="ffo-webplay", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
