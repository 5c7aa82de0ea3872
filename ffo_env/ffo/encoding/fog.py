"""Fog of war: what one side may see of the other side's stacks (rule 3.6, R2, R3).

A viewer sees, of every enemy stack, the top unit (identity, type, strength) and
the number of units in the stack, nothing else, unless the stack's hex is in
``state.revealed[viewer]`` (the viewer declared an attack on it and the stack has
not changed since, R3). Everything else in the game is public: unit status
(reserve / on map / dead / evacuated), control, refugees, VP, dice, markers'
hexes, and the battle being fought (target, attacking units, numbers).

Decision context (the unit being moved, its destinations, the legal choices) is
private to the side that decides (its legal actions can name hidden units).

``omniscient=True`` lifts the fog (same arrays, every unit visible); it is for
analysis and privileged critics only, never a default.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.state import ON_MAP, State

__all__ = ["StackView", "stack_view", "visible_units"]


class StackView:
    """Per-stack facts of a state, as numpy arrays (one entry per occupied hex).

    ``hexes[k]`` is an occupied hex, ``tops[k]`` its top unit (the last placed, R3),
    ``sizes[k]`` the number of units in it, ``german[k]`` whether the stack is German.
    """

    __slots__ = ("hexes", "tops", "sizes", "german")

    def __init__(self, hexes: np.ndarray, tops: np.ndarray, sizes: np.ndarray, german: np.ndarray) -> None:
        self.hexes = hexes
        self.tops = tops
        self.sizes = sizes
        self.german = german


def stack_view(state: State, unit_german: np.ndarray) -> StackView:
    """The stacks of ``state``; ``unit_german[u]`` says whether unit ``u`` is German."""
    stacks = state.stacks
    vals = list(stacks.values())
    hexes = np.array(list(stacks), dtype=np.int64)
    tops = np.array([st[-1] for st in vals], dtype=np.int64)
    sizes = np.array([len(st) for st in vals], dtype=np.int64)
    return StackView(hexes, tops, sizes, unit_german[tops] if len(tops) else np.zeros(0, dtype=bool))


def revealed_hex_mask(state: State, viewer: int) -> np.ndarray:
    """Bool array of length ``N_HEX + 1``: hexes whose stacks are revealed to ``viewer`` (R3).

    The extra last entry is always ``False`` so that ``mask[loc]`` works for units
    off the map (``loc == -1``).
    """
    m = np.zeros(hg.N_HEX + 1, dtype=bool)
    rev: Any = state.revealed[viewer]
    if rev:
        m[np.fromiter(rev, dtype=np.int64, count=len(rev))] = True
    return m


def visible_units(
    state: State,
    viewer: int,
    loc: np.ndarray,
    on_map: np.ndarray,
    own: np.ndarray,
    tops: np.ndarray,
    omniscient: bool = False,
) -> np.ndarray:
    """Bool per unit: may ``viewer`` see this unit's identity, hex and strength? (rule 3.6, R3)

    Own units, enemy top units and enemy units in hexes revealed to the viewer are
    visible; units off the map are "visible" in the sense that their status is
    public (their location and strength fields are empty anyway). ``loc`` uses -1
    for units off the map.
    """
    if omniscient:
        return np.ones(loc.shape[0], dtype=bool)
    is_top = np.zeros(loc.shape[0], dtype=bool)
    if len(tops):
        is_top[tops] = True
    rev = revealed_hex_mask(state, viewer)[loc]
    return own | ~on_map | is_top | rev


def is_on_map(status: np.ndarray) -> np.ndarray:
    return status == ON_MAP
