"""Fuzzing of saved states (Hypothesis): any edit of a real state either passes ``check_state_dict`` or
raises one StateError naming a key; never another exception. Edits the checker passes still load."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ffo_env.ffo.core.game import Game
from ffo_env.ffo.core.state import State
from ffo_env.ffo.core.state_check import StateError, check_state_dict

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
SMALL_INTS = st.integers(-3, 3000)


def json_paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    out: list[tuple] = []
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for k, v in items:
        out.append((*prefix, k))
        out.extend(json_paths(v, (*prefix, k)))
    return out


def mutate(doc: Any, path: tuple, value: Any, delete: bool) -> Any:
    doc = json.loads(json.dumps(doc))
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return doc


@pytest.fixture(scope="module")
def game() -> Game:
    return Game()


@pytest.fixture(scope="module")
def states(game) -> list[dict]:
    out = []
    for seed in (5, 6):
        s = game.new_initial_state(seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            if rng.random() < 0.03:
                out.append(json.loads(s.to_json()))
            s.apply_action(rng.choice(s.legal_actions()))
        out.append(json.loads(s.to_json()))
    return out


def _one(game, states, data) -> None:
    d = data.draw(st.sampled_from(states))
    # the ctx holds decision-local scratch that the engine rebuilds; the checker only types it
    paths = [p for p in json_paths(d) if p[0] != "ctx"]
    path = data.draw(st.sampled_from(paths))
    value = data.draw(SMALL_INTS | JSON_VALUES)
    bad = mutate(d, path, value, data.draw(st.booleans()))
    try:
        check_state_dict(game, bad)
    except StateError as e:
        assert str(e).startswith("saved state") and "\n" not in str(e)
        return
    State.from_dict(game, bad)  # a state the checker passes loads


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_state_edits_raise_state_error_or_load(game, states, data):
    _one(game, states, data)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_state_edits_many(game, states, data):
    _one(game, states, data)
