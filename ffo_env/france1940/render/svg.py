"""An SVG hex map of a France 1940 position: the map from the game's data, units, aircraft and the turn track.

The drawing is a static base (:func:`base_svg`: terrain, countries and borders, rivers, the Maginot and
Belgian fortress lines, cities and towns, the map edges, hex ids) and named *layers* (:func:`layers`):
``h<n>`` for each occupied hex (its stack of counters), ``air`` (aircraft in the air), ``forts``
(destroyed fortresses, the lapsed Belgian fortified area), ``panel`` (turn track, phase, reinforcements,
VP, losses) and ``status`` (the decision asked, the moving unit, the hex under attack). The HTML viewer
sends only the layers that change from one decision to the next; :func:`position_svg` joins them.

Input is :func:`ffo_env.france1940.render.view.seen` (what the viewer may know) and the game's data;
nothing here reads a field of the State directly.

Geometry follows :mod:`ffo_env.france1940.core.hexgrid`: flat-topped hexes, column 1 at the east edge
(drawn on the right), odd columns half a hex higher.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

from ffo_env.france1940.core.data import AGENTS, ALLIED, GERMAN, Data
from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.hexgrid import COLUMNS, N_HEXES, NEIGHBOURS, ROWS, col_row
from ffo_env.france1940.core.state import ELIM, EXITED, MAP, OUT, REMOVED
from ffo_env.france1940.render.view import UNKNOWN

__all__ = [
    "HEIGHT",
    "MAP_HEIGHT",
    "WIDTH",
    "base_svg",
    "hex_centre",
    "hexside",
    "layers",
    "position_svg",
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
NATION_FILL = {"FR": "#8fb0e8", "GB": "#e0a58e", "BE": "#f0d868", "NL": "#f4b26b", "DE": "#a9b096"}
SIDE_COLOUR = ("#2f5fb3", "#3c3f36")
MISSION = {"cap": "P", "int": "I", "cs": "C", "sup": "S"}  # CAP, Interdiction, Close Support, Air Superiority
MISSION_NAME = {
    "cap": "Combat Air Patrol",
    "int": "Interdiction",
    "cs": "Close Support",
    "sup": "Air Superiority",
}
PHASE_NAME = {
    "start": "start",
    "setup": "setup",
    "reinforce": "reinforcements",
    "intercept": "interception",
    "initial": "initial movement",
    "airsup": "air superiority",
    "fort_react": "fortress movement",
    "combat": "combat",
    "mech": "mechanized movement",
    "missions": "air missions",
    "over": "game over",
}
CW, CH = 20.0, 15.0  # a counter


def _f(v: float) -> str:
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
    return " ".join(f"{_f(x + cx)},{_f(y + cy)}" for cx, cy in _CORNERS)


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
    return f'<line class="{cls}" x1="{_f(a[0])}" y1="{_f(a[1])}" x2="{_f(b[0])}" y2="{_f(b[1])}"{extra}/>'


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
            f'<rect x="{_f(x - 6)}" y="{_f(y - 4)}" width="12" height="8" rx="1"/>'
            f'<path d="M{_f(x - 6)},{_f(y - 4)} v-2 h3 v2 h3 v-2 h3 v2 h3 v-2"/></g>'
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
            f'<circle cx="{_f(x)}" cy="{_f(y + 7)}" r="{3.2 if kind == "C" else 2.2}"/>'
            if kind == "C" or paris
            else f'<rect x="{_f(x - 2)}" y="{_f(y + 5)}" width="4" height="4"/>'
        )
        text = (
            f'<text x="{_f(x)}" y="{_f(y + 14.5)}" text-anchor="middle">{escape(label)}</text>'
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
                f'<circle class="edge {cls}" data-hex="{n}" cx="{_f(x)}" cy="{_f(y - 9)}" r="1.8">'
                f"<title>{n}: {'German' if cls == 'german' else 'Allied'} map edge</title></circle>"
            )
    x, y = hex_centre(d.bomber_base)
    out.append(
        f'<text class="bcbase" x="{_f(x)}" y="{_f(y - 7)}" text-anchor="middle">BC<title>Bomber Command base '
        f"box ({d.bomber_base})</title></text>"
    )
    out.append("</g>")
    return "".join(out)


def _hex_ids() -> str:
    out = ['<g id="hexids">']
    for n in range(1, N_HEXES + 1):
        x, y = hex_centre(n)
        out.append(f'<text x="{_f(x)}" y="{_f(y - H / 2 + 5)}">{n}</text>')
    out.append("</g>")
    return "".join(out)


STYLE = (
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
        STYLE,
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


# ---------------------------------------------------------------------------------------- counters


def _symbol(sym: str, x: float, y: float) -> str:
    """A NATO unit symbol in a 10 x 7 box centred at (x, y)."""
    box = f'<rect class="sym" x="{_f(x - 5)}" y="{_f(y - 3.5)}" width="10" height="7"/>'
    cross = f'<path d="M{_f(x - 5)},{_f(y - 3.5)}L{_f(x + 5)},{_f(y + 3.5)}M{_f(x - 5)},{_f(y + 3.5)}L{_f(x + 5)},{_f(y - 3.5)}"/>'
    slash = f'<path d="M{_f(x - 5)},{_f(y + 3.5)}L{_f(x + 5)},{_f(y - 3.5)}"/>'
    oval = f'<ellipse cx="{_f(x)}" cy="{_f(y)}" rx="3.3" ry="1.9"/>'
    canopy = f'<path d="M{_f(x - 3)},{_f(y - 0.5)}A3,2.6 0 0 1 {_f(x + 3)},{_f(y - 0.5)}Z"/>'
    wings = (
        f'<path d="M{_f(x - 4)},{_f(y)}L{_f(x + 4)},{_f(y)}M{_f(x)},{_f(y - 2.5)}L{_f(x)},{_f(y + 2.5)}'
        f'M{_f(x - 1.6)},{_f(y + 2.5)}L{_f(x + 1.6)},{_f(y + 2.5)}"/>'
    )
    inner = {
        "infantry": cross,
        "armor": oval,
        "mech_inf": cross + oval,
        "armored_cav": oval + slash,
        "cavalry": slash,
        "artillery": f'<circle class="dot" cx="{_f(x)}" cy="{_f(y)}" r="1.5"/>',
        "gse": wings,
        "paratroop": cross + canopy,
        "air_landing": cross
        + f'<path d="M{_f(x - 2)},{_f(y - 3.5)}L{_f(x)},{_f(y - 1.5)}L{_f(x + 2)},{_f(y - 3.5)}"/>',
        "bomber": wings + f'<circle class="dot" cx="{_f(x)}" cy="{_f(y)}" r="1"/>',
        "bomber_base": wings + f'<path d="M{_f(x - 5)},{_f(y + 3.5)}L{_f(x + 5)},{_f(y + 3.5)}"/>',
    }.get(sym, "")
    return box + inner


def counter_svg(game: Game, u: int, x: float, y: float, supplied: bool) -> str:
    """One ground unit's counter centred at (x, y): nation colour, NATO symbol, size (XXX corps, XX
    division, F13) and printed strengths (attack-movement, C§8.2); red dashes when out of supply (F18)."""
    spec = game.units[u]
    t = spec.type
    size = "XXX" if t.size == "corps" else "XX"
    supply = "" if supplied else ", out of supply"
    title = (
        f"{spec.id}: {t.symbol.replace('_', ' ')} {t.printed} (attack {t.attack}, defence {t.defence}, "
        f"movement {t.ma}){supply}"
    )
    cls = "unit" + ("" if supplied else " unsupplied")
    return (
        f'<g class="{cls}" data-unit="{spec.id}" data-side="{AGENTS[spec.side]}"><title>{escape(title)}</title>'
        f'<rect class="ctr" x="{_f(x - CW / 2)}" y="{_f(y - CH / 2)}" width="{_f(CW)}" height="{_f(CH)}" rx="1"'
        f' fill="{NATION_FILL.get(t.nation, "#ddd")}"/>'
        f'<text class="size" x="{_f(x)}" y="{_f(y - CH / 2 + 3.4)}">{size}</text>'
        + _symbol(t.symbol, x, y - 0.6)
        + f'<text x="{_f(x)}" y="{_f(y + CH / 2 - 0.8)}">{escape(t.printed)}</text></g>'
    )


def stack_svg(game: Game, h: int, units: list[int], supply: list[bool]) -> str:
    """The stack in hex ``h`` (F13): counters offset up and right, the first in roster order on top; a
    badge with the number of units when there are more than one."""
    x, y = hex_centre(h)
    out = [f'<g class="stack" data-hex="{h}" data-n="{len(units)}">']
    n = len(units)
    for k, u in enumerate(reversed(units)):  # the bottom counter first
        off = 2.2 * (n - 1 - k)
        out.append(counter_svg(game, u, x + off - 1.1 * (n - 1), y - off + 1.1 * (n - 1), supply[u]))
    if n > 1:
        bx, by = x + CW / 2 + 1.4, y - CH / 2 - 1.2
        out.append(
            f'<circle class="badge" cx="{_f(bx)}" cy="{_f(by)}" r="3.4"/>'
            f'<text class="badge" x="{_f(bx)}" y="{_f(by + 2)}">{n}</text>'
        )
    out.append("</g>")
    return "".join(out)


def _air(game: Game, v: dict[str, Any]) -> str:
    """Aircraft in the air (F31-F36, F58): a plane marker at its hex with the mission letter."""
    out = []
    by_hex: dict[int, int] = {}
    for u, mission in enumerate(v["ac_mission"]):
        h = v["ac_hex"][u]
        if not mission or not h:
            continue
        k = by_hex.get(h, 0)
        by_hex[h] = k + 1
        x, y = hex_centre(h)
        x, y = x - 10 + 6 * k, y - 10
        spec = game.units[u]
        fill = NATION_FILL.get(spec.nation, "#ddd")
        title = f"{spec.id} in the air: {MISSION_NAME.get(mission, mission)} over hex {h}"
        out.append(
            f'<g class="air" data-unit="{spec.id}" data-mission="{mission}" data-hex="{h}">'
            f"<title>{escape(title)}</title>"
            f'<path d="M{_f(x - 5)},{_f(y)}L{_f(x + 5)},{_f(y)}L{_f(x)},{_f(y - 4)}Z M{_f(x)},{_f(y)}'
            f'L{_f(x)},{_f(y + 4)}" fill="{fill}"/>'
            f'<text x="{_f(x)}" y="{_f(y + 9)}" fill="{SIDE_COLOUR[spec.side]}">{MISSION.get(mission, "?")}</text></g>'
        )
    return "".join(out)


def _fort_state(game: Game, v: dict[str, Any]) -> str:
    """Destroyed fortresses (F25, F41, F47) and, once the Belgian fortified area lapsed (F8), the Belgian
    fortresses greyed."""
    out = []
    for h, f in sorted(game.data.fortified.items()):
        x, y = hex_centre(h)
        if h in v["fort_destroyed"]:
            out.append(
                f'<g class="fortgone" data-hex="{h}"><title>{h}: fortress destroyed</title>'
                f'<path d="M{_f(x - 7)},{_f(y - 5)}L{_f(x + 7)},{_f(y + 5)}M{_f(x - 7)},{_f(y + 5)}'
                f'L{_f(x + 7)},{_f(y - 5)}"/></g>'
            )
        elif f.kind == "belgian" and not v["belgian_area"]:
            out.append(
                f'<g class="fortoff fort" data-hex="{h}"><title>{h}: Belgian fortified area no longer in '
                f'effect (F8)</title><rect x="{_f(x - 6)}" y="{_f(y - 4)}" width="12" height="8"/></g>'
            )
    return "".join(out)


def _arrivals(game: Game, v: dict[str, Any], side: int) -> dict[int, int]:
    """Units of ``side`` still to arrive, per game-turn, as far as the viewer may know (P3)."""
    out: dict[int, int] = {}
    for u in game.side_units[side]:
        a = v["arrive"][u]
        if v["status"][u] == OUT and a != UNKNOWN and isinstance(a, int) and 1 <= a <= game.last_turn:
            out[a] = out.get(a, 0) + 1
    return out


def _panel(game: Game, v: dict[str, Any]) -> str:
    """The turn track (one box per game-turn, the current one highlighted, the reinforcements due as
    A+n / G+n), the phase, the armies, victory points and the units lost, exited and removed."""
    n_turns = game.last_turn
    y0 = PANEL_Y
    bw = min(70.0, (WIDTH - 2 * M - 170) / n_turns)
    out = [f'<g class="panel" data-turn="{v["turn"]}" data-phase="{v["phase"]}">']
    arr = [_arrivals(game, v, ALLIED), _arrivals(game, v, GERMAN)]
    hidden = [any(v["arrive"][u] == UNKNOWN for u in game.side_units[s]) for s in (ALLIED, GERMAN)]
    out.append(f'<text x="{_f(M)}" y="{_f(y0 + 10)}">Turn track</text>')
    for t in range(1, n_turns + 1):
        x = M + (t - 1) * bw
        now = " now" if t == v["turn"] else ""
        out.append(
            f'<rect class="turn{now}" data-turn="{t}" x="{_f(x)}" y="{_f(y0 + 14)}" width="{_f(bw - 2)}" '
            f'height="34" rx="2"/><text x="{_f(x + 3)}" y="{_f(y0 + 24)}">GT{t}</text>'
        )
        rein = []
        for s, letter in ((ALLIED, "A"), (GERMAN, "G")):
            if hidden[s]:
                rein.append(f"{letter}?")
            elif arr[s].get(t):
                rein.append(f"{letter}+{arr[s][t]}")
        if rein:
            out.append(f'<text class="small" x="{_f(x + 3)}" y="{_f(y0 + 34)}">{" ".join(rein)}</text>')
    phasing = AGENTS[v["phasing"]] if v["phasing"] in (0, 1) else ""
    phase = PHASE_NAME.get(v["phase"], v["phase"])
    cols = v["columns"]
    lost = [0, 0]
    gone = [0, 0]
    for u, st in enumerate(v["status"]):
        side = game.units[u].side
        if st == ELIM:
            lost[side] += 1
        elif st in (EXITED, REMOVED):
            gone[side] += 1
    out.append(
        f'<text class="phase" x="{_f(M)}" y="{_f(y0 + 62)}">GT{v["turn"]} of {n_turns}: {escape(phasing)} '
        f"{escape(phase)}</text>"
        f'<text x="{_f(M)}" y="{_f(y0 + 76)}">Armies: Allied {escape(str(cols[ALLIED]))}, German '
        f"{escape(str(cols[GERMAN]))}</text>"
        f'<text class="vp" x="{_f(M + 300)}" y="{_f(y0 + 62)}">VP Allied {v["vp"][ALLIED]}, German '
        f"{v['vp'][GERMAN]}</text>"
        f'<text x="{_f(M + 300)}" y="{_f(y0 + 76)}">destroyed: Allied {lost[ALLIED]}, German {lost[GERMAN]}; '
        f"exited/removed: Allied {gone[ALLIED]}, German {gone[GERMAN]}</text>"
    )
    if v.get("result"):
        out.append(
            f'<text x="{_f(M + 600)}" y="{_f(y0 + 62)}" font-weight="bold">{escape(str(v["result"]))}</text>'
        )
    out.append("</g>")
    return "".join(out)


def _status(game: Game, v: dict[str, Any]) -> str:
    """The moving unit's hex (yellow ring) and the hex under attack (red dashes)."""
    out = []
    mover = v["mover"]
    if isinstance(mover, int) and mover >= 0 and v["status"][mover] == MAP:
        x, y = hex_centre(v["hex"][mover])
        out.append(f'<circle class="mover" cx="{_f(x)}" cy="{_f(y)}" r="{_f(R - 2)}"/>')
    cmb = v["cmb"]
    if isinstance(cmb, dict) and isinstance(cmb.get("target"), int) and 1 <= cmb["target"] <= N_HEXES:
        x, y = hex_centre(cmb["target"])
        out.append(f'<circle class="target" cx="{_f(x)}" cy="{_f(y)}" r="{_f(R - 1)}"/>')
    return "".join(out)


def occupancy(v: dict[str, Any]) -> dict[int, list[int]]:
    """Units on the map by hex, in roster order."""
    occ: dict[int, list[int]] = {}
    for u, st in enumerate(v["status"]):
        if st == MAP and v["hex"][u]:
            occ.setdefault(v["hex"][u], []).append(u)
    return occ


def layers(game: Game, v: dict[str, Any], cache: dict[Any, str] | None = None) -> dict[str, str]:
    """The drawn layers of view ``v`` (:func:`~ffo_env.france1940.render.view.seen`): ``h<n>`` per
    occupied hex, ``air``, ``forts``, ``panel`` and ``status``. ``cache`` keeps drawings by what they
    show (a replay draws the same stacks many times)."""
    c: dict[Any, str] = {} if cache is None else cache
    out: dict[str, str] = {}
    supply = v["supply"]
    for h, units in sorted(occupancy(v).items()):
        key = ("h", h, tuple((u, bool(supply[u])) for u in units))
        if key not in c:
            c[key] = stack_svg(game, h, units, supply)
        out[f"h{h}"] = c[key]
    air_key = ("air", tuple(v["ac_mission"]), tuple(v["ac_hex"]))
    if air_key not in c:
        c[air_key] = _air(game, v)
    out["air"] = c[air_key]
    fort_key = ("forts", tuple(v["fort_destroyed"]), bool(v["belgian_area"]))
    if fort_key not in c:
        c[fort_key] = _fort_state(game, v)
    out["forts"] = c[fort_key]
    panel_key = (
        "panel",
        v["turn"],
        v["phasing"],
        v["phase"],
        tuple(v["vp"]),
        tuple(v["columns"]),
        tuple(v["status"]),
        tuple(v["arrive"]),
        v.get("result", ""),
    )
    if panel_key not in c:
        c[panel_key] = _panel(game, v)
    out["panel"] = c[panel_key]
    out["status"] = _status(game, v)
    return out


FIXED_LAYERS = ("forts", "air", "status", "panel")


def position_svg(game: Game, v: dict[str, Any], hex_ids: bool = False) -> str:
    """One SVG document of view ``v``: the base and every layer (the docs' picture, ``ffo map``)."""
    lay = layers(game, v)
    units = "".join(s for k, s in lay.items() if k.startswith("h"))
    body = "".join(f'<g id="layer-{k}">{lay[k]}</g>' for k in ("forts", "status"))
    body += f'<g id="units">{units}</g>' + "".join(
        f'<g id="layer-{k}">{lay[k]}</g>' for k in ("air", "panel")
    )
    return svg_open() + base_svg(game, hex_ids) + body + "</svg>"
