"""``ffo replay GAME.json --html GAME.html``: one self-contained HTML file to step through a game.

The board SVG (:mod:`ffo_env.ffo.render.svgboard`), the frames (:mod:`ffo_env.ffo.render.frames`), and the CSS and
JavaScript under ``ffo_env/ffo/render/static/`` are inlined into one file: it opens offline, from disk, with no
network access and no CDN.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ffo_env.atomic import atomic_write_text
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.mapdata import ColoredRow, MapData, Terrain
from ffo_env.ffo.core.scenario import default_scenario, scenario_named
from ffo_env.ffo.render.frames import viewer_data
from ffo_env.ffo.render.svgboard import board_geometry, board_svg, map_key_html

__all__ = ["static_text", "map_info", "board_payload", "build_viewer_html", "write_viewer"]


def static_text(name: str) -> str:
    """A file of ``ffo_env/ffo/render/static`` (shipped as package data)."""
    return resources.files("ffo_env.ffo.render").joinpath("static", name).read_text(encoding="utf-8")


def map_info(md: MapData) -> dict[str, Any]:
    """Hex facts the browser needs besides the drawn board: cities, sea hexes, German start rows."""
    return {
        "cities": [int(h) for h in md.city_hexes()],
        "sea": [i for i in range(hg.N_HEX) if md.terrain[i] == Terrain.SEA],
        # rule 3.7: green and yellow rows start German; their control hatch would only be noise
        "german_start": [i for i in range(hg.N_HEX) if md.row[i] in (ColoredRow.GREEN, ColoredRow.YELLOW)],
    }


@lru_cache(maxsize=4)
def board_payload(version: str | None = None) -> tuple[str, str]:
    """(board SVG, JSON of geometry + map info) of a data version's map (None: the data this process
    plays), built once per process and version."""
    scenario = default_scenario() if version is None else scenario_named(version)
    md = scenario.map
    extra = {"geo": board_geometry(), "map": map_info(md), "last_turn": scenario.tables.last_turn}
    return board_svg(md), json.dumps(extra, separators=(",", ":"))


def _script_json(obj: Any) -> str:
    # inside <script type="application/json">: "</" would end the element early
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")


def build_viewer_html(record: dict[str, Any]) -> str:
    """The viewer of ``record`` as one HTML document (raises RecordError if the record does not replay)."""
    data = viewer_data(record)
    svg, extra = board_payload(str(record.get("data_version", "")))
    data.update(json.loads(extra))
    page = static_text("viewer.html")
    js = static_text("board.js") + "\n" + static_text("viewer.js")
    # replace the data last so that nothing inside the game text is taken for a placeholder
    page = page.replace("/*__CSS__*/", static_text("ffo.css")).replace("/*__JS__*/", js)
    page = page.replace("__BOARD__", svg).replace("__KEY__", map_key_html())
    return page.replace("__DATA__", _script_json(data))


def write_viewer(record: dict[str, Any], path: str | Path) -> int:
    """Write the viewer of ``record`` to ``path`` atomically; return its size in bytes."""
    html = build_viewer_html(record)
    atomic_write_text(path, html)
    return len(html.encode("utf-8"))
