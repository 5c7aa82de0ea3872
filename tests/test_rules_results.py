"""Combat results, retreats and advances (rules 4.3, 13.2, 13.5-13.8, 13.20, R27-R29, R31).

Plain map (see test_rules_combat); neighbours of 4414: E 4415, NE 4514, NW 4513,
W 4413, SW 4313, SE 4314.
"""

from __future__ import annotations

import pytest
from conftest import H, U, act, custom_game, fight, hexes, plain_game, position, texts, ua

from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.game import RulesOptions
from ffo_env.ffo.core.state import DEAD, ON_MAP, Decision

pytestmark = pytest.mark.usefixtures("rules_data")  # conftest.RULES_DATA: figures of reconstruction-v1

P = plain_game()
PASS = P.layout.special(Special.PASS)


def g_attack(german: str, french: str, rolls: str, game=None, extra: str = ""):
    return position(
        f"""turn 3 phase GERMAN_COMBAT stuka_used
        french: {french}
        german: {german}
        rolls: {rolls}
        {extra}""",
        game or P,
    )


def f_attack(french: str, german: str, rolls: str, game=None, extra: str = ""):
    return position(
        f"""turn 3 phase FRENCH_COMBAT stuka_used
        french: {french}
        german: {german}
        rolls: {rolls}
        {extra}""",
        game or P,
    )


def test_13_5_r27_defender_eliminated():
    s = g_attack("de-III@4415 de-IV@4514", "fr-I@4414 br-51@4414", "6")
    b = fight(s, "4414", ["de-III", "de-IV"])  # 10 - 6 = +4, die 6
    assert b["result"] == "DE"
    assert s.steps[U("fr-I")] == 1 and s.loc[U("fr-I")] == H("4414")  # two-step: reduced, stays
    assert s.status[U("br-51")] == DEAD  # one-step: eliminated
    assert s.decision != Decision.ADVANCE_UNIT  # hex still held: no advance


def test_13_5_r27_attacker_eliminated_and_4_3_vp():
    s = g_attack("de-III@4415 de-1Mtn@4514", "fr-CAC@4414 br-51@4414", "1")
    b = fight(s, "4414", ["de-III", "de-1Mtn"])  # 7 - 7 = 0, die 1
    assert b["result"] == "AE"
    assert s.steps[U("de-III")] == 1 and s.status[U("de-1Mtn")] == DEAD
    assert (
        sorted(e["vp"] for e in s.vp_log) == [1, 2] and s.vp == 3
    )  # infantry reduced, 1st Mountain eliminated


def test_13_5_reduced_unit_eliminated_and_4_3_mech_vp():
    s = f_attack("fr-GC@4415 fr-3DCR@4514 fr-CAC@4513", "de-XXXIX@4414(r)", "6")
    fight(s, "4414", ["fr-GC", "fr-3DCR", "fr-CAC"])
    assert s.status[U("de-XXXIX")] == DEAD and s.vp == 4  # rule 4.3: panzer eliminated


def test_13_8_attack_stalled():
    s = g_attack("de-III@4415", "fr-I@4414", "1")
    b = fight(s, "4414", ["de-III"])  # +2, die 1
    assert b["result"] == "AS"
    assert s.steps[U("fr-I")] == 2 and s.steps[U("de-III")] == 2 and s.loc[U("fr-I")] == H("4414")


def test_13_6_r28_retreat_hexes_exclude_origins_enemies_and_full_hexes():
    s = g_attack("de-III@4415 de-IV@4514 de-V@4313", "fr-I@4414 fr-III@4314", "1")
    b = fight(s, "4414", ["de-III", "de-IV"])  # +7, die 1
    assert b["result"] == "DR"
    assert s.decision == Decision.RETREAT and s.current_agent == "french"
    assert hexes(s.legal_actions()) == {
        "4413",
        "4513",
    }  # not 4415/4514 (origins), 4313 (enemy), 4314 (stacking)
    act(s, "retreat to 4413")
    assert s.loc[U("fr-I")] == H("4413")
    assert s.decision == Decision.ADVANCE_UNIT


def test_13_6_r28_stacked_units_retreat_separately_free_stacker_may_join_a_unit():
    s = g_attack("de-III@4415 de-IV@4514", "fr-I@4414 br-51@4414 fr-III@4314", "2")
    fight(s, "4414", ["de-III", "de-IV"])  # 10 - 6 = +4, die 2: DR
    assert s.decision == Decision.RETREAT
    first = s.battle["retreat_queue"][0]
    assert first == U("br-51")  # the top unit first
    assert "4314" in hexes(s.legal_actions())  # free-stacking (rule 6.3)
    act(s, "retreat to 4314")
    assert "4314" not in hexes(s.legal_actions())  # fr-I may not over-stack there
    act(s, "retreat to 4313")
    assert s.loc[U("br-51")] == H("4314") and s.loc[U("fr-I")] == H("4313")


def test_13_6_blocked_retreat_is_de():
    s = g_attack("de-III@4415 de-IV@4514 de-V@4513 de-VI@4413 de-VII@4313 de-VIII@4314", "fr-I@4414", "1")
    b = fight(s, "4414", ["de-III", "de-IV"])
    assert b["result"] == "DR"
    assert s.steps[U("fr-I")] == 1 and s.loc[U("fr-I")] == H("4414")  # DE in place: reduced


def test_13_6_r15_no_retreat_across_blocked_hexside_or_to_sea():
    g = custom_game(plain=True, blocked=[("4414", "4413")], options=RulesOptions(skip_forced=False))
    s = g_attack("de-III@4415 de-IV@4514", "fr-I@4414", "1", game=g)
    fight(s, "4414", ["de-III", "de-IV"])
    assert hexes(s.legal_actions()) == {"4513", "4313", "4314"}


def test_13_6_no_retreat_out_to_sea():
    mt = P.tables
    from ffo_env.ffo.core import hexgrid as hg

    c = next(
        h
        for h in range(hg.N_HEX)
        if mt.coastal[h]
        and not mt.city[h]
        and not mt.colored[h]
        and sum(mt.land[n] for n in hg.NEIGHBOR_LISTS[h]) >= 3
    )
    land = [n for n in hg.NEIGHBOR_LISTS[c] if mt.land[n]]
    a, rest = land[0], set(land[1:])
    s = g_attack(f"de-III@{hg.hex_name(a)} de-IV@{hg.hex_name(land[1])}", f"fr-GA@{hg.hex_name(c)}(r)", "1")
    fight(s, hg.hex_name(c), ["de-III", "de-IV"])  # +9, die 1: DR
    assert set(s.legal_actions()) == rest - {land[1]}


def test_13_6_r05_r06_french_retreat_never_into_yellow_but_may_end_next_to_it():
    s = g_attack("de-III@4002 de-IV@4101", "fr-GA@4001(r)", "1")
    b = fight(s, "4001", ["de-III", "de-IV"])  # +9, die 1: DR
    assert b["result"] == "DR"
    assert hexes(s.legal_actions()) == {"3901"}  # 4000, 4100, 3900 yellow; 4002, 4101 origins


def test_13_20_r28_naval_garrison_never_survives_dr():
    s = g_attack("de-III@2405", "fr-Sete@2305", "1 2")  # city die 1: no shift; +5 column, die 2: DR
    b = fight(s, "2305", ["de-III"])
    assert b["result"] == "DR" and s.status[U("fr-Sete")] == DEAD
    assert s.decision == Decision.ADVANCE_UNIT


def test_13_7_r29_bloodbath_each_owner_chooses():
    s = g_attack("de-III@4415 de-IV@4514", "fr-I@4414 br-51@4414", "1")
    b = fight(s, "4414", ["de-III", "de-IV"])  # +4, die 1
    assert b["result"] == "BB"
    assert s.decision == Decision.STEP_LOSS and s.current_agent == "german"
    assert sorted(s.legal_actions()) == sorted([ua("de-III"), ua("de-IV")])
    act(s, ua("de-IV"))
    assert s.decision == Decision.STEP_LOSS and s.current_agent == "french"
    assert sorted(s.legal_actions()) == sorted([ua("fr-I"), ua("br-51")])
    act(s, ua("br-51"))
    assert s.steps[U("de-IV")] == 1 and s.status[U("br-51")] == DEAD and s.steps[U("fr-I")] == 2
    assert s.vp == 1


def test_13_7_bloodbath_that_empties_the_hex_allows_an_advance():
    s = g_attack("de-III@4415", "fr-GA@4414(r)", "1")
    b = fight(s, "4414", ["de-III"])  # 5 - 1 = +4, die 1
    assert b["result"] == "BB"
    act(s, ua("de-III"))  # German loss
    act(s, ua("fr-GA"))  # French loss
    assert s.decision == Decision.ADVANCE_UNIT and ua("de-III") in s.legal_actions()


def test_13_2_r31_advance_is_optional_and_only_involved_units():
    s = g_attack("de-III@4415 de-IV@4514 de-V@4513", "fr-GA@4414(r)", "6")
    fight(s, "4414", ["de-III", "de-IV"])
    assert s.decision == Decision.ADVANCE_UNIT
    assert sorted(s.legal_actions()) == sorted([ua("de-III"), ua("de-IV"), PASS])  # not de-V
    act(s, ua("de-IV"))
    assert s.loc[U("de-IV")] == H("4414")
    # R8: the hex is full now; the advance is over before another battle starts
    assert s.decision == Decision.ATTACK_TARGET or s.phase.name != "GERMAN_COMBAT"


def test_13_2_r31_supplied_mech_advances_a_second_hex():
    g = custom_game(plain=True, terrain={"4513": "mountain"}, options=RulesOptions(skip_forced=False))
    s = g_attack("de-XXXIX@4415", "fr-GA@4414(r) fr-I@4313", "6", game=g)
    fight(s, "4414", ["de-XXXIX"])
    act(s, ua("de-XXXIX"))
    assert s.decision == Decision.ADVANCE_SECOND
    assert hexes(a for a in s.legal_actions() if a < 1530) == {"4415", "4514", "4413", "4314"}
    act(s, "advance on to 4413")
    assert s.loc[U("de-XXXIX")] == H("4413")


def test_13_2_r11_second_hex_uses_each_units_own_supply():
    # de-III in 4413 is cut off by French units (OOS); de-XXXIX in 4415 is supplied
    french = "fr-GA@4414(r) fr-I@4412 fr-III@4513 fr-VI@4512 fr-VIII@4312 fr-X@4313"
    s = g_attack("de-XXXIX@4415 de-III@4413", french, "6")
    b = fight(s, "4414", ["de-XXXIX", "de-III"])
    assert b["att_supplied"] == {str(U("de-XXXIX")): True, str(U("de-III")): False}
    act(s, ua("de-XXXIX"))
    assert s.decision == Decision.ADVANCE_SECOND
    assert hexes(a for a in s.legal_actions() if a < 1530) == {"4415", "4514", "4314"}


def test_13_2_r31_no_second_hex_from_or_into_mountains_nor_for_infantry():
    g = custom_game(plain=True, terrain={"4414": "mountain"}, options=RulesOptions(skip_forced=False))
    s = g_attack("de-XXXIX@4415 de-III@4514", "fr-GA@4414(r)", "6", game=g)
    fight(s, "4414", ["de-XXXIX", "de-III"])
    act(s, ua("de-XXXIX"))
    assert s.decision != Decision.ADVANCE_SECOND
    s = g_attack("de-III@4415", "fr-GA@4414(r)", "6")
    fight(s, "4414", ["de-III"])
    act(s, ua("de-III"))
    assert s.decision != Decision.ADVANCE_SECOND


def test_7_9_r31_scared_panzer_no_second_hex():
    s = g_attack("de-XXXIX@4415", "fr-GA@4414(r)", "6", extra="scare: de-XXXIX")
    b = fight(s, "4414", ["de-XXXIX"])
    assert b["att_oos"] and b["result"] == "DE"
    act(s, ua("de-XXXIX"))
    assert s.loc[U("de-XXXIX")] == H("4414") and s.decision != Decision.ADVANCE_SECOND


def test_r31_german_never_advances_into_the_red_row():
    s = g_attack("de-III@5810", "fr-GA@5910(r)", "6")
    fight(s, "5910", ["de-III"])
    assert s.decision != Decision.ADVANCE_UNIT and s.status[U("fr-GA")] == DEAD


def test_4_3_r31_51st_advance_scores_one_vp():
    s = f_attack("br-51@4415 fr-I@4514", "de-III@4414(r)", "6")
    fight(s, "4414", ["br-51", "fr-I"])  # 6 - 2 = +4, die 6: DE
    assert s.status[U("de-III")] == DEAD and s.vp == 3
    act(s, ua("fr-I"))
    assert s.vp == 3  # French units score nothing for advancing
    act(s, ua("br-51"))  # free-stacking: may join
    assert s.vp == 4 and s.vp_log[-1]["kind"] == "british_51"
    assert s.loc[U("br-51")] == H("4414") and s.status[U("fr-I")] == ON_MAP


def test_r30_r31_no_advance_after_an_air_strike():
    s = position(
        """turn 3 phase LUFTWAFFE
        french: fr-GA@4414(r)
        german: de-III@6010
        rolls: 6 6 6""",
        P,
    )
    act(s, "air strike on 4414")
    act(s, s.game.layout.lower(0))
    assert s.status[U("fr-GA")] == DEAD and s.decision != Decision.ADVANCE_UNIT
    assert "air strike" not in " ".join(texts(s))


def test_r38_german_retreat_never_ends_in_the_red_row():
    # de-III in 5812 touches the red row at 5912 and 5911 (NE, NW); attacked from 5711 and 5712
    s = f_attack("fr-GC@5711 fr-CAC@5712", "de-III@5812", "2")
    b = fight(s, "5812", ["fr-GC", "fr-CAC"])  # 9 - 5 = +4, die 2
    assert b["result"] == "DR"
    assert s.decision == Decision.RETREAT and s.current_agent == "german"
    assert hexes(s.legal_actions()) == {"5813", "5811"}  # rule 5.5, R38: not 5912 or 5911
    act(s, "retreat to 5811")
    assert s.loc[U("de-III")] == H("5811")


def test_r38_13_6_german_whose_only_retreats_are_red_row_hexes_suffers_de_in_place():
    s = f_attack("fr-GC@5711 fr-CAC@5712 fr-I@5813 fr-III@5811", "de-III@5812", "2")
    b = fight(s, "5812", ["fr-GC", "fr-CAC"])
    assert b["result"] == "DR"
    assert s.loc[U("de-III")] == H("5812") and s.steps[U("de-III")] == 1  # DE in place: reduced (R27)
    assert s.decision != Decision.RETREAT
