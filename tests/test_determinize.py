"""core.determinize: a sample of the true state consistent with what one side has seen (rule 3.6, R2, R3, R37)."""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np
import pytest
from conftest import default_game

from agents.registry import make_agent
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.determinize import determinize, hidden_slots
from ffo_env.ffo.core.state import State
from ffo_env.ffo.core.state_check import check_state_dict
from ffo_env.ffo.encoding.observation import encode


@lru_cache(maxsize=1)
def _positions() -> tuple[State, ...]:
    """States of a heuristic game at decisions of every kind, with hidden units on both sides."""
    st = default_game().new_initial_state(3)
    bots = {s: make_agent("heuristic", s, seed=7) for s in ("french", "german")}
    out = []
    i = 0
    while not st.is_terminal() and len(out) < 40:
        if i % 37 == 0 or (st.battle is not None and i % 3 == 0):
            out.append(st.clone())
        st.apply_action(bots[st.current_agent].act_state(st))
        i += 1
    return tuple(s for s in out if hidden_slots(s, 0) or hidden_slots(s, 1))


def _view(state: State, viewer: int) -> dict[int, object]:
    return {h: state.seen_stack(viewer, h) for h in range(hg.N_HEX)}


def test_3_6_determinize_keeps_the_viewers_view_of_every_hex() -> None:
    states = _positions()
    assert len(states) >= 10
    rng = random.Random(1)
    for s in states:
        for viewer in (0, 1):
            d = determinize(s, viewer, rng)
            assert _view(d, viewer) == _view(s, viewer)
            a, b = encode(s, viewer), encode(d, viewer)
            for k in a:
                assert np.array_equal(a[k], b[k]), (k, s.decision_string())


def test_3_6_determinize_moves_hidden_units_across_samples() -> None:
    s = max(_positions(), key=lambda x: len(hidden_slots(x, 1)))
    assert len(hidden_slots(s, 1)) >= 4
    rng = random.Random(2)
    locs = {tuple(determinize(s, 1, rng).loc) for _ in range(20)}
    assert len(locs) > 1
    moved = {u for loc in locs for u in range(len(loc)) if loc[u] != s.loc[u]}
    assert moved and all(s.units[u].side == 0 for u in moved)  # only French units, hidden from the Germans


def test_r3_determinize_result_passes_state_check_and_original_is_unchanged() -> None:
    rng = random.Random(3)
    for s in _positions():
        before = s.to_json()
        for viewer in (0, 1):
            d = determinize(s, viewer, rng)
            check_state_dict(s.game, d.to_dict())
        assert s.to_json() == before


def test_r37_determinize_reseeds_the_dice() -> None:
    s = _positions()[0]
    a = determinize(s, 0, random.Random(4))
    b = determinize(s, 0, random.Random(5))
    assert a.dice.state != s.dice.state and a.dice.state != b.dice.state
    da, db = a.dice.copy(), b.dice.copy()
    assert [da.roll() for _ in range(30)] != [db.roll() for _ in range(30)]


def test_r37_determinize_is_deterministic_given_rng() -> None:
    for s in _positions()[:8]:
        for viewer in (0, 1):
            assert (
                determinize(s, viewer, random.Random(9)).to_json()
                == determinize(s, viewer, random.Random(9)).to_json()
            )


def test_3_6_determinize_rejects_a_bad_viewer() -> None:
    with pytest.raises(ValueError, match="viewer"):
        determinize(_positions()[0], 2, random.Random(0))


def test_3_6_search_from_a_determinized_state_plays_on() -> None:
    rng = random.Random(6)
    for s in _positions()[:10]:
        d = determinize(s, int(s.current_side), rng)
        assert d.legal_actions()
        d.apply_action(d.legal_actions()[0])


def test_3_6_determinize_depends_only_on_the_viewers_view() -> None:
    """Two states that differ only in what the viewer cannot see give the same sample from the same rng."""
    for s in _positions()[:8]:
        for viewer in (0, 1):
            if not hidden_slots(s, viewer):
                continue
            other = determinize(s, viewer, random.Random(1))
            a = determinize(s, viewer, random.Random(5))
            b = determinize(other, viewer, random.Random(5))
            assert a.stacks == b.stacks and list(a.loc) == list(b.loc)
