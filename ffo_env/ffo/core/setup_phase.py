"""Setup (rules 3.3, 3.4, 6.2, R2): where each side's units start, placed one decision at a time."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, NamedTuple

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.phases import RESERVE, Decision
from ffo_env.ffo.core.setup_rules import SETUP_KINDS, setup_candidates
from ffo_env.ffo.core.setup_rules import setup_hexes as rules_setup_hexes
from ffo_env.ffo.core.sides import Side

if TYPE_CHECKING:
    from ffo_env.ffo.core.game import Game
    from ffo_env.ffo.core.state import State

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
    plan = _random_plan(s.game, side)
    status = s.status
    pending = [u for u in plan.order if status[u] == RESERVE]  # plan.order is sorted, so this is too
    n_first = sum(1 for u in pending if plan.fortress[u])
    # the stack counts of rules 6.2, 6.3 (what State._counted answers), kept up to date as units are placed
    # here rather than recounted for every candidate hex of every unit: same answers, a fraction of the time
    # (only the candidate hexes' counts are ever read)
    count = [0] * hg.N_HEX
    stacks = s.stacks
    for h in plan.hexes:
        if h in stacks:
            count[h] = s._counted(h)
    limit = s.game.scenario.tables.setup_stack_limit
    # each kind of unit's legal hexes (setup_rules.setup_hexes), kept up to date: a count only grows here,
    # so a hex leaves the lists where the limit applies when it fills up, and never joins one
    legal: list[list[int]] = [
        [h for h in cand if count[h] < limit] if limited else list(cand) for cand, limited in plan.kinds
    ]
    limited_lists = [hexes for hexes, (_, limited) in zip(legal, plan.kinds, strict=True) if limited]
    pick = s._picker()  # s._pick: the turn and phase do not change during the setup
    place = s._place
    while pending:
        # R2/R3: the order of placement decides the stack order, so it is drawn too
        # (fortress corps first, so the 51st never takes one of their two hexes)
        if n_first:
            k = pick(n_first, "random setup: unit")
            n_first -= 1
        else:
            k = pick(len(pending), "random setup: unit")
        u = pending.pop(k)
        hexes = legal[plan.kind[u]]
        h = hexes[pick(len(hexes), plan.purpose[u])]
        place(u, h)
        if plan.counts[u]:
            count[h] += 1
            if count[h] == limit:
                for lst in limited_lists:
                    if h in lst:
                        lst.remove(h)


class _RandomPlan(NamedTuple):
    """What the random setup of one side needs of its units, derived once per game (speed only)."""

    order: tuple[int, ...]  # the side's setup units in placement-draw order: fortress corps first
    fortress: tuple[bool, ...]  # per unit index: a fortress corps
    counts: tuple[bool, ...]  # per unit index: counts against the stacking limit (rule 6.3)
    kind: tuple[int, ...]  # per unit index: its entry in kinds (-1 if not set up by this side)
    kinds: tuple[tuple[tuple[int, ...], bool], ...]  # setup_rules.setup_candidates per kind of unit
    purpose: tuple[str, ...]  # per unit index: the dice log's purpose of its hex draw
    hexes: tuple[int, ...]  # every candidate hex of the kinds


_PLANS: weakref.WeakKeyDictionary[Game, dict[int, _RandomPlan]] = weakref.WeakKeyDictionary()


def _random_plan(game: Game, side: Side) -> _RandomPlan:
    plans = _PLANS.get(game)
    if plans is None:
        plans = _PLANS[game] = {}
    plan = plans.get(int(side))
    if plan is not None:
        return plan
    units = game.scenario.units
    kinds_ = SETUP_KINDS[side]
    order = [u.index for u in units if u.side == side and u.setup in kinds_]
    order.sort(key=lambda u: (units[u].type != "fortress", units[u].free_stacking))  # stable
    mt = game.tables
    kind_of: dict[tuple[tuple[int, ...], bool], int] = {}
    kind = [-1] * len(units)
    for u in order:
        cand, limited = setup_candidates(units[u], mt.red, mt.green)
        kind[u] = kind_of.setdefault((tuple(cand), limited), len(kind_of))
    plan = _RandomPlan(
        order=tuple(order),
        fortress=tuple(u.type == "fortress" for u in units),
        counts=tuple(not f for f in game.unit_free_stacking),
        kind=tuple(kind),
        kinds=tuple(kind_of),
        purpose=tuple(f"random setup: hex of {u.id}" for u in units),
        hexes=tuple(sorted({h for cand, _ in kind_of for h in cand})),
    )
    plans[int(side)] = plan
    return plan


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
