"""The static board as SVG (terrain, coloured rows, rivers, blocked hexsides, cities, ports, hex numbers),
drawn with the geometry and palette of the PNG map (:mod:`ffo_env.ffo.render.layout`). Counters and markers
are drawn over it in the browser by ``static/board.js`` from the frames of :mod:`ffo_env.ffo.render.frames`.
"""

from __future__ import annotations

from html import escape
from typing import Any

import numpy as np

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.mapdata import ColoredRow, MapData, Terrain
from ffo_env.ffo.render.layout import (
    BLOCKED_RGB,
    GRID_RGB,
    PORT_RGB,
    REFUGEE_RGB,
    RIVER_RGB,
    ROW_RGB,
    SIDE_RGB,
    TERRAIN_RGB,
    MapLayout,
)

__all__ = ["BOARD_SCALE", "board_svg", "board_geometry", "map_key_html"]

BOARD_SCALE = 0.875  # 56 px between hex centres: counters stay readable at 100 % zoom


def _rgb(c: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*c)


def _pts(points: list[tuple[float, float]]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


def board_geometry(scale: float = BOARD_SCALE) -> dict[str, Any]:
    """Hex centres and sizes for the browser (counters, click targets)."""
    lay = MapLayout(scale, legend=False)
    cx = [round(lay.center(i)[0], 1) for i in range(hg.N_HEX)]
    cy = [round(lay.center(i)[1], 1) for i in range(hg.N_HEX)]
    return {"s": lay.s, "r": lay.r, "w": lay.width, "h": lay.height, "cx": cx, "cy": cy}


def board_svg(md: MapData, scale: float = BOARD_SCALE) -> str:
    """The board as one ``<svg>`` element with an empty ``<g id="overlay">`` for counters and markers."""
    lay = MapLayout(scale, legend=False)
    s = lay.s
    out = [
        f'<svg id="board" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {lay.width} {lay.height}" '
        f'width="{lay.width}" height="{lay.height}">',
        f'<rect width="{lay.width}" height="{lay.height}" fill="#faf8f0"/>',
        f'<g id="hexes" stroke="{_rgb(GRID_RGB)}" stroke-width="{max(1.0, s / 40):.1f}">',
    ]
    for i in range(hg.N_HEX):
        row = ColoredRow(int(md.row[i]))
        fill = ROW_RGB[row] if row != ColoredRow.NONE else TERRAIN_RGB[Terrain(int(md.terrain[i]))]
        out.append(f'<polygon data-hex="{i}" points="{_pts(lay.polygon(i))}" fill="{_rgb(fill)}"/>')
    out.append("</g>")
    size = max(6.0, s * 0.17)
    out.append(
        f'<g id="hexnums" font-size="{size:.1f}" text-anchor="middle" fill="#5a503c" pointer-events="none">'
    )
    for i in range(hg.N_HEX):
        x, y = lay.center(i)
        out.append(f'<text x="{x:.1f}" y="{y - 0.5 * lay.r:.1f}">{hg.hex_name(i)}</text>')
    out.append("</g>")
    rw, bw = max(2.0, s / 11), max(3.0, s / 7)
    out.append('<g id="hexsides" stroke-linecap="round" pointer-events="none">')
    for i in range(hg.N_HEX):
        for d in (0, 1, 2):  # each hexside once, from the hex whose direction is E, NE or NW
            if hg.NEIGHBORS[i, d] < 0:
                continue
            (x1, y1), (x2, y2) = lay.side(i, d)
            for flag, col, w in ((md.river[i, d], RIVER_RGB, rw), (md.blocked[i, d], BLOCKED_RGB, bw)):
                if flag:
                    out.append(
                        f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                        f'stroke="{_rgb(col)}" stroke-width="{w:.1f}"/>'
                    )
    out.append("</g>")
    sea = np.flatnonzero(md.terrain == Terrain.SEA)
    if len(sea) >= 20:  # name the sea at the centroid of the all-sea hexes, as the PNG does
        pts = np.array([lay.center(int(i)) for i in sea])
        x, y = pts.mean(axis=0)
        out.append(
            f'<text x="{x:.0f}" y="{y:.0f}" font-size="{s * 0.6:.0f}" fill="#3c6496" text-anchor="middle" '
            'pointer-events="none">Mediterranean Sea</text>'
        )
    dot = max(2.0, s * 0.11)
    out.append('<g id="cities" pointer-events="none">')
    for i in md.city_hexes():
        x, y = lay.center(i)
        if md.port[i]:
            ring = dot * 2.2
            out.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{ring:.1f}" fill="none" stroke="{_rgb(PORT_RGB)}" '
                f'stroke-width="{max(2.0, s / 25):.1f}"/><line x1="{x:.1f}" y1="{y + ring:.1f}" '
                f'x2="{x:.1f}" y2="{y + ring + dot * 1.6:.1f}" stroke="{_rgb(PORT_RGB)}" '
                f'stroke-width="{max(2.0, s / 25):.1f}"/>'
            )
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{dot:.1f}" fill="#000"/>')
        out.append(
            f'<text class="city" x="{x:.1f}" y="{y + 0.62 * lay.r:.1f}" font-size="{max(7.0, s * 0.22):.1f}">'
            f"{escape(md.city[i])}</text>"
        )
    out.append("</g>")
    out.append('<g id="overlay"></g><g id="marks" pointer-events="none"></g></svg>')
    return "".join(out)


def map_key_html() -> str:
    """The map key of the PNG legend as HTML swatches (same palette), for the viewer's side panel."""
    items = [
        (TERRAIN_RGB[t], name)
        for t, name in (
            (Terrain.CLEAR, "clear"),
            (Terrain.ROUGH, "rough"),
            (Terrain.MARSH, "marsh"),
            (Terrain.MOUNTAIN, "mountain"),
            (Terrain.SEA, "sea"),
            (Terrain.NEUTRAL, "neutral (no entry)"),
        )
    ]
    items += [
        (ROW_RGB[ColoredRow.GREEN], "green row (German start)"),
        (ROW_RGB[ColoredRow.RED], "red row"),
        (ROW_RGB[ColoredRow.YELLOW], "yellow row (west edge)"),
        (SIDE_RGB["french"], "French unit"),
        (SIDE_RGB["german"], "German unit"),
        (REFUGEE_RGB, "refugees (R* flipped)"),
    ]
    out = [f'<span><i style="background:{_rgb(c)}"></i>{escape(n)}</span>' for c, n in items]
    out.append(f'<span><i style="background:{_rgb(RIVER_RGB)};height:4px"></i>river</span>')
    out.append(f'<span><i style="background:{_rgb(BLOCKED_RGB)};height:5px"></i>blocked hexside</span>')
    out.append(f'<span><i style="border:2px solid {_rgb(PORT_RGB)};border-radius:50%"></i>port</span>')
    out.append('<span><i class="hatch"></i>German control</span>')
    out.append(
        "<span>counter: size, NATO symbol, CF (yellow = reduced), name; corner number = stack height</span>"
    )
    return "".join(out)
