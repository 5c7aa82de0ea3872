"""German replacement (rules 8.1-8.3): the designated unit stays put this turn and is restored at II.E."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffo_env.ffo.core import masks
from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.phases import ON_MAP, Decision
from ffo_env.ffo.core.scenario import Side

if TYPE_CHECKING:
    from ffo_env.ffo.core.state import State


def replacement_candidates(s: State) -> list[int]:
    """Rule 8.2."""
    mt = s.game.tables
    adj = masks.adj_enemy_mask(s, Side.GERMAN)
    out = []
    for u in s.on_map_units(Side.GERMAN):
        spec = s.units[u]
        h = s.loc[u]
        if spec.steps == 2 and s.steps[u] == 1 and not mt.mountain[h] and not adj[h] and s.is_supplied(u):
            out.append(u)
    return out


def enter_replacement(s: State) -> bool:
    if s.turn < s.game.scenario.tables.replacement_first_turn:
        return False  # rule 8.1, 5.4
    if not replacement_candidates(s):
        return False
    s._set(Decision.REPLACEMENT, Side.GERMAN)
    return True


def legal_replacement(s: State) -> list[int]:
    layout = s.game.layout
    return [layout.unit_action(u) for u in replacement_candidates(s)] + [layout.special(Special.PASS)]


def apply_replacement(s: State, a: int) -> None:
    layout = s.game.layout
    if a != layout.special(Special.PASS):
        u = a - layout.unit_base
        s.replacement_unit = u
        s.immobile[u] = True  # rule 8.2
        s.no_attack[u] = True
    s.decision = Decision.END_PHASE


def enter_replacement_completion(s: State) -> bool:
    u = s.replacement_unit
    if u >= 0 and s.status[u] == ON_MAP and s.steps[u] < s.units[u].steps:
        s.steps[u] = s.units[u].steps  # rule 8.3, 4.6
        s._pos_version[Side.GERMAN] += 1
    s.replacement_unit = -1
    return False
