"""The map as text: one character per hex, one line per column, north at top.

Each line is one column ``XX`` (60 first, so grid north is at the top), hexes
west -> east, two characters apart; odd columns are indented by one character
because they sit half a hex further east. The character between two hexes of
a line shows their shared E-W hexside: ``|`` river, ``#`` blocked. Cities (and
ports) are capital letters listed in the legend; units in the overlay replace
the hex character.
"""

from __future__ import annotations

from collections.abc import Iterable

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.mapdata import ColoredRow, MapData, Terrain
from ffo_env.ffo.render import Counter, Marker

TERRAIN_CHAR = {
    Terrain.CLEAR: ".",
    Terrain.ROUGH: "+",
    Terrain.MARSH: "%",
    Terrain.MOUNTAIN: "^",
    Terrain.SEA: "~",
    Terrain.NEUTRAL: "x",
}
RIVER_CLEAR_CHAR = (
    ","  # a clear hex with at least one river hexside (rivers on slanted sides are not drawable)
)
ROW_CHAR = {ColoredRow.GREEN: "g", ColoredRow.RED: "r", ColoredRow.YELLOW: "y"}
UNIT_CHAR = {"french": ("f", "F"), "german": ("d", "D")}  # (single unit, stack of 2+)
MARKER_CHAR = {"refugee": "?"}
CITY_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWZ"  # no X/Y: avoid confusion with neutral 'x' and row 'y'


def city_letters(md: MapData) -> dict[int, str]:
    """Hex index -> letter, cities lettered north to south then west to east (reading order)."""
    order = sorted(md.city_hexes(), key=lambda i: (-int(hg.HEX_X[i]), int(hg.HEX_Y[i])))
    return {i: (CITY_LETTERS[k] if k < len(CITY_LETTERS) else "*") for k, i in enumerate(order)}


def render_map_text(
    md: MapData,
    counters: Iterable[Counter] = (),
    markers: Iterable[Marker] = (),
    legend: bool = True,
    numbers: bool = True,
) -> str:
    """Text map: the first 60 lines are columns 60..01; then the legend (unless ``legend=False``)."""
    letters = city_letters(md)
    unit_at: dict[int, str] = {}
    for c in counters:
        single, stacked = UNIT_CHAR[c.side]
        unit_at[c.hex_index] = stacked if c.stack > 1 or c.hex_index in unit_at else single
    marker_at = {m.hex_index: MARKER_CHAR[m.kind] for m in markers if m.kind in MARKER_CHAR}

    lines: list[str] = []
    for x in range(hg.N_COLS, 0, -1):
        parts = [f"{x:02d} " if numbers else "", " " if x % 2 else ""]
        for y in range(hg.rows_in_column(x)):
            i = hg.index_of(x, y)
            if y > 0:  # the W hexside of this hex = the E hexside of the previous one
                parts.append("#" if md.blocked[i, 3] else "|" if md.river[i, 3] else " ")
            parts.append(unit_at.get(i) or marker_at.get(i) or _hex_char(md, i, letters))
        lines.append("".join(parts).rstrip())
    if legend:
        lines.append("")
        lines.append("one line per column XX (60 = north, at top); rows YY 00 (west) -> 25 (east)")
        lines.append(
            "legend: . clear  + rough  % marsh  ^ mountain  ~ sea  x neutral  , clear with river hexside"
        )
        lines.append("        g green row  r red row  y yellow row  | river / # blocked (E-W hexside)")
        if unit_at or marker_at:
            lines.append("        f/F French unit/stack  d/D German unit/stack  ? refugee marker")
        cities = [
            f"{letters[i]} {md.city[i]} {hg.hex_name(i)}{' (port)' if md.port[i] else ''}"
            for i in sorted(letters, key=lambda i: letters[i])
        ]
        for k in range(0, len(cities), 4):
            lines.append(("cities: " if k == 0 else "        ") + ", ".join(cities[k : k + 4]))
    return "\n".join(lines) + "\n"


def _hex_char(md: MapData, i: int, letters: dict[int, str]) -> str:
    if i in letters:
        return letters[i]
    row = ColoredRow(int(md.row[i]))
    if row != ColoredRow.NONE:
        return ROW_CHAR[row]
    t = Terrain(int(md.terrain[i]))
    if t == Terrain.CLEAR and md.river[i].any():
        return RIVER_CLEAR_CHAR
    return TERRAIN_CHAR[t]
