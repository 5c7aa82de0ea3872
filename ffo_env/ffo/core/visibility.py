"""Fog of war: what one side may see of a stack (rule 3.6, R2, R3).

A viewer sees its own stacks fully; of an enemy stack, the top unit (the last placed) and the number of
units, unless the stack's hex is in ``state.revealed[viewer]`` (it declared an attack there and the stack
has not changed since, R3). The encoder's vectorised view (``ffo_env.ffo.encoding.fog``) is tested to agree
with :func:`unit_visible`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ffo_env.ffo.core.phases import ON_MAP

if TYPE_CHECKING:
    from ffo_env.ffo.core.state import State


@dataclass(frozen=True, slots=True)
class SeenStack:
    """A stack as ``viewer`` sees it: the known units (bottom to top) and how many are hidden."""

    hex: int
    side: int
    known: tuple[int, ...]
    hidden: int


def seen_stack(state: State, viewer: int, h: int) -> SeenStack | None:
    st = state.stacks.get(h)
    if not st:
        return None
    owner = int(state.game.unit_side[st[0]])
    if owner == viewer or h in state.revealed[viewer]:
        return SeenStack(h, owner, tuple(st), 0)
    return SeenStack(h, owner, (st[-1],), len(st) - 1)  # rule 3.6: top unit only


def unit_visible(state: State, viewer: int, u: int) -> bool:
    """May ``viewer`` see unit ``u``'s identity, hex and strength? Units off the map: their status is public."""
    if state.game.unit_side[u] == viewer or state.status[u] != ON_MAP:
        return True
    h = state.loc[u]
    return h in state.revealed[viewer] or state.stacks[h][-1] == u
