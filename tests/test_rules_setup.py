"""Setup, fog of war, hex control and the colored rows (rules 3.1-3.7, 5.3-5.5, 9.2, 9.5, R1-R7)."""

from __future__ import annotations

import pytest
from conftest import H, U, act, custom_game, default_game, fight, hexes, plain_game, position, ua

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core import movement
from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.mapdata import ColoredRow
from ffo_env.ffo.core.scenario import Side
from ffo_env.ffo.core.state import DEAD, ON_MAP, RESERVE, Decision, Phase

pytestmark = pytest.mark.usefixtures("rules_data")  # conftest.RULES_DATA: figures of reconstruction-v1

P = plain_game()
PASS = P.layout.special(Special.PASS)


def _setup_state():
    return default_game().new_initial_state(0)


def test_3_1_two_sides():
    g = default_game()
    sides = [u.side for u in g.units]
    assert sides.count(Side.FRENCH) == 35 and sides.count(Side.GERMAN) == 27
    assert (Side.FRENCH.agent, Side.GERMAN.agent) == ("french", "german")


def test_3_2_r02_french_set_up_first_then_german():
    s = _setup_state()
    seen = []
    while s.phase in (Phase.SETUP_FRENCH, Phase.SETUP_GERMAN):
        seen.append(s.current_agent)
        s.apply_action(s.legal_actions()[0])
    assert seen[0] == "french" and seen[-1] == "german"
    assert seen == sorted(seen, key=lambda a: a != "french")  # one French block, then one German block
    assert seen.count("french") >= 31 and seen.count("german") >= 18  # a unit, then its hex (R2)


def test_3_3_french_setup_hexes():
    s = _setup_state()
    g = s.game
    for u in g.units:
        if u.port:
            assert s.loc[u.index] == g.scenario.map.hex_of_city(u.port)  # garrisons in their ports
    assert len(s.legal_actions()) == 31
    red = g.tables.red
    act(s, ua("fr-41CAF"))
    assert hexes(s.legal_actions()) == {"5923", "5924"}
    act(s, "place in 5923")
    act(s, ua("br-51"))
    assert hexes(s.legal_actions()) == {"5923", "5924"}
    act(s, "place in 5923")
    act(s, ua("fr-I"))
    assert set(s.legal_actions()) == set(red[:-2])  # the other 23 red hexes
    act(s, "place in 5900")
    act(s, ua("fr-III"))
    act(s, "place in 5900")
    act(s, ua("fr-VI"))
    assert H("5900") not in s.legal_actions()  # rule 6.2: two per hex in setup
    act(s, "place in 5901")
    act(s, ua("fr-42CAF"))
    assert hexes(s.legal_actions()) == {"5923", "5924"}  # 5923 holds one fortress corps (the 51st is free)


def test_3_4_german_setup_in_the_green_row():
    s = _setup_state()
    while s.phase == Phase.SETUP_FRENCH:
        s.apply_action(s.legal_actions()[0])
    assert s.current_agent == "german"
    pending = {s.units[a - 1530].id for a in s.legal_actions()}
    assert len(pending) == 18 and not any(s.units[U(x)].group != "main" for x in pending)
    s.apply_action(s.legal_actions()[0])
    assert set(s.legal_actions()) == set(s.game.tables.green)


def test_3_5_4_2_tracks_start_at_turn_1_and_zero_vp():
    s = _setup_state()
    assert s.turn == 1 and s.vp == 0 and not s.vp_log


def test_r02_random_and_fixed_setup():
    for mode in ("random", "fixed"):
        g = Game(options=RulesOptions(setup=mode))
        s = g.new_initial_state(3)
        assert s.phase == Phase.FRENCH_MOVEMENT and s.turn == 1
        mt = g.tables
        for u in g.units:
            if u.side == Side.FRENCH and not u.port:
                assert mt.row[s.loc[u.index]] == ColoredRow.RED
            elif u.side == Side.GERMAN:
                if u.setup == "green":
                    assert mt.row[s.loc[u.index]] == ColoredRow.GREEN
                else:
                    assert s.status[u.index] == RESERVE
        assert all(s._counted(h) <= 2 for h in s.stacks)
        if mode == "fixed":
            assert all(s.loc[g.scenario.unit_index(k)] == h for k, h in g.scenario.fixed_setup.items())


def test_3_6_r03_fog_of_war_reveal_on_declaration_until_the_stack_changes():
    s = position(
        "turn 3 phase GERMAN_COMBAT stuka_used\nfrench: fr-I@4414 br-51@4414\ngerman: de-III@4415\nrolls: 1",
        P,
    )
    assert s.stacks[H("4414")][-1] == U("br-51")  # R3: the last placed is on top
    assert H("4414") not in s.revealed[1]
    fight(s, "4414", ["de-III"])  # +0: AS on die 1? 5 - 6 = -1, die 1: AE
    assert H("4414") in s.revealed[1]
    s2 = position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-I@4414 br-51@4413", P)
    s2.revealed[1].add(H("4414"))
    act(s2, ua("br-51"))
    act(s2, "move br-51 to 4414 (1 MP)")
    assert H("4414") not in s2.revealed[1] and s2.stacks[H("4414")][-1] == U("br-51")


def test_3_7_hex_control():
    s = position("turn 3 phase GERMAN_MOVEMENT\nfrench: fr-I@4214\ngerman: de-III@4414", P)
    mt = s.game.tables
    assert all(s.control[h] == Side.GERMAN for h in mt.green + mt.yellow)
    assert s.control[H("4416")] == Side.FRENCH
    act(s, ua("de-III"))
    r = s.move_destinations()[H("4417")]
    act(s, "move de-III to 4417 (3 MP)")
    assert all(s.control[h] == Side.GERMAN for h in r.path)  # README: control changes along the path
    assert s.ever_german[H("4417")]


def test_r04_red_row_starts_french_and_changes_control():
    s = position("turn 3 phase GERMAN_MOVEMENT\ngerman: de-III@6010", P)
    mt = s.game.tables
    assert all(s.control[h] == Side.FRENCH for h in mt.red)
    assert not any(mt.city[h] for h in mt.red + mt.green + mt.yellow)
    act(s, ua("de-III"))
    r = s.move_destinations()[H("5810")]
    assert any(mt.row[h] == ColoredRow.RED for h in r.path)
    act(s, "move de-III to 5810 (2 MP)")
    assert any(s.control[h] == Side.GERMAN for h in mt.red)


def test_5_5_r05_r06_french_movement_rows():
    s = position("turn 3 phase FRENCH_MOVEMENT\nfrench: fr-GC@4003 fr-I@5610", P)
    mt = s.game.tables
    for uid in ("fr-GC", "fr-I"):
        act(s, ua(uid))
        for h in s.move_destinations():
            assert mt.row[h] in (ColoredRow.NONE,) and not mt.adj_green_or_yellow[h]
        act(s, s.loc[U(uid)])  # stay


def test_5_5_german_never_ends_in_the_red_row():
    s = position("turn 3 phase GERMAN_MOVEMENT\ngerman: de-XXXIX@5810", P)
    act(s, ua("de-XXXIX"))
    assert not any(s.game.tables.row[h] == ColoredRow.RED for h in s.move_destinations())
    assert any(
        s.game.tables.row[h] == ColoredRow.GREEN for h in s.move_destinations()
    )  # main force may go back


def test_5_5_r05_french_attack_into_yellow_but_no_advance():
    s = position(
        "turn 5 phase FRENCH_COMBAT stuka_used\nfrench: fr-I@4001\ngerman: de-I@4000(r)\nrolls: 6", P
    )
    assert H("4000") in s.legal_actions()
    b = fight(s, "4000", ["fr-I"])  # 3 - 2 = +1, die 6: DE
    assert b["result"] == "DE" and s.status[U("de-I")] == DEAD
    assert s.decision != Decision.ADVANCE_UNIT and s.loc[U("fr-I")] == H("4001")


def test_5_3_r07_gt1_french_must_leave_the_red_row():
    s = position("turn 1 phase FRENCH_MOVEMENT\nfrench: fr-I@5910 fr-III@5912", P)
    mt = s.game.tables
    assert sorted(s.legal_actions()) == sorted([ua("fr-I"), ua("fr-III")])  # no END yet
    act(s, ua("fr-I"))
    assert H("5910") not in s.legal_actions()  # may not stay
    assert s.move_destinations() and all(
        not mt.adj_red[h] and mt.row[h] != ColoredRow.RED for h in s.move_destinations()
    )
    act(s, max(s.move_destinations(), key=lambda h: -mt.row[h]))
    assert PASS not in s.legal_actions()
    act(s, ua("fr-III"))
    act(s, next(iter(s.move_destinations())))
    assert PASS in s.legal_actions()


def test_5_3_r07_gt1_french_violator_eliminated_without_vp():
    s = position(
        "turn 1 phase FRENCH_MOVEMENT\nfrench: fr-I@5910 fr-III@5614\n"
        "german: de-III@5909 de-IV@5911 de-V@5810 de-VI@5811",
        P,
    )
    act(s, ua("fr-I"))
    assert s.legal_actions() == [H("5910")]  # no compliant destination: it stays
    act(s, H("5910"))
    act(s, ua("fr-III"))
    act(s, H("5614"))  # already out of and not next to the red row: may stay
    act(s, PASS)
    assert s.status[U("fr-I")] == DEAD and s.vp == 0 and not s.vp_log
    assert s.status[U("fr-III")] == ON_MAP


def test_5_4_r07_gt1_german_must_leave_green_and_red():
    s = position("turn 1 phase GERMAN_MOVEMENT\ngerman: de-III@6010 de-IV@6012", P)
    assert PASS not in s.legal_actions()
    act(s, ua("de-III"))
    mt = s.game.tables
    assert all(mt.row[h] not in (ColoredRow.GREEN, ColoredRow.RED) for h in s.move_destinations())
    assert H("6010") not in s.legal_actions()
    g = custom_game(
        plain=True,
        blocked=[("6010", nb) for nb in ("6009", "6011", "5909", "5910")],
        options=RulesOptions(skip_forced=False),
    )
    s = position("turn 1 phase GERMAN_MOVEMENT\ngerman: de-III@6010", g)
    act(s, ua("de-III"))
    act(s, H("6010"))
    act(s, PASS)
    assert s.status[U("de-III")] == DEAD and s.vp == 0


def test_9_2_r07_18th_army_must_leave_then_stay_out():
    s = position("turn 4 phase GERMAN_MOVEMENT\ngerman: de-X@6010 de-III@4414", P)
    assert PASS not in s.legal_actions()
    act(s, ua("de-X"))
    mt = s.game.tables
    assert all(mt.row[h] == ColoredRow.NONE for h in s.move_destinations())
    act(s, "move de-X to 5810 (2 MP)")
    assert s.left_green[U("de-X")] and not s.must_leave[U("de-X")]
    assert PASS in s.legal_actions()
    blocked = movement.blocked_for(s, U("de-X"))
    assert all(blocked[h] for h in mt.green + mt.red)


def test_9_2_18th_army_never_retreats_back_into_the_rows():
    s = position(
        "turn 4 phase FRENCH_COMBAT stuka_used\nfrench: fr-GC@5709 fr-3DCR@5710\ngerman: de-X@5810\nrolls: 2",
        P,
    )
    b = fight(s, "5810", ["fr-GC", "fr-3DCR"])  # 9 - 5 = +4, die 2: DR
    assert b["result"] == "DR" and s.decision == Decision.RETREAT
    assert hexes(s.legal_actions()) == {"5809", "5811"}  # not 5909/5910 (red), not the origins


def test_9_5_west_group_yellow_row():
    s = position("turn 6 phase GERMAN_MOVEMENT\ngerman: de-I@4000", P)
    act(s, ua("de-I"))
    mt = s.game.tables
    d = s.move_destinations()
    yellow = [h for h in d if mt.row[h] == ColoredRow.YELLOW]
    assert yellow, "may maneuver within the yellow row"
    for h in yellow:  # never leaving the yellow row and coming back in one move
        assert all(mt.row[x] == ColoredRow.YELLOW for x in d[h].path)
    act(s, "move de-I to 4001 (1 MP)")
    assert s.entered_map[U("de-I")]
    s = position("turn 6 phase GERMAN_MOVEMENT\ngerman: de-I@4001", P)
    act(s, ua("de-I"))
    assert not any(mt.row[h] == ColoredRow.YELLOW for h in s.move_destinations())  # never back


def test_9_5_no_return_search_never_re_enters_yellow():
    g = custom_game(plain=True, options=RulesOptions(skip_forced=False))
    s = position("turn 6 phase GERMAN_MOVEMENT\ngerman: de-XV@3900", g)
    act(s, ua("de-XV"))
    mt = s.game.tables
    for h, r in s.move_destinations().items():
        rows = [mt.row[x] == ColoredRow.YELLOW for x in r.path]
        assert rows == sorted(rows, reverse=True), hg.hex_name(h)  # yellow first, then the map only


def test_9_2_9_5_search_never_comes_back_into_a_region_it_left():
    from ffo_env.ffo.core.search import reachable

    g = custom_game(plain=True, terrain={"4415": "mountain"})
    region = bytearray(hg.N_HEX)
    for h in ("4414", "4415", "4416"):
        region[H(h)] = 1
    free = bytearray(hg.N_HEX)
    assert reachable(g.tables, H("4414"), 6, free, None, 1)[H("4416")].mp == 3  # around the mountain
    r = reachable(g.tables, H("4414"), 6, free, None, 1, region)[H("4416")]
    assert r.mp == 4 and r.path == (H("4415"), H("4416"))  # through it, never out and back in
