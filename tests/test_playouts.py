"""Random-playout invariants of the rules engine (every step, or every k-th step for the costly checks).

200 seeded full games run in the default test run (setup modes mixed); a larger count is
marked ``slow``. Invariants: never two sides in one hex; stacking legal once a side's movement
phase is over; every unit in exactly one place and ``stacks`` consistent with ``loc``; VP equal
to the sum of the VP log; a legal action unless the game is over; same seed + same decisions
= same game; JSON round trip and ``clone()`` give the same legal actions and continuation and
leave the original untouched; ``occupied_hexes`` (cached) equal to the stacks.
"""

from __future__ import annotations

import random

import pytest

from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.state import DEAD, EVACUATED, ON_MAP, RESERVE, Phase, State

GAMES = {mode: Game(options=RulesOptions(setup=mode)) for mode in ("random", "fixed", "decide")}
MODES = ("random", "fixed", "decide")
K = 61  # costly checks (serialise, clone) every K-th step


def _check_position(s: State) -> None:
    units = s.units
    seen: dict[int, int] = {}
    for h, st in s.stacks.items():
        assert st, f"empty stack list at {h}"
        sides = {units[u].side for u in st}
        assert len(sides) == 1, f"two sides in hex {h} (rule 6.6)"
        for u in st:
            assert u not in seen, f"unit {units[u].id} in two hexes"
            seen[u] = h
    for u in range(len(units)):
        st = s.status[u]
        assert st in (RESERVE, ON_MAP, DEAD, EVACUATED)
        if st == ON_MAP:
            assert seen.get(u) == s.loc[u], f"{units[u].id}: loc {s.loc[u]} but stacks say {seen.get(u)}"
        else:
            assert u not in seen and s.loc[u] == -1, f"{units[u].id} off map but placed"
        assert 1 <= s.steps[u] <= units[u].steps
    assert s.vp == sum(e["vp"] for e in s.vp_log)
    for side in (0, 1):  # the cached list of a side's hexes follows every move
        assert s.occupied_hexes(side) == tuple(
            sorted(h for h, st in s.stacks.items() if units[st[0]].side == side)
        )


def _check_stacking(s: State, side: int) -> None:
    limit = s.game.scenario.tables.stack_limit
    for h, st in s.stacks.items():
        if s.units[st[0]].side == side:
            assert s._counted(h) <= limit, f"over-stacked hex {h} after a movement phase (rule 6.5, R9)"


def _check_copies(s: State, rng: random.Random) -> None:
    legal = s.legal_actions()
    text = s.to_json()
    t = State.from_json(s.game, text)
    assert t.legal_actions() == legal
    assert t.to_json() == text
    c = s.clone()
    assert c.legal_actions() == legal
    a = legal[rng.randrange(len(legal))]
    c.apply_action(a)
    t.apply_action(a)
    assert c.to_json() == t.to_json(), "clone and deserialised copy diverge"
    assert s.to_json() == text, "playing on a clone changed the original"
    _check_position(c)  # a clone's cached derived data follows its own moves, not the original's
    _check_position(s)


def play(seed: int, mode: str, check_every: int = K) -> State:
    s = GAMES[mode].new_initial_state(seed)
    rng = random.Random(seed)
    step = 0
    last_phase = s.phase
    started = {0: False, 1: False}
    while not s.is_terminal():
        legal = s.legal_actions()
        assert legal, f"no legal action at {s.decision_string()}"
        _check_position(s)
        if step % check_every == check_every - 1:
            _check_copies(s, random.Random(step))
        s.apply_action(legal[rng.randrange(len(legal))])
        step += 1
        if s.phase != last_phase:
            for ph, side in ((Phase.FRENCH_MOVEMENT, 0), (Phase.GERMAN_MOVEMENT, 1)):
                if last_phase == ph:
                    started[side] = True
            for side in (0, 1):
                if started[side]:
                    _check_stacking(s, side)
            last_phase = s.phase
    _check_position(s)
    assert s.legal_actions() == [] and s.returns() in ([1.0, -1.0], [-1.0, 1.0])
    return s


def replay_same(s: State) -> None:
    t = s.game.new_initial_state(s.seed)
    for _side, a, auto in s.history:
        if not auto:
            t.apply_action(a)
    assert t.history == s.history and t.dice_log == s.dice_log and t.to_json() == s.to_json()


@pytest.mark.parametrize("chunk", range(10))
def test_playout_invariants(chunk: int) -> None:
    for seed in range(chunk * 20, chunk * 20 + 20):
        s = play(seed, MODES[seed % 3])
        if seed % 10 == 0:
            replay_same(s)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(20))
def test_playout_invariants_many(chunk: int) -> None:
    for seed in range(1000 + chunk * 100, 1000 + chunk * 100 + 100):
        s = play(seed, MODES[seed % 3], check_every=17)
        if seed % 5 == 0:
            replay_same(s)
