"""The Springtime observation encoder: its documented layout, its range, and fog of war (S59)."""

from __future__ import annotations

import random
import re

import numpy as np

from ffo_env.springtime import encoding as E
from ffo_env.springtime.core.game import Game

_GAME = Game()


def _played(seed: int, n: int):
    s = _GAME.new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(n):
        if s.is_terminal():
            break
        s.apply_action(rng.choice(s.legal_actions()))
    return s


def test_docstring_block_table_matches_layout() -> None:
    rows = re.findall(r"^(\w+)\s+(\d+)\s{2,}", E.__doc__ or "", flags=re.M)
    documented = [(name, int(n)) for name, n in rows if name not in ("block",)]
    assert documented == list(E.LAYOUT)
    total = re.search(r"``OBS_SIZE`` = (\d+)", E.__doc__ or "")
    assert total is not None and int(total.group(1)) == E.OBS_SIZE == sum(n for _, n in E.LAYOUT)
    assert E.LAYOUT[0][1] == 36 * len(E.AREA_FEATURES) and E.LAYOUT[1][1] == 35 * len(E.UNIT_FEATURES)


def test_observation_is_float32_in_unit_range_over_a_game() -> None:
    s = _played(1, 0)
    rng = random.Random(1)
    steps = 0
    while not s.is_terminal() and steps < 150:
        for side in (0, 1):
            o = E.encode(s, side)
            assert o.dtype == np.float32 and o.shape == (E.OBS_SIZE,)
            assert o.min() >= 0.0 and o.max() <= 1.0
        s.apply_action(rng.choice(s.legal_actions()))
        steps += 1


def _with_markers(s, side: int, held: int):
    """A copy of ``s`` in which ``side`` holds marker ``held`` instead (swapped with the container)."""
    t = s.clone()
    old = t.held[side]
    if held == old:
        return t
    t.container = sorted([m for m in t.container if m != held] + ([old] if old else []))
    t.held[side] = held
    t.draw_log[side] = [*t.draw_log[side], {"turn": t.turn, "drew": held, "why": "test"}]
    return t


def test_s59_other_sides_held_marker_does_not_leak() -> None:
    """Two positions differing only in the marker the opponent holds (and its draw log, the container's
    contents, the generator) give the viewer the same observation; the holder's own view differs."""
    checked = 0
    for seed in range(12):
        s = _played(seed, 40)
        for holder in (0, 1):
            if not s.held[holder] or not s.container:
                continue
            other = s.container[0]
            t = _with_markers(s, holder, other)
            t.dice_state = _played(seed + 100, 0).dice_state
            viewer = 1 - holder
            assert np.array_equal(E.encode(s, viewer), E.encode(t, viewer))
            assert not np.array_equal(E.encode(s, holder), E.encode(t, holder))
            checked += 1
    assert checked >= 3
