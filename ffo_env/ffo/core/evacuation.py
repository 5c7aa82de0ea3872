"""Evacuation through the ports (rule 11.6, R19, R20) and French rail movement (rule 11.7, R16, R17)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core import masks
from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.phases import EVACUATED, ON_MAP, Decision
from ffo_env.ffo.core.scenario import Side
from ffo_env.ffo.core.search import flood_bits, mask_to_bits, rail_route

if TYPE_CHECKING:
    from ffo_env.ffo.core.state import State

FRENCH = Side.FRENCH
GERMAN = Side.GERMAN

# ----------------------------------------------------------------------------- evacuation


def evac_ports(s: State) -> list[int]:
    """Ports that may evacuate now (rule 11.6, R20)."""
    out = []
    used = s._ctx.ports_used or ()
    for u in s.units:
        if not u.port or s.status[u.index] != ON_MAP:
            continue
        h = s.loc[u.index]
        if h in used or s.ever_german[h]:
            continue
        if any(s.side_at(n) == GERMAN for n in hg.NEIGHBOR_LISTS[h]):
            continue
        out.append(h)
    return out


def enter_evacuation(s: State) -> bool:
    if s.turn < s.game.scenario.tables.evacuation_first_turn:
        return False  # rule 5.3, R20
    s._ctx.ports_used = []
    if not evacuable_units(s):
        return False
    s._set(Decision.EVACUATE, FRENCH)
    return True


def evacuable_units(s: State) -> list[int]:
    out: list[int] = []
    for h in evac_ports(s):
        out.extend(s.stacks.get(h, ()))
    return out


def legal_evacuate(s: State) -> list[int]:
    layout = s.game.layout
    return [layout.unit_action(u) for u in evacuable_units(s)] + [layout.special(Special.PASS)]


def apply_evacuate(s: State, a: int) -> None:
    layout = s.game.layout
    if a == layout.special(Special.PASS):
        s.decision = Decision.END_PHASE
        return
    u = a - layout.unit_base
    spec = s.units[u]
    h = s.loc[u]
    ports_used = s._ctx.ports_used
    assert ports_used is not None
    ports_used.append(h)
    steps = s.steps[u]
    vp = s.game.scenario.tables.vp
    if spec.static:
        per = vp["evacuated_step_static"]  # R20
    elif spec.mechanized:
        per = vp["evacuated_step_mechanized"]  # rule 4.3, R19
    else:
        per = vp["evacuated_step_non_mechanized"]
    s._lift(u)
    s.status[u] = EVACUATED
    s._award(
        per * steps, "evacuation", f"{spec.id} ({steps} step{'s' if steps > 1 else ''}) from {hg.hex_name(h)}"
    )
    if not evacuable_units(s):
        s.decision = Decision.END_PHASE


# ----------------------------------------------------------------------------- rail


def rail_passable(s: State) -> int:
    """Hexes a rail route may enter, as a bitset: clear or city, out of the colored rows, not
    adjacent to (or holding) an enemy unit (rule 11.7, R17)."""
    return s.game.tables.rail_ok_bits & ~mask_to_bits(masks.adj_enemy_mask(s, FRENCH))


def rail_route_to(s: State, u: int, dest: int) -> tuple[int, ...]:
    """The route a rail move of unit ``u`` to city ``dest`` takes (R17): hexes entered, ``dest`` last."""
    return rail_route(s.game.tables.open_nb, s.loc[u], dest, rail_passable(s))


def rail_origins(s: State, cities: Iterable[int] | None = None) -> dict[int, list[int]]:
    """Every city (of ``cities``, default all) a French unit could start a rail move from now, with the cities
    it could reach: the conditions on the two cities and the route (rule 11.7, R17), without those on the
    unit itself."""
    mt = s.game.tables
    adj = masks.adj_enemy_mask(s, FRENCH)  # includes enemy-occupied hexes themselves
    ok = rail_passable(s)
    dest_ok = [
        h
        for h in mt.city_hexes
        if not s.ever_german[h] and s.control[h] == FRENCH and not adj[h] and not mt.adj_green_or_yellow[h]
    ]
    out: dict[int, list[int]] = {}
    comps: list[int] = []  # the route components found so far: cities in one share their destinations
    for h in mt.city_hexes if cities is None else cities:
        if not mt.city[h] or s.ever_german[h] or adj[h]:
            continue
        comp = next((c for c in comps if (c >> h) & 1), 0)
        if not comp:
            comp = flood_bits(mt.open_bits, 1 << h, ok)
            comps.append(comp)
        dests = [c for c in dest_ok if c != h and (comp >> c) & 1]
        if dests:
            out[h] = dests
    return out


def rail_candidates(s: State) -> dict[int, list[int]]:
    """Units that may attempt a rail move and their destination cities (rule 11.7, R16, R17)."""
    movable = [u for u in s.on_map_units(FRENCH) if not s.units[u].static and not s.immobile[u]]
    origins = rail_origins(s, {s.loc[u] for u in movable})  # only where such a unit stands: a hot path
    return {u: list(origins[s.loc[u]]) for u in movable if s.loc[u] in origins}


def legal_rail_unit(s: State) -> list[int]:
    layout = s.game.layout
    rail = s._ctx.rail
    assert rail is not None
    return [layout.unit_action(u) for u in rail] + [layout.special(Special.PASS)]


def apply_rail_unit(s: State, a: int) -> None:
    layout = s.game.layout
    rail = s._ctx.rail
    assert rail is not None
    s._ctx.rail = None
    if a == layout.special(Special.PASS):
        s._set(Decision.MOVE_UNIT, FRENCH)
        return
    u = a - layout.unit_base
    s.moved[u] = True  # rule 11.7: it may not move farther this turn
    s.no_attack[u] = True  # rule 11.7: may not attack either way
    die = s._roll(f"rail move of {s.units[u].id} (rule 11.7)")
    if die <= s.game.scenario.tables.rail_success_max:
        s._ctx.unit = u
        s._ctx.rail_dests = rail[u]
        s._set(Decision.RAIL_DEST, FRENCH)
    else:
        s.immobile[u] = True  # rule 11.7: remains in place this game turn
        s._set(Decision.MOVE_UNIT, FRENCH)


def legal_rail_dest(s: State) -> list[int]:
    dests = s._ctx.rail_dests
    assert dests is not None
    return list(dests)


def apply_rail_dest(s: State, a: int) -> None:
    u = s._ctx.unit
    assert u is not None
    s._ctx.unit = None
    s._ctx.rail_dests = None
    start = s.loc[u]
    route = rail_route_to(s, u, a)
    for h in route[:-1]:
        s._take(h, FRENCH)  # rule 3.7, R17: every hex the route enters turns French, as along a move's path
    s.rail_log.append(
        {
            "turn": s.turn,
            "unit": s.units[u].id,
            "from": hg.hex_name(start),
            "to": hg.hex_name(a),
            "route": [hg.hex_name(h) for h in route],
        }
    )  # R17
    s._move_to(u, a)
    s._set(Decision.MOVE_UNIT, FRENCH)
