"""Draw the map with Pillow: terrain, rivers, blocked hexsides, cities, ports,
colored rows, hex numbers, a legend, and optionally counters and markers.

Geometry is :func:`ffo_env.ffo.core.hexgrid.center_xy` (pointy-topped hexes, grid
north = increasing column at the top, odd columns half a hex east), scaled so
that one centre-to-centre distance is ``HEX_PX * scale`` pixels.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.mapdata import ColoredRow, MapData, Terrain
from ffo_env.ffo.core.sides import SIDE_NAMES
from ffo_env.ffo.render import Counter, Marker
from ffo_env.ffo.render.layout import (  # noqa: F401  (re-exported: the palette and geometry used to live here)
    BLOCKED_RGB,
    GRID_RGB,
    HEX_PX,
    LEGEND_W,
    RIVER_RGB,
    ROW_RGB,
    SIDE_RGB,
    SIDE_TEXT_RGB,
    TERRAIN_RGB,
    TEXT_RGB,
    MapLayout,
)

__all__ = ["Counter", "Marker", "render_map", "to_array", "HEX_PX", "MapLayout"]

_FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")  # have the accents of French names


@lru_cache(maxsize=64)
def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """DejaVu Sans if installed (Pillow searches the system font dirs), else Pillow's bundled font."""
    try:
        return ImageFont.truetype(_FONT_FILES[bold], max(6, size))
    except OSError:
        pass
    try:
        return ImageFont.load_default(size=max(6, size))
    except TypeError:  # Pillow < 10.1 has no scalable default font
        return ImageFont.load_default()


@lru_cache(maxsize=1)
def _has_accents() -> bool:
    """False when only Pillow's bundled font is there: it has no glyph for e.g. 'É'."""
    try:
        ImageFont.truetype(_FONT_FILES[0], 10)
        return True
    except OSError:
        return False


def _label(text: str) -> str:
    if _has_accents():
        return text
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def _text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    size: int,
    fill: tuple[int, int, int] = TEXT_RGB,
    anchor: str = "mm",
    halo: int = 0,
    bold: bool = False,
) -> None:
    kw = {"stroke_width": halo, "stroke_fill": (255, 255, 255)} if halo else {}
    draw.text(xy, _label(text), font=_font(size, bold), fill=fill, anchor=anchor, **kw)


def render_map(
    mapdata: MapData,
    *,
    scale: float = 1.0,
    counters: Iterable[Counter] = (),
    markers: Iterable[Marker] = (),
    title: str | None = None,
    legend: bool = True,
    hex_numbers: bool = True,
) -> Image.Image:
    """The map as an RGB image; ``counters``/``markers`` are drawn on top."""
    lay = MapLayout(scale, legend)
    img = Image.new("RGB", (lay.width, lay.height), (250, 248, 240))
    draw = ImageDraw.Draw(img)
    s = lay.s
    line_w = max(1, round(s / 40))

    for i in range(hg.N_HEX):
        row = ColoredRow(int(mapdata.row[i]))
        fill = ROW_RGB[row] if row != ColoredRow.NONE else TERRAIN_RGB[Terrain(int(mapdata.terrain[i]))]
        draw.polygon(lay.polygon(i), fill=fill, outline=GRID_RGB, width=line_w)
    _sea_label(draw, lay, mapdata)

    if hex_numbers:
        size = max(6, round(s * 0.17))
        for i in range(hg.N_HEX):
            x, y = lay.center(i)
            sea = mapdata.terrain[i] == Terrain.SEA
            _text(
                draw, (x, y - 0.62 * lay.r), hg.hex_name(i), size, fill=(70, 90, 120) if sea else (90, 80, 60)
            )

    # Hexsides: each drawn once, from the hex whose direction is E, NE or NW.
    river_w = max(2, round(s / 11))
    blocked_w = max(3, round(s / 7))
    for i in range(hg.N_HEX):
        for d in (0, 1, 2):
            if hg.NEIGHBORS[i, d] < 0:
                continue
            if mapdata.river[i, d]:
                draw.line(lay.side(i, d), fill=RIVER_RGB, width=river_w)
            if mapdata.blocked[i, d]:
                draw.line(lay.side(i, d), fill=BLOCKED_RGB, width=blocked_w)

    _draw_cities(draw, lay, mapdata)
    for c in counters:
        _draw_counter(draw, lay, c)
    for m in markers:  # after the counters, on their corners, so a unit never hides them
        _draw_marker(draw, lay, m)
    _title(draw, lay, title or "France Fights On - southern France, June 1940")
    if legend:
        _legend(draw, lay)
    return img


def _sea_label(draw: ImageDraw.ImageDraw, lay: MapLayout, md: MapData) -> None:
    """Name the sea at the centroid of the all-sea hexes (computed, not a hex fact)."""
    sea = np.flatnonzero(md.terrain == Terrain.SEA)
    if len(sea) < 20:
        return
    pts = np.array([lay.center(int(i)) for i in sea])
    x, y = pts.mean(axis=0)
    size = round(lay.s * 0.6)
    _text(draw, (x, y - size), "Mediterranean Sea", size, fill=(60, 100, 150))
    _text(draw, (x, y + size * 0.6), "(Gulf of Lion - Ligurian Sea)", round(size * 0.55), fill=(60, 100, 150))


def _draw_cities(draw: ImageDraw.ImageDraw, lay: MapLayout, md: MapData) -> None:
    s = lay.s
    dot = max(2.0, s * 0.11)
    size = max(7, round(s * 0.22))
    for i in md.city_hexes():
        x, y = lay.center(i)
        if md.port[i]:
            ring = dot * 2.2  # ports: navy ring with an anchor stroke around the city dot
            draw.ellipse(
                (x - ring, y - ring, x + ring, y + ring), outline=(20, 40, 120), width=max(2, round(s / 25))
            )
            draw.line((x, y + ring, x, y + ring + dot * 1.6), fill=(20, 40, 120), width=max(2, round(s / 25)))
        draw.ellipse((x - dot, y - dot, x + dot, y + dot), fill=(0, 0, 0))
        _text(draw, (x, y + 0.52 * lay.r), md.city[i], size, halo=max(1, round(s / 30)), bold=True)


def _draw_marker(draw: ImageDraw.ImageDraw, lay: MapLayout, m: Marker) -> None:
    x, y = lay.center(m.hex_index)
    s = lay.s
    if m.kind == "refugee":  # orange diamond, left of the counter slot
        cx, cy, h = x - 0.32 * s, y + 0.24 * s, 0.13 * s
        draw.polygon(
            [(cx, cy - h), (cx + h, cy), (cx, cy + h), (cx - h, cy)], fill=(240, 140, 20), outline=(0, 0, 0)
        )
        _text(draw, (cx, cy), m.text or "R", max(6, round(s * 0.14)))
    else:  # control flag in the side's colour, right of the counter slot
        px, py = x + 0.3 * s, y - 0.05 * s
        draw.line((px, py - 0.28 * s, px, py + 0.12 * s), fill=(0, 0, 0), width=max(1, round(s / 40)))
        draw.rectangle(
            (px, py - 0.28 * s, px + 0.2 * s, py - 0.14 * s), fill=SIDE_RGB[m.side], outline=(0, 0, 0)
        )


def _draw_counter(draw: ImageDraw.ImageDraw, lay: MapLayout, c: Counter) -> None:
    x, y = lay.center(c.hex_index)
    s = lay.s
    half = 0.3 * s
    off = 0.06 * s
    n = max(1, c.stack)
    for k in range(min(n, 3) - 1, -1, -1):  # a stack shows up to three offset counters
        dx = dy = -k * off
        box = (x - half + dx, y - half + dy, x + half + dx, y + half + dy)
        draw.rectangle(box, fill=SIDE_RGB[c.side], outline=(0, 0, 0), width=max(1, round(s / 50)))
    if c.highlight:
        draw.rectangle(
            (x - half - 3, y - half - 3, x + half + 3, y + half + 3),
            outline=(255, 220, 0),
            width=max(2, round(s / 16)),
        )
    fg = SIDE_TEXT_RGB[c.side]
    if c.top_text:
        _text(draw, (x, y - 0.14 * s), c.top_text, max(6, round(s * 0.15)), fill=fg)
    _text(draw, (x, y + 0.08 * s), c.label, max(6, round(s * 0.16)), fill=fg)
    if n > 1:
        _text(
            draw,
            (x + half - 0.02 * s, y + half - 0.02 * s),
            str(n),
            max(6, round(s * 0.14)),
            fill=(0, 0, 0),
            anchor="rb",
            halo=1,
        )


def _title(draw: ImageDraw.ImageDraw, lay: MapLayout, title: str) -> None:
    _text(
        draw,
        (lay.margin, lay.margin * 0.5 + 20 * lay.scale),
        title,
        round(34 * lay.scale),
        anchor="lm",
        bold=True,
    )
    _text(
        draw,
        (lay.margin, lay.margin * 0.5 + 60 * lay.scale),
        "Grid north (column 60 at top) = true bearing 340 deg; hex = 8 miles (12.87 km)",
        round(20 * lay.scale),
        anchor="lm",
        fill=(80, 80, 80),
    )


def _legend(draw: ImageDraw.ImageDraw, lay: MapLayout) -> None:
    sc = lay.scale
    x0 = lay.map_w + 10 * sc
    y = lay.top + 20 * sc
    size = round(22 * sc)
    _text(draw, (x0, y), "Legend", round(30 * sc), anchor="lm")
    y += 50 * sc
    box = 34 * sc

    def swatch(fill: tuple[int, int, int], label: str) -> None:
        nonlocal y
        draw.rectangle((x0, y - box / 2, x0 + box, y + box / 2), fill=fill, outline=GRID_RGB)
        _text(draw, (x0 + box + 14 * sc, y), label, size, anchor="lm")
        y += box + 12 * sc

    for t, name in (
        (Terrain.CLEAR, "Clear"),
        (Terrain.ROUGH, "Rough"),
        (Terrain.MARSH, "Marsh"),
        (Terrain.MOUNTAIN, "Mountain"),
        (Terrain.SEA, "Sea (all-sea hex)"),
        (Terrain.NEUTRAL, "Neutral country (no entry)"),
    ):
        swatch(TERRAIN_RGB[t], name)
    swatch(ROW_RGB[ColoredRow.GREEN], "Green row 60xx (German start)")
    swatch(ROW_RGB[ColoredRow.RED], "Red row 59xx (French start)")
    swatch(ROW_RGB[ColoredRow.YELLOW], "Yellow row 2900-5800 (west edge)")

    def line_item(fill: tuple[int, int, int], width: int, label: str) -> None:
        nonlocal y
        draw.line((x0, y, x0 + box, y), fill=fill, width=width)
        _text(draw, (x0 + box + 14 * sc, y), label, size, anchor="lm")
        y += box + 12 * sc

    line_item(RIVER_RGB, max(2, round(lay.s / 11)), "River hexside")
    line_item(BLOCKED_RGB, max(3, round(lay.s / 7)), "Blocked hexside")
    cx, cy, dot = x0 + box / 2, y, max(2.0, lay.s * 0.11)
    draw.ellipse((cx - dot, cy - dot, cx + dot, cy + dot), fill=(0, 0, 0))
    _text(draw, (x0 + box + 14 * sc, y), "City", size, anchor="lm")
    y += box + 12 * sc
    cx, cy, ring = x0 + box / 2, y, dot * 2.2
    draw.ellipse(
        (cx - ring, cy - ring, cx + ring, cy + ring), outline=(20, 40, 120), width=max(2, round(lay.s / 25))
    )
    draw.ellipse((cx - dot, cy - dot, cx + dot, cy + dot), fill=(0, 0, 0))
    _text(draw, (x0 + box + 14 * sc, y), "Port (naval garrison)", size, anchor="lm")
    y += box + 30 * sc
    for side in SIDE_NAMES:
        swatch(SIDE_RGB[side], f"{side.capitalize()} unit")
    _text(draw, (x0, y), "Hex ids XXYY: column XX 01-60", round(18 * sc), anchor="lm")
    _text(draw, (x0, y + 26 * sc), "runs south -> north, row YY", round(18 * sc), anchor="lm")
    _text(draw, (x0, y + 52 * sc), "west -> east.", round(18 * sc), anchor="lm")


def to_array(img: Image.Image) -> np.ndarray:
    """An image as an ``(H, W, 3)`` ``uint8`` array (e.g. for ``render_mode='rgb_array'``)."""
    return np.asarray(img.convert("RGB"), dtype=np.uint8).copy()
