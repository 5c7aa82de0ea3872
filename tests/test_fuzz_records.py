"""Fuzzing of game records (Hypothesis): any edit of a real record, and any bytes on disk, either replay
exactly or raise one RecordError; never another exception."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ffo_env.ffo.core.game import Game
from ffo_env.ffo.core.record import Recorder, RecordError, load_record, make_record, replay

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def json_paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (keys / indices) into a JSON document, the root excluded."""
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


def _random_record(seed: int) -> dict:
    game = Game()
    rec = Recorder(game.new_initial_state(seed))
    rng = random.Random(seed)
    while not rec.state.is_terminal():
        rec.apply(rng.choice(rec.state.legal_actions()))
    return rec.record()


@pytest.fixture(scope="module")
def record() -> dict:
    return _random_record(11)


@pytest.fixture(scope="module")
def paths(record) -> list[tuple]:
    # the per-decision text is commentary, not checked; leave it out so every edit matters
    return [p for p in json_paths(record) if p[-1] not in ("text", "at")]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_r37_fuzzed_record_edits_raise_record_error(record, paths, data):
    path = data.draw(st.sampled_from(paths))
    delete = data.draw(st.booleans())
    value = data.draw(JSON_VALUES)
    bad = mutate(record, path, value, delete)
    try:
        state = replay(bad)
    except RecordError as e:
        assert str(e) and "\n" not in str(e)
        return
    # accepted: then the edit changed nothing that matters and the record is the engine's own
    assert make_record(state)["result"] == bad["result"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blob=st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_fuzzed_record_files_raise_record_error(tmp_path_factory, blob):
    p = tmp_path_factory.mktemp("blob") / "rec.json"
    p.write_bytes(blob)
    with pytest.raises(RecordError):
        load_record(p)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_r37_fuzzed_record_edits_many(record, paths, data):
    test_r37_fuzzed_record_edits_raise_record_error.hypothesis.inner_test(record, paths, data)
