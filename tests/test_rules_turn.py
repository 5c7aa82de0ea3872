"""Victory and the turn sequence (rules 4.1-4.6, 5.1-5.6, R21, R33, R37)."""

from __future__ import annotations

import random

import pytest
from conftest import U, act, plain_game, position, ua

from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.state import Decision, Phase

pytestmark = pytest.mark.usefixtures("rules_data")  # conftest.RULES_DATA: figures of reconstruction-v1

P = plain_game()
PASS = P.layout.special(Special.PASS)
ORDER = [
    Phase.EVACUATION,
    Phase.FRENCH_MOVEMENT,
    Phase.FRENCH_COMBAT,
    Phase.REFUGEE_RECOVERY,
    Phase.PANZER_SCARE,
    Phase.GERMAN_ORDER,
    Phase.REPLACEMENT,
    Phase.LUFTWAFFE,
    Phase.GERMAN_MOVEMENT,
    Phase.GERMAN_COMBAT,
    Phase.REPLACEMENT_COMPLETION,
    Phase.REINFORCEMENT,
    Phase.REFUGEE_PLACEMENT,
    Phase.SCARE_REMOVAL,
]


def _phases_of_turn(s, turn):
    out = []
    while not s.is_terminal() and s.turn <= turn:
        if s.turn == turn and (not out or out[-1] != s.phase):
            out.append(s.phase)
        s.apply_action(s.legal_actions()[-1])
    return out


def test_4_1_game_ends_after_game_turn_15():
    s = position("turn 15 phase SCARE_REMOVAL\nfrench: fr-I@4414\ngerman: de-III@6010", P)
    assert s.is_terminal() and s.turn == 15 and s.decision == Decision.NONE
    s = position("turn 14 phase SCARE_REMOVAL\nfrench: fr-I@4414\ngerman: de-III@6010", P)
    assert not s.is_terminal() and s.turn == 15


def test_4_1_r21_game_ends_when_the_last_french_unit_leaves_and_cities_count():
    s = position("turn 3 phase EVACUATION\ndead: fr-Tou fr-Can fr-Sete", P)
    act(s, ua("fr-Mar"))
    assert s.is_terminal()
    assert s.vp_breakdown() == {"evacuation": 1, "cities": 20}  # every city still French (rule 4.3)
    assert s.returns() == [-1.0, 1.0]  # 21 < 25


def test_4_3_25_vp_wins():
    s = position("turn 3 phase EVACUATION\ndead: fr-Tou fr-Can fr-Sete\nvp 4", P)
    act(s, ua("fr-Mar"))
    assert s.vp == 25 and s.returns() == [1.0, -1.0]


def test_r21_german_held_cities_score_nothing():
    s = position("turn 15 phase SCARE_REMOVAL\nfrench: fr-I@4414\ngerman: de-III@4912 de-IV@5625", P)
    assert s.vp_breakdown()["cities"] == 18


def test_4_2_vp_may_go_negative():
    s = position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-I@4414\nrefugees: 4415\nvp -3", P)
    act(s, ua("fr-I"))
    act(s, "move fr-I to 4418 (4 MP, -1 VP refugees)")
    assert s.vp == -4 and s.vp == sum(e["vp"] for e in s.vp_log)


def test_5_2_turn_advances_after_the_german_player_turn():
    s = position("turn 5 phase SCARE_REMOVAL\nfrench: fr-I@4414\ngerman: de-III@6010", P)
    assert s.turn == 6 and s.phase in (Phase.EVACUATION, Phase.FRENCH_MOVEMENT)


def test_5_1_5_6_sequence_of_play_and_german_order_choice():
    s = position(
        "turn 3 phase PANZER_SCARE\nfrench: fr-I@4414\ngerman: de-III@4415 de-XXXIX@5010\nrolls: 6", P
    )
    assert s.decision == Decision.GERMAN_ORDER
    assert sorted(s.legal_actions()) == sorted(
        [P.layout.special(Special.MOVE_FIRST), P.layout.special(Special.FIGHT_FIRST)]
    )
    act(s, P.layout.special(Special.FIGHT_FIRST))
    seen = []
    while s.turn == 3:
        if not seen or seen[-1] != s.phase:
            seen.append(s.phase)
        s.apply_action(s.legal_actions()[-1])
    assert seen.index(Phase.GERMAN_COMBAT) < seen.index(Phase.GERMAN_MOVEMENT)


def test_5_1_full_turn_order_in_play():
    g = Game(options=RulesOptions(setup="fixed", skip_forced=False))
    s = g.new_initial_state(5)
    seen = _phases_of_turn(s, 2)
    rank = {p: i for i, p in enumerate(ORDER)}
    movement_first = seen.index(Phase.GERMAN_MOVEMENT) < seen.index(Phase.GERMAN_COMBAT)
    if not movement_first:
        rank[Phase.GERMAN_MOVEMENT], rank[Phase.GERMAN_COMBAT] = (
            rank[Phase.GERMAN_COMBAT],
            rank[Phase.GERMAN_MOVEMENT],
        )
    assert [rank[p] for p in seen] == sorted(rank[p] for p in seen)
    assert seen[0] in (Phase.EVACUATION, Phase.FRENCH_MOVEMENT) and seen[-1] == Phase.REFUGEE_PLACEMENT


def test_5_3_5_4_r33_game_turn_1():
    g = Game(options=RulesOptions(setup="fixed", skip_forced=False))
    s = g.new_initial_state(2)
    seen = _phases_of_turn(s, 1)
    assert (
        seen
        == [
            Phase.FRENCH_MOVEMENT,
            Phase.GERMAN_ORDER,
            Phase.LUFTWAFFE,
            Phase.GERMAN_MOVEMENT,
            Phase.GERMAN_COMBAT,
            Phase.REPLACEMENT_COMPLETION,
            Phase.REFUGEE_PLACEMENT,
            Phase.SCARE_REMOVAL,
        ]
        or Phase.FRENCH_COMBAT not in seen
    )
    assert Phase.FRENCH_COMBAT not in seen and Phase.EVACUATION not in seen and Phase.PANZER_SCARE not in seen
    gt1 = [e for e in s.dice_log if e["turn"] == 1 and "die" in e]
    kinds = {e["for"].split(" (")[0].split(" of ")[0] for e in gt1}
    assert not any(k.startswith(("entry", "panzer scare")) for k in kinds)  # II.F and I.E skipped


def test_5_4_gt1_german_order_forced_move_first():
    s = position("turn 1 phase GERMAN_ORDER\nfrench: fr-I@5514\ngerman: de-III@6010", P)
    assert s.german_move_first and s.decision != Decision.GERMAN_ORDER


def test_5_3_gt1_french_player_turn_is_movement_only():
    s = position("turn 1 phase EVACUATION\nfrench: fr-I@5610 fr-III@1815\ngerman: de-III@5611", P)
    assert s.phase == Phase.FRENCH_MOVEMENT and s.decision == Decision.MOVE_UNIT  # no evacuation, no rail
    while s.phase == Phase.FRENCH_MOVEMENT:
        if s.decision == Decision.MOVE_DEST:
            s.apply_action(s.legal_actions()[0])
        else:
            s.apply_action(s.legal_actions()[0])
    assert s.phase not in (Phase.FRENCH_COMBAT, Phase.PANZER_SCARE)
    assert not any(e["for"].startswith("panzer scare") for e in s.dice_log)


def test_r37_same_seed_same_game_and_every_roll_recorded():
    g = Game(options=RulesOptions(setup="random"))

    def play(seed):
        s = g.new_initial_state(seed)
        r = random.Random(seed)
        while not s.is_terminal() and len(s.history) < 400:
            la = s.legal_actions()
            s.apply_action(la[r.randrange(len(la))])
        return s

    a, b = play(11), play(11)
    assert a.dice_log == b.dice_log and a.history == b.history and a.to_json() == b.to_json()
    assert all("for" in e and ("die" in e or "pick" in e) for e in a.dice_log)
    assert [e["i"] for e in a.dice_log] == list(range(len(a.dice_log)))


def test_4_6_r09_vp_log_matches_vp():
    s = position("turn 3 phase GERMAN_MOVEMENT\ngerman: de-III@4414 de-IV@4416", P)
    act(s, ua("de-III"))
    act(s, "move de-III to 4416 (2 MP)")
    act(s, PASS)
    act(s, ua("de-III"))
    assert s.vp == 3 == sum(e["vp"] for e in s.vp_log) and s.status[U("de-III")] != 1
