"""The static part of the France 1940 map in SVG: the hex geometry and everything drawn from the game's data.

:func:`base_svg` draws every terrain hex tinted by its country (C§2.1, C§2.2), the international borders
(a line through each band of border hexes, F5), the rivers on their hexsides (C§4.2), the Maginot Line and
the Belgian fortresses with their front hexsides (C§3.2, F25), cities and towns (C§4.1) with Paris marked,
the supply edges (C§3.3) and the Bomber Command base box (F58), and (``hex_ids``) every hex's number.

Geometry follows :mod:`ffo_env.france1940.core.hexgrid`: flat-topped hexes, column 1 at the east edge
(drawn on the right), odd columns half a hex higher. The moving parts are :mod:`.svg`'s.
"""

from __future__ import annotations

import math
from html import escape

from ffo_env.france1940.core.data import Data
from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.hexgrid import COLUMNS, N_HEXES, NEIGHBOURS, ROWS, col_row

__all__ = [
    "COUNTRY",
    "HEIGHT",
    "MAP_HEIGHT",
    "PANEL_Y",
    "R",
    "TERRAIN",
    "WIDTH",
    "base_svg",
    "hex_centre",
    "hex_points",
    "hexside",
    "num",
    "svg_open",
]

R = 16.0  # hex radius (centre to corner) in SVG units
H = math.sqrt(3.0) * R  # flat-to-flat height of a hex
M = 6.0  # margin
WIDTH = round((COLUMNS - 1) * 1.5 * R + 2 * R + 2 * M)
MAP_HEIGHT = round(ROWS * H + H / 2 + 2 * M)
PANEL_Y = MAP_HEIGHT + 4
HEIGHT = MAP_HEIGHT + 96

TERRAIN = {  # C§2.1: the drawn terrain codes (x, outside the playing area, is not drawn)
    ".": ("clear", "#ece6c6"),
    "f": ("forest", "#8fb86c"),
    "s": ("swamp", "#a4c8bc"),
    "w": ("flooded", "#86acd6"),
    "~": ("sea", "#6f9bd1"),
}
COUNTRY = {  # C§2.2: the tint of each country's land
    "F": ("France", "#4f86e0"),
    "B": ("Belgium", "#e0b800"),
    "N": ("Netherlands", "#e07b1a"),
    "L": ("Luxembourg", "#8a4bb0"),
    "G": ("Germany", "#4a4a4a"),
}
TINT = 0.32  # how much of the country's colour goes into a land hex


def num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def hex_centre(n: int) -> tuple[float, float]:
    """The SVG centre of hex ``n``: column 1 (east) on the right, odd columns half a hex higher (C§1.2)."""
    c, r = col_row(n)
    x = (COLUMNS - c) * 1.5 * R + R + M
    y = (r - (0.5 if c % 2 == 1 else 0.0)) * H + M
    return round(x, 2), round(y, 2)


_CORNERS = tuple((R * math.cos(math.pi / 3 * k), R * math.sin(math.pi / 3 * k)) for k in range(6))


def hex_points(n: int) -> str:
    x, y = hex_centre(n)
    return " ".join(f"{num(x + cx)},{num(y + cy)}" for cx, cy in _CORNERS)


def hexside(a: int, b: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """The two ends of the edge between adjacent hexes ``a`` and ``b`` (a regular hex's edge is ``R`` long)."""
    (xa, ya), (xb, yb) = hex_centre(a), hex_centre(b)
    mx, my = (xa + xb) / 2, (ya + yb) / 2
    dx, dy = xb - xa, yb - ya
    d = math.hypot(dx, dy)
    px, py = -dy / d * R / 2, dx / d * R / 2
    return (round(mx + px, 2), round(my + py, 2)), (round(mx - px, 2), round(my - py, 2))


def _mix(a: str, b: str, t: float) -> str:
    ca = [int(a[i : i + 2], 16) for i in (1, 3, 5)]
    cb = [int(b[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(ca, cb, strict=True))


def _hex_fill(d: Data, n: int) -> str:
    base = TERRAIN[d.terrain[n]][1]
    cs = sorted(c for c in d.countries[n] if c in COUNTRY)
    if d.terrain[n] == "~" or not cs:
        return base
    tint = COUNTRY[cs[0]][1] if len(cs) == 1 else _mix(COUNTRY[cs[0]][1], COUNTRY[cs[1]][1], 0.5)
    return _mix(base, tint, TINT)


def _line(a: tuple[float, float], b: tuple[float, float], cls: str, extra: str = "") -> str:
    return f'<line class="{cls}" x1="{num(a[0])}" y1="{num(a[1])}" x2="{num(b[0])}" y2="{num(b[1])}"{extra}/>'


def _terrain(d: Data) -> str:
    out = ['<g id="terrain">']
    for n in range(1, N_HEXES + 1):
        t = d.terrain[n]
        if t not in TERRAIN:
            continue  # C§2.1: outside the playing area
        cs = "".join(sorted(c for c in d.countries[n] if c in COUNTRY))
        border = " bhex" if len(cs) == 2 else ""  # C§2.2: a border hex belongs to both countries (F5)
        name = TERRAIN[t][0] + (", " + " / ".join(COUNTRY[c][0] for c in cs) if cs else "")
        out.append(
            f'<polygon class="hex t{"sea" if t == "~" else t}{border}" data-hex="{n}" data-t="{t}" '
            f'data-c="{cs}" points="{hex_points(n)}" fill="{_hex_fill(d, n)}"><title>{n}: {name}</title>'
            "</polygon>"
        )
    out.append("</g>")
    return "".join(out)


def _borders(d: Data) -> str:
    """International borders (C§2.2, F5): a line through each band of border hexes of one code, and the
    hexside between two land hexes that share no country."""
    out = ['<g id="borders">']
    code = d.country
    for n in range(1, N_HEXES + 1):
        if not d.playable(n):
            continue
        for m in NEIGHBOURS[n]:
            if m < n or not d.playable(m):
                continue
            if code[n].isdigit() and code[n] == code[m]:
                out.append(_line(hex_centre(n), hex_centre(m), "border", f' data-code="{code[n]}"'))
            elif d.countries[n] and d.countries[m] and not (d.countries[n] & d.countries[m]):
                a, b = hexside(n, m)
                out.append(_line(a, b, "border side", f' data-a="{n}" data-b="{m}"'))
    out.append("</g>")
    return "".join(out)


def _rivers(d: Data) -> str:
    out = ['<g id="rivers">']
    for name, sides in sorted(d.river_names.items()):
        for a, b in sides:
            p, q = hexside(a, b)
            out.append(
                _line(p, q, "river", f' data-a="{min(a, b)}" data-b="{max(a, b)}"')[:-2]
                + f"><title>{escape(name)} {a}-{b}</title></line>"
            )
    out.append("</g>")
    return "".join(out)


def _forts(d: Data) -> str:
    """The Maginot Line and the Belgian fortified hexes (C§3.2, F25): the line joining them, the hexsides
    facing the front (thick, toothed) and a fortress symbol in each hex."""
    out = ['<g id="fortlines">']
    done: set[frozenset[int]] = set()
    for h, f in sorted(d.fortified.items()):
        for m in sorted(f.line):
            key = frozenset((h, m))
            if key in done or m not in d.fortified:
                continue
            done.add(key)
            out.append(
                _line(hex_centre(h), hex_centre(m), f"fortline {f.kind}", f' data-a="{h}" data-b="{m}"')
            )
        for m in sorted(f.front):
            a, b = hexside(h, m)
            out.append(_line(a, b, f"front {f.kind}", f' data-hex="{h}" data-to="{m}"'))
    for h, f in sorted(d.fortified.items()):
        x, y = hex_centre(h)
        title = f"{h}: {'Maginot Line' if f.kind == 'maginot' else 'Belgian fortress'}" + (
            f" ({f.name})" if f.name else ""
        )
        out.append(
            f'<g class="fort {f.kind}" data-hex="{h}"><title>{escape(title)}</title>'
            f'<rect x="{num(x - 6)}" y="{num(y - 4)}" width="12" height="8" rx="1"/>'
            f'<path d="M{num(x - 6)},{num(y - 4)} v-2 h3 v2 h3 v-2 h3 v2 h3 v-2"/></g>'
        )
    out.append("</g>")
    return "".join(out)


def _cities(d: Data) -> str:
    out = ['<g id="cities">']
    for n, (kind, name) in sorted(d.cities.items()):
        x, y = hex_centre(n)
        label = name.replace("_", " ")
        paris = n in d.paris
        cls = "city" + (" paris" if paris else "") + (" C" if kind == "C" else " T")
        shape = (
            f'<circle cx="{num(x)}" cy="{num(y + 7)}" r="{3.2 if kind == "C" else 2.2}"/>'
            if kind == "C" or paris
            else f'<rect x="{num(x - 2)}" y="{num(y + 5)}" width="4" height="4"/>'
        )
        text = (
            f'<text x="{num(x)}" y="{num(y + 14.5)}" text-anchor="middle">{escape(label)}</text>'
            if kind == "C"
            else ""
        )
        what = "city" if kind == "C" else "town"
        out.append(
            f'<g class="{cls}" data-hex="{n}" data-name="{escape(label)}">'
            f"<title>{escape(label)} ({what}, hex {n})</title>{shape}{text}</g>"
        )
    out.append("</g>")
    return "".join(out)


def _edges(d: Data) -> str:
    """The supply and entry edges (C§3.3, F4, F17) and the Bomber Command base (F58)."""
    out = ['<g id="edges">']
    for cls, hexes in (
        ("german", d.german_edge),
        ("allied south", d.allied_south_edge),
        ("allied west", d.allied_west_edge),
    ):
        for n in hexes:
            x, y = hex_centre(n)
            out.append(
                f'<circle class="edge {cls}" data-hex="{n}" cx="{num(x)}" cy="{num(y - 9)}" r="1.8">'
                f"<title>{n}: {'German' if cls == 'german' else 'Allied'} map edge</title></circle>"
            )
    x, y = hex_centre(d.bomber_base)
    out.append(
        f'<text class="bcbase" x="{num(x)}" y="{num(y - 7)}" text-anchor="middle">BC<title>Bomber Command base '
        f"box ({d.bomber_base})</title></text>"
    )
    out.append("</g>")
    return "".join(out)


def _hex_ids() -> str:
    out = ['<g id="hexids">']
    for n in range(1, N_HEXES + 1):
        x, y = hex_centre(n)
        out.append(f'<text x="{num(x)}" y="{num(y - H / 2 + 5)}">{n}</text>')
    out.append("</g>")
    return "".join(out)


_STYLE = (
    "<style>"
    "polygon.hex{stroke:#b9b293;stroke-width:.5}polygon.tsea{stroke:#6f9bd1}"
    "line.border{stroke:#a0283c;stroke-width:1.6;stroke-dasharray:4 2;stroke-linecap:round}"
    "line.river{stroke:#2a6fd0;stroke-width:2.6;stroke-linecap:round}"
    "line.fortline{stroke:#222;stroke-width:3.2}line.fortline.belgian{stroke:#6b4a00}"
    "line.front{stroke:#111;stroke-width:2.4;stroke-dasharray:2 1.2}"
    "g.fort rect{fill:#fff;stroke:#111;stroke-width:1}g.fort path{fill:none;stroke:#111;stroke-width:1}"
    "g.fort.belgian rect{fill:#f6e6a8}"
    "g.city circle,g.city rect{fill:#222;stroke:#fff;stroke-width:.6}g.city.paris circle{fill:#c01818}"
    "g.city text{font-size:6.5px;fill:#111;paint-order:stroke;stroke:#fff;stroke-width:1.6px}"
    "circle.edge.german{fill:#3c3f36}circle.edge.allied{fill:#2f5fb3}text.bcbase{font-size:6px;fill:#7a2e00}"
    "#hexids text{font-size:4.6px;fill:#555;text-anchor:middle}"
    "g.unit rect.ctr{stroke:#222;stroke-width:.7}g.unit.unsupplied rect.ctr{stroke:#d00;stroke-width:1.3;"
    "stroke-dasharray:2 1}g.unit rect.sym{fill:#fff;stroke:#222;stroke-width:.5}"
    "g.unit path,g.unit ellipse{fill:none;stroke:#222;stroke-width:.6}g.unit circle.dot{fill:#222}"
    "g.unit text{font-size:5px;text-anchor:middle;fill:#111}g.unit text.size{font-size:3.4px}"
    "text.badge{font-size:5.5px;fill:#fff;text-anchor:middle;font-weight:bold}circle.badge{fill:#a01010}"
    "g.air path{stroke:#222;stroke-width:.6}g.air text{font-size:5.5px;font-weight:bold;text-anchor:middle}"
    "g.fortgone path{stroke:#d00;stroke-width:2}g.fortoff rect{fill:#bbb}"
    "g.panel text{font-size:9px;fill:#111}g.panel rect.turn{fill:#fbfaf5;stroke:#777}"
    "g.panel rect.turn.now{fill:#f2d08a;stroke:#7a2e00;stroke-width:1.5}g.panel text.small{font-size:7px}"
    "circle.mover{fill:none;stroke:#f2a900;stroke-width:2.4}circle.target{fill:none;stroke:#d00;stroke-width:2.4;"
    "stroke-dasharray:3 2}"
    "</style>"
)


def svg_open(extra_class: str = "") -> str:
    cls = "f40-map" + (f" {extra_class}" if extra_class else "")
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" id="map" class="{cls}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        'font-family="DejaVu Sans, Arial, sans-serif">'
    )


def base_svg(game: Game, hex_ids: bool = True) -> str:
    """The parts that never change: every drawn hex with its terrain and country, the borders, rivers,
    fortress lines, cities and towns, the map edges and (``hex_ids``) the hex numbers."""
    d = game.data
    parts = [
        _STYLE,
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#f4f1e6"/>',
        _terrain(d),
        _borders(d),
        _rivers(d),
        _forts(d),
        _cities(d),
        _edges(d),
    ]
    if hex_ids:
        parts.append(_hex_ids())
    return "".join(parts)
