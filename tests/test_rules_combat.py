"""Ground combat: declaration, differential, CRT, column shifts (rules 7.4, 13.1-13.20, R22-R26).

Most positions sit around hex 4414 on a plain copy of the map (every land hex clear,
no rivers; cities kept), so only the terrain a test sets matters. Neighbours of 4414:
E 4415, NE 4514, NW 4513, W 4413, SW 4313, SE 4314 (E/W, NE/SW, NW/SE are opposite).
"""

from __future__ import annotations

import pytest
from conftest import H, U, custom_game, fight, plain_game, position, texts, ua

from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.game import RulesOptions
from ffo_env.ffo.core.state import Decision

pytestmark = pytest.mark.usefixtures("rules_data")  # conftest.RULES_DATA: figures of reconstruction-v1

P = plain_game()


def german_attack(units: str, french: str, rolls: str = "6", game=None, extra: str = "") -> object:
    return position(
        f"""turn 3 phase GERMAN_COMBAT stuka_used
        french: {french}
        german: {units}
        rolls: {rolls}
        {extra}""",
        game or P,
    )


def test_13_1_attacking_is_voluntary():
    s = german_attack("de-III@4415", "fr-I@4414")
    assert s.decision == Decision.ATTACK_TARGET
    assert "end the combat phase" in texts(s)
    s.apply_action(s.game.layout.special(Special.PASS))
    assert s.phase.name != "GERMAN_COMBAT" and s.steps[U("fr-I")] == 2


def test_13_3_13_10_defenders_in_one_hex_are_attacked_together():
    s = german_attack("de-III@4415", "fr-I@4414 br-51@4414")
    b = fight(s, "4414", ["de-III"])
    assert sorted(b["defenders"]) == sorted([U("fr-I"), U("br-51")])
    assert b["def_cf"] == 3 + 3


def test_13_10_stacked_units_may_attack_different_hexes():
    # de-III and the free-stacking 1st Mountain in 4415; French in 4414 and 4416 (both adjacent)
    s = german_attack("de-III@4415 de-1Mtn@4415", "fr-I@4414 fr-III@4416", rolls="1 1")
    fight(s, "4414", ["de-III"])
    assert s.decision == Decision.ATTACK_TARGET
    b = fight(s, "4416", ["de-1Mtn"])
    assert b["attackers"] == [U("de-1Mtn")]


def test_13_9_r23_each_unit_attacks_once_and_hexes_may_be_attacked_again():
    s = german_attack("de-III@4415 de-IV@4514", "fr-I@4414", rolls="1 1")
    b = fight(s, "4414", ["de-III"])  # 5 v 3 = +2 -> column +1/+2, die 1: AS
    assert b["result"] == "AS"
    s.apply_action(H("4414"))  # R23: the hex may be attacked again...
    legal = s.legal_actions()
    assert ua("de-IV") in legal and ua("de-III") not in legal  # ...but not by a unit that has attacked


def test_r23_repeat_attacks_option_off():
    g = plain_game(repeat_attacks=False)
    s = german_attack("de-III@4415 de-IV@4514", "fr-I@4414", rolls="1", game=g)
    fight(s, "4414", ["de-III"])
    assert s.decision != Decision.ATTACK_TARGET or H("4414") not in s.legal_actions()


def test_13_11_one_battle_at_a_time():
    s = german_attack("de-III@4415 de-IV@4413", "fr-I@4414 ", rolls="1")
    s.apply_action(H("4414"))
    assert s.decision == Decision.ATTACK_ADD
    assert all(a >= s.game.layout.unit_base for a in s.legal_actions())  # no new target until resolved


def test_13_12_differential_column_and_result():
    s = german_attack("de-III@4415 de-IV@4514", "fr-I@4414", rolls="1")
    b = fight(s, "4414", ["de-III", "de-IV"])  # E and NE: not concentric
    assert (b["att_cf"], b["def_cf"], b["differential"]) == (10, 3, 7)
    assert b["shifts"] == {} and b["column"] == 7  # "+7/+8"
    assert b["result"] == "DR"  # components.md §4: die 1 on +7/+8


def test_13_12_crt_matches_the_reconstruction():
    crt = P.scenario.tables.crt
    assert [crt.column_of(d) for d in (-9, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20)] == [
        0,
        0,
        1,
        1,
        2,
        2,
        3,
        3,
        4,
        5,
        6,
        6,
        7,
        7,
        8,
        8,
    ]
    assert [crt.result(c, 1) for c in range(9)] == ["AE", "AE", "AE", "AS", "AS", "BB", "BB", "DR", "DR"]
    assert [crt.result(c, 6) for c in range(9)] == ["BB", "DR", "DR", "DE", "DE", "DE", "DE", "DE", "DE"]
    assert crt.result(4, 3) == "DR" and crt.result(2, 4) == "BB"


def test_13_13_r25_concentric_opposite_sides():
    s = german_attack("de-III@4415 de-IV@4413", "fr-I@4414")
    b = fight(s, "4414", ["de-III", "de-IV"])
    assert b["shifts"]["concentric"] == 1 and b["column"] == 8


def test_13_13_r25_concentric_three_alternate_sides():
    s = german_attack("de-III@4415 de-IV@4513 de-V@4313", "fr-CAC@4414")  # E, NW, SW
    b = fight(s, "4414", ["de-III", "de-IV", "de-V"])
    assert b["shifts"]["concentric"] == 1


def test_13_13_r25_three_adjacent_sides_not_concentric():
    s = german_attack("de-III@4415 de-IV@4514 de-V@4513", "fr-CAC@4414")  # E, NE, NW
    b = fight(s, "4414", ["de-III", "de-IV", "de-V"])
    assert "concentric" not in b["shifts"]


def test_13_13_r25_four_hexes_concentric_and_two_units_one_hex_count_once():
    s = german_attack("de-III@4415 de-1Mtn@4415 de-IV@4514", "fr-CAC@4414")
    b = fight(s, "4414", ["de-III", "de-1Mtn", "de-IV"])
    assert "concentric" not in b["shifts"]  # one attack hex per side: sides E, NE
    s = german_attack("de-III@4415 de-IV@4514 de-V@4513 de-VI@4413", "fr-CAC@4414")
    b = fight(s, "4414", ["de-III", "de-IV", "de-V", "de-VI"])
    assert b["shifts"]["concentric"] == 1


def test_13_13_german_all_supplied_mechanized_two_columns():
    s = german_attack("de-XV@4415 de-XVI@4413 de-I@4514", "fr-CAC@4414", rolls="6 6")
    b = fight(s, "4414", ["de-XV", "de-XVI"])  # west group panzers, supplied from the yellow row
    assert b["att_supplied_mech"] and b["shifts"]["concentric"] == 2
    s = german_attack("de-XV@4415 de-XVI@4413 de-I@4514", "fr-CAC@4414")
    b = fight(s, "4414", ["de-XV", "de-XVI", "de-I"])  # an infantry corps joins: normal bonus
    assert b["shifts"]["concentric"] == 1


def test_13_13_french_concentric_is_one_column():
    s = position(
        """turn 3 phase FRENCH_COMBAT stuka_used
        french: fr-GC@4415 fr-3DCR@4413
        german: de-III@4414
        rolls: 6""",
        P,
    )
    b = fight(s, "4414", ["fr-GC", "fr-3DCR"])
    assert b["shifts"]["concentric"] == 1


def test_13_13_no_concentricity_against_cities():
    # Vichy 4912: W 4911, E 4913
    s = german_attack("de-III@4911 de-IV@4913", "fr-I@4912", rolls="1 6")
    b = fight(s, "4912", ["de-III", "de-IV"])
    assert "concentric" not in b["shifts"] and b["shifts"]["city"] == 0  # city die 1 -> 0 shifts


def test_13_14_r25_french_surrender_four_columns():
    # 5610 is 4 hexes from the green row: within an infantry corps' MF (4), inclusive
    s = german_attack("de-III@5611 de-IV@5609", "fr-I@5610")
    b = fight(s, "5610", ["de-III", "de-IV"])
    assert b["shifts"]["concentric"] == 4
    s = german_attack("de-III@5511 de-IV@5509", "fr-I@5510")  # 5 hexes away: normal bonus
    b = fight(s, "5510", ["de-III", "de-IV"])
    assert b["shifts"]["concentric"] == 1
    s = german_attack("de-III@5411 de-IV@5409", "fr-GC@5410")  # mechanized MF 6: 6 hexes away counts
    b = fight(s, "5410", ["de-III", "de-IV"])
    assert b["shifts"]["concentric"] == 4


def test_13_14_needs_concentricity():
    s = german_attack("de-III@5611", "fr-I@5610")
    b = fight(s, "5610", ["de-III"])
    assert "concentric" not in b["shifts"]


def test_13_15_tec_example_mountain_two_left():
    g = custom_game(plain=True, terrain={"4414": "mountain"}, options=RulesOptions(skip_forced=False))
    s = german_attack("de-III@4415 de-IV@4514(r)", "fr-I@4414", game=g)
    b = fight(s, "4414", ["de-III", "de-IV"])  # 5 + 2 - 3 = +4, 2L -> "+1/+2"
    assert b["differential"] == 4 and b["shifts"] == {"terrain": -2}
    assert g.scenario.tables.crt.column_label(b["column"]) == "+1/+2"


def test_13_15_rough_and_marsh_one_left():
    for t in ("rough", "marsh"):
        g = custom_game(plain=True, terrain={"4414": t}, options=RulesOptions(skip_forced=False))
        b = fight(german_attack("de-III@4415", "fr-I@4414", game=g), "4414", ["de-III"])
        assert b["shifts"] == {"terrain": -1}, t


def test_13_15_river_shift_only_if_every_attacker_crosses():
    rivers = [("4414", n) for n in ("4415", "4514")]
    g = custom_game(plain=True, rivers=rivers, options=RulesOptions(skip_forced=False))
    b = fight(german_attack("de-III@4415 de-IV@4514", "fr-I@4414", game=g), "4414", ["de-III", "de-IV"])
    assert b["shifts"] == {"river": -1}
    b = fight(german_attack("de-III@4415 de-IV@4513", "fr-I@4414", game=g), "4414", ["de-III", "de-IV"])
    assert b["shifts"] == {}  # de-IV does not attack across a river
    g2 = custom_game(
        plain=True, terrain={"4414": "rough"}, rivers=rivers, options=RulesOptions(skip_forced=False)
    )
    b = fight(german_attack("de-III@4415", "fr-I@4414", game=g2), "4414", ["de-III"])
    assert sum(b["shifts"].values()) == -2  # additive to in-hex terrain


def test_13_16_r14_city_die_and_no_river_around_cities():
    g = custom_game(plain=True, rivers=[("4912", "4913")], options=RulesOptions(skip_forced=False))
    s = german_attack("de-III@4913", "fr-I@4912", rolls="5 6", game=g)
    b = fight(s, "4912", ["de-III"])
    assert b["shifts"] == {"city": -2}  # 5 // 2; R14: the river hexside is nullified
    assert [e["for"].split(" (")[0] for e in s.dice_log[-2:]] == ["city defence of 4912", "combat at 4912"]
    assert not g.tables.river_side[H("4912")][0]


def test_13_16_r24_panzers_never_attack_cities():
    s = german_attack("de-XXXIX@4913", "fr-I@4912")
    assert H("4912") not in s.legal_actions()
    s = german_attack("de-XXXIX@4913 de-III@4911", "fr-I@4912")
    s.apply_action(H("4912"))
    assert ua("de-XXXIX") not in s.legal_actions()


def test_13_16_r24_panzer_defends_city_as_clear():
    s = position(
        """turn 3 phase FRENCH_COMBAT stuka_used
        french: fr-GC@4913
        german: de-XXXIX@4912
        rolls: 6""",
        P,
    )
    n = len(s.dice_log)
    b = fight(s, "4912", ["fr-GC"])
    assert "city" not in b["shifts"] and len(s.dice_log) == n + 1


def test_13_17_panzer_halved_into_mountains_and_mech_defend_as_clear():
    g = custom_game(plain=True, terrain={"4414": "mountain"}, options=RulesOptions(skip_forced=False))
    b = fight(german_attack("de-XXXIX@4415", "fr-I@4414", game=g), "4414", ["de-XXXIX"])
    assert b["att_cf"] == 4 and b["shifts"] == {"terrain": -2}
    b = fight(german_attack("de-XXXIX@4415", "fr-GC@4414", game=g), "4414", ["de-XXXIX"])
    assert b["shifts"] == {}  # mechanized defender: mountain counts as clear


def test_r24_mixed_stack_option():
    g_any = custom_game(plain=True, terrain={"4414": "mountain"}, options=RulesOptions(skip_forced=False))
    g_all = custom_game(
        plain=True, terrain={"4414": "mountain"}, options=RulesOptions(skip_forced=False, mixed_stack="all")
    )
    b = fight(german_attack("de-III@4415", "fr-I@4414 br-51@4414", game=g_any), "4414", ["de-III"])
    assert b["shifts"] == {"terrain": -2}
    b = fight(german_attack("de-III@4415", "fr-I@4414 br-51@4414", game=g_all), "4414", ["de-III"])
    assert b["shifts"] == {}


def test_13_18_r26_differential_limits_and_clamping():
    s = german_attack("de-III@4415 de-IV@4413 de-V@4514", "fr-GA@4414(r)")
    b = fight(s, "4414", ["de-III", "de-IV", "de-V"])  # +14 and concentric: clamped to the last column
    assert b["differential"] == 14 and b["column"] == 8
    s = position(
        """turn 3 phase FRENCH_COMBAT stuka_used
        french: fr-GA@4415(r)
        german: de-III@4414 de-IV@4413
        rolls: 1""",
        P,
    )
    b = fight(s, "4414", ["fr-GA"])
    assert b["differential"] == -4 and b["column"] == 0 and b["result"] == "AE"


def test_13_19_r26_attacker_may_lower_before_the_die():
    s = german_attack("de-III@4415 de-IV@4514", "fr-I@4414", rolls="6")
    s.apply_action(H("4414"))
    s.apply_action(ua("de-III"))
    s.apply_action(ua("de-IV"))  # no other candidate: supply judged, no support left (stuka used)
    assert s.decision == Decision.LOWER
    n = len(s.dice_log)
    col = s.battle["column"]
    assert s.legal_actions() == [s.game.layout.lower(k) for k in range(col + 1)]
    assert len(s.dice_log) == n  # nothing rolled yet
    s.apply_action(s.game.layout.lower(5))
    assert s.dice_log[-1]["for"].startswith("combat") and s.battles_fought()[-1]["column"] == col - 5


def test_13_20_zero_factor_units_attack_but_naval_garrisons_do_not():
    s = position(
        """turn 3 phase FRENCH_COMBAT stuka_used
        french: fr-41CAF@2304(r) fr-Sete@2305
        german: de-III@2405""",
        P,
    )
    s.apply_action(H("2405"))
    assert ua("fr-41CAF") in s.legal_actions() and ua("fr-Sete") not in s.legal_actions()


def test_7_4_attacker_oos_left_and_defender_oos_right():
    # French with no garrison and no city: out of supply (rule 7.8)
    b = fight(german_attack("de-III@4415", "fr-I@4414", extra="dead: garrisons"), "4414", ["de-III"])
    assert b["def_oos"] and b["shifts"] == {"defender_oos": 1}
    # a panzer-scared corps attacks as if out of supply (rule 7.9); both shifts cancel out
    s = german_attack("de-XXXIX@4415", "fr-I@4414", extra="dead: garrisons\nscare: de-XXXIX")
    b = fight(s, "4414", ["de-XXXIX"])
    assert b["att_oos"] and b["def_oos"]
    assert b["shifts"] == {"attacker_oos": -1, "defender_oos": 1} and b[
        "column"
    ] == s.game.scenario.tables.crt.column_of(5)


def test_r22_order_of_a_battle():
    s = position(
        """turn 3 phase GERMAN_COMBAT
        french: fr-I@4912
        german: de-III@4913
        rolls: 2 3 4 5""",
        P,
    )
    s.apply_action(H("4912"))
    assert H("4912") in s.revealed[1]  # (1) declared and revealed
    assert s.legal_actions() == [ua("de-III")]  # at least one attacker: no withdrawal
    s.apply_action(ua("de-III"))  # the only candidate: (2) done
    assert s.decision == Decision.SUPPORT_ATTACK and "att_supplied" in s.battle  # (3) supply judged
    n = len(s.dice_log)
    s.apply_action(s.game.layout.special(Special.STUKA))  # (4) 2d now
    assert s.decision == Decision.LOWER  # (5) French has no naval in range, (6) city die rolled
    b = s.battle
    assert b["att_support"] == 5 and b["shifts"] == {"city": -2}
    s.apply_action(s.game.layout.lower(0))  # (8)
    kinds = [e["for"].split(" (")[0] for e in s.dice_log[n : n + 4]]
    assert kinds == ["8th Fliegerkorps attack"] * 2 + ["city defence of 4912", "combat at 4912"]


def test_r26_shifts_summed_then_clamped():
    g = custom_game(plain=True, terrain={"4414": "mountain"}, options=RulesOptions(skip_forced=False))
    s = german_attack("de-III@4415", "fr-GA@4414(r)", game=g)  # +4, mountain 2L -> column 3
    b = fight(s, "4414", ["de-III"])
    assert b["column"] == 5 - 2
