"""Fuzzing of the data files (Hypothesis): any edit of a YAML value or a map.csv line either loads or
raises one DataError naming the file; never another exception, never a hang."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ffo_env.core.errors import DataError
from ffo_env.ffo.core.scenario import DATA_DIR, load_scenario

YAML_FILES = ("tables.yaml", "units.yaml", "setup_fixed.yaml")
VALUES = (
    st.none()
    | st.booleans()
    | st.integers(-(10**7), 10**7)
    | st.text(max_size=6)
    | st.lists(st.integers(-5, 99), max_size=3)
    | st.dictionaries(st.text(max_size=5), st.integers(), max_size=2)
)


def yaml_paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    out: list[tuple] = []
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for k, v in items:
        out.append((*prefix, k))
        out.extend(yaml_paths(v, (*prefix, k)))
    return out


DOCS = {name: yaml.safe_load((DATA_DIR / name).read_text(encoding="utf-8")) for name in YAML_FILES}
PATHS = {name: yaml_paths(doc) for name, doc in DOCS.items()}


def _load_edited(name: str, text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "data"
        shutil.copytree(DATA_DIR, d)
        (d / name).write_text(text, encoding="utf-8")
        try:
            load_scenario(d)
        except DataError as e:
            assert name in str(e) or "map.csv" in str(e), str(e)


def _yaml_case(data) -> None:
    name = data.draw(st.sampled_from(YAML_FILES))
    path = data.draw(st.sampled_from(PATHS[name]))
    doc = yaml.safe_load(yaml.safe_dump(DOCS[name]))
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    kind = data.draw(st.sampled_from(("value", "delete", "rename")))
    if kind == "delete":
        del parent[path[-1]]
    elif kind == "rename" and isinstance(parent, dict):
        parent[str(path[-1]) + data.draw(st.text(min_size=1, max_size=2))] = parent.pop(path[-1])
    else:
        parent[path[-1]] = data.draw(VALUES)
    _load_edited(name, yaml.safe_dump(doc))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_yaml_edits_raise_data_error_or_load(data):
    _yaml_case(data)


MAP_LINES = (DATA_DIR / "map.csv").read_text(encoding="utf-8").splitlines()


def _map_case(data) -> None:
    lines = list(MAP_LINES)
    i = data.draw(st.integers(0, len(lines) - 1))
    cells = lines[i].split(",")
    j = data.draw(st.integers(0, len(cells) - 1))
    cells[j] = data.draw(st.text(alphabet='0123456789abcdefghijklmnopqrstuvwxyz NSEW-"', max_size=6))
    lines[i] = ",".join(cells)
    _load_edited("map.csv", "\n".join(lines) + "\n")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_map_edits_raise_data_error_or_load(data):
    _map_case(data)


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(data=st.data())
def test_fuzzed_data_edits_many(data):
    if data.draw(st.booleans()):
        _yaml_case(data)
    else:
        _map_case(data)
