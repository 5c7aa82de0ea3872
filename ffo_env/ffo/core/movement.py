"""Movement (rules 5.3-5.5, 7.1, 7.3, 9.2, 9.5, 10.3, 10.4, 11.1-11.5, R5-R7, R11-R15): which units move,
where each may go, what moving there does."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.evacuation import rail_candidates
from ffo_env.ffo.core.mapdata import ColoredRow
from ffo_env.ffo.core.phases import ON_MAP, Decision, Phase
from ffo_env.ffo.core.scenario import Side
from ffo_env.ffo.core.search import Reach, reachable

if TYPE_CHECKING:
    from ffo_env.ffo.core.state import State

FRENCH = Side.FRENCH
GERMAN = Side.GERMAN


def enter_movement(s: State) -> bool:
    side = FRENCH if s.phase == Phase.FRENCH_MOVEMENT else GERMAN
    s.moved = [False] * len(s.moved)
    s.oos_roll = {}
    comply = []
    if s.turn == 1:
        static = s.game.unit_static
        comply = [u for u in s.on_map_units(side) if not static[u]]  # R7
    elif side == GERMAN:
        comply = [u for u in s.on_map_units(GERMAN) if s.must_leave[u]]  # R7, rule 9.2
    s._ctx.comply = comply
    if side == FRENCH and s.turn >= s.game.scenario.tables.rail_first_turn:
        cands = rail_candidates(s)
        if cands:
            s._ctx.rail = cands
            s._set(Decision.RAIL_UNIT, FRENCH)
            return True
    s._set(Decision.MOVE_UNIT, side)
    return True


def movers(s: State, side: int) -> list[int]:
    moved = s.moved
    immobile = s.immobile
    static = s.game.unit_static
    return [u for u in s.on_map_units(side) if not moved[u] and not immobile[u] and not static[u]]


def legal_move_unit(s: State) -> list[int]:
    layout = s.game.layout
    out = [layout.unit_action(u) for u in movers(s, s.player)]
    comply = s._ctx.comply or ()
    if not any(not s.moved[u] and s.status[u] == ON_MAP and not s.immobile[u] for u in comply):
        out.append(layout.special(Special.PASS))  # R7: end only when every unit that must comply has moved
    return out


def mp_for(s: State, u: int) -> int:
    """MP of a unit chosen to move: its MF, or a die if out of supply (rules 7.1, 7.3, R11, R12)."""
    if s._supplied_for_action(u):
        return s.mf(u)
    h = s.loc[u]
    roll = s.oos_roll.get(h)
    if roll is None:
        roll = s._roll(f"OOS movement {s.units[u].id} in {hg.hex_name(h)} (rule 7.3)")
        s.oos_roll[h] = roll  # R12: shared by every OOS unit of that hex this phase
    return min(roll, s.mf(u))


def blocked_for(s: State, u: int) -> bytearray:
    """Hexes unit ``u`` may never enter (R15, rule 5.5, R5, 9.2, 9.5, 13.4). Read-only (cached)."""
    spec = s.units[u]
    side = spec.side
    yellow = side == GERMAN and spec.west and s.entered_map[u]
    green_red = side == GERMAN and s.left_green[u]
    kind = ("blk", side, yellow, green_red)
    key = s._pos_version[1 - side]
    hit: tuple[Any, bytearray] | None = s._cache.get(kind)
    if hit is not None and hit[0] == key:
        return hit[1]
    mask = bytearray(s.game.forbidden[side])
    enemy = 1 - side
    sides = s.game.unit_side
    for h, st in s.stacks.items():
        if sides[st[0]] == enemy:
            mask[h] = 1
    mt = s.game.tables
    if yellow:
        for h in mt.yellow:
            mask[h] = 1
    if green_red:
        # rule 9.2: an 18th Army unit that has left the red and green rows "then stays out"
        for h in mt.green:
            mask[h] = 1
        for h in mt.red:
            mask[h] = 1
    s._cache[kind] = (key, mask)
    return mask


def no_return_for(s: State, u: int) -> bytes | None:
    """Region unit ``u`` may leave during a move but not come back into (rules 9.2, 9.5)."""
    spec = s.units[u]
    if spec.side != GERMAN:
        return None
    if spec.west and not s.entered_map[u]:
        return s.game.tables.no_return_yellow  # rule 9.5: once on the regular map, never back
    if spec.group == "18" and not s.left_green[u]:
        return s.game.tables.no_return_green_red  # rule 9.2: out of the red and green rows, then stay out
    return None


def end_ok(s: State, u: int, h: int, comply: bool) -> bool:
    """May unit ``u`` end a move in hex ``h``? (rules 5.3-5.5, R6, R7)."""
    mt = s.game.tables
    if s.units[u].side == FRENCH:
        if mt.adj_green_or_yellow[h]:
            return False  # rule 5.5, R6
        if comply and (mt.row[h] == ColoredRow.RED or mt.adj_red[h]):
            return False  # rule 5.3, R7
        return True
    if mt.row[h] == ColoredRow.RED:
        return False  # rule 5.5
    if comply and mt.row[h] == ColoredRow.GREEN:
        return False  # rule 5.4, R7
    return True


def destinations(s: State, u: int, mp: int) -> Mapping[int, Reach]:
    """Legal destinations of unit ``u`` with ``mp`` movement points (R13, R15), stay excluded.

    A read-only mapping hex -> :class:`Reach` (a ``dict`` or a lazy :class:`search.Dests`)."""
    side = s.units[u].side
    refugees = s.refugees if side == FRENCH else None  # rule 10.3: French only
    comply = u in (s._ctx.comply or ())
    mt = s.game.tables
    # mt.end_ok is end_ok tabulated per (side, comply)
    return reachable(
        mt,
        s.loc[u],
        mp,
        blocked_for(s, u),
        refugees,
        s.game.scenario.tables.refugee_move_extra,
        no_return_for(s, u),
        mt.end_ok[2 * side + comply],
    )


def complies(s: State, u: int, h: int) -> bool:
    """Is hex ``h`` already out of the rows unit ``u`` must leave? (rules 5.3, 5.4, 9.2, R7)"""
    mt = s.game.tables
    if s.units[u].side == FRENCH:
        return not (mt.row[h] == ColoredRow.RED or mt.adj_red[h])
    return mt.row[h] not in (ColoredRow.GREEN, ColoredRow.RED)


def apply_move_unit(s: State, a: int) -> None:
    layout = s.game.layout
    if a == layout.special(Special.PASS):
        s.decision = Decision.END_PHASE
        return
    u = a - layout.unit_base
    mp = mp_for(s, u)
    ctx = s._ctx
    ctx.dests = destinations(s, u, mp)
    ctx.unit = u
    ctx.mp = mp
    s._set(Decision.MOVE_DEST, s.player)


def legal_move_dest(s: State) -> list[int]:
    ctx = s._ctx
    u = ctx.unit
    dests = ctx.dests
    assert u is not None and dests is not None
    out = list(dests)
    h = s.loc[u]
    if not dests or u not in (ctx.comply or ()) or complies(s, u, h):
        out.append(h)  # staying put; R7: not while a compliant destination exists
    return out


def apply_move_dest(s: State, a: int) -> None:
    ctx = s._ctx
    u = ctx.unit
    dests = ctx.dests
    assert u is not None and dests is not None
    ctx.unit = ctx.dests = ctx.mp = None
    s.moved[u] = True
    if a != s.loc[u]:
        r = dests[a]
        side = s.units[u].side
        for h in r.overrun:  # rule 10.4, 4.5: one VP per refugee hex per phase
            if not s.refugees.get(h, True):
                s.refugees[h] = True
                s._award(
                    s.game.scenario.tables.vp["refugee_overrun"],
                    "refugees",
                    f"{s.units[u].id} overran refugees in {hg.hex_name(h)}",
                )
        for h in r.path[:-1]:
            s._take(h, side)  # rule 3.7: control changes as a unit enters a hex
        # the path never re-enters a region it left (search.reachable no_return, rules 9.2, 9.5),
        # so the end hex alone tells whether the unit has left it (State._track_rows)
        s._move_to(u, a)
    s._set(Decision.MOVE_UNIT, s.player)


def gt1_compliance(s: State, side: Side) -> None:
    """R7: units still in violation at the end of GT1 movement are eliminated (no VP)."""
    mt = s.game.tables
    for u in s.on_map_units(side):
        if s.units[u].static:
            continue
        h = s.loc[u]
        if side == FRENCH:
            bad = mt.row[h] == ColoredRow.RED or mt.adj_red[h]  # rule 5.3
        else:
            bad = mt.row[h] in (ColoredRow.GREEN, ColoredRow.RED)  # rule 5.4
        if bad:
            s._eliminate(u, "GT1 row compliance (R7)", award=False)
