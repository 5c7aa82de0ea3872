"""An SVG hex map of a France 1940 position: the map from the game's data, units, aircraft and the turn track.

The drawing is a static base (:func:`ffo_env.france1940.render.hexmap.base_svg`: terrain, countries and
borders, rivers, the Maginot and Belgian fortress lines, cities and towns, the map edges, hex ids) and
named *layers* (:func:`layers`):
``h<n>`` for each occupied hex (its stack of counters), ``air`` (aircraft in the air), ``forts``
(destroyed fortresses, the lapsed Belgian fortified area), ``panel`` (turn track, phase, reinforcements,
VP, losses) and ``status`` (the decision asked, the moving unit, the hex under attack). The HTML viewer
sends only the layers that change from one decision to the next; :func:`position_svg` joins them.

Input is :func:`ffo_env.france1940.render.view.seen` (what the viewer may know) and the game's data;
nothing here reads a field of the State directly.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ffo_env.france1940.core.data import AGENTS, ALLIED, GERMAN
from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.hexgrid import N_HEXES
from ffo_env.france1940.core.state import ELIM, EXITED, MAP, OUT, REMOVED
from ffo_env.france1940.render.hexmap import PANEL_Y, WIDTH, M, R, base_svg, hex_centre, num, svg_open
from ffo_env.france1940.render.view import UNKNOWN

__all__ = ["FIXED_LAYERS", "counter_svg", "layers", "occupancy", "position_svg", "stack_svg"]

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


def _symbol(sym: str, x: float, y: float) -> str:
    """A NATO unit symbol in a 10 x 7 box centred at (x, y)."""
    box = f'<rect class="sym" x="{num(x - 5)}" y="{num(y - 3.5)}" width="10" height="7"/>'
    cross = f'<path d="M{num(x - 5)},{num(y - 3.5)}L{num(x + 5)},{num(y + 3.5)}M{num(x - 5)},{num(y + 3.5)}L{num(x + 5)},{num(y - 3.5)}"/>'
    slash = f'<path d="M{num(x - 5)},{num(y + 3.5)}L{num(x + 5)},{num(y - 3.5)}"/>'
    oval = f'<ellipse cx="{num(x)}" cy="{num(y)}" rx="3.3" ry="1.9"/>'
    canopy = f'<path d="M{num(x - 3)},{num(y - 0.5)}A3,2.6 0 0 1 {num(x + 3)},{num(y - 0.5)}Z"/>'
    wings = (
        f'<path d="M{num(x - 4)},{num(y)}L{num(x + 4)},{num(y)}M{num(x)},{num(y - 2.5)}L{num(x)},{num(y + 2.5)}'
        f'M{num(x - 1.6)},{num(y + 2.5)}L{num(x + 1.6)},{num(y + 2.5)}"/>'
    )
    inner = {
        "infantry": cross,
        "armor": oval,
        "mech_inf": cross + oval,
        "armored_cav": oval + slash,
        "cavalry": slash,
        "artillery": f'<circle class="dot" cx="{num(x)}" cy="{num(y)}" r="1.5"/>',
        "gse": wings,
        "paratroop": cross + canopy,
        "air_landing": cross
        + f'<path d="M{num(x - 2)},{num(y - 3.5)}L{num(x)},{num(y - 1.5)}L{num(x + 2)},{num(y - 3.5)}"/>',
        "bomber": wings + f'<circle class="dot" cx="{num(x)}" cy="{num(y)}" r="1"/>',
        "bomber_base": wings + f'<path d="M{num(x - 5)},{num(y + 3.5)}L{num(x + 5)},{num(y + 3.5)}"/>',
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
        f'<rect class="ctr" x="{num(x - CW / 2)}" y="{num(y - CH / 2)}" width="{num(CW)}" height="{num(CH)}" rx="1"'
        f' fill="{NATION_FILL.get(t.nation, "#ddd")}"/>'
        f'<text class="size" x="{num(x)}" y="{num(y - CH / 2 + 3.4)}">{size}</text>'
        + _symbol(t.symbol, x, y - 0.6)
        + f'<text x="{num(x)}" y="{num(y + CH / 2 - 0.8)}">{escape(t.printed)}</text></g>'
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
            f'<circle class="badge" cx="{num(bx)}" cy="{num(by)}" r="3.4"/>'
            f'<text class="badge" x="{num(bx)}" y="{num(by + 2)}">{n}</text>'
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
            f'<path d="M{num(x - 5)},{num(y)}L{num(x + 5)},{num(y)}L{num(x)},{num(y - 4)}Z M{num(x)},{num(y)}'
            f'L{num(x)},{num(y + 4)}" fill="{fill}"/>'
            f'<text x="{num(x)}" y="{num(y + 9)}" fill="{SIDE_COLOUR[spec.side]}">{MISSION.get(mission, "?")}</text></g>'
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
                f'<path d="M{num(x - 7)},{num(y - 5)}L{num(x + 7)},{num(y + 5)}M{num(x - 7)},{num(y + 5)}'
                f'L{num(x + 7)},{num(y - 5)}"/></g>'
            )
        elif f.kind == "belgian" and not v["belgian_area"]:
            out.append(
                f'<g class="fortoff fort" data-hex="{h}"><title>{h}: Belgian fortified area no longer in '
                f'effect (F8)</title><rect x="{num(x - 6)}" y="{num(y - 4)}" width="12" height="8"/></g>'
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
    out.append(f'<text x="{num(M)}" y="{num(y0 + 10)}">Turn track</text>')
    for t in range(1, n_turns + 1):
        x = M + (t - 1) * bw
        now = " now" if t == v["turn"] else ""
        out.append(
            f'<rect class="turn{now}" data-turn="{t}" x="{num(x)}" y="{num(y0 + 14)}" width="{num(bw - 2)}" '
            f'height="34" rx="2"/><text x="{num(x + 3)}" y="{num(y0 + 24)}">GT{t}</text>'
        )
        rein = []
        for s, letter in ((ALLIED, "A"), (GERMAN, "G")):
            if hidden[s]:
                rein.append(f"{letter}?")
            elif arr[s].get(t):
                rein.append(f"{letter}+{arr[s][t]}")
        if rein:
            out.append(f'<text class="small" x="{num(x + 3)}" y="{num(y0 + 34)}">{" ".join(rein)}</text>')
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
        f'<text class="phase" x="{num(M)}" y="{num(y0 + 62)}">GT{v["turn"]} of {n_turns}: {escape(phasing)} '
        f"{escape(phase)}</text>"
        f'<text x="{num(M)}" y="{num(y0 + 76)}">Armies: Allied {escape(str(cols[ALLIED]))}, German '
        f"{escape(str(cols[GERMAN]))}</text>"
        f'<text class="vp" x="{num(M + 300)}" y="{num(y0 + 62)}">VP Allied {v["vp"][ALLIED]}, German '
        f"{v['vp'][GERMAN]}</text>"
        f'<text x="{num(M + 300)}" y="{num(y0 + 76)}">destroyed: Allied {lost[ALLIED]}, German {lost[GERMAN]}; '
        f"exited/removed: Allied {gone[ALLIED]}, German {gone[GERMAN]}</text>"
    )
    if v.get("result"):
        out.append(
            f'<text x="{num(M + 600)}" y="{num(y0 + 62)}" font-weight="bold">{escape(str(v["result"]))}</text>'
        )
    out.append("</g>")
    return "".join(out)


def _status(game: Game, v: dict[str, Any]) -> str:
    """The moving unit's hex (yellow ring) and the hex under attack (red dashes)."""
    out = []
    mover = v["mover"]
    if isinstance(mover, int) and mover >= 0 and v["status"][mover] == MAP:
        x, y = hex_centre(v["hex"][mover])
        out.append(f'<circle class="mover" cx="{num(x)}" cy="{num(y)}" r="{num(R - 2)}"/>')
    cmb = v["cmb"]
    if isinstance(cmb, dict) and isinstance(cmb.get("target"), int) and 1 <= cmb["target"] <= N_HEXES:
        x, y = hex_centre(cmb["target"])
        out.append(f'<circle class="target" cx="{num(x)}" cy="{num(y)}" r="{num(R - 1)}"/>')
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
