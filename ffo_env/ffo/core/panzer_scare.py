"""The panzer scare (rule 7.9, R36): the French roll, the scared German corps and its removal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffo_env.ffo.core.phases import Decision
from ffo_env.ffo.core.scenario import Side

if TYPE_CHECKING:
    from ffo_env.ffo.core.state import State


def enter_panzer_scare(s: State) -> bool:
    t = s.game.scenario.tables
    if s.turn < t.scare_first_turn:
        return False
    die = s._roll("panzer scare (rule 7.9)")
    limit = t.scare_later_max if s.scare_ever else t.scare_first_max  # R36
    if die > limit:
        return False
    s.scare_ever = True
    if not scare_candidates(s):
        return False
    s._set(Decision.SCARE_UNIT, Side.FRENCH)
    return True


def scare_candidates(s: State) -> list[int]:
    """Supplied German mechanized units the French player can see (rules 7.9, 3.6, R3): the top
    unit of its stack, or any unit of a stack revealed to him by an attack declaration. A unit
    hidden under another (e.g. a panzer corps under the free-stacking 1st Mountain Division) is
    not offered: the action mask would reveal what rule 3.6 forbids the French to look at."""
    revealed = s.revealed[Side.FRENCH]
    out = []
    for u in s.on_map_units(Side.GERMAN):
        if not s.units[u].mechanized:
            continue
        h = s.loc[u]
        if s.stacks[h][-1] != u and h not in revealed:
            continue  # rule 3.6, R3: hidden under the top unit
        if s.is_supplied(u):
            out.append(u)
    return out


def legal_scare_unit(s: State) -> list[int]:
    layout = s.game.layout
    return [layout.unit_action(u) for u in scare_candidates(s)]


def apply_scare_unit(s: State, a: int) -> None:
    s.scare_unit = a - s.game.layout.unit_base
    s.decision = Decision.END_PHASE


def enter_scare_removal(s: State) -> bool:
    if s.turn >= 2:
        s.scare_unit = -1  # rule 7.9, II.H
    return False
