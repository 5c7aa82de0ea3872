"""The browser play page of Springtime for Hitler: the map skeleton (sea, boundaries, one empty group per
layer) and the page's script; the layers themselves come from ``/api/state``."""

from __future__ import annotations

from typing import Any

from ffo_env.springtime.render.layout import default_layout
from ffo_env.springtime.render.svg import base_svg, layer_names
from ffo_env.springtime.render.viewer import static_text as render_static
from webplay.assets import play_script, script_json, static_text

__all__ = ["page"]

_OWN = "webplay.springtime"  # this package: its static/ holds the page and its script


def page(session: Any) -> str:
    game = session.state.game
    lay = default_layout()
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" id="map" class="sfh-map" viewBox="0 0 {lay.width} '
        f'{lay.height}" font-family="DejaVu Sans, Arial, sans-serif">{base_svg(game, lay)}'
        + "".join(f'<g id="layer-{name}"></g>' for name in layer_names(game))
        + "</svg>"
    )
    data = {"order": layer_names(game), "players": session.players, "seed": session.seed}
    html = static_text(_OWN, "play.html")
    html = html.replace("/*__CSS__*/", render_static("sfh.css")).replace("/*__JS__*/", play_script(_OWN))
    html = html.replace("__MAP__", svg)
    return html.replace("__DATA__", script_json(data))
