"""The observation's fast path (``visible_fields``) against the slow one (``visible_to``), S59.

``encode`` reads only ``ENCODED_KEYS`` of the redacted view, uncopied; these tests hold it to the
complete copied view on seeded random playouts (standard rules and every optional rule, free setup
included), and ``visible_to`` itself to its former implementation, kept here verbatim as the reference.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np
import pytest

from ffo_env.springtime import encoding as E
from ffo_env.springtime.core.data import SIDE_NAMES
from ffo_env.springtime.core.game import Game, RulesOptions
from ffo_env.springtime.core.state import FIELDS, MAP, State
from ffo_env.springtime.core.visibility import HIDDEN_FIELDS, VIEW_KEYS, visible_fields, visible_to

_GAMES = (
    Game(),
    Game(options=RulesOptions(airdrops=True, free_setup=True, regroup_scope="army_group", skip_forced=False)),
    Game(scenario="plan_red"),
)


def _reference_visible_to(s: State, side: int) -> dict[str, Any]:
    """``visible_to`` as it was before the fast path (commit 68f2efc): deep copy, then redact."""
    out: dict[str, Any] = copy.deepcopy({f: getattr(s, f) for f in FIELDS if f not in HIDDEN_FIELDS})
    own = SIDE_NAMES[side]
    for entry in out["dice_log"]:
        if "pick" in entry and not str(entry.get("for", "")).startswith(own):
            entry["pick"] = -1
    held = [0, 0]
    held[side] = s.held[side]
    held[1 - side] = -1 if s.held[1 - side] else 0
    out["held"] = held
    out["container"] = len(s.container)
    out["draw_log"] = list(s.draw_log[side])
    out["viewer"] = side
    if s.phase == "setup":
        g = s.game
        out["loc"] = [s.loc[u] if g.unit_side[u] == side else -1 for u in range(g.n_units)]
        out["status"] = [s.status[u] if g.unit_side[u] == side else -1 for u in range(g.n_units)]
        # since issue 61 (18.2, S62): the other side's placements are hidden in the history too
        out["history"] = [h if h[0] == side else [h[0], -1, -1] for h in out["history"]]
    return out


def _positions(game: Game, seed: int, every: int = 7):
    """Every ``every``-th position of a seeded random game, and its last."""
    s = game.new_initial_state(seed)
    rng = random.Random(seed)
    n = 0
    while not s.is_terminal():
        if n % every == 0:
            yield s
        s.apply_action(rng.choice(s.legal_actions()))
        n += 1
    yield s


@pytest.mark.parametrize("g", range(len(_GAMES)))
def test_s59_encode_fast_path_equals_encoding_the_full_view(g: int) -> None:
    game = _GAMES[g]
    checked = phases = 0
    seen: set[str] = set()
    for seed in range(3):
        for s in _positions(game, seed):
            for side in (0, 1):
                fast = E.encode(s, side)
                slow = E.encode_view(game, s.visible_to(side))
                assert fast.dtype == slow.dtype and np.array_equal(fast, slow), (seed, s.turn, s.decision)
                checked += 1
            seen.add(s.phase)
    phases = len(seen)
    assert checked > 100 and phases >= 3
    if game.options.free_setup:
        assert "setup" in seen


@pytest.mark.parametrize("g", range(len(_GAMES)))
def test_s59_visible_to_unchanged_by_the_fast_path(g: int) -> None:
    game = _GAMES[g]
    for seed in (5, 6):
        for s in _positions(game, seed, every=11):
            for side in (0, 1):
                v = visible_to(s, side)
                ref = _reference_visible_to(s, side)
                assert v == ref and list(v) == list(ref) == list(VIEW_KEYS)
                part = visible_fields(s, side, E.ENCODED_KEYS)
                assert part == {k: ref[k] for k in E.ENCODED_KEYS}


def test_s59_visible_fields_refuses_hidden_keys_and_copies_nothing_public() -> None:
    s = Game().new_initial_state(3)
    for key in ("dice_state", "no_such_field"):
        with pytest.raises(KeyError, match="not a key of a player's view"):
            visible_fields(s, 0, [key])
    v = visible_fields(s, 1, ["held", "container", "control"])
    assert v["held"][0] in (0, -1) and v["container"] == len(s.container)
    assert v["control"] is s.control  # read-only by contract: the encoder's view is not a copy
    assert visible_to(s, 1)["control"] is not s.control  # the full view still is


def test_18_2_s59_free_setup_opponent_units_not_encoded() -> None:
    """During the secret free setup a side's observation does not change when the other side places."""
    game = Game(options=RulesOptions(free_setup=True, skip_forced=False))
    s = game.new_initial_state(4)
    rng = random.Random(4)
    moves = 0
    while s.phase == "setup":
        mover = s.current_player
        before = E.encode(s, 1 - mover)
        t = s.clone()
        t.apply_action(rng.choice(t.legal_actions()))
        if t.phase != "setup":
            break
        placed = [u for u in range(game.n_units) if t.loc[u] != s.loc[u]]
        assert placed and all(game.unit_side[u] == mover for u in placed)
        after = E.encode(t, 1 - mover)
        units = E.block_slices()["units"]
        assert np.array_equal(before[units], after[units])  # the other side sees nothing move
        sl = E.block_slices()["areas"]
        assert np.array_equal(before[sl], after[sl])
        assert not np.array_equal(E.encode(s, mover)[units], E.encode(t, mover)[units])
        s = t
        moves += 1
    assert moves >= 5
    assert any(s.status[u] == MAP for u in range(game.n_units))
