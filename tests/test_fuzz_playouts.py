"""Random-playout invariants over many seeded games: at every decision the saved state passes
``check_state_dict`` and round-trips, an illegal action raises and changes nothing, and the finished game's
record replays exactly (R37). The default run plays a quick slice; ``-m slow`` plays many more games."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ffo_env.ffo.core.actions import IllegalActionError
from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.record import Recorder, replay
from ffo_env.ffo.core.state import State
from ffo_env.ffo.core.state_check import check_state_dict

GAMES = {setup: Game(options=RulesOptions(setup=setup)) for setup in ("random", "decide", "fixed")}


def play_and_check(seed: int, setup: str = "random", every: int = 5) -> int:
    """Play one random game checking the invariants; return the number of decisions made."""
    game = GAMES[setup]
    rng = random.Random(seed)
    rec = Recorder(game.new_initial_state(seed))
    s = rec.state
    n = game.layout.n_actions
    steps = 0
    while not s.is_terminal():
        legal = s.legal_actions()
        assert legal and legal == sorted(set(legal)) and 0 <= legal[0] and legal[-1] < n
        if steps % every == 0:
            d = json.loads(s.to_json())
            check_state_dict(game, d)
            assert State.from_dict(game, d).to_dict() == d
            bad = rng.randrange(n)
            if bad not in legal:
                with pytest.raises(IllegalActionError):
                    s.apply_action(bad)
                assert s.to_json() == json.dumps(d, sort_keys=True)  # an illegal action changes nothing
        rec.apply(rng.choice(legal))
        steps += 1
    check_state_dict(game, json.loads(s.to_json()))
    replayed = replay(rec.record())
    assert replayed.to_dict() == s.to_dict()
    return steps


@pytest.mark.parametrize("seed, setup", [(101, "random"), (102, "decide"), (103, "fixed")])
def test_r37_random_playout_invariants_quick(seed, setup):
    assert play_and_check(seed, setup) > 50


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), setup=st.sampled_from(("random", "decide", "fixed")))
def test_r37_random_playout_invariants_many(seed, setup):
    play_and_check(seed, setup, every=3)
