"""The Springtime expert bot (issue 41 item 4): fog of war (S59), determinism, and strength on small samples."""

from __future__ import annotations

import random

import pytest

from agents.springtime.expert import ExpertAgent, determinize, evaluate
from agents.springtime.heuristic import HeuristicAgent
from ffo_env.core.dice import Dice
from ffo_env.springtime.core.game import Game
from ffo_env.springtime.core.state import State
from ffo_env.springtime.core.visibility import HIDDEN_FIELDS


def _declarations_with_a_hidden_marker(n: int) -> list[State]:
    """Positions at an Impulse declaration (the searched decision) where the opponent holds a marker."""
    g = Game()
    found: list[State] = []
    for seed in range(40):
        bots = [HeuristicAgent(0, seed), HeuristicAgent(1, seed + 1)]
        s = g.new_initial_state(seed)
        while not s.is_terminal() and len(found) < n:
            me = s.current_side
            if s.decision == "declare" and s.held[1 - me] and s.container and len(s.history) > 30:
                found.append(s.clone())
                break
            s.apply_action(bots[me].act_state(s))
        if len(found) >= n:
            break
    return found


def _other_hidden_world(s: State) -> State:
    """The same public position with the opponent's marker swapped for one in the container, other private
    logs and another dice generator: what the side to move cannot tell apart (S59)."""
    t = s.clone()
    opp = 1 - s.current_side
    swap = t.container[0]
    t.container = sorted([m for m in t.container if m != swap] + [t.held[opp]])
    t.held[opp] = swap
    t.draw_log[opp] = [{"turn": t.turn, "drew": swap, "why": "test"}]
    t.dice_state = Dice(987654321).state
    t.seed = s.seed + 7919  # the seed is hidden too (S54, S59; issue 61)
    return t


def test_s59_determinize_reads_only_what_the_side_may_see() -> None:
    for s in _declarations_with_a_hidden_marker(3):
        me = s.current_side
        t = _other_hidden_world(s)
        assert any(getattr(s, f) != getattr(t, f) for f in HIDDEN_FIELDS)
        a, b = determinize(s, me, random.Random(5)), determinize(t, me, random.Random(5))
        assert a.to_dict() == b.to_dict()
        assert a.held[me] == s.held[me]  # its own marker is known to it


def test_s59_expert_choice_does_not_depend_on_the_opponents_hidden_marker() -> None:
    states = _declarations_with_a_hidden_marker(3)
    assert len(states) >= 2
    for s in states:
        me = s.current_side
        t = _other_hidden_world(s)
        assert ExpertAgent(me, 11).act_state(s) == ExpertAgent(me, 11).act_state(t)


def test_expert_searches_without_changing_the_state() -> None:
    s = _declarations_with_a_hidden_marker(1)[0]
    before = s.to_dict()
    a = ExpertAgent(s.current_side, 3).act_state(s)
    assert a in s.legal_actions() and s.to_dict() == before


def test_expert_is_deterministic_for_a_seed() -> None:
    g = Game()

    def prefix(seed: int) -> list[list[int]]:
        bots = [ExpertAgent(0, seed), ExpertAgent(1, seed + 1)]
        s = g.new_initial_state(seed)
        while not s.is_terminal() and len(s.history) < 200:
            s.apply_action(bots[s.current_side].act_state(s))
        return s.history

    assert prefix(4) == prefix(4)


def test_evaluate_scores_a_finished_game_beyond_any_position() -> None:
    s = Game().new_initial_state(0)
    assert abs(evaluate(s)) < 100
    s.winner, s.phase = 1, "over"
    assert evaluate(s) == -1000.0


def _wins(side: int, opponent: str, games: int, first_seed: int) -> int:
    from agents.springtime import make_agent

    g = Game()
    wins = 0
    for seed in range(first_seed, first_seed + games):
        other = make_agent(opponent, "german" if side == 0 else "french", seed + 10**6)
        bots = [ExpertAgent(0, seed), other] if side == 0 else [other, ExpertAgent(1, seed)]
        s = g.new_initial_state(seed)
        while not s.is_terminal():
            s.apply_action(bots[s.current_side].act_state(s))
        wins += s.winner == side
    return wins


def test_expert_beats_random_on_a_small_seeded_sample_as_the_axis() -> None:
    # random as the Axis wins 1 of 40 games against random (seeds 0-39): 3 of 3 is no accident
    assert _wins(1, "random", games=3, first_seed=500) == 3


def test_expert_as_the_allies_wins_where_random_does_not() -> None:
    # random as the Allies wins 39 of 40 against random, so that proves nothing; against the heuristic Axis
    # it wins 0 of 40 (seeds 0-39), the heuristic about half
    assert _wins(0, "heuristic", games=3, first_seed=500) >= 2


@pytest.mark.slow
@pytest.mark.parametrize("side", [0, 1])
def test_expert_clears_the_bar_of_95_percent_against_random(side: int) -> None:
    assert _wins(side, "random", games=40, first_seed=2000) >= 38


@pytest.mark.slow
@pytest.mark.parametrize("side", [0, 1])
def test_expert_beats_the_heuristic_more_often_than_not(side: int) -> None:
    assert _wins(side, "heuristic", games=40, first_seed=3000) > 20
