"""The state-set format every game's benchmark start states share (benchmarks/protocol/state_sets.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.protocol import state_sets


class _Bad(ValueError):
    pass


class _StateBad(Exception):
    pass


def _load_one(d: Any) -> int:
    if not isinstance(d, int):
        raise _StateBad(f"not a state: {d!r}")
    return d * 10


def _write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "s.json.gz"
    path.write_bytes(state_sets.encode(doc))
    return path


def test_encode_is_byte_stable() -> None:
    doc = {"b": 1, "a": [1, 2], "format": "x"}
    assert state_sets.encode(doc) == state_sets.encode(dict(reversed(list(doc.items()))))


def test_load_and_check_states(tmp_path: Path) -> None:
    path = _write(tmp_path, {"format": "f", "version": 1, "data": "d1", "states": [1, 2]})
    doc = state_sets.load_state_set(path, "f", 1, _Bad)
    assert state_sets.check_states(path, doc, "d1", _load_one, _StateBad, _Bad) == [10, 20]


def test_states_of_other_game_data_are_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, {"format": "f", "version": 1, "data": "d1", "states": [1]})
    doc = state_sets.load_state_set(path, "f", 1, _Bad)
    with pytest.raises(_Bad, match=r"made on game data 'd1', this game plays 'd2'"):
        state_sets.check_states(path, doc, "d2", _load_one, _StateBad, _Bad)


def test_a_bad_state_is_named_by_its_index(tmp_path: Path) -> None:
    path = _write(tmp_path, {"format": "f", "version": 1, "data": "d1", "states": [1, "x"]})
    doc = state_sets.load_state_set(path, "f", 1, _Bad)
    with pytest.raises(_Bad, match=r"s\.json\.gz: state 1: not a state"):
        state_sets.check_states(path, doc, "d1", _load_one, _StateBad, _Bad)


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"format": "g", "version": 1, "states": [1]}, "expected format 'f' version 1"),
        ({"format": "f", "version": 2, "states": [1]}, "expected format 'f' version 1"),
        ({"format": "f", "version": 1, "states": []}, "non-empty list"),
    ],
)
def test_a_bad_document_is_one_error(tmp_path: Path, doc: dict[str, Any], message: str) -> None:
    with pytest.raises(_Bad, match=message):
        state_sets.load_state_set(_write(tmp_path, doc), "f", 1, _Bad)


def test_a_file_that_is_not_gzip_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "s.json.gz"
    path.write_text("{}")
    with pytest.raises(_Bad, match="not a gzipped JSON state set"):
        state_sets.load_state_set(path, "f", 1, _Bad)
