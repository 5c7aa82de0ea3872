"""Supply and panzer scares (rules 7.1-7.9, R10-R12, R36)."""

from __future__ import annotations

import pytest
from conftest import H, U, act, custom_game, plain_game, position, ua

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.game import RulesOptions
from ffo_env.ffo.core.scenario import Side
from ffo_env.ffo.core.state import ON_MAP, Decision

pytestmark = pytest.mark.usefixtures("rules_data")  # conftest.RULES_DATA: figures of reconstruction-v1

P = plain_game()
RING = "de-III@4415 de-IV@4514 de-V@4513 de-VI@4413 de-VII@4313 de-VIII@4314"  # every neighbour of 4414


def test_7_2_enemy_units_cut_supply_enemy_control_does_not():
    s = position(f"turn 3 phase GERMAN_MOVEMENT\nfrench: fr-I@4414\ngerman: {RING}", P, run=False)
    assert not s.is_supplied(U("fr-I"))
    s = position(
        "turn 3 phase GERMAN_MOVEMENT\nfrench: fr-I@4414\ngerman: de-III@4415 de-IV@4514 de-V@4513 "
        "de-VI@4413 de-VIII@4314\ngerman_control: 4313 4213 4212",
        P,
        run=False,
    )
    assert s.is_supplied(U("fr-I"))  # through the German-controlled but empty 4313


def test_7_2_supply_never_crosses_a_blocked_hexside():
    g = custom_game(plain=True, blocked=[("4414", "4313")])
    s = position(
        "turn 3 phase GERMAN_MOVEMENT\nfrench: fr-I@4414\ngerman: de-III@4415 de-IV@4514 de-V@4513 "
        "de-VI@4413 de-VIII@4314",
        g,
        run=False,
    )
    assert not s.is_supplied(U("fr-I"))


def test_7_8_french_supply_from_never_german_cities_and_garrisoned_ports():
    s = position("turn 3 phase GERMAN_MOVEMENT\nfrench: fr-I@4912 fr-III@4414\ndead: garrisons", P, run=False)
    assert s.is_supplied(U("fr-I")) and not s.is_supplied(U("fr-III"))
    s = position(
        "turn 3 phase GERMAN_MOVEMENT\nfrench: fr-I@4912 fr-III@4414\ndead: garrisons\never_german: 4912",
        P,
        run=False,
    )
    assert not s.is_supplied(U("fr-I"))  # a city once German supplies no more
    s = position(
        "turn 3 phase GERMAN_MOVEMENT\nfrench: fr-III@4414\ndead: fr-Tou fr-Can fr-Sete", P, run=False
    )
    assert s.is_supplied(U("fr-III"))  # Marseille's garrison
    s = position("turn 3 phase GERMAN_MOVEMENT\nfrench: fr-III@4414\nevacuated: garrisons", P, run=False)
    assert not s.is_supplied(U("fr-III"))


def test_7_7_r10_west_group_traces_to_yellow_main_force_to_green():
    # a neutral strip down rows YY=03 cuts the yellow row (YY=00) off from everything east of it
    strip = {f"{x:02d}03": "neutral" for x in range(1, 61)}
    g = custom_game(plain=True, terrain=strip)
    s = position("turn 5 phase GERMAN_MOVEMENT\ngerman: de-I@4510 de-III@4512 de-XV@4004", g, run=False)
    assert not s.is_supplied(U("de-I")) and s.is_supplied(U("de-III"))
    assert not s.is_supplied(U("de-XV"))
    s = position("turn 5 phase GERMAN_MOVEMENT\ngerman: de-I@4001", g, run=False)
    assert s.is_supplied(U("de-I"))


def test_r10_french_never_trace_through_green_or_yellow():
    s = position("turn 3 phase GERMAN_MOVEMENT\nfrench: fr-I@4414", P, run=False)
    mask = s._supply_mask(Side.FRENCH, False)
    assert not any(mask[h] for h in s.game.tables.green + s.game.tables.yellow)
    assert mask[H("4414")]


def test_7_1_7_3_r12_oos_movement_die_when_chosen():
    s = position(
        "turn 3 phase FRENCH_MOVEMENT\nfrench: fr-I@4414 br-51@4414 fr-GC@4614\ndead: garrisons\nrolls: 5 6",
        P,
    )
    n = len(s.dice_log)
    act(s, ua("fr-I"))
    assert len(s.dice_log) == n + 1 and "OOS movement" in s.dice_log[-1]["for"]
    assert s.moving_mp() == 4  # 5, but at most 4 for non-mechanized
    act(s, "fr-I stays in 4414")
    act(s, ua("br-51"))
    assert len(s.dice_log) == n + 1 and s.moving_mp() == 5  # R12: the roll of the hex is shared
    act(s, "br-51 stays in 4414")
    act(s, ua("fr-GC"))
    assert s.moving_mp() == 6 and len(s.dice_log) == n + 2


def test_7_1_supplied_unit_rolls_nothing_and_has_its_mf():
    s = position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-I@4414 fr-GC@4614", P)
    n = len(s.dice_log)
    act(s, ua("fr-GC"))
    assert s.moving_mp() == 6 and len(s.dice_log) == n
    assert max(r.mp for r in s.move_destinations().values()) == 6


def test_7_4_defender_oos_shift_is_in_test_rules_combat():
    # see test_rules_combat.test_7_4_attacker_oos_left_and_defender_oos_right
    s = position(f"turn 3 phase GERMAN_MOVEMENT\nfrench: fr-I@4414\ngerman: {RING}", P, run=False)
    assert not s.is_supplied(U("fr-I"))


def test_7_5_oos_units_are_never_reduced_for_it():
    s = position(
        "turn 3 phase REFUGEE_PLACEMENT\nfrench: fr-I@4414\ngerman: de-III@6010\ndead: garrisons\nrolls: 1", P
    )
    while not (s.turn == 4 and s.phase.name == "FRENCH_MOVEMENT"):
        s.apply_action(s.legal_actions()[-1] if s.decision != Decision.REFUGEE_HEX else s.legal_actions()[0])
    assert s.status[U("fr-I")] == ON_MAP and s.steps[U("fr-I")] == 2 and not s.is_supplied(U("fr-I"))


def test_7_6_units_may_move_out_of_supply():
    s = position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-I@4912\ndead: garrisons", P)
    assert s.is_supplied(U("fr-I"))
    act(s, "no rail move")
    act(s, ua("fr-I"))
    act(s, "move fr-I to 4913 (1 MP)")
    assert not s.is_supplied(U("fr-I"))


def test_r11_supply_cache_follows_every_move():
    s = position(
        "turn 3 phase GERMAN_MOVEMENT\nfrench: fr-I@4414\ngerman: de-III@4415 de-IV@4514 de-V@4513 "
        "de-VI@4413 de-VIII@4314 de-VII@4312",
        P,
    )
    assert s.is_supplied(U("fr-I"))
    act(s, ua("de-VII"))
    act(s, "move de-VII to 4313 (1 MP)")
    assert not s.is_supplied(U("fr-I"))


def test_7_9_r36_first_scare_on_one_or_two_then_only_one():
    s = position("turn 3 phase PANZER_SCARE\ngerman: de-XXXIX@4414 de-XV@4000 de-III@4415\nrolls: 2", P)
    assert s.decision == Decision.SCARE_UNIT and s.current_agent == "french"
    assert sorted(s.legal_actions()) == sorted([ua("de-XXXIX"), ua("de-XV")])  # supplied mechanized only
    act(s, ua("de-XV"))
    assert s.scare_unit == U("de-XV") and s.scare_ever
    s = position("turn 3 phase PANZER_SCARE scare_ever\ngerman: de-XXXIX@4414\nrolls: 2", P)
    assert s.decision != Decision.SCARE_UNIT and s.scare_unit == -1
    s = position("turn 3 phase PANZER_SCARE scare_ever\ngerman: de-XXXIX@4414\nrolls: 1", P)
    assert s.decision == Decision.SCARE_UNIT


def test_7_9_oos_mechanized_cannot_be_scared():
    strip = {f"{x:02d}03": "neutral" for x in range(1, 61)}
    g = custom_game(plain=True, terrain=strip, options=RulesOptions(skip_forced=False))
    s = position("turn 3 phase PANZER_SCARE\ngerman: de-XXXIX@4414 de-XV@4510\nrolls: 1", g)
    assert s.legal_actions() == [ua("de-XXXIX")]


def test_7_9_scare_moves_as_oos_defends_normally_and_is_removed_in_2h():
    s = position(
        "turn 3 phase GERMAN_MOVEMENT\nfrench: fr-I@4212\ngerman: de-XXXIX@4414 de-III@4612\n"
        "scare: de-XXXIX\nrolls: 3",
        P,
    )
    n = len(s.dice_log)
    act(s, ua("de-XXXIX"))
    assert len(s.dice_log) == n + 1 and s.moving_mp() == 3
    assert s.is_supplied(U("de-XXXIX"))  # on defence it is supplied (no +1 column for the French)
    s = position("turn 3 phase SCARE_REMOVAL\ngerman: de-XXXIX@4414\nscare: de-XXXIX", P)
    assert s.scare_unit == -1 and s.turn == 4


def test_7_9_no_scare_on_game_turn_1():
    s = position("turn 1 phase PANZER_SCARE\ngerman: de-XXXIX@4414\nrolls: 1", P, run=False)
    n = len(s.dice_log)
    s._run_automatic_steps()
    assert len(s.dice_log) == n and s.scare_unit == -1


def test_7_3_hex_index_helpers_consistent():
    assert hg.hex_name(H("4414")) == "4414"


def test_r10_supply_floods_kept_across_games_are_the_floods_themselves():
    """masks keeps the last floods of the supply network (rules 7.2, 7.7, 7.8, R10) across states and games,
    keyed on the flood's inputs: every mask it gives is the flood of those inputs, the kept ones are never
    written through a state's mask, and no more than FLOODS_KEPT are kept."""
    import random

    from ffo_env.ffo.core import masks
    from ffo_env.ffo.core.search import bits_to_mask, flood_bits

    game = plain_game()
    rng = random.Random(7)
    masks._flood_mask.cache_clear()
    for seed in range(6):
        s = game.new_initial_state(seed)
        for _ in range(120):
            if s.is_terminal():
                break
            for side, west in ((0, False), (1, False), (1, True)):
                got = s.supply_mask(side, west)
                passable = game.passable_bits[side] & ~masks.occupied_bits(s, 1 - side)
                if side == 0:
                    sources = sum(1 << h for h in masks.garrisoned_ports(s))
                else:
                    sources = game.tables.yellow_bits if west else game.tables.green_bits
                assert got == bits_to_mask(flood_bits(game.tables.open_bits, sources, passable))
                got[0] ^= 1  # a state's mask is its own: the kept flood does not change
                assert bytes(got) != masks._flood_mask(game.tables.open_bits, sources, passable)
                got[0] ^= 1
            legal = s.legal_actions()
            s.apply_action(legal[rng.randrange(len(legal))])
    assert 0 < masks._flood_mask.cache_info().currsize <= masks.FLOODS_KEPT
    assert masks._flood_mask.cache_info().hits > 0  # the floods do recur across games
