"""An SVG area map of a Springtime position: locations, boundaries, units, Leaders, control and the tracks.

The drawing is split into a static base (the sea, the boundaries: :func:`base_svg`) and named *layers*
(:func:`layers`): one per location (its box coloured by country and controller, its units) plus ``panel``
(Turn and Impulse Tracks, French Morale, RPs, the Advantage, Air Support, Event markers, the eliminated
pool) and ``status`` (the decision being asked). :func:`position_svg` joins them into one document; the
HTML viewer sends only the layers that change from one decision to the next.

Input is :func:`ffo_env.springtime.render.view.seen` (what the viewer may know), the game's data and the
layout; nothing here reads a hidden field of the State.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ffo_env.springtime.core.data import ALLIED, AXIS
from ffo_env.springtime.core.game import Game
from ffo_env.springtime.core.state import ELIM, MAP, State
from ffo_env.springtime.render.layout import Layout, default_layout
from ffo_env.springtime.render.view import HELD_HIDDEN, PUBLIC, seen

__all__ = ["base_svg", "layers", "position_svg", "svg_document", "unit_label", "layer_names"]

# Identifier colours (3.1.1): yellow Belgium, blue France, grey Germany, light green Italy, orange Netherlands
COUNTRY_FILL = {"BE": "#f6edc0", "FR": "#dfe8f6", "DE": "#e2e2de", "IT": "#dcefd6", "NL": "#fbe1c6"}
NATION_FILL = {
    "FR": "#2f5fb3",
    "GB": "#a4412e",
    "BE": "#a8840f",
    "NL": "#d26a12",
    "DE": "#5a6150",
    "IT": "#3b8a4a",
}
CONTROL_FILL = ("#2f5fb3", "#34332f")  # header of a box: Allied / Axis control
SIDE_LABEL = ("Allied", "Axis")
BOUNDARY_STYLE = {  # 3.1.4: O open ground (grey), R river (blue), M Maginot Line (jagged black)
    "O": 'stroke="#9a9a92" stroke-width="2"',
    "R": 'stroke="#3a7bd5" stroke-width="5"',
    "M": 'stroke="#111" stroke-width="5" stroke-dasharray="4 3"',
}
TURN_DATES = (  # components.md C§1 [rec]: one week each from 10 May 1940
    "10–16 May",
    "17–23 May",
    "24–30 May",
    "31 May–6 Jun",
    "7–13 Jun",
    "14–20 Jun",
    "21–27 Jun",
)
CW, CH, GAP = 24, 20, 2  # a counter and the gap between counters
HEADER = 18
ROWS = 3  # rows of counters a box shows; more units than fit are summed up as "+n"


def unit_label(unit_id: str) -> str:
    """The short name printed on a counter: ``FR-1A`` -> ``1A``, ``BE-ARMY`` -> ``BE``."""
    nation, _, rest = unit_id.partition("-")
    if rest == "ARMY":
        return nation
    if rest == "AIRLAND":
        return "AirL"
    return rest[:5]


def _t(x: float, y: float, text: str, cls: str = "", **attrs: Any) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    c = f' class="{cls}"' if cls else ""
    return f'<text x="{x:g}" y="{y:g}"{c}{extra}>{escape(text)}</text>'


def base_svg(game: Game, layout: Layout | None = None) -> str:
    """The parts that never change: the sea and every boundary line with its type (3.1.4, S5)."""
    lay = layout or default_layout()
    d = game.data
    out = [f'<rect class="sea" x="0" y="0" width="{lay.width}" height="{lay.height}" fill="#cfe3ee"/>']
    out.append('<g id="boundaries">')
    for i, loc in enumerate(d.locations):
        for j, kind in d.adjacency[i]:
            if j <= i:
                continue
            (x1, y1), (x2, y2) = lay.centre[loc.id], lay.centre[d.locations[j].id]
            out.append(
                f'<line class="bnd bnd-{kind}" data-a="{loc.id}" data-b="{d.locations[j].id}" '
                f'x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" {BOUNDARY_STYLE[kind]}/>'
            )
    out.append("</g>")
    return "".join(out)


def _counter(game: Game, v: dict[str, Any], u: int, x: int, y: int, moving: bool) -> str:
    spec = game.data.units[u]
    red = bool(v["reduced"][u])
    oos = bool(v["oos"][u])
    cv = spec.cv_reduced if red else spec.cv_full
    lead = game.leader_of[u]
    if u == v["kleist_unit"] and game.kleist >= 0:
        lead = game.kleist
    tip = f"{spec.id} {spec.name} ({spec.nation}, {spec.size}, {'armor' if spec.armor else 'infantry'})"
    tip += f" CV {spec.cv_full}/{spec.cv_reduced} MF {spec.mf}, {'reduced' if red else 'full strength'}"
    parts = [
        f'<g class="unit{" reduced" if red else ""}{" oos" if oos else ""}{" moving" if moving else ""}"'
        f' data-unit="{spec.id}" transform="translate({x},{y})">'
    ]
    fill = NATION_FILL[spec.nation]
    stroke = ' stroke="#ffd400" stroke-width="2.5"' if moving else ' stroke="#111" stroke-width="0.6"'
    if oos:
        stroke = ' stroke="#e01010" stroke-width="2" stroke-dasharray="3 2"'
    faded = ' fill-opacity="0.55"' if red else ""
    parts.append(f'<rect width="{CW}" height="{CH}" rx="2" fill="{fill}"{faded}{stroke}/>')
    if red:  # a reduced counter: a white bar across its lower right corner
        parts.append(
            f'<line x1="{CW - 9}" y1="{CH}" x2="{CW}" y2="{CH - 9}" stroke="#fff" stroke-width="2"/>'
        )
    if spec.armor:  # armour: the oval of the NATO symbol
        parts.append(f'<ellipse cx="5.5" cy="{CH - 5.5}" rx="3.6" ry="2.3" fill="none" stroke="#fff"/>')
    parts.append(_t(CW / 2, 7.5, unit_label(spec.id), "ul", font_size="7", fill="#fff", text_anchor="middle"))
    parts.append(
        _t(
            CW / 2 + 2,
            CH - 2.5,
            str(cv),
            "cv",
            font_size="10",
            font_weight="bold",
            fill="#fff",
            text_anchor="middle",
        )
    )
    if lead >= 0:
        ld = game.data.leaders[lead]
        rating = ld.flipped if v["flipped"][lead] else ld.front
        tip += f"; Leader {ld.name} ({rating}{', flipped' if v['flipped'][lead] else ''})"
        parts.append(
            f'<g class="leader" data-leader="{ld.id}"><circle cx="{CW - 1}" cy="1" r="5" fill="#f2c230" '
            f'stroke="#111" stroke-width="0.5"/>'
            + _t(CW - 1, 3.2, str(rating), font_size="6.5", font_weight="bold", text_anchor="middle")
            + "</g>"
        )
    if oos:
        tip += "; Out of Supply"
    parts.append(f"<title>{escape(tip)}</title></g>")
    return "".join(parts)


def _location_key(game: Game, v: dict[str, Any], i: int, units: list[int]) -> tuple[Any, ...]:
    """Everything :func:`_location` reads for location ``i``: equal keys draw the same."""
    moving = int((v.get("imp") or {}).get("moving", -1))
    lead = [game.kleist if u == v["kleist_unit"] and game.kleist >= 0 else game.leader_of[u] for u in units]
    return (
        i,
        int(v["control"][i]),
        (v.get("cmb") or {}).get("loc") == i,
        tuple((u, bool(v["reduced"][u]), bool(v["oos"][u]), u == moving) for u in units),
        tuple(bool(v["flipped"][ld]) if ld >= 0 else None for ld in lead),
    )


def _location(game: Game, v: dict[str, Any], i: int, lay: Layout, units: list[int]) -> str:
    loc = game.data.locations[i]
    x, y, w, h = lay.box(loc.id)
    ctrl = int(v["control"][i])
    combat = v.get("cmb") or {}
    moving = int((v.get("imp") or {}).get("moving", -1))
    at_war = combat.get("loc") == i
    border = 'stroke="#d01c1c" stroke-width="4"' if at_war else 'stroke="#333" stroke-width="1.2"'
    rx = 16 if loc.zone else 3
    dash = ' stroke-dasharray="7 3"' if loc.zone and not at_war else ""
    flags = "".join(
        f for f, on in (("★", loc.paris), ("⚓", loc.port), ("M", loc.maginot), ("◆", loc.supply_zone)) if on
    )
    title = f"{loc.id} {loc.name} ({loc.country}, TEM +{loc.tem}); {SIDE_LABEL[ctrl]} control"
    out = [
        f'<g class="loc{" combat" if at_war else ""}" data-loc="{loc.id}" data-control="{SIDE_LABEL[ctrl].lower()}">',
        f"<title>{escape(title)}</title>",
        f'<rect class="box" x="{x}" y="{y}" width="{w}" height="{h}" rx="{rx}" fill="{COUNTRY_FILL[loc.country]}" '
        f"{border}{dash}/>",
        f'<path class="ctrl" d="M{x + rx / 2},{y} h{w - rx} q{rx / 2},0 {rx / 2},{min(rx, HEADER) / 2} '
        f"v{HEADER - min(rx, HEADER) / 2} h{-w} v{-(HEADER - min(rx, HEADER) / 2)} "
        f'q0,{-min(rx, HEADER) / 2} {rx / 2},{-min(rx, HEADER) / 2} z" fill="{CONTROL_FILL[ctrl]}"/>',
        _t(x + 4, y + 13, loc.id, "lid", font_size="12", font_weight="bold", fill="#fff"),
        _t(x + 4 + 9 * len(loc.id) + 3, y + 12.5, _short(loc.name), "lname", font_size="8.5", fill="#fff"),
        _t(x + w - 4, y + h - 4, f"{flags} +{loc.tem}", "tem", font_size="9", fill="#555", text_anchor="end"),
    ]
    per_row = max(1, (w - 4) // (CW + GAP))
    row = 0
    axis_here = any(game.unit_side[u] == AXIS for u in units)
    for side in (ALLIED, AXIS):
        mine = [u for u in units if game.unit_side[u] == side]
        if not mine:
            continue
        # the Allies never take the last row from Axis units in the same location (a crowded Zone)
        rows_left = ROWS - row - (1 if side == ALLIED and axis_here else 0)
        room = rows_left * per_row
        shown = mine if len(mine) <= room else mine[: room - 1]
        for k, u in enumerate(shown):
            cx = x + 3 + (k % per_row) * (CW + GAP)
            cy = y + HEADER + 3 + (row + k // per_row) * (CH + GAP)
            out.append(_counter(game, v, u, cx, cy, u == moving))
        if len(shown) < len(mine):
            k = len(shown)
            cx = x + 3 + (k % per_row) * (CW + GAP)
            cy = y + HEADER + 3 + (row + k // per_row) * (CH + GAP)
            out.append(
                _t(
                    cx + CW / 2,
                    cy + 14,
                    f"+{len(mine) - len(shown)}",
                    "more",
                    font_size="11",
                    text_anchor="middle",
                )
            )
        row += -(-min(len(mine), room) // per_row)  # the rows used: ceil(slots / per_row)
    out.append("</g>")
    return "".join(out)


def _short(name: str, n: int = 20) -> str:
    name = name.removeprefix("Zone: ")
    return name if len(name) <= n else name[: n - 1] + "…"


def _marker_text(game: Game, held: int) -> str:
    if held == 0:
        return "none"
    if held == HELD_HIDDEN:
        return "a marker (hidden)"
    return f"#{held} {game.data.event(held).name}"


def _panel(game: Game, v: dict[str, Any], lay: Layout) -> str:
    px, py, pw, ph = lay.panel
    t = game.data.tables
    out = [f'<rect x="{px}" y="{py}" width="{pw}" height="{ph}" rx="6" fill="#fbfaf5" stroke="#777"/>']
    x0 = px + 12
    turn, box = int(v["turn"]), int(v["box"])
    date = TURN_DATES[turn - 1] if 1 <= turn <= len(TURN_DATES) else ""
    out.append(
        _t(
            x0,
            py + 22,
            f"Turn {turn} · {date} 1940 · {v['phase']} phase",
            "title",
            font_size="15",
            font_weight="bold",
        )
    )
    # Turn Track (6.0): played asterisk Events are parked here (6.1.1)
    y = py + 34
    out.append(_t(x0, y + 14, "Turn", font_size="10"))
    for k in range(1, t["turns"] + 1):
        bx = x0 + 52 + (k - 1) * 40
        cur = k == turn
        out.append(
            f'<rect class="tt{" cur" if cur else ""}" data-turn="{k}" x="{bx}" y="{y}" width="36" height="20" '
            f'fill="{"#f2a33a" if cur else "#fff"}" stroke="#555"/>'
            + _t(bx + 18, y + 14, str(k), font_size="11", text_anchor="middle")
        )
    y += 26
    # Impulse Track (6.2): odd boxes Allied, even Axis; played black Events are parked here (6.1.1)
    out.append(_t(x0, y + 14, "Impulse", font_size="10"))
    for k in range(1, t["impulse_boxes"] + 1):
        bx = x0 + 52 + (k - 1) * 40
        cur = k == box and v["phase"] == "maneuver"
        fill = "#f2a33a" if cur else ("#dbe6f7" if k % 2 else "#e3e3df")
        out.append(
            f'<rect class="it{" cur" if cur else ""}" data-box="{k}" x="{bx}" y="{y}" width="36" height="20" '
            f'fill="{fill}" stroke="#555"/>'
            + _t(bx + 18, y + 14, str(k), font_size="11", text_anchor="middle")
        )
    y += 36
    # French Morale (C§7.6; Armistice at 5 or less, Italy at 9 or less, Command Confidence at 19 or less)
    morale = int(v["morale"])
    out.append(_t(x0, y + 4, f"French Morale {morale}", "morale", font_size="13", font_weight="bold"))
    sx, scale, top = x0 + 130, 7.5, 40
    out.append(f'<rect x="{sx}" y="{y - 8}" width="{top * scale}" height="12" fill="#fff" stroke="#555"/>')
    for lim, label, col in (
        (t["armistice_morale"], "armistice", "#d01c1c"),
        (t["italy_morale"], "Italy", "#3b8a4a"),
        (t["command_confidence_morale"], "cmd conf.", "#b06d00"),
    ):
        lx = sx + max(0, min(top, lim)) * scale
        out.append(f'<line x1="{lx}" y1="{y - 10}" x2="{lx}" y2="{y + 6}" stroke="{col}" stroke-width="2"/>')
        dy = 15 if label != "Italy" else 23  # armistice and Italy are close: two lines
        out.append(_t(lx, y + dy, f"≤{lim} {label}", font_size="7.5", fill=col, text_anchor="middle"))
    mx = sx + max(0, min(top, morale)) * scale
    out.append(
        f'<rect class="morale-bar" x="{sx}" y="{y - 8}" width="{mx - sx}" height="12" fill="#2f5fb3" opacity="0.55"/>'
    )
    out.append(f'<path d="M{mx},{y - 9} l-5,-8 h10 z" fill="#111"/>')
    y += 30
    adv = int(v["advantage"])
    lines = [
        f"RPs: Allied {v['rp'][0]} · Axis {v['rp'][1]}",
        "Advantage: "
        + (SIDE_LABEL[adv] if adv >= 0 else "none")
        + (" (used this impulse)" if v["adv_used_by"] >= 0 else ""),
        f"Air Support: German {'full' if v['german_air_full'] else 'reduced'} · "
        f"Allied {'full' if v['allied_air_full'] else 'reduced'}"
        + (f" · used: {', '.join(v['air_used'])}" if v["air_used"] else ""),
        f"Event held: Allied {_marker_text(game, int(v['held'][0]))} · Axis {_marker_text(game, int(v['held'][1]))}",
        f"Container: {v['container']} marker{'s' if v['container'] != 1 else ''}",
        "Turn Track: " + (", ".join(f"#{n} {game.data.event(n).name}" for n in v["turn_track"]) or "—"),
        "Impulse Track: " + (", ".join(f"#{n} {game.data.event(n).name}" for n in v["impulse_track"]) or "—"),
    ]
    flags = [
        name
        for name, on in (
            ("Italy at war", v["italy_at_war"]),
            ("Paris an Open City", v["open_city"]),
            ("Command Confidence", v["cc_flag"]),
            ("Billotte killed", v["billotte"]),
            (f"Refugees ({v['refugees']})", v["refugees"] != "none"),
        )
        if on
    ]
    if flags:
        lines.append("In force: " + ", ".join(flags))
    for side in (ALLIED, AXIS):
        pool = [
            unit_label(game.unit_ids[u])
            for u in range(game.n_units)
            if game.unit_side[u] == side and v["status"][u] == ELIM
        ]
        lines.append(f"Eliminated ({SIDE_LABEL[side]}): " + (", ".join(pool) or "—"))
    for k, line in enumerate(lines):
        out.append(_t(x0, y + k * 17, line, "pl", font_size="11"))
    y += len(lines) * 17
    if v["phase"] == "over":
        out.append(
            _t(
                x0,
                y + 6,
                f"Game over: {v['result']}",
                "result",
                font_size="12",
                font_weight="bold",
                fill="#b00",
            )
        )
    return "".join(out)


def _status(decision_text: str, lay: Layout) -> str:
    px, py, pw, ph = lay.panel
    return _t(
        px + 12, py + ph - 12, decision_text, "decision", font_size="12", font_weight="bold", fill="#7a2e00"
    )


def layers(
    state: State,
    viewer: int | None = PUBLIC,
    layout: Layout | None = None,
    cache: dict[tuple[Any, ...], str] | None = None,
) -> dict[str, str]:
    """The drawing of ``state`` as ``viewer`` sees it: ``{"loc:<id>": svg, ..., "panel": svg, "status": svg}``.

    ``cache`` (one dict per viewer and layout, e.g. for all the frames of a replay) keeps the drawing of
    each location by everything it depends on, so that the locations a decision left alone are not drawn
    again."""
    lay = layout or default_layout()
    g = state.game
    v = seen(state, viewer)
    here: list[list[int]] = [[] for _ in range(g.n_locs)]
    for u in range(g.n_units):
        if v["status"][u] == MAP and v["loc"][u] >= 0:
            here[v["loc"][u]].append(u)
    memo: dict[tuple[Any, ...], str] = {} if cache is None else cache
    out = {}
    for i, loc in enumerate(g.data.locations):
        key = _location_key(g, v, i, here[i])
        drawn = memo.get(key)
        if drawn is None:
            drawn = memo[key] = _location(g, v, i, lay, here[i])
        out[f"loc:{loc.id}"] = drawn
    out["panel"] = _panel(g, v, lay)
    if state.is_terminal():
        text = f"Game over: {state.result}"
    else:
        text = f"{state.current_agent} to decide: {state.decision} (turn {state.turn}, {state.phase}, box {state.box})"
    out["status"] = _status(text, lay)
    return out


def layer_names(game: Game) -> list[str]:
    """The layers in drawing order: the locations, then the panel and the status line."""
    return [f"loc:{loc.id}" for loc in game.data.locations] + ["panel", "status"]


def svg_document(game: Game, parts: dict[str, str], layout: Layout | None = None) -> str:
    """One ``<svg>`` of the base and the given layers (each in ``<g id="layer-NAME">``)."""
    lay = layout or default_layout()
    body = "".join(f'<g id="layer-{name}">{parts[name]}</g>' for name in layer_names(game) if name in parts)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="sfh-map" viewBox="0 0 {lay.width} {lay.height}" '
        f'width="{lay.width}" height="{lay.height}" font-family="DejaVu Sans, Arial, sans-serif">'
        f"{base_svg(game, lay)}{body}</svg>"
    )


def position_svg(state: State, viewer: int | None = PUBLIC, layout: Layout | None = None) -> str:
    """The whole map of ``state`` as ``viewer`` (0 Allied, 1 Axis, None public) sees it, as SVG text."""
    return svg_document(state.game, layers(state, viewer, layout), layout)
