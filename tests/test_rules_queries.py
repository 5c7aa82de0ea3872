"""Public rule queries of the core (issue 20 part 3): battle preview (R26), movement points (rules 7.1,
7.3, R12), control (rule 3.7), the end of the game (rule 4.1, R21), fog of war (rule 3.6, R3)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from conftest import RULES_DATA, H, U, act, plain_game, position, ua

from ffo_env.ffo.core.combat_odds import SHIFT_RULES
from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.scenario import Side, scenario_for
from ffo_env.ffo.core.state import ON_MAP, Decision
from ffo_env.ffo.core.visibility import unit_visible
from ffo_env.ffo.encoding.fog import stack_view, visible_units

pytestmark = pytest.mark.usefixtures("rules_data")  # conftest.RULES_DATA: figures of reconstruction-v1

P = plain_game()
RANDOM = Game(scenario=scenario_for(RULES_DATA), options=RulesOptions(setup="random"))


def _playout_states(seed: int, limit: int = 3000):
    r = random.Random(seed)
    s = RANDOM.new_initial_state(seed)
    for _ in range(limit):
        if s.is_terminal():
            return
        yield s
        la = s.legal_actions()
        s.apply_action(la[r.randrange(len(la))])


def test_r26_battle_preview_is_the_engines_arithmetic_for_every_ground_battle_of_random_games():
    checked = 0
    for seed in range(4):
        for s in _playout_states(seed):
            b = s.battle
            if s.decision != Decision.LOWER or b["air"]:
                continue
            pv = s.battle_preview(
                b["target"],
                list(b["attackers"]),
                att_support=b.get("att_support", 0),
                def_support=b.get("def_support", 0),
            )
            assert (pv.att_cf, pv.def_cf, pv.differential) == (b["att_cf"], b["def_cf"], b["differential"])
            assert {x.cause: x.columns for x in pv.shifts} == {
                k: v for k, v in b["shifts"].items() if k != "city"
            }
            assert all(x.rule == SHIFT_RULES[x.cause] for x in pv.shifts)
            assert pv.city_die == ("city" in b["shifts"])
            assert pv.columns.get(b["column"], 0.0) > 0  # the column the engine rolled is a possible one
            if not pv.city_die:
                assert pv.column == b["column"] and pv.columns == {b["column"]: 1.0}
            assert abs(sum(pv.outcomes.values()) - 1.0) < 1e-9
            checked += 1
    assert checked >= 5


def test_13_16_r26_battle_preview_city_die_and_distribution():
    s = position(
        """turn 3 phase GERMAN_COMBAT stuka_used
        french: fr-I@4414
        german: de-III@4415 de-IV@4413""",
        P,
    )
    pv = s.battle_preview(H("4414"), [U("de-III"), U("de-IV")])
    assert pv.defenders == (U("fr-I"),) and pv.att_cf == s.cf(U("de-III")) + s.cf(U("de-IV"))
    assert [x.cause for x in pv.shifts] == ["concentric"] and pv.shifts[0].rule == SHIFT_RULES["concentric"]
    assert not pv.city_die and pv.columns == {pv.column: 1.0}
    crt = s.game.scenario.tables.crt
    want: dict[str, float] = {}
    for die in range(1, 7):
        want[crt.result(pv.column, die)] = want.get(crt.result(pv.column, die), 0.0) + 1 / 6
    assert pv.outcomes == want


def test_r26_battle_preview_rejects_an_attack_on_an_empty_hex_or_own_units():
    s = position("turn 3 phase GERMAN_COMBAT stuka_used\nfrench: fr-I@4414\ngerman: de-III@4415", P)
    for target, att in (("4416", ["de-III"]), ("4415", ["de-III"])):
        try:
            s.battle_preview(H(target), [U(x) for x in att])
        except ValueError as e:
            assert target in str(e)
        else:
            raise AssertionError("no error")


def test_7_3_r12_movement_points_supplied_mf_or_the_oos_die_once_rolled():
    s = position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-I@4414\nrolls: 1", P)
    assert s.movement_points(U("fr-I")) == s.mf(U("fr-I"))
    s = position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-I@4414\ndead: garrisons\nrolls: 2", P)
    assert not s.is_supplied(U("fr-I")) and s.movement_points(U("fr-I")) is None  # die not rolled yet
    act(s, ua("fr-I"))
    assert s.movement_points(U("fr-I")) == 2 == s.moving_mp()


def test_3_7_controller():
    s = position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-I@4414\ngerman_control: 4416", P)
    assert s.controller(H("4416")) == Side.GERMAN and s.controller(H("4414")) == Side.FRENCH


def test_4_1_r21_destroying_the_last_french_units_ends_the_game():
    s = position(
        "turn 3 phase GERMAN_COMBAT stuka_used\nfrench: fr-I@4414\ndead: garrisons\ngerman: de-III@4415", P
    )
    assert s.destroying_ends_game(H("4414")) and not s.destroying_ends_game(H("4415"))
    s = position("turn 3 phase GERMAN_COMBAT stuka_used\nfrench: fr-I@4414\ngerman: de-III@4415", P)
    assert not s.destroying_ends_game(H("4414"))  # the port garrisons are still there
    s = position(
        "turn 15 phase GERMAN_COMBAT stuka_used\nfrench: fr-I@4414\ndead: garrisons\ngerman: de-III@4415", P
    )
    assert not s.destroying_ends_game(H("4414"))  # the game ends after this turn anyway (rule 4.1)


def test_3_6_r3_core_visibility_and_the_encoders_fog_agree_on_random_games():
    n = len(RANDOM.units)
    german = np.array([u.side == Side.GERMAN for u in RANDOM.units])
    checked = 0
    for seed in range(2):
        for k, s in enumerate(_playout_states(seed, 1500)):
            if k % 37:
                continue
            loc = np.array([s.loc[u] for u in range(n)], dtype=np.int64)
            on = np.array([s.status[u] == ON_MAP for u in range(n)])
            sv = stack_view(s, german)
            for viewer in (0, 1):
                own = german if viewer == 1 else ~german
                fog = visible_units(s, viewer, loc, on, own, sv.tops)
                assert fog.tolist() == [unit_visible(s, viewer, u) for u in range(n)]
                for h in s.stacks:
                    seen = s.seen_stack(viewer, h)
                    assert seen is not None and len(seen.known) + seen.hidden == len(s.stacks[h])
                    assert all(unit_visible(s, viewer, u) for u in seen.known)
            checked += 1
    assert checked > 10


def test_decision_unit_and_move_destinations():
    s = position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-I@4414\nrolls: 1", P)
    assert s.decision_unit() == -1 == s.selected_unit() and not s.move_destinations()
    act(s, ua("fr-I"))
    assert s.decision == Decision.MOVE_DEST and s.decision_unit() == U("fr-I") == s.selected_unit()
    dests = s.move_destinations()
    assert (
        dests and set(dests) <= set(s.legal_actions()) and all(r.mp <= s.moving_mp() for r in dests.values())
    )


def test_3_6_r03_r24_battle_preview_for_a_viewer_uses_only_what_it_sees_of_the_stack():
    s = position(
        """turn 3 phase FRENCH_COMBAT
        french: fr-I@4218
        german: de-XL@4219 de-XXXIX@4219""",
        P,
    )
    lyon, attackers = H("4219"), [U("fr-I")]
    full = s.battle_preview(lyon, attackers)
    seen = s.battle_preview(lyon, attackers, viewer=Side.FRENCH)
    assert full.defenders == (U("de-XL"), U("de-XXXIX")) and full.hidden_defenders == 0
    # rule 3.6: the French see the top unit (the panzer corps) and that one more unit is under it
    assert seen.defenders == (U("de-XXXIX"),) and seen.hidden_defenders == 1
    assert seen.def_cf == s.cf(U("de-XXXIX")) and full.def_cf == seen.def_cf + s.cf(U("de-XL"))
    assert seen.att_cf == full.att_cf
    # R24, rule 13.16: a panzer corps alone defends a city as clear terrain; the hidden unit may not be one
    assert seen.city_die and full.city_die
    alone = position(
        """turn 3 phase FRENCH_COMBAT
        french: fr-I@4218
        german: de-XXXIX@4219""",
        P,
    )
    assert not alone.battle_preview(lyon, attackers, viewer=Side.FRENCH).city_die
    # R3: declaring the attack reveals the stack, and then the viewer's preview is the full one
    act(s, "attack 4219")
    assert s.battle_preview(lyon, attackers, viewer=Side.FRENCH) == s.battle_preview(lyon, attackers)
    # the owner always sees its own stack
    assert s.battle_preview(lyon, attackers, viewer=Side.GERMAN) == s.battle_preview(lyon, attackers)


def test_4_3_r21_city_vp_if_ended_is_what_the_end_of_the_game_awards():
    """``city_vp_if_ended`` (the potential of the envs' reward="potential") is the city VP the end would add
    (rule 4.3), checked against the real end of random games whose last action changed no city's control;
    it is 0 once the game is over."""
    game = plain_game(setup="random")
    checked = 0
    for seed in range(3):
        s = game.new_initial_state(seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            before, cities = s.city_vp_if_ended(), s.french_cities()
            s.apply_action(rng.choice(s.legal_actions()))
        assert s.city_vp_if_ended() == 0
        if s.french_cities() == cities:
            assert s.vp_breakdown().get("cities", 0) == before == len(cities)
            checked += 1
    assert checked >= 1
    s = position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-I@4414\ngerman_control: 4912 5625", P)
    assert s.city_vp_if_ended() == 18 and H("4912") not in s.french_cities()
