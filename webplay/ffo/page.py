"""The browser play page of France Fights On: the board (the replay viewer's static SVG, map key and board
script) and the page's script; the position itself comes from ``/api/state``."""

from __future__ import annotations

import json
from typing import Any

from ffo_env.ffo.render.html_viewer import board_payload
from ffo_env.ffo.render.html_viewer import static_text as render_static
from ffo_env.ffo.render.svgboard import map_key_html
from webplay.assets import script_json, static_text
from webplay.ffo.session import hex_names

__all__ = ["page"]

_OWN = "webplay.ffo"  # this package: its static/ holds the page and its script


def page(session: Any) -> str:
    """The page of ``session`` (a :class:`~webplay.ffo.session.GameSession`): the board of its scenario's
    map version, its units, the players and the seed."""
    svg, extra = board_payload(session.state.game.scenario.version)
    data = json.loads(extra)
    data.update(
        {"units": session.units, "hex_names": hex_names(), "players": session.players, "seed": session.seed}
    )
    html = static_text(_OWN, "play.html")
    js = render_static("board.js") + "\n" + static_text(_OWN, "play.js")
    html = html.replace("/*__CSS__*/", render_static("ffo.css")).replace("/*__JS__*/", js)
    html = html.replace("__BOARD__", svg).replace("__KEY__", map_key_html())
    return html.replace("__DATA__", script_json(data))
