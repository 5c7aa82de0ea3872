"""The compact encoder's direct path (``CompactEncoder.encode``, built from the encoder's per-unit data
without the structured observation) against its reference (``encode_reference``: the structured
observation of ``ffo_env.ffo.encoding.observation``, fog of war included, then ``compact()``): the same bytes
on every position of seeded random playouts, for both viewers, with and without the fog (rule 3.6, R3),
in every setup mode (the ``decide`` setup has the setup phases' decisions and stacking limit, rule 6.3)."""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.state import State
from ffo_env.ffo.encoding import compact as cp
from ffo_env.ffo.encoding.layout import PLANE_INDEX
from ffo_env.ffo.encoding.observation import encoder_for


@cache
def _game(setup: str) -> Game:
    return Game(options=RulesOptions(setup=setup))


@cache
def _playout(setup: str, seed: int, every: int) -> tuple[State, ...]:
    """Every ``every``-th position of a uniformly random game (and its last), copies."""
    s = _game(setup).new_initial_state(seed)
    rng = random.Random(seed)
    out, i = [], 0
    while not s.is_terminal():
        if i % every == 0:
            out.append(s.clone())
        s.apply_action(rng.choice(s.legal_actions()))
        i += 1
    out.append(s.clone())
    return tuple(out)


def _mismatch(ce: cp.CompactEncoder, s: State, viewer: int, omniscient: bool) -> str | None:
    direct = ce.encode(s, viewer, omniscient).copy()
    ref = ce.encode_reference(s, viewer, omniscient)
    if direct.tobytes() == ref.tobytes():
        return None
    bad = np.flatnonzero(direct.view(np.uint32) != ref.view(np.uint32))
    return f"{s.decision_string()} viewer {viewer} omniscient {omniscient}: " + ", ".join(
        f"{ce.layout.describe(int(i))} {direct[i]} != {ref[i]}" for i in bad[:4]
    )


@pytest.mark.parametrize(("setup", "seeds", "every"), [("random", (1, 2), 2), ("decide", (3,), 3)])
def test_3_6_direct_compact_vector_equals_the_structured_one_compacted(setup, seeds, every):
    game = _game(setup)
    ce = cp.compact_encoder_for(game)
    enc = encoder_for(game)
    seen = dict.fromkeys(("revealed", "battle", "refugees", "attacked", "overstacks", "decisions"), 0)
    decisions: set[str] = set()
    for seed in seeds:
        for s in _playout(setup, seed, every):
            for viewer in (0, 1):
                for omniscient in (False, True):
                    assert (err := _mismatch(ce, s, viewer, omniscient)) is None, err
            # what the positions exercised (so that the comparison covers these parts of the vector)
            decisions.add(s.decision.name)
            seen["revealed"] += bool(s.revealed[0] or s.revealed[1])
            seen["battle"] += s.battle is not None
            seen["refugees"] += bool(s.refugees)
            seen["attacked"] += bool(s.attacked_hexes())
            if not s.is_terminal():
                p = int(s.player)
                planes = enc.encode(s, p)["planes"]
                seen["overstacks"] += int(planes[PLANE_INDEX["dest_overstacks"]].any())
    seen["decisions"] = len(decisions)
    assert min(seen.values()) > 0, seen
    assert len(decisions) >= 8, decisions


def test_fresh_games_and_interleaved_states_of_other_games_give_the_reference():
    """The direct path keeps the last control and ever_german it pooled: interleaving states of two
    games (and new games, as env resets) must not leak one state's public planes into another's."""
    ce = cp.compact_encoder_for(_game("random"))
    a = _playout("random", 1, 7)
    b = _playout("random", 2, 5)
    starts = [_game("random").new_initial_state(seed) for seed in range(40)]
    order = [x for pair in zip(a, b, strict=False) for x in pair] + starts + list(reversed(a))
    for s in order:
        for viewer in (0, 1):
            assert (err := _mismatch(ce, s, viewer, False)) is None, err


def test_direct_path_writes_into_out_and_leaves_nothing_of_the_last_vector():
    ce = cp.compact_encoder_for(_game("random"))
    states = _playout("random", 4, 11)
    buf = np.full(ce.layout.size, 7.0, dtype=np.float32)  # garbage: every entry must be written
    for s in states:
        out = ce.encode(s, 1, out=buf)
        assert out is buf
        assert buf.tobytes() == ce.encode_reference(s, 1).tobytes(), s.decision_string()
