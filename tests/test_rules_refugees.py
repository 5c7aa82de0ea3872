"""French refugees (rules 4.5, 10.1-10.6, R13, R35)."""

from __future__ import annotations

import pytest
from conftest import H, U, act, plain_game, position, ua

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.state import Decision

pytestmark = pytest.mark.usefixtures("rules_data")  # conftest.RULES_DATA: figures of reconstruction-v1

P = plain_game()
PASS = P.layout.special(Special.PASS)


def test_10_1_number_of_markers_is_the_die_at_most_four():
    for die, n in ((2, 2), (4, 4), (6, 4)):
        s = position(f"turn 1 phase REFUGEE_PLACEMENT\ngerman: de-III@4414\nrolls: {die}", P)
        placed = 0
        while s.decision == Decision.REFUGEE_HEX:
            s.apply_action(s.legal_actions()[0])
            placed += 1
        assert placed == n and len(s.refugees) == n


def test_10_2_r35_placement_hexes():
    s = position(
        "turn 1 phase REFUGEE_PLACEMENT\nfrench: fr-I@4212\ngerman: de-III@4414\nrefugees: 3010\nrolls: 3", P
    )
    mt = s.game.tables
    legal = set(s.legal_actions())
    near = {H("4414"), *hg.NEIGHBOR_LISTS[H("4414")]}
    expected = {h for h in range(hg.N_HEX) if mt.land[h] and not mt.colored[h]} - near - {H("3010")}
    assert legal == expected and H("4212") in legal  # French-occupied hexes are fine
    act(s, "refugees in 4212")
    assert H("4212") not in s.legal_actions()  # one per hex


def test_10_3_refugees_cost_french_one_mp_not_germans_and_not_rivers():
    s = position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-I@4414\nrefugees: 4415", P)
    act(s, ua("fr-I"))
    assert (s.move_destinations()[H("4415")].mp, s.move_destinations()[H("4415")].vp) == (2, 0)
    s = position("turn 3 phase GERMAN_MOVEMENT\ngerman: de-III@4414\nrefugees: 4415", P)
    act(s, ua("de-III"))
    assert s.move_destinations()[H("4415")].mp == 1


def test_10_4_4_5_overrun_costs_one_vp_per_hex_per_phase():
    s = position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-I@4414 fr-III@4514\nrefugees: 4415", P)
    act(s, ua("fr-I"))
    # 4418 is 4 hexes away: 4 MP only by overrunning 4415 (paying would take 5)
    act(s, "move fr-I to 4418 (4 MP, -1 VP refugees)")
    assert s.vp == -1 and s.refugees == {H("4415"): True}
    assert s.vp_log[-1]["kind"] == "refugees"
    act(s, ua("fr-III"))
    # the flipped hex has been paid for this phase (rule 10.4)
    assert (s.move_destinations()[H("4415")].vp, s.move_destinations()[H("4415")].mp) == (0, 1)
    act(s, "move fr-III to 4416 (2 MP)")
    assert s.vp == -1
    act(s, PASS)
    assert not any(s.refugees.values())  # the flip lasts one phase


def test_10_5_refugees_removed_in_phase_1d_after_the_first_turn():
    s = position("turn 3 phase REFUGEE_RECOVERY\nrefugees: 4414 4415*\nfrench: fr-I@3010", P, run=False)
    s._run_automatic_steps()
    assert s.refugees == {}


def test_10_6_refugees_never_removed_by_units_and_not_stacking():
    s = position("turn 3 phase GERMAN_MOVEMENT\nfrench: fr-I@4416\ngerman: de-III@4414\nrefugees: 4415", P)
    act(s, ua("de-III"))
    act(s, "move de-III to 4415 (1 MP)")
    assert H("4415") in s.refugees
    s = position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-I@4414\nrefugees: 4415", P)
    act(s, ua("fr-I"))
    act(s, "move fr-I to 4415 (2 MP)")
    assert H("4415") in s.refugees and U("fr-I") in s.stacks[H("4415")]
    assert s._overstacked(0) is None


def test_r16_retreats_ignore_refugees():
    s = position(
        "turn 3 phase GERMAN_COMBAT stuka_used\nfrench: fr-I@4414\n"
        "german: de-III@4415 de-IV@4514\nrefugees: 4413 4513 4313 4314\nrolls: 1",
        P,
    )
    act(s, "attack 4414")
    act(s, ua("de-III"))
    act(s, ua("de-IV"))
    act(s, P.layout.lower(0))
    assert s.decision == Decision.RETREAT
    act(s, "retreat to 4413")
    assert s.vp == 0
