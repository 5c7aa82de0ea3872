"""agents.ffo.lookahead: a policy with a one-step lookahead on its own value head (issue 39)."""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np
import pytest

from agents.ffo.lookahead import LookaheadAgent, LookaheadSettings
from agents.ffo.pretrained import load_pretrained
from agents.registry import is_agent_name, make_agent
from ffo_env.core.dice import Dice
from ffo_env.ffo.core.determinize import determinize, hidden_slots
from ffo_env.ffo.core.state import State
from ffo_env.ffo.encoding.observation import encode
from ffo_env.ffo.env import make_game

KINDS = ("move_dest", "attack_target", "attack_add")


def _agent(side: str, seed: int = 1, **kw: object) -> LookaheadAgent:
    """Looks ahead at every listed decision with a choice."""
    settings = LookaheadSettings(**{"margin": 1.0, "min_gain": 0.0, **kw})  # type: ignore[arg-type]
    return LookaheadAgent(load_pretrained(side), settings, seed=seed)


@lru_cache(maxsize=1)
def _positions() -> tuple[State, ...]:
    """Decisions of the listed kinds with a choice, both sides, from a heuristic game (random setup)."""
    st = make_game("random").new_initial_state(11)
    bots = {s: make_agent("heuristic", s, seed=3) for s in ("french", "german")}
    out: list[State] = []
    seen: dict[str, int] = {}
    while not st.is_terminal() and len(out) < 24:
        kind = st.decision.name.lower()
        if kind in KINDS and len(st.legal_actions()) > 1 and seen.get(kind, 0) < 8:
            seen[kind] = seen.get(kind, 0) + 1
            out.append(st.clone())
        st.apply_action(bots[st.current_agent].act_state(st))
    return tuple(out)


def _side(st: State) -> str:
    return "french" if int(st.current_side) == 0 else "german"


def test_lookahead_plays_only_legal_actions_and_leaves_the_state_alone() -> None:
    states = _positions()
    assert {st.decision.name.lower() for st in states} == set(KINDS)
    agents = {s: _agent(s) for s in ("french", "german")}
    for st in states:
        before = st.to_dict()
        chosen, own = agents[_side(st)].label(st)
        assert chosen in st.legal_actions() and own in st.legal_actions()
        assert st.to_dict() == before
    assert sum(a.searched for a in agents.values()) == len(states)
    # the value head does overrule the policy somewhere, else nothing here would be tested
    assert sum(a.changed for a in agents.values()) > 0


def test_lookahead_keeps_the_policys_choice_below_min_gain_and_outside_its_kinds() -> None:
    states = _positions()
    strict = {s: _agent(s, min_gain=100.0) for s in ("french", "german")}
    other_kinds = {s: _agent(s, kinds=("evacuate",)) for s in ("french", "german")}
    for st in states:
        side = _side(st)
        for agent in (strict[side], other_kinds[side]):
            chosen, own = agent.label(st)
            assert chosen == own == load_pretrained(side).act_state(st)
    assert sum(a.changed for a in strict.values()) == 0
    assert sum(a.searched for a in other_kinds.values()) == 0


def _peek_pays(st: State, other: State) -> bool:
    """Some legal action, applied to the true positions, gives the side's value head different readings (a
    declared attack reveals the defending stack, R3): where a lookahead on the true position would peek."""
    judge = _agent(_side(st))
    for a in st.legal_actions():
        x, y = st.clone(), other.clone()
        x.apply_action(a)
        y.apply_action(a)
        if judge.value(x) != judge.value(y):
            return True
    return False


@lru_cache(maxsize=1)
def _hidden_pairs() -> tuple[tuple[State, State], ...]:
    """Attack choices and the same position as the side sees it with the hidden units dealt anew, where
    declaring one of the attacks would show the side's value head the difference."""
    out: list[tuple[State, State]] = []
    deal = random.Random(0)
    for seed in (5, 6, 7, 8):
        st = make_game("random").new_initial_state(seed)
        bots = {s: make_agent("heuristic", s, seed=9) for s in ("french", "german")}
        while not st.is_terminal() and len(out) < 2:
            side = int(st.current_side)
            if st.decision.name.lower() == "attack_target" and len(st.legal_actions()) > 1:
                if len(hidden_slots(st, side)) > 1:
                    other = determinize(st, side, deal)
                    if _peek_pays(st, other):
                        out.append((st.clone(), other))
            st.apply_action(bots[st.current_agent].act_state(st))
    return tuple(out)


def test_3_6_lookahead_ignores_units_it_cannot_see() -> None:
    """Declaring an attack reveals the defenders (R3): the lookahead must judge it on a determinized copy, so
    two positions that look the same to the side get the same values and the same choice (the pairs are
    chosen where the true positions would give different values)."""
    pairs = _hidden_pairs()
    assert pairs
    for st, other in pairs:
        side = int(st.current_side)
        a_obs, b_obs = encode(st, side), encode(other, side)
        assert all(np.array_equal(a_obs[k], b_obs[k]) for k in a_obs)
        name = _side(st)
        a, b = _agent(name, seed=4), _agent(name, seed=4)
        cands = st.legal_actions()  # every target, the swapped stacks' among them
        assert a.candidate_values(st, cands) == b.candidate_values(other, cands)
        assert a.label(st) == b.label(other)


def test_r37_lookahead_does_not_read_the_games_future_dice() -> None:
    """Two positions that differ only in the game's future dice: the same values and the same choice."""
    for st in _positions():
        other = st.clone()
        other.dice = Dice(987_654)
        a, b = _agent(_side(st), seed=2), _agent(_side(st), seed=2)
        cands = st.legal_actions()
        assert a.candidate_values(st, cands) == b.candidate_values(other, cands)
        assert a.label(st) == b.label(other)


def test_lookahead_names_and_settings() -> None:
    assert is_agent_name("lookahead:pretrained") and is_agent_name("lookahead:policy:runs/x/german.pt")
    assert not is_agent_name("lookahead:expert") and not is_agent_name("lookahead:")
    agent = make_agent("lookahead:pretrained", "german", seed=3)
    assert isinstance(agent, LookaheadAgent) and agent.name.startswith("lookahead:")
    with pytest.raises(ValueError, match="expected lookahead:pretrained or lookahead:policy:PATH"):
        make_agent("lookahead:expert", "german")
    with pytest.raises(ValueError, match="unknown decision 'fly'"):
        LookaheadSettings(kinds=("fly",))
    with pytest.raises(ValueError, match="top_k"):
        LookaheadSettings(top_k=1)
    with pytest.raises(ValueError, match="no value head"):
        LookaheadAgent(make_agent("heuristic", "german"))


def test_policy_probabilities_are_a_distribution_over_legal_actions_whose_argmax_the_agent_plays() -> None:
    """agents.ffo.policy.PolicyAgent.probabilities, which the lookahead, the search teacher and self-imitation read."""
    policies = {s: load_pretrained(s) for s in ("french", "german")}
    for st in _positions():
        legal = st.legal_actions()
        agent = policies[_side(st)]
        probs = agent.probabilities(st, legal)
        assert probs.shape == (len(legal),) and (probs >= 0).all()
        assert probs.sum() == pytest.approx(1.0, abs=1e-5)  # the mask leaves no mass on illegal actions
        assert legal[int(np.argmax(probs))] == agent.act_state(st)
