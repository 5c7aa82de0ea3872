"""German replacements and reinforcements (rules 4.6, 8.1-8.4, 9.1-9.6, R1, R34)."""

from __future__ import annotations

import pytest
from conftest import H, U, act, default_game, fight, plain_game, position, ua

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.state import DEAD, ON_MAP, RESERVE, Decision, Phase

pytestmark = pytest.mark.usefixtures("rules_data")  # conftest.RULES_DATA: figures of reconstruction-v1

P = plain_game()
PASS = P.layout.special(Special.PASS)


def test_8_1_no_replacement_on_game_turn_1():
    s = position("turn 1 phase REPLACEMENT\ngerman: de-III@4414(r)", P)
    assert s.phase != Phase.REPLACEMENT and s.replacement_unit == -1
    s = position("turn 2 phase REPLACEMENT\ngerman: de-III@4414(r)", P)
    assert s.decision == Decision.REPLACEMENT


def test_8_2_replacement_candidates_and_effects():
    from conftest import custom_game

    from ffo_env.ffo.core.game import RulesOptions

    g = custom_game(plain=True, terrain={"4616": "mountain"}, options=RulesOptions(skip_forced=False))
    s = position(
        """turn 3 phase REPLACEMENT
        french: fr-I@4212
        german: de-III@4414(r) de-IV@4211(r) de-V@4616(r) de-VI@4418 de-1Mtn@4420""",
        g,
    )
    # de-IV is next to a French unit, de-V in a mountain, de-VI full, de-1Mtn one-step
    assert sorted(s.legal_actions()) == sorted([ua("de-III"), PASS])
    act(s, ua("de-III"))
    assert s.replacement_unit == U("de-III") and s.immobile[U("de-III")] and s.no_attack[U("de-III")]
    t = position(
        "turn 3 phase GERMAN_MOVEMENT\ngerman: de-III@4414(r)\nimmobile: de-III\nno_attack: de-III\n"
        "replacement: de-III",
        g,
    )
    assert ua("de-III") not in t.legal_actions()


def test_8_2_oos_unit_not_replaced():
    s = position(
        "turn 3 phase REPLACEMENT\nfrench: fr-I@4415 fr-III@4514 fr-VI@4513 fr-VIII@4413 "
        "fr-X@4313 fr-XII@4314\ngerman: de-III@4414(r) de-IV@3010(r)",
        P,
    )
    assert ua("de-III") not in s.legal_actions() and ua("de-IV") in s.legal_actions()


def test_8_3_4_6_completion_restores_the_step_and_a_new_loss_scores_again():
    s = position("turn 3 phase REPLACEMENT_COMPLETION\ngerman: de-III@4414(r)\nreplacement: de-III\nvp 1", P)
    assert s.steps[U("de-III")] == 2 and s.vp == 1  # no VP taken back
    s = position(
        "turn 4 phase GERMAN_COMBAT stuka_used\nfrench: fr-CAC@4415 br-51@4415\n"
        "german: de-III@4414 de-1Mtn@4514\nrolls: 1",
        P,
    )
    fight(s, "4415", ["de-III", "de-1Mtn"])  # 7 - 7 = 0, die 1: AE
    assert s.steps[U("de-III")] == 1 and s.vp_log[0]["vp"] == 1  # reduced again: +1 again


def test_8_4_dead_units_never_come_back():
    s = position("turn 3 phase REPLACEMENT\ngerman: de-IV@4414\ndead: de-III", P)
    assert s.decision != Decision.REPLACEMENT and s.status[U("de-III")] == DEAD


def test_9_1_r01_nine_reinforcement_corps():
    g = default_game()
    groups = {}
    for u in g.units:
        if u.setup == "reinforcement":
            groups.setdefault(u.group, []).append(u.id)
    assert {k: len(v) for k, v in groups.items()} == {"18": 2, "4": 4, "K": 3}
    assert sorted(groups["18"]) == ["de-X", "de-XXVI"]
    assert sorted(groups["K"]) == ["de-XIV", "de-XLI", "de-XVI"]


def test_9_2_r34_18th_army_entry_rolls():
    s = position("turn 2 phase REINFORCEMENT\ngerman: de-III@6010\nrolls: 1 2", P)
    assert s.dice_log[-2]["die"] == 1 and s.dice_log[-1]["die"] == 2
    assert s.decision == Decision.REINFORCE_HEX
    assert set(s.legal_actions()) == set(s.game.tables.green) - {H("6010")}  # no stacking
    act(s, "enter at 6011")
    assert s.loc[U("de-X")] == H("6011") and s.status[U("de-XXVI")] == RESERVE and s.must_leave[U("de-X")]
    s = position("turn 3 phase REINFORCEMENT\nrolls: 2 3\ndead: de-X", P)
    assert s.decision == Decision.REINFORCE_HEX  # GT3: 1-2 enters (de-X is dead: one roll)
    s = position(
        "turn 6 phase REINFORCEMENT\nrolls: 5\ndead: de-XXVI de-I de-II de-XXXVIII de-XV de-XVI de-XLI de-XIV",
        P,
    )
    assert s.dice_log[0]["die"] == 5 and s.decision == Decision.REINFORCE_HEX  # GT6+: 1-5
    s = position("turn 4 phase REINFORCEMENT\nrolls: 4 4", P)
    assert s.decision != Decision.REINFORCE_HEX  # GT4: 1-3 only


def test_9_3_9_4_r34_west_groups_enter_in_the_yellow_row_from_gt5():
    s = position("turn 4 phase REINFORCEMENT\ndead: de-X de-XXVI", P)
    assert not any("entry" in e["for"] for e in s.dice_log)  # nothing to roll before GT5
    s = position("turn 5 phase REINFORCEMENT\ndead: de-X de-XXVI\nrolls: 1 2 2 2", P)
    # 4th Army first (I, II, XXXVIII, XV), then Kleist; only de-I rolled a 1
    assert [e["for"].split()[2] for e in s.dice_log[:4]] == ["de-I", "de-II", "de-XXXVIII", "de-XV"]
    assert s.decision == Decision.REINFORCE_HEX and set(s.legal_actions()) == set(s.game.tables.yellow)
    s = position(
        "turn 9 phase REINFORCEMENT\nreserve: de-XVI\ndead: de-X de-XXVI de-I de-II de-XXXVIII de-XV "
        "de-XLI de-XIV\nrolls: 5",
        P,
    )
    assert s.decision == Decision.REINFORCE_HEX  # GT9+: 1-5


def test_r34_ready_corps_enters_later_without_a_new_roll():
    s = position("turn 3 phase REINFORCEMENT\ndead: de-XXVI\nentry_ready: de-X", P)
    assert not s.dice_log and s.decision == Decision.REINFORCE_HEX


def test_9_5_west_group_attacks_only_with_west_group():
    s = position(
        "turn 6 phase GERMAN_COMBAT stuka_used\nfrench: fr-I@4414\ngerman: de-I@4415 de-XVI@4514 de-III@4413",
        P,
    )
    act(s, "attack 4414")
    act(s, ua("de-I"))
    assert ua("de-XVI") in s.legal_actions() and ua("de-III") not in s.legal_actions()
    s = position(
        "turn 6 phase GERMAN_COMBAT stuka_used\nfrench: fr-I@4414\ngerman: de-I@4415 de-XVI@4514 de-III@4413",
        P,
    )
    act(s, "attack 4414")
    act(s, ua("de-III"))
    assert ua("de-I") not in s.legal_actions() and ua("de-XVI") not in s.legal_actions()


def test_9_6_reinforcements_cannot_act_on_their_turn_of_entry():
    s = position("turn 2 phase REINFORCEMENT\nrolls: 1 1", P)
    seen = []
    while s.turn == 2:
        seen.append(s.phase)
        s.apply_action(s.legal_actions()[0])
    assert Phase.GERMAN_MOVEMENT not in seen and Phase.GERMAN_COMBAT not in seen
    assert s.status[U("de-X")] == ON_MAP and s.turn == 3


def test_r34_full_row_leaves_the_rolled_corps_ready_for_next_turn():
    others = [u.id for u in P.scenario.units if u.side == 1 and u.id != "de-X"]
    green = sorted(P.tables.green)
    assert len(others) == len(green)  # every hex of the green row holds a German unit
    placed = " ".join(f"{uid}@{hg.hex_name(h)}" for uid, h in zip(others, green, strict=True))
    s = position(f"turn 3 phase REINFORCEMENT\ngerman: {placed}\nrolls: 1", P)
    x = U("de-X")
    assert [e["for"].split()[2] for e in s.dice_log if "entry" in e["for"]] == [
        "de-X"
    ]  # GT3: a 1 brings it in ...
    assert s.decision != Decision.REINFORCE_HEX  # ... but no hex of its row is free
    assert s.status[x] == RESERVE and s.entry_ready[x]  # R34: it enters next turn without a new roll
