"""Seeded random playouts: every game ends, only legal actions are accepted, an illegal one changes nothing,
a seed + decisions reproduce the game, saved states round-trip, records replay and verify (S53, S54)."""

from __future__ import annotations

import json
import random

import pytest

from ffo_env.springtime.core import Game, RulesOptions, State
from ffo_env.springtime.core.actions import N_ACTIONS, IllegalActionError
from ffo_env.springtime.core.record import Recorder, RecordError, replay
from ffo_env.springtime.core.state_io import StateError, check_state, state_from_json, state_to_json

GAMES = {
    "campaign": Game(),
    "plan_red": Game(scenario="plan_red"),
    "literal": Game(
        options=RulesOptions(belgian_surrender="literal", oos_combat_penalty="any_unit", bef_returns=True)
    ),
    "optional": Game(
        options=RulesOptions(airdrops=True, free_setup=True, regroup_scope="army_group", morale_bid=-6)
    ),
}


def random_game(game: Game, seed: int, checks: bool = False) -> tuple[State, list[int]]:
    s = game.new_initial_state(seed)
    rng = random.Random(seed)
    actions = []
    while not s.is_terminal():
        legal = s.legal_actions()
        assert legal and all(0 <= a < N_ACTIONS for a in legal)
        if checks and rng.random() < 0.05:
            illegal = next(a for a in range(N_ACTIONS) if a not in legal)
            before = state_to_json(s)
            with pytest.raises(IllegalActionError):
                s.apply_action(illegal)
            assert state_to_json(s) == before
            check_state(s)
            again = state_from_json(before, game)
            assert state_to_json(again) == before
        a = rng.choice(legal)
        actions.append(a)
        s.apply_action(a)
        assert len(actions) < 20000
    return s, actions


@pytest.mark.parametrize("name", sorted(GAMES))
def test_s53_random_playouts_end_with_a_winner(name: str) -> None:
    for seed in range(2):
        s, _ = random_game(GAMES[name], seed, checks=True)
        assert s.is_terminal() and s.winner in (0, 1) and sorted(s.returns()) == [-1.0, 1.0]
        assert s.current_player == -1 and s.current_agent == ("french", "german")[s.current_side]
        assert s.legal_actions() == []


def test_s54_seed_and_decisions_reproduce_the_game() -> None:
    g = GAMES["campaign"]
    s1, actions = random_game(g, 7)
    s2 = g.new_initial_state(7)
    for a in actions:
        s2.apply_action(a)
    assert state_to_json(s1) == state_to_json(s2)
    assert s1.dice_log == s2.dice_log


def test_clone_is_independent_and_equal() -> None:
    g = GAMES["campaign"]
    s = g.new_initial_state(3)
    rng = random.Random(3)
    for _ in range(60):
        s.apply_action(rng.choice(s.legal_actions()))
    c = s.clone()
    assert state_to_json(c) == state_to_json(s)
    c.apply_action(c.legal_actions()[0])
    assert state_to_json(c) != state_to_json(s) or c.history != s.history


def test_s54_record_replays_and_refuses_any_alteration() -> None:
    g = GAMES["campaign"]
    s = g.new_initial_state(11)
    rec = Recorder(s)
    rng = random.Random(11)
    while not s.is_terminal():
        rec.apply(rng.choice(s.legal_actions()))
    doc = json.loads(json.dumps(rec.record()))
    final = replay(doc)
    assert state_to_json(final) == state_to_json(s)
    first_agent = next(i for i, d in enumerate(doc["decisions"]) if not d["auto"])
    for mutate in (
        lambda d: d["decisions"][first_agent].__setitem__("text", "forged"),
        lambda d: d["morale_log"].append({"turn": 1, "box": 6, "delta": -5, "why": "forged"}),
        lambda d: d["dice"][0].__setitem__("for", "forged"),
        lambda d: d.__setitem__("result", "automatic" if d["result"] != "automatic" else "allied"),
        lambda d: d["final_state"]["state"].__setitem__("morale", -99),
    ):
        bad = json.loads(json.dumps(doc))
        mutate(bad)
        with pytest.raises(RecordError):
            replay(bad)


def test_saved_state_refuses_bad_input() -> None:
    s = GAMES["campaign"].new_initial_state(0)
    good = json.loads(state_to_json(s))
    for key, value in (("morale", "x"), ("control", [0] * 3), ("decision", "fly"), ("held", [10, 0])):
        bad = json.loads(json.dumps(good))
        bad["state"][key] = value
        with pytest.raises(StateError, match=key):
            state_from_json(json.dumps(bad))
    with pytest.raises(StateError, match="not JSON"):
        state_from_json("{")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GAMES))
def test_s53_many_random_playouts(name: str) -> None:
    for seed in range(100):
        s, _ = random_game(GAMES[name], 1000 + seed, checks=seed < 10)
        assert s.winner in (0, 1)


def test_8_2_s53_check_action_names_the_problem_and_changes_nothing() -> None:
    s = GAMES["campaign"].new_initial_state(0)
    before = state_to_json(s)
    legal = s.legal_actions()
    assert s.check_action(legal[0]) == legal[0]
    with pytest.raises(TypeError, match="not an integer"):
        s.check_action("3")
    with pytest.raises(TypeError):
        s.check_action(True)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        s.check_action(N_ACTIONS)
    with pytest.raises(IllegalActionError, match="is not legal for german at kleist"):
        s.check_action(next(a for a in range(N_ACTIONS) if a not in legal))
    assert state_to_json(s) == before
