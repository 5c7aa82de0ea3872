"""The typed phase context (issue 20): saved states keep their JSON format, a damaged ``ctx`` is one
clear error, clones do not share what the engine mutates, and the public battle view is the saved form."""

from __future__ import annotations

import copy
import gzip
import json
import random
from pathlib import Path

import pytest

from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.state import Decision, State
from ffo_env.ffo.core.state_check import StateError
from ffo_env.ffo.core.version import ENGINE_VERSION

FIXTURES = Path(__file__).parent / "fixtures"
GAMES = {setup: Game(options=RulesOptions(setup=setup)) for setup in ("random", "decide")}


def _fixture_states() -> list[tuple[str, dict]]:
    # the golden encoding states, saved with the history as its length only (tests/test_encoding_golden.py)
    with gzip.open(FIXTURES / "encoding_golden_states.json.gz", "rt", encoding="utf-8") as f:
        records = json.load(f)
    out = []
    for x in records:
        d = dict(x["state"])
        d["history"] = [[0, 0, False]] * d.pop("history_len")
        d["engine"] = ENGINE_VERSION  # saved by ffo-engine-1 (see tests/test_encoding_golden.py rebuild)
        d.setdefault("rail_log", [])
        out.append((x["setup"], d))
    return out


def test_saved_states_of_the_fixtures_load_and_save_unchanged():
    saved = _fixture_states()
    with_ctx = {k for _setup, d in saved for k in d["ctx"]}
    # the fixtures hold a battle, a move, the evacuation/combat logs and an over-stack: every kind of ctx
    assert {"battle", "dests", "mp", "unit", "comply", "last_battle", "log", "attacked_hexes"} <= with_ctx
    for setup, d in saved:
        s = State.from_dict(GAMES[setup], d)
        assert s.to_dict() == d
        assert json.loads(s.to_json()) == d


def _random_states(seed: int, every: int = 5) -> list[State]:
    game = GAMES["random"]
    s, r, out = game.new_initial_state(seed), random.Random(seed), []
    while not s.is_terminal():
        if len(s.history) % every == 0 or s.decision in (
            Decision.RETREAT,
            Decision.STEP_LOSS,
            Decision.ADVANCE_UNIT,
            Decision.RAIL_DEST,
        ):
            out.append(s.clone())
        s.apply_action(r.choice(s.legal_actions()))
    return out


def test_a_clone_does_not_share_what_the_engine_changes():
    checked = 0
    for s in _random_states(3):
        if s.is_terminal():
            continue
        before = s.to_json()
        c = s.clone()
        r = random.Random(len(s.history))
        for _ in range(6):  # play on in the clone: battles, queues, logs and move data change there only
            if c.is_terminal():
                break
            c.apply_action(r.choice(c.legal_actions()))
        assert s.to_json() == before
        checked += 1
    assert checked > 100


def test_the_battle_view_is_the_saved_battle():
    seen = 0
    for s in _random_states(4, every=1):
        b = s.battle
        if b is None:
            continue
        saved = s.to_dict()["ctx"]["battle"]
        assert dict(b) == saved and set(b) == set(saved) and len(b) == len(saved)
        assert "no_such_key" not in b and b.get("no_such_key") is None
        with pytest.raises(KeyError):
            b["no_such_key"]
        seen += 1
    assert seen > 20


def _a_battle_state() -> dict:
    for s in _random_states(5, every=1):
        if s.battle is not None and "retreat_queue" not in s.to_dict()["ctx"]["battle"]:
            return s.to_dict()
    raise AssertionError("no battle in the playout")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda c: c.update(spare=1), 'ctx: unknown key "spare"'),
        (lambda c: c["battle"].update(spare=1), 'ctx.battle: unknown key "spare"'),
        (lambda c: c["battle"].pop("target"), 'ctx.battle: missing key "target"'),
        (lambda c: c["battle"].update(attackers="x"), "ctx.battle.attackers: expected a list of integers"),
        (lambda c: c["battle"].update(air=1), "ctx.battle.air: expected true/false"),
        (lambda c: c.update(mp="6"), "ctx.mp: expected an integer"),
        (lambda c: c.update(dests={"x": [0, 1, [], []]}), "ctx.dests: expected integer keys"),
        (lambda c: c.update(dests={"5": [0, 1]}), "ctx.dests.5: expected [vp, mp, path, overrun]"),
        (lambda c: c.update(log=[{"target": 1}]), 'ctx.log[0]: missing key "column"'),
        (lambda c: c["battle"].update(attackers=[999]), "ctx.battle.attackers: expected unit numbers 0..61"),
        (lambda c: c["battle"].update(target=-3), "ctx.battle.target: expected hex numbers"),
        (lambda c: c.pop("battle"), 'needs "battle"'),
    ],
)
def test_a_damaged_ctx_is_one_state_error_naming_the_path(edit, message):
    d = _a_battle_state()
    bad = copy.deepcopy(d)
    edit(bad["ctx"])
    with pytest.raises(StateError) as e:
        State.from_dict(GAMES["random"], bad)
    assert str(e.value).startswith("saved state, ") and message in str(e.value) and "\n" not in str(e.value)
