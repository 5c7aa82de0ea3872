"""The browser play page of France 1940: the hex map's static base with empty layers, and the page's
script; the layers themselves come from ``/api/state`` (drawn with the human's eyes)."""

from __future__ import annotations

from typing import Any

from ffo_env.france1940.core.hexgrid import N_HEXES
from ffo_env.france1940.render.hexmap import R, hex_centre
from ffo_env.france1940.render.viewer import map_svg
from ffo_env.france1940.render.viewer import static_text as render_static
from webplay.assets import play_script, script_json, static_text

__all__ = ["page"]

_OWN = "webplay.france1940"  # this package: its static/ holds the page and its script


def page(session: Any) -> str:
    """The page of ``session`` (a :class:`~webplay.france1940.session.France1940Session`): no seed, no state;
    the position is fetched from the API."""
    data = {
        "players": session.players,
        "r": R,
        "centres": [[0, 0]] + [list(hex_centre(n)) for n in range(1, N_HEXES + 1)],
    }
    html = static_text(_OWN, "play.html")
    html = html.replace("/*__CSS__*/", render_static("f40.css"))
    html = html.replace("/*__JS__*/", play_script(_OWN, render_static("map.js")))
    html = html.replace("__MAP__", map_svg(session.state.game))
    return html.replace("__DATA__", script_json(data))
