"""Fog of war (rule 3.6, R3): legal-action lists must not reveal what a side may not see."""

from __future__ import annotations

import pytest
from conftest import H, U, act, plain_game, position, ua

from ffo_env.ffo.core.scenario import Side
from ffo_env.ffo.core.state import Decision

pytestmark = pytest.mark.usefixtures("rules_data")  # conftest.RULES_DATA: figures of reconstruction-v1

P = plain_game()


def test_3_6_scare_candidates_only_visible():
    # de-XXXIX is under the free-stacking 1st Mountain Division: the French see only de-1Mtn on top
    text = "turn 3 phase PANZER_SCARE\ngerman: de-XXXIX@4414 de-1Mtn@4414 de-XV@4000\nrolls: 2"
    s = position(text, P)
    assert s.stacks[H("4414")][-1] == U("de-1Mtn")  # R3: the last placed is on top
    assert s.decision == Decision.SCARE_UNIT and s.current_agent == "french"
    assert s.legal_actions() == [ua("de-XV")]  # the hidden panzer corps is not offered
    assert s.is_supplied(U("de-XXXIX"))  # ... although it is a supplied mechanized unit
    act(s, ua("de-XV"))
    assert s.scare_unit == U("de-XV")


def test_3_6_scare_candidates_include_a_revealed_stack():
    # once the French have declared an attack on the hex, its stack is revealed to them (rule 3.6, R3)
    text = "turn 3 phase PANZER_SCARE\ngerman: de-XXXIX@4414 de-1Mtn@4414 de-XV@4000\nrolls: 2"
    s = position(text, P, run=False)
    s.revealed[Side.FRENCH].add(H("4414"))
    s._run_automatic_steps()
    assert s.decision == Decision.SCARE_UNIT
    assert s.legal_actions() == sorted([ua("de-XXXIX"), ua("de-XV")])


def test_3_6_no_scare_decision_when_every_candidate_is_hidden():
    s = position("turn 3 phase PANZER_SCARE\ngerman: de-XXXIX@4414 de-1Mtn@4414\nrolls: 2", P)
    assert s.decision != Decision.SCARE_UNIT and s.scare_unit == -1
    assert s.scare_ever  # R36: the scare happened; it found no corps the French could name


def test_3_6_scare_top_panzer_over_infantry_is_visible():
    s = position("turn 3 phase PANZER_SCARE\ngerman: de-III@4414 de-XXXIX@4414\nrolls: 2", P)
    assert s.decision == Decision.SCARE_UNIT
    assert s.legal_actions() == [ua("de-XXXIX")]
