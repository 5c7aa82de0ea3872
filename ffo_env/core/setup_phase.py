"""Setup (rules 3.3, 3.4, 6.2, R2): where each side's units start, placed one decision at a time."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffo_env.core import hexgrid as hg
from ffo_env.core.phases import RESERVE, Decision
from ffo_env.core.setup_rules import SETUP_KINDS
from ffo_env.core.setup_rules import setup_hexes as rules_setup_hexes
from ffo_env.core.sides import Side

if TYPE_CHECKING:
    from ffo_env.core.state import State

FRENCH = Side.FRENCH
GERMAN = Side.GERMAN


def enter_setup_french(s: State) -> bool:
    sc = s.game.scenario
    for unit, h in s.game.port_home:
        s._place(unit, h)  # rule 3.3: garrisons in their ports (scenario order)
    mode = s.game.options.setup
    if mode == "fixed":
        for u in sc.units:
            if u.side == FRENCH and not u.port:
                s._place(u.index, sc.fixed_setup[u.id])
        return False
    if mode == "random":
        random_setup(s, FRENCH)
        return False
    s._set(Decision.SETUP_UNIT, FRENCH)
    return True


def enter_setup_german(s: State) -> bool:
    sc = s.game.scenario
    mode = s.game.options.setup
    if mode == "fixed":
        for u in sc.units:
            if u.side == GERMAN and u.setup == "green":
                s._place(u.index, sc.fixed_setup[u.id])
        mark_green_units(s)
        return False
    if mode == "random":
        random_setup(s, GERMAN)
        mark_green_units(s)
        return False
    s._set(Decision.SETUP_UNIT, GERMAN)
    return True


def mark_green_units(s: State) -> None:
    for u in s.on_map_units(GERMAN):
        s.must_leave[u] = True  # R7


def setup_pending(s: State, side: Side) -> list[int]:
    kinds = SETUP_KINDS[side]
    return [u.index for u in s.units if u.side == side and u.setup in kinds and s.status[u.index] == RESERVE]


def setup_hexes(s: State, u: int) -> list[int]:
    """Hexes unit ``u`` may be placed in now (rules 3.3, 3.4, 6.2; see :func:`setup_rules.setup_hexes`)."""
    mt = s.game.tables
    return rules_setup_hexes(
        s.units[u], mt.red, mt.green, s.game.scenario.tables.setup_stack_limit, s._counted
    )


def random_setup(s: State, side: Side) -> None:
    pending = setup_pending(s, side)
    # fortress corps first so that their two hexes are never taken by the 51st's choice
    pending.sort(key=lambda u: (s.units[u].type != "fortress", s.units[u].free_stacking))
    n_first = sum(1 for u in pending if s.units[u].type == "fortress")
    # the stack counts of rules 6.2, 6.3 (what State._counted answers), kept up to date as units are placed
    # here rather than recounted for every candidate hex of every unit: same answers, a fraction of the time
    count = [0] * hg.N_HEX
    for h in s.stacks:
        count[h] = s._counted(h)
    free = s.game.unit_free_stacking
    mt = s.game.tables
    limit = s.game.scenario.tables.setup_stack_limit
    units = s.units
    # setup_hexes reads of a unit only its side, setup kind, type and free stacking, and of the counts only
    # whether each is below the limit: its answer per kind of unit is kept until a hex fills up
    kept: dict[tuple[int, str, str, bool], list[int]] = {}
    while pending:
        # R2/R3: the order of placement decides the stack order, so it is drawn too
        # (fortress corps first, so the 51st never takes one of their two hexes)
        k = s._pick(n_first, "random setup: unit") if n_first else s._pick(len(pending), "random setup: unit")
        n_first = max(0, n_first - 1)
        u = pending.pop(k)
        spec = units[u]
        kind = (int(spec.side), spec.setup, spec.type, spec.free_stacking)
        hexes = kept.get(kind)
        if hexes is None:
            hexes = kept[kind] = rules_setup_hexes(spec, mt.red, mt.green, limit, count.__getitem__)
        h = hexes[s._pick(len(hexes), f"random setup: hex of {spec.id}")]
        s._place(u, h)
        if not free[u]:
            count[h] += 1
            if count[h] == limit:
                kept.clear()


def legal_setup_unit(s: State) -> list[int]:
    layout = s.game.layout
    return [layout.unit_action(u) for u in setup_pending(s, s.player)]


def apply_setup_unit(s: State, a: int) -> None:
    s._ctx.unit = a - s.game.layout.unit_base
    s._set(Decision.SETUP_HEX, s.player)


def legal_setup_hex(s: State) -> list[int]:
    u = s._ctx.unit
    assert u is not None
    return setup_hexes(s, u)


def apply_setup_hex(s: State, a: int) -> None:
    u = s._ctx.unit
    assert u is not None
    s._ctx.unit = None
    s._place(u, a)
    if setup_pending(s, s.player):
        s._set(Decision.SETUP_UNIT, s.player)
    else:
        if s.player == GERMAN:
            mark_green_units(s)
        s.decision = Decision.END_PHASE
