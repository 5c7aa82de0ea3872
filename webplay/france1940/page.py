"""The browser play page of France 1940: the hex map's static base with empty layers, and the page's
script; the layers themselves come from ``/api/state`` (drawn with the human's eyes)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from ffo_env.france1940.core.hexgrid import N_HEXES
from ffo_env.france1940.render.hexmap import R, hex_centre
from ffo_env.france1940.render.viewer import map_svg, static_text

__all__ = ["page"]


def _own_static(name: str) -> str:
    return resources.files("webplay.france1940").joinpath("static", name).read_text(encoding="utf-8")


def page(session: Any) -> str:
    """The page of ``session`` (a :class:`~webplay.france1940.session.France1940Session`): no seed, no state;
    the position is fetched from the API."""
    data = {
        "players": session.players,
        "r": R,
        "centres": [[0, 0]] + [list(hex_centre(n)) for n in range(1, N_HEXES + 1)],
    }
    html = _own_static("play.html")
    html = html.replace("/*__CSS__*/", static_text("f40.css"))
    html = html.replace("/*__JS__*/", static_text("map.js") + "\n" + _own_static("play.js"))
    html = html.replace("__MAP__", map_svg(session.state.game))
    return html.replace("__DATA__", json.dumps(data, separators=(",", ":")).replace("</", "<\\/"))
