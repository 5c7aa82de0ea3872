"""8th Fliegerkorps and naval gunfire (rules 4.4, 12.1-12.8, R18, R29, R30, R32)."""

from __future__ import annotations

import pytest
from conftest import H, U, act, custom_game, fight, hexes, plain_game, position, ua

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.game import RulesOptions
from ffo_env.ffo.core.state import DEAD, Decision, Phase

pytestmark = pytest.mark.usefixtures("rules_data")  # conftest.RULES_DATA: figures of reconstruction-v1

P = plain_game()
L = P.layout
PASS, STUKA = L.special(Special.PASS), L.special(Special.STUKA)
NAV_F, NAV_B = L.special(Special.NAVAL_FRENCH), L.special(Special.NAVAL_BRITISH)
MT = P.tables


def _pick(kind: str) -> tuple[str, str]:
    """A (target, land neighbour) pair: target coastal or one hex inland, no city, no colored row."""
    for h in range(hg.N_HEX):
        if getattr(MT, kind)[h] and not MT.city[h] and not MT.colored[h] and MT.land[h]:
            for n in hg.NEIGHBOR_LISTS[h]:
                if MT.land[n] and not MT.city[n] and not MT.colored[n] and not MT.adj_green_or_yellow[n]:
                    return hg.hex_name(h), hg.hex_name(n)
    raise AssertionError(kind)


COAST, COAST_N = _pick("coastal")
INLAND, INLAND_N = _pick("inland1")


def test_r32_naval_range_definitions():
    assert any(not MT.land[n] for n in hg.NEIGHBOR_LISTS[H(COAST)])
    assert not MT.coastal[H(INLAND)] and any(MT.coastal[n] for n in hg.NEIGHBOR_LISTS[H(INLAND)])
    s = position("turn 3 phase FRENCH_COMBAT stuka_used\nfrench: fr-I@4415\ngerman: de-III@4414", P)
    act(s, "attack 4414")
    act(s, ua("fr-I"))
    assert s.decision == Decision.LOWER  # 4414 is out of naval range: no support decision at all


def test_12_8_4_4_r18_naval_attack_coastal_two_dice_and_vp_loss():
    s = position(
        f"turn 3 phase FRENCH_COMBAT stuka_used\nfrench: fr-I@{COAST_N}\ngerman: de-III@{COAST}\n"
        "rolls: 3 4 5 1",
        P,
    )
    act(s, f"attack {COAST}")
    act(s, ua("fr-I"))
    assert s.decision == Decision.SUPPORT_ATTACK and sorted(s.legal_actions()) == sorted([NAV_F, NAV_B, PASS])
    act(s, NAV_F)
    b = s.battle
    assert b["att_support"] == 7 and s.vp == -5 and s.naval_used == [True, False]
    assert b["att_cf"] == 3 + 7


def test_12_8_naval_attack_inland_one_die_and_r18_option():
    g = custom_game(plain=True, options=RulesOptions(skip_forced=False, naval_vp_loss="die_minus_one"))
    s = position(
        f"turn 3 phase FRENCH_COMBAT stuka_used\nfrench: fr-I@{INLAND_N}\ngerman: de-III@{INLAND}\n"
        "rolls: 3 5 1",
        g,
    )
    act(s, f"attack {INLAND}")
    act(s, ua("fr-I"))
    act(s, NAV_B)
    assert s.battle["att_support"] == 3 and s.vp == -4  # R18 option: die minus one


def test_12_8_naval_defence_coastal_1d_inland_half():
    for target, n, want in ((COAST, COAST_N, 5), (INLAND, INLAND_N, 2)):
        s = position(
            f"turn 3 phase GERMAN_COMBAT stuka_used\nfrench: fr-I@{target}\ngerman: de-III@{n}\nrolls: 5 2 1",
            P,
        )
        act(s, f"attack {target}")
        act(s, ua("de-III"))
        assert s.decision == Decision.SUPPORT_DEFENCE and s.current_agent == "french"
        act(s, NAV_B)
        assert s.battle["def_support"] == want and s.vp == -2


def test_12_8_r32_each_marker_once_per_turn_never_both_in_one_battle():
    s = position(
        f"turn 3 phase FRENCH_COMBAT stuka_used\nfrench: fr-I@{COAST_N}\ngerman: de-III@{COAST}\n"
        "naval_used: french\nrolls: 1 1 1 1",
        P,
    )
    act(s, f"attack {COAST}")
    act(s, ua("fr-I"))
    assert sorted(s.legal_actions()) == sorted([NAV_B, PASS])
    act(s, NAV_B)
    assert s.decision == Decision.LOWER  # no second marker in this battle
    s = position(f"turn 4 phase FRENCH_COMBAT stuka_used\nfrench: fr-I@{COAST_N}\ngerman: de-III@{COAST}", P)
    act(s, f"attack {COAST}")
    act(s, ua("fr-I"))
    assert NAV_F in s.legal_actions()  # a new game turn: both available again


def test_12_1_12_5_r32_stuka_defence_1d_then_spent_for_the_turn():
    s = position("turn 3 phase FRENCH_COMBAT\nfrench: fr-I@4415\ngerman: de-III@4414\nrolls: 4 1", P)
    act(s, "attack 4414")
    act(s, ua("fr-I"))
    assert s.decision == Decision.SUPPORT_DEFENCE and s.current_agent == "german"
    act(s, STUKA)
    assert s.battle["def_support"] == 4 and s.stuka_used
    s = position("turn 3 phase LUFTWAFFE stuka_used\nfrench: fr-I@4415\ngerman: de-III@4414", P)
    assert s.phase != Phase.LUFTWAFFE  # no air strike: used this turn
    s = position("turn 3 phase GERMAN_COMBAT stuka_used\nfrench: fr-I@4415\ngerman: de-III@4414", P)
    act(s, "attack 4415")
    act(s, ua("de-III"))
    assert s.decision == Decision.LOWER  # no support offered


def test_12_2_12_7_air_strike_anywhere_on_french_units_only():
    s = position("turn 3 phase LUFTWAFFE\nfrench: fr-I@2407 fr-III@5210\ngerman: de-III@4414", P)
    assert s.decision == Decision.AIR_TARGET
    targets = hexes(a for a in s.legal_actions() if a < 1530)
    assert {"2407", "5210"} <= targets and all(s.side_at(H(h)) == 0 for h in targets)
    assert PASS in s.legal_actions()


def test_12_3_stuka_is_never_a_loss():
    assert not any("8th" in u.name or "Flieger" in u.name for u in P.units)


def test_12_4_r30_air_strike_ignores_dr_as_ae():
    s = position("turn 3 phase LUFTWAFFE\nfrench: fr-I@4414\nrolls: 1 1 5", P)
    act(s, "air strike on 4414")
    act(s, L.lower(0))  # 2 - 3 = -1, die 5: DR -> no effect
    assert s.loc[U("fr-I")] == H("4414") and s.steps[U("fr-I")] == 2 and s.stuka_used


def test_12_4_r29_air_bloodbath_german_picks_one_french_step():
    s = position("turn 3 phase LUFTWAFFE\nfrench: fr-I@4414 br-51@4414\nrolls: 2 1 5", P)
    act(s, "air strike on 4414")
    act(s, L.lower(0))  # 3 - 6 = -3, die 5: BB
    assert s.decision == Decision.STEP_LOSS and s.current_agent == "german"
    assert sorted(s.legal_actions()) == sorted([ua("fr-I"), ua("br-51")])
    act(s, ua("br-51"))
    assert s.status[U("br-51")] == DEAD and s.steps[U("fr-I")] == 2


def test_12_4_r30_naval_garrison_survives_air_strikes():
    s = position("turn 3 phase LUFTWAFFE\nfrench: fr-Sete@2305\nrolls: 6 6 1 6", P)
    act(s, "air strike on 2305")
    if s.decision == Decision.SUPPORT_DEFENCE:
        act(s, PASS)
    act(s, L.lower(0))  # 12 - 0, city die 1: DE
    assert s.status[U("fr-Sete")] != DEAD
    s = position("turn 3 phase LUFTWAFFE\nfrench: fr-Sete@2305\nrolls: 1 1 1 2", P)
    act(s, "air strike on 2305")
    if s.decision == Decision.SUPPORT_DEFENCE:
        act(s, PASS)
    act(s, L.lower(0))  # 2 - 0 = +2, die 2: AS; never a loss for the garrison either way
    assert s.status[U("fr-Sete")] != DEAD


def test_12_4_r30_air_strike_terrain_and_city_apply_concentric_and_rivers_do_not():
    g = custom_game(
        plain=True,
        terrain={"4414": "mountain"},
        rivers=[("4414", "4415")],
        options=RulesOptions(skip_forced=False),
    )
    s = position("turn 3 phase LUFTWAFFE\nfrench: fr-I@4414\nrolls: 1 1 1", g)
    act(s, "air strike on 4414")
    assert s.battle["shifts"] == {"terrain": -2}
    s = position("turn 3 phase LUFTWAFFE\nfrench: fr-I@4912\nrolls: 1 1 6 1", P)
    act(s, "air strike on 4912")
    assert s.battle["shifts"] == {"city": -3}


def test_12_6_stuka_supports_the_west_group():
    s = position("turn 6 phase GERMAN_COMBAT\nfrench: fr-I@4414\ngerman: de-I@4415", P)
    act(s, "attack 4414")
    act(s, ua("de-I"))
    assert STUKA in s.legal_actions()


def test_12_5_stuka_attack_support_two_dice():
    s = position("turn 3 phase GERMAN_COMBAT\nfrench: fr-I@4414\ngerman: de-III@4415\nrolls: 6 5 1", P)
    b = fight(s, "4414", ["de-III"], att_support=STUKA)
    assert b["att_support"] == 11 and b["att_cf"] == 16
