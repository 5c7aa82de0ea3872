"""Records replay exactly and refuse tampering; saved states round-trip and their checker refuses bad files."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.options import RulesOptions
from ffo_env.france1940.core.record import Recorder, RecordError, load_record, replay, save_record
from ffo_env.france1940.core.state_io import (
    StateError,
    state_from_dict,
    state_from_json,
    state_to_dict,
    state_to_json,
)


def _recorded(seed: int, steps: int | None = None, **opts: object) -> Recorder:
    r = Recorder(Game(RulesOptions(**opts)).new_initial_state(seed))  # type: ignore[arg-type]
    rng = random.Random(seed)
    n = 0
    while not r.state.is_terminal() and (steps is None or n < steps):
        r.apply(rng.choice(r.state.legal_actions()))
        n += 1
    return r


@pytest.fixture(scope="module")
def record() -> dict[str, object]:
    return _recorded(21, steps=1500, allied_obac="random", german_obac="random").record()


def test_f59_record_replays_to_the_same_game(record: dict[str, object]) -> None:
    s = replay(record)
    assert state_to_dict(s) == record["final_state"]
    assert record["dice"] and record["decisions"]
    full = _recorded(22).record()
    assert replay(full).is_terminal() and full["winner"] in ("french", "german")


@pytest.mark.parametrize(
    "edit",
    [
        lambda r: r["dice"][3].__setitem__(1, 7 - r["dice"][3][1]),
        lambda r: r["decisions"][10].__setitem__("text", "@1"),
        lambda r: r["vp"].__setitem__(0, r["vp"][0] + 1),
        lambda r: r.__setitem__("result", "draw"),
        lambda r: r.__setitem__("seed", r["seed"] + 1),
        lambda r: r["decisions"].pop(),
        lambda r: r.__setitem__("engine", "france1940-core-0"),
        lambda r: r.__setitem__("extra", 1),
        lambda r: next(d for d in r["decisions"] if not d["auto"]).__setitem__("action", 99999),
    ],
)
def test_tampered_record_is_refused(record: dict[str, object], edit: object) -> None:
    bad = copy.deepcopy(record)
    edit(bad)  # type: ignore[operator]
    with pytest.raises(RecordError):
        replay(bad)


def test_record_file_round_trip(tmp_path: Path, record: dict[str, object]) -> None:
    p = tmp_path / "game.json"
    save_record(record, p)
    assert load_record(p) == json.loads(json.dumps(record))
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(RecordError, match="not JSON"):
        load_record(tmp_path / "bad.json")
    with pytest.raises(RecordError, match="cannot read"):
        load_record(tmp_path / "missing.json")


def test_saved_state_round_trips_and_plays_on_identically() -> None:
    r = _recorded(8, steps=900)
    s = r.state
    t = state_from_json(state_to_json(s))
    assert state_to_dict(t) == state_to_dict(s)
    rng_a, rng_b = random.Random(1), random.Random(1)
    for _ in range(300):
        if s.is_terminal():
            break
        s.apply_action(rng_a.choice(s.legal_actions()))
        t.apply_action(rng_b.choice(t.legal_actions()))
    assert state_to_dict(t) == state_to_dict(s)


def _body(d: dict[str, object]) -> dict[str, object]:
    body = d["state"]
    assert isinstance(body, dict)
    return body


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.__setitem__("version", 2), "format/version"),
        (lambda d: _body(d).pop("turn"), "missing fields"),
        (lambda d: _body(d).__setitem__("turn", 11), "state.turn"),
        (lambda d: _body(d).__setitem__("phase", "lunch"), "state.phase"),
        (lambda d: _body(d)["status"].__setitem__(0, 9), "state.status[0]"),
        (lambda d: _body(d)["moved"].__setitem__(0, 1), "state.moved[0]"),
        (lambda d: _body(d).__setitem__("columns", ["Hist", "VII"]), "state.columns"),
        (lambda d: _body(d).__setitem__("vp", [-1, 0]), "state.vp"),
        (lambda d: _body(d).__setitem__("fort_destroyed", [500]), "fort_destroyed[0]"),
        (lambda d: d.__setitem__("options", {"retreat_hexes": 5}), "options"),
        (lambda d: _body(d).__setitem__("queue", [{"kind": "retreat", "unit": 999}]), "queue[0].unit"),
    ],
)
def test_state_checker_names_the_field(edit: object, message: str) -> None:
    s = _recorded(2, steps=200).state
    d = json.loads(json.dumps(state_to_dict(s)))
    edit(d)  # type: ignore[operator]
    with pytest.raises(StateError) as e:
        state_from_dict(d)
    assert message in str(e.value)


def test_state_checker_refuses_impossible_positions() -> None:
    s = _recorded(2, steps=200).state  # mid-setup: some units placed
    d = json.loads(json.dumps(state_to_dict(s)))
    body = _body(d)
    placed = [u for u, st in enumerate(body["status"]) if st == 1]
    for u in placed[:4]:
        body["hex"][u] = 1013
    with pytest.raises(StateError, match="more than three units"):
        state_from_dict(d)
    d = json.loads(json.dumps(state_to_dict(s)))
    _body(d)["hex"][placed[0]] = 30  # the notch
    with pytest.raises(StateError, match="playable hex"):
        state_from_dict(d)
    with pytest.raises(StateError, match="not JSON"):
        state_from_json("[")
