"""Stacking (rules 6.1-6.7, 13.4, R8, R9)."""

from __future__ import annotations

import pytest
from conftest import H, U, act, plain_game, position, ua

from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.state import DEAD, ON_MAP, Decision

pytestmark = pytest.mark.usefixtures("rules_data")  # conftest.RULES_DATA: figures of reconstruction-v1

P = plain_game()
PASS = P.layout.special(Special.PASS)


def test_6_1_6_5_r08_r09_overstack_at_phase_end_removed_by_the_opponent():
    s = position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-I@4414 fr-III@4416", P)
    act(s, ua("fr-I"))
    act(s, "move fr-I to 4416 (2 MP)")  # rule 6.7: allowed during the phase
    assert s._counted(H("4416")) == 2
    act(s, PASS)
    assert s.decision == Decision.OVERSTACK_REMOVE and s.current_agent == "german"
    assert sorted(s.legal_actions()) == sorted([ua("fr-I"), ua("fr-III")])
    act(s, ua("fr-III"))
    assert s.status[U("fr-III")] == DEAD and s.vp == 0


def test_r09_german_overstack_removal_scores_vp():
    s = position("turn 3 phase GERMAN_MOVEMENT\ngerman: de-III@4414 de-IV@4416", P)
    act(s, ua("de-III"))
    act(s, "move de-III to 4416 (2 MP)")
    act(s, PASS)
    assert s.decision == Decision.OVERSTACK_REMOVE and s.current_agent == "french"
    act(s, ua("de-IV"))
    assert s.status[U("de-IV")] == DEAD and s.vp == 3


def test_6_3_free_stacking_units():
    s = position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-I@4414 br-51@4416 fr-III@1815", P)
    act(s, "no rail move")
    act(s, ua("br-51"))
    act(s, "move br-51 to 4414 (2 MP)")
    act(s, PASS)
    assert s.decision != Decision.OVERSTACK_REMOVE  # the 51st and the Marseille garrison stack freely
    s = position("turn 3 phase GERMAN_MOVEMENT\ngerman: de-III@4414 de-1Mtn@4416", P)
    act(s, ua("de-1Mtn"))
    act(s, "move de-1Mtn to 4414 (2 MP)")
    act(s, PASS)
    assert s.decision != Decision.OVERSTACK_REMOVE and s.status[U("de-1Mtn")] == ON_MAP


def test_6_2_setup_stacks_two_per_hex():
    s = position("turn 1 phase FRENCH_MOVEMENT\nfrench: fr-I@5910 fr-III@5910", P)
    assert s._counted(H("5910")) == 2 and s.decision == Decision.MOVE_UNIT  # legal until movement ends


def test_6_6_13_4_opposing_units_never_share_a_hex():
    s = position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-GC@4414\ngerman: de-III@4415", P)
    act(s, ua("fr-GC"))
    assert H("4415") not in s.legal_actions()
    try:
        position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-GC@4414\ngerman: de-III@4414", P)
    except ValueError as e:
        assert "6.6" in str(e)
    else:
        raise AssertionError("the notation must refuse opposing units in one hex")


def test_6_5_advance_may_not_overstack():
    s = position(
        "turn 3 phase GERMAN_COMBAT stuka_used\nfrench: fr-GA@4414(r)\n"
        "german: de-III@4415 de-IV@4514\nrolls: 6",
        P,
    )
    act(s, "attack 4414")
    act(s, ua("de-III"))
    act(s, ua("de-IV"))
    act(s, P.layout.lower(0))
    act(s, ua("de-III"))
    assert s.decision != Decision.ADVANCE_UNIT or ua("de-IV") not in s.legal_actions()


def test_r09_pending_overstack_vp_is_what_the_removal_will_score():
    s = position("turn 3 phase GERMAN_MOVEMENT\ngerman: de-III@4414 de-IV@4416", P)
    assert s.pending_overstack_vp() == 0
    act(s, ua("de-III"))
    act(s, "move de-III to 4416 (2 MP)")
    pending = s.pending_overstack_vp()
    assert pending == max(s.elimination_vp(U("de-III")), s.elimination_vp(U("de-IV"))) == 3
    act(s, PASS)
    act(s, ua("de-IV"))
    assert s.vp == pending and s.pending_overstack_vp() == 0
    # outside the German movement phase nothing is pending (setup stacks stand, rule 6.2)
    s = position("turn 3 phase GERMAN_COMBAT\ngerman: de-III@4416 de-IV@4416", P)
    assert s.pending_overstack_vp() == 0
