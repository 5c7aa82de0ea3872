"""Fuzzing of saved states and records: a corrupted document is refused with one StateError/RecordError,
or loads as a position that plays on; it never crashes the engine with another exception."""

from __future__ import annotations

import json
import random

import pytest

from ffo_env.springtime.core import Game
from ffo_env.springtime.core.record import Recorder, RecordError, replay
from ffo_env.springtime.core.state import FIELDS
from ffo_env.springtime.core.state_io import StateError, state_from_json, state_to_json

JUNK = [None, -1, 0, 1, 7, 99, "x", [], [0], {}, {"a": 1}, True, 2.5, [[0, 1]], "assault"]


def _mid_game(seed: int, steps: int) -> str:
    s = Game().new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.is_terminal():
            break
        s.apply_action(rng.choice(s.legal_actions()))
    return state_to_json(s)


def _fuzz_states(seed: int, n: int) -> None:
    good = json.loads(_mid_game(seed, 40 + 30 * seed))
    rng = random.Random(seed)
    for _ in range(n):
        bad = json.loads(json.dumps(good))
        field = rng.choice(FIELDS)
        value = bad["state"][field]
        if isinstance(value, list) and value and rng.random() < 0.5:
            value[rng.randrange(len(value))] = rng.choice(JUNK)
        elif isinstance(value, dict) and value and rng.random() < 0.5:
            value[rng.choice(sorted(value))] = rng.choice(JUNK)
        else:
            bad["state"][field] = rng.choice(JUNK)
        try:
            s = state_from_json(json.dumps(bad))
        except StateError:
            continue
        for _ in range(5):  # a position that loads must play on
            if s.is_terminal():
                break
            s.apply_action(rng.choice(s.legal_actions()))


def test_s53_corrupted_saved_states_are_refused_or_play_on() -> None:
    _fuzz_states(1, 80)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_s53_many_corrupted_saved_states(seed: int) -> None:
    _fuzz_states(seed, 500)


def test_s54_corrupted_records_are_refused() -> None:
    s = Game(scenario="plan_red").new_initial_state(4)
    rec = Recorder(s)
    rng = random.Random(4)
    while not s.is_terminal():
        rec.apply(rng.choice(s.legal_actions()))
    good = json.loads(json.dumps(rec.record()))
    for key in ("seed", "scenario", "options", "decisions", "engine", "format"):
        for junk in (None, "x", -3, [], {}):
            bad = json.loads(json.dumps(good))
            bad[key] = junk
            with pytest.raises(RecordError):
                replay(bad)
    bad = json.loads(json.dumps(good))
    i = next(i for i, d in enumerate(bad["decisions"]) if not d["auto"])
    bad["decisions"][i]["action"] = 10**6
    with pytest.raises(RecordError):
        replay(bad)
