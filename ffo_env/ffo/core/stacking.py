"""Stacking (rules 6.1-6.6, R9): counting a stack, the over-stacked hex at the end of movement, and the
opponent's removal of the excess."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffo_env.ffo.core.phases import Decision, Phase
from ffo_env.ffo.core.scenario import Side

if TYPE_CHECKING:
    from ffo_env.ffo.core.state import State


def counted(s: State, h: int) -> int:
    """Units in hex ``h`` that count against the stacking limit (rule 6.3: free-stacking units do not)."""
    st = s.stacks.get(h)
    if not st:
        return 0
    free = s.game.unit_free_stacking
    return sum(1 for u in st if not free[u])


def overstacked(s: State, side: int) -> tuple[int, int] | None:
    limit = s.game.scenario.tables.stack_limit
    for h in sorted(s.stacks):
        st = s.stacks[h]
        if s.units[st[0]].side == side and counted(s, h) > limit:
            return h, side
    return None


def pending_overstack_vp(s: State) -> int:
    """French VP at stake in over-stacked German hexes: what the French would score if the
    German movement phase ended in this position (rule 6.5, R9: the French remove the excess
    units of their choice, assumed the costliest; rule 4.6). 0 outside the German movement
    phase, where nothing is removed."""
    if s.phase != Phase.GERMAN_MOVEMENT:
        return 0
    limit = s.game.scenario.tables.stack_limit
    free = s.game.unit_free_stacking
    total = 0
    for st in s.stacks.values():
        if s.units[st[0]].side != Side.GERMAN:
            continue
        count = [u for u in st if not free[u]]
        if len(count) > limit:
            costs = sorted((s.elimination_vp(u) for u in count), reverse=True)
            total += sum(costs[: len(count) - limit])
    return total


def legal_overstack(s: State) -> list[int]:
    # fog of war (rule 3.6, R3) does not hide these identities: rule 6.5 has the opposing player
    # remove "the units of his choice" from the over-stacked hex, so the rules show him the stack
    layout = s.game.layout
    h = s._ctx.overstack_hex
    assert h is not None
    return [layout.unit_action(u) for u in s.stacks[h] if not s.units[u].free_stacking]


def apply_overstack(s: State, a: int) -> None:
    u = a - s.game.layout.unit_base
    s._eliminate(u, "over-stacked (rule 6.5, R9)")
    s._ctx.overstack_hex = None
    s.decision = Decision.END_PHASE
