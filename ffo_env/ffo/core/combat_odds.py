"""Combat strength and column shifts (rules 7.4, 13.13-13.18, R14, R24-R26) and the battle preview.

One computation serves the battle being fought (``State._prepare_lower`` adds the city die to it) and
the public query :meth:`State.battle_preview`, so that a bot or a user asking "what would this attack
give?" gets the engine's own arithmetic, never a copy of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.phases import ON_MAP
from ffo_env.ffo.core.scenario import Side
from ffo_env.ffo.core.visibility import seen_stack

if TYPE_CHECKING:
    from ffo_env.ffo.core.state import State

GERMAN = Side.GERMAN

# cause of a column shift -> the rule that makes it
SHIFT_RULES: dict[str, str] = {
    "city": "rule 13.16, R24",
    "terrain": "rule 13.17, R24",
    "river": "rule 13.15, R14",
    "attacker_oos": "rule 7.4",
    "concentric": "rules 13.13, 13.14, R25",
    "defender_oos": "rule 7.4, R30",
}


@dataclass(frozen=True, slots=True)
class ColumnShift:
    cause: str  # a key of SHIFT_RULES
    columns: int  # + toward the attacker, - toward the defender
    rule: str


@dataclass(frozen=True, slots=True)
class BattlePreview:
    """What an attack would give before any die (R26): the differential, each column shift with its cause
    and rule, the column before the city die and lowering, and the distributions over the dice."""

    target: int
    attackers: tuple[int, ...]
    defenders: tuple[int, ...]
    att_cf: int  # attack strength including ``att_support``
    def_cf: int  # defence strength including ``def_support``
    differential: int
    base_column: int  # column of the differential (rule 13.18)
    shifts: tuple[ColumnShift, ...]  # known before the dice (the city die is in ``columns``)
    city_die: bool  # the city die will shift the column (rule 13.16)
    column: int  # final column without the city die, before lowering (R22.6)
    columns: dict[int, float]  # final column -> probability over the city die
    outcomes: dict[str, float]  # CRT result -> probability over the city die and the CRT die, no lowering
    hidden_defenders: int = 0  # defenders the viewer cannot see (rule 3.6, R3), not in ``def_cf``


def _qualifies(state: State, pred: list[bool]) -> bool:
    """Does a stack with these per-defender answers qualify (R24: ``mixed_stack`` "any" or "all")?"""
    return (any(pred) if state.game.options.mixed_stack == "any" else all(pred)) if pred else False


def attack_strength(state: State, target: int, attackers: list[int]) -> int:
    mt = state.game.tables
    total = 0
    for u in attackers:
        c = state.cf(u)
        if state.units[u].is_panzer and mt.mountain[target]:
            c //= 2  # rule 13.17
        total += c
    return total


def city_die_applies(state: State, target: int, defenders: list[int], hidden: int = 0) -> bool:
    # rule 13.16, R24: German panzer corps defend a city as clear terrain; ``hidden`` defenders the attacker
    # cannot see (rule 3.6) are assumed to qualify
    return bool(state.game.tables.city[target]) and _qualifies(
        state, [not state.units[u].is_panzer for u in defenders] + [True] * hidden
    )


def known_shifts(
    state: State,
    target: int,
    attackers: list[int],
    defenders: list[int],
    *,
    air: bool,
    attacker_side: int,
    att_oos: bool,
    def_oos: bool,
    att_supplied_mech: bool,
    origins: list[int],
    hidden: int = 0,
) -> dict[str, int]:
    """Column shifts known before the dice, by cause, in the order the engine records them (R26).

    ``hidden``: defenders besides ``defenders`` that the attacker cannot see (rule 3.6, R3); each is
    assumed to give the stack the terrain benefit it could give (R24)."""
    mt = state.game.tables
    t = state.game.scenario.tables
    shifts: dict[str, int] = {}
    if not mt.city[target]:
        if mt.mountain[target]:
            # rule 13.17, R24: mechanized defenders defend mountains as clear
            if _qualifies(state, [not state.units[u].mechanized for u in defenders] + [True] * hidden):
                shifts["terrain"] = mt.defence_shift[target]
        elif mt.defence_shift[target]:
            shifts["terrain"] = mt.defence_shift[target]
    if not air:
        # rule 13.15, R14: river shift only if every attacker attacks across a river hexside
        if not mt.city[target] and all(
            mt.river_side[target][direction(target, state.loc[u])] for u in attackers
        ):
            shifts["river"] = t.river_shift
        if att_oos:
            shifts["attacker_oos"] = t.shifts["attacker_oos"]  # rule 7.4
        c = concentric_shift(state, target, attacker_side, defenders, origins, att_supplied_mech)
        if c:
            shifts["concentric"] = c
    if def_oos:
        shifts["defender_oos"] = t.shifts["defender_oos"]  # rule 7.4, R30
    return shifts


def concentric_shift(
    state: State,
    target: int,
    attacker_side: int,
    defenders: list[int],
    origins: list[int],
    att_supplied_mech: bool,
) -> int:
    """Rule 13.13, 13.14, R25."""
    if state.game.tables.city[target]:
        return 0
    sides = sorted({direction(target, h) for h in origins})
    conc = (
        len(sides) >= 4
        or any((s + 3) % 6 in sides for s in sides)
        or any(all((s + k) % 6 in sides for k in (0, 2, 4)) for s in sides)
    )
    if not conc:
        return 0
    sh = state.game.scenario.tables.shifts
    if attacker_side == GERMAN:
        dg = state.game.dist_green
        for u in defenders:
            if state.status[u] == ON_MAP and dg[state.loc[u]] <= state.mf(u) and state.mf(u) > 0:
                return sh["concentric_surrender"]  # rule 13.14
        if att_supplied_mech:
            return sh["concentric_german_mech"]
    return sh["concentric"]


def battle_preview(
    state: State,
    target: int,
    attackers: list[int],
    att_support: int = 0,
    def_support: int = 0,
    viewer: int | None = None,
) -> BattlePreview:
    """The engine's arithmetic for ``attackers`` attacking the stack in ``target`` now.

    With ``viewer=None`` it uses full information (the real defenders). With a ``viewer`` it uses only
    what that side sees of the stack (rule 3.6, R3; :func:`visibility.seen_stack`): ``defenders`` and
    ``def_cf`` are the units it sees, ``hidden_defenders`` counts the others, which are assumed to give
    the stack every terrain benefit they could (R24); the defender-supply and surrender shifts (rules
    7.4, 13.14) are judged on the units it sees."""
    hidden = 0
    if viewer is None:
        defenders = [u for u in state.stacks.get(target, []) if state.status[u] == ON_MAP]
    else:
        seen = seen_stack(state, viewer, target)
        defenders = [] if seen is None else list(seen.known)
        hidden = 0 if seen is None else seen.hidden
    if not defenders:
        raise ValueError(f"battle_preview: no unit in hex {hg.hex_name(target)} to attack")
    if not attackers:
        raise ValueError(f"battle_preview: no attacker for hex {hg.hex_name(target)}")
    attacker_side = int(state.units[attackers[0]].side)
    if (
        any(int(state.units[u].side) != attacker_side for u in attackers)
        or int(state.units[defenders[0]].side) == attacker_side
    ):
        raise ValueError(
            f"battle_preview: attackers {[state.units[u].id for u in attackers]} are not all"
            f" enemies of the stack in {hg.hex_name(target)}"
        )
    # judged as at a declaration (R11, rule 7.9)
    sup = [state._supplied_for_action(u) for u in attackers]
    att_oos = not all(sup)
    def_oos = any(not state.is_supplied(u) for u in defenders)
    mech = all(state.units[u].mechanized and s for u, s in zip(attackers, sup, strict=True))
    origins = sorted({state.loc[u] for u in attackers})
    shifts = known_shifts(
        state,
        target,
        attackers,
        defenders,
        air=False,
        attacker_side=attacker_side,
        att_oos=att_oos,
        def_oos=def_oos,
        att_supplied_mech=mech,
        origins=origins,
        hidden=hidden,
    )
    t = state.game.scenario.tables
    crt = t.crt
    att_cf = attack_strength(state, target, attackers) + att_support
    def_cf = sum(state.cf(u) for u in defenders) + def_support
    diff = att_cf - def_cf
    base = crt.column_of(diff)
    last = len(crt.columns) - 1
    col = max(0, min(last, base + sum(shifts.values())))
    city = city_die_applies(state, target, defenders, hidden)
    columns: dict[int, float] = {}
    for die in range(1, 7) if city else (0,):
        c = max(0, min(last, base + sum(shifts.values()) - die // t.city_die_divisor))  # R26, rule 13.18
        columns[c] = columns.get(c, 0.0) + (1 / 6 if city else 1.0)
    outcomes: dict[str, float] = {}
    for c, p in columns.items():
        for die in range(1, 7):
            r = crt.result(c, die)
            outcomes[r] = outcomes.get(r, 0.0) + p / 6
    return BattlePreview(
        target,
        tuple(attackers),
        tuple(defenders),
        att_cf,
        def_cf,
        diff,
        base,
        tuple(ColumnShift(k, v, SHIFT_RULES[k]) for k, v in shifts.items()),
        city,
        col,
        columns,
        outcomes,
        hidden,
    )


def direction(a: int, b: int) -> int:
    """The hexside of ``a`` facing neighbour ``b`` (0-5), or -1 if not adjacent."""
    row = hg.NEIGHBORS[a]
    for d in range(6):
        if row[d] == b:
            return d
    return -1
