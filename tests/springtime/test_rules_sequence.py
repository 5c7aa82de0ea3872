"""The rest of the sequence of play, Events, Advantage, Refit, supply and victory (rules 6, 9, 11-14, 16;
S14-S20, S23, S43, S45, S50; P3-P6), each checked on a hand-built position or a seeded game."""

from __future__ import annotations

import random

from ffo_env.springtime.core import Game, flow, maneuver
from ffo_env.springtime.core import events as ev
from ffo_env.springtime.core.state import ELIM, GONE, MAP

from .sfh_helpers import RulesOptions, act, legal_texts, play_texts, position

NO_SKIP = RulesOptions(skip_forced=False)


def _decisions_until(s, stop: str, limit: int = 50) -> list[str]:  # type: ignore[no-untyped-def]
    seen = []
    while s.decision != stop and limit:
        seen.append(s.decision)
        act(s, legal_texts(s)[0])
        limit -= 1
    return seen


def test_6_1_6_1_1_s14_s20_political_phase_order() -> None:
    s = position(
        "turn 2 box 10 advantage none\nallied: FR-8A@20 BE-ARMY@13\naxis: DE-1A@2\nheld: allied 4\nrolls: 6",
        NO_SKIP,
    )
    act(s, "pass")  # box 10: the phase ends whatever the die
    play_texts(s, "no", "no")  # refit
    play_texts(s, "no", "no")  # End Phase: play New Squadrons? no; discard? no
    assert (s.turn, s.phase, s.decision, s.current_agent) == (3, "political", "draw", "french")
    act(s, "yes")  # 6.1.1: discard face down, then draw
    assert s.draws[0] == 1 and s.held[0] != 0
    kinds = [d["for"].split(" (")[0] for d in s.dice_log if "pick" in d or "Belgian" in d["for"]][-3:]
    assert kinds == ["allied event draw", "axis event draw", "Belgian surrender"]  # S20 (b), (c)


def test_s15_a_marker_of_the_other_side_cannot_be_played() -> None:
    s = position("turn 2 box 1 advantage none\nallied: FR-8A@20\naxis: DE-1A@2\nheld: allied 9", NO_SKIP)
    # Refugees is an Axis marker: the Allies are asked (P10: the window opens for any held marker), but
    # they may only decline
    assert s.decision == "event" and legal_texts(s) == ["no"]


def test_s16_15_1_allies_may_play_at_the_start_of_a_turn_1_axis_impulse() -> None:
    for seed in range(100):
        s = Game(options=NO_SKIP).new_initial_state(seed)
        if ev.playable(s, 0, "T1"):
            act(s, legal_texts(s)[0])  # Kleist
            seen = _decisions_until(s, "declare")
            assert "event" in seen
            return
    raise AssertionError("no seed gives the Allies a playable marker on Turn 1")


def test_s17_6_4_3_new_squadrons_lasts_until_it_returns_to_the_container() -> None:
    s = position(
        "turn 2 box 9 advantage none\nallied: FR-8A@20\naxis: DE-1A@2\nheld: allied 4\nrolls: 1", NO_SKIP
    )
    act(s, "yes")
    assert s.allied_air_full and s.impulse_track == [4]
    play_texts(s, "pass", "pass")  # box 10 (Axis): the phase ends
    play_texts(s, "no", "no")
    assert not s.allied_air_full and 4 in s.container  # S51 (3)


def test_s19_de_gaulle_and_operation_dynamo() -> None:
    s = position("turn 2 box 1 advantage none\nallied: FR-8A@20\naxis: DE-1A@2\nheld: allied 1", NO_SKIP)
    act(s, "yes")
    assert s.decision == "event_loc" and "@25" in legal_texts(s) and "@A" not in legal_texts(s)
    act(s, "@25")
    g = s.game
    dcr = g.unit_ids.index("FR-4DCR")
    assert s.status[dcr] == MAP and not s.reduced[dcr] and 1 in s.turn_track
    s = position(
        "turn 2 box 1 advantage none\nallied: GB-BEF@14 FR-1A@14 FR-9A@14 FR-7A@14\naxis: DE-XIX@15\nheld: allied 3",
        NO_SKIP,
    )
    act(s, "yes")
    assert s.decision == "event_units" and legal_texts(s) == ["no", "FR-1A", "FR-7A", "FR-9A"]
    play_texts(s, "FR-1A", "FR-9A")
    assert s.status[g.unit_ids.index("GB-BEF")] == GONE and s.status[g.unit_ids.index("FR-1A")] == ELIM
    assert s.status[g.unit_ids.index("FR-7A")] == MAP and s.morale == 30  # no Morale change


def test_11_1_5_11_2_s39_draw_extra_event_then_the_advantage_passes() -> None:
    s = position("turn 2 box 1 advantage allied\nallied: FR-8A@20\naxis: DE-1A@2\nheld: allied 9", NO_SKIP)
    assert legal_texts(s) == ["no", "draw-extra"]
    act(s, "draw-extra")
    assert s.draws[0] == 1 and s.held[0] != 9 and any(d.get("discarded") == 9 for d in s.draw_log[0])
    assert s.advantage == 0 and s.adv_used_by == 0
    _decisions_until(s, "declare") if s.decision != "declare" else None
    act(s, "pass")
    assert s.advantage == 1 and s.adv_used_by == -1  # 11.2
    s = position("turn 2 box 1 advantage allied\nallied: FR-8A@20\naxis: DE-1A@2", NO_SKIP)
    s2 = s.clone()
    s2.draws = [2, 0]
    assert not flow.can_draw_extra(s2, 0)  # at most two draws a turn


def test_s23_impulse_steps_in_order_on_turn_1() -> None:
    s = Game(options=NO_SKIP).new_initial_state(3)
    seen = [s.decision] + _decisions_until(s, "declare")
    order = [d for d in ("kleist", "advantage", "event", "declare") if d in seen or d == "declare"]
    assert seen[0] == "kleist" and [d for d in seen if d in order] == sorted(
        [d for d in seen if d in order], key=order.index
    )


def test_s43_out_of_supply_is_judged_at_the_end_of_the_impulse() -> None:
    s = position(
        """
        turn 2 box 2 advantage none
        allied: FR-2A@17
        axis: DE-XIX@11 DE-XLI@23
        axis_control: 12 15 16 18
        """,
        NO_SKIP,
    )
    g = s.game
    play_texts(s, "assault K", "DE-XLI", "@24")
    fr2a = g.unit_ids.index("FR-2A")
    assert not s.oos[fr2a] and not s.in_supply(fr2a)  # cut off now; the marker comes at the end
    play_texts(s, "no")  # the step decision: stop
    act(s, "no")  # end the impulse
    assert s.oos[fr2a]


def test_13_2_2_out_of_supply_armor_loses_one_mf() -> None:
    s = position("turn 2 box 2 advantage none\nallied: FR-8A@20\naxis: DE-XIX@11(oos) DE-XIV@11(oos)")
    g = s.game
    assert maneuver.mf(s, g.unit_ids.index("DE-XIX"), "assault") == 3
    assert maneuver.mf(s, g.unit_ids.index("DE-XIV"), "assault") == 4  # infantry: no penalty


def test_8_1_2_13_2_3_out_of_supply_units_neither_redeploy_nor_refit() -> None:
    s = position("turn 2 box 2 advantage none rp 5 5\nallied: FR-8A@20\naxis: DE-XIX@11(oos)(r) DE-1A@2")
    assert "redeploy 11" not in legal_texts(s)
    s.phase, s.refit_ctx = "refit", {"side": 1}
    s.ask("refit", 1)
    assert legal_texts(s) == ["no"]


def test_13_1_13_1_1_13_1_2_13_1_3_13_1_4_supply_sources_by_nationality() -> None:
    s = position(
        """
        turn 2 box 2 advantage none
        allied: BE-ARMY@13 NL-ARMY@8 GB-BEF@14 FR-ALP@E
        axis: IT-W@E DE-1A@2
        axis_control: 30
        """
    )
    g = s.game
    u = g.unit_ids.index
    assert s.sources(u("DE-1A")) == g.east and s.sources(u("IT-W")) == {g.zone_f}
    assert s.sources(u("BE-ARMY")) == g.belgian and s.sources(u("NL-ARMY")) == g.dutch
    assert s.sources(u("GB-BEF")) == g.supply_zones
    assert all(s.in_supply(x) for x in s.on_map())  # E is Contested: both trace through it


def test_s45_13_2_5_cut_off_vacant_locations_change_control() -> None:
    s = position(
        """
        turn 2 box 2 advantage none
        allied: FR-8A@20
        axis: DE-XIX@17 DE-XLI@16 DE-4A@12
        axis_control: 15 11
        """
    )
    g = s.game
    s.cont = "surrender"
    flow.surrender(s)
    # the vacant northern pocket 7-10, 13, 14 cannot reach Zones A-E (11, 12, 15, 16, 17 are Axis), and the
    # Belgian and Dutch Areas are sources only while those armies are on the map (S45): all six pass over
    pocket = ["7", "8", "9", "10", "13", "14"]
    assert all(s.control[g.loc_ids.index(x)] == 1 for x in pocket)
    assert s.control[g.loc_ids.index("24")] == 0 and s.morale == 29  # only 14 is French (C§7.6)


def test_16_1_1_12_4_morale_zero_ends_the_game_before_refit() -> None:
    s = position("turn 3 box 2 advantage none morale 0\nallied: FR-8A@20\naxis: DE-1A@2\nrolls: 1", NO_SKIP)
    act(s, "pass")
    assert s.is_terminal() and s.result == "automatic" and s.phase == "over"


def test_s50_6_1_2_no_belgian_check_on_turn_1() -> None:
    s = Game().new_initial_state(0)
    assert not any("Belgian" in d["for"] for d in s.dice_log)


def test_12_1_12_2_12_3_1_refit_allied_first_then_axis_rp_carry_over() -> None:
    s = position(
        "turn 2 box 2 advantage none rp 2 3\nallied: FR-8A@20(r)\naxis: DE-1A@2(r)\nrolls: 1", NO_SKIP
    )
    act(s, "pass")
    assert (s.phase, s.decision, s.current_agent) == ("refit", "refit", "french")
    act(s, "FR-8A")
    assert s.rp == [1, 3] and not s.reduced[s.game.unit_ids.index("FR-8A")]
    act(s, "no")
    assert s.current_agent == "german"
    play_texts(s, "no")
    assert s.rp == [1, 3]  # unspent RPs carry over (12.2)


def test_12_3_2_12_3_3_who_is_rebuilt_where() -> None:
    s = position(
        """
        turn 2 box 2 advantage none rp 20 20
        allied: FR-8A@20
        axis: DE-1A@2 DE-XIX@E
        axis_control: E
        elim: BE-ARMY IT-W DE-7A FR-9A
        flags: italy_at_war
        """
    )
    s.phase, s.refit_ctx = "refit", {"side": 0}
    s.ask("refit", 0)
    assert "rebuild BE-ARMY full" not in legal_texts(s)  # never rebuilt
    s.refit_ctx = {"side": 1, "unit": s.game.unit_ids.index("IT-W"), "full": True}
    s.ask("refit_loc", 1)
    assert legal_texts(s) == ["@F"]
    s.refit_ctx = {"side": 1, "unit": s.game.unit_ids.index("DE-7A"), "full": True}
    s._legal = None
    # German units: Axis-controlled, no enemy unit there, never Zone F (E is Axis but held by no Allied unit)
    assert "@E" in legal_texts(s)
    assert "@F" not in legal_texts(s) and "@2" in legal_texts(s) and "@20" not in legal_texts(s)


def test_14_2_s3_zones_have_no_stacking_limit() -> None:
    s = position(
        "turn 2 box 2 advantage none\nallied: FR-1A@A FR-2A@A FR-3A@A FR-4A@A FR-5A@A FR-6A@A\naxis: DE-1A@2"
    )
    assert not s.full(s.game.loc_ids.index("A"), 0)
    assert s.full(s.game.loc_ids.index("A"), 0) is False and len(s.units_at(s.game.loc_ids.index("A"))) == 6


def test_9_3_2_14_1_zones_connect_only_along_their_lines() -> None:
    g = Game()
    z = {g.loc_ids[n] for n, _ in g.data.adjacency[g.loc_ids.index("C")]}
    assert z == {"28", "29", "B", "D"}


def test_7_2_7_3_7_4_7_5_control_contested_vacant_free() -> None:
    s = position("turn 2 box 2 advantage none\nallied: FR-2A@17 FR-9A@12\naxis: DE-XIX@17 DE-XLI@11")
    g = s.game
    l17, l12, l11 = (g.loc_ids.index(x) for x in ("17", "12", "11"))
    assert s.contested(l17) and s.control[l17] == 0  # 7.3: contesting does not change control
    assert s.free(l12, 0) and not s.free(l12, 1) and not s.free(l17, 0)
    assert s.control[l11] == 1  # 7.2: the sole occupant controls


def test_8_1_3_8_2_s53_pass_and_illegal_actions() -> None:
    s = position("turn 2 box 2 advantage none\nallied: FR-8A@20\naxis: DE-1A@2", NO_SKIP)
    before = s.to_dict()
    try:
        s.apply_action(200)
    except ValueError:
        pass
    assert s.to_dict() == before
    act(s, "pass")
    assert s.dice_log[0]["for"].startswith("Logistics")  # 8.1.3: the Axis still rolls


def test_9_1_9_1_1_9_2_1_units_move_one_at_a_time_and_attack_later() -> None:
    s = position(
        """
        turn 2 box 2 advantage none
        allied: FR-2A@17 FR-9A@12
        axis: DE-XIX@11 DE-XLI@11
        """,
        NO_SKIP,
    )
    play_texts(s, "assault K", "DE-XIX", "@17")
    assert legal_texts(s) == ["combat 17", "DE-XLI"]  # resolve now, or move another unit first
    play_texts(s, "DE-XLI", "@12")
    assert legal_texts(s) == ["combat 12", "combat 17"]


def test_9_1_2_4_4_1_s9_kleist_moves_with_his_unit() -> None:
    s = position("turn 2 box 2 advantage none\nallied: FR-8A@20\naxis: DE-XIX@11\nkleist: DE-XIX")
    play_texts(s, "assault K", "DE-XIX", "@17")
    assert s.leader_rating(s.game.unit_ids.index("DE-XIX")) == 2


def test_9_3_9_3_1_stacking_counts_only_units_of_the_moving_side() -> None:
    s = position(
        """
        turn 2 box 2 advantage none
        allied: FR-1A@13 FR-PRIOUX@13 FR-1DCR@13 GB-BEF@13 BE-ARMY@13
        axis: DE-6A@10
        """,
        NO_SKIP,
    )
    play_texts(s, "assault B", "DE-6A")
    assert "@13" in legal_texts(s)  # S8: the enemy's five do not count


def test_p4_p5_no_empty_declarations_and_a_selected_unit_moves() -> None:
    s = position("turn 2 box 2 advantage none\nallied: FR-8A@20\naxis: DE-1A@2", NO_SKIP)
    assert [t for t in legal_texts(s) if t.startswith("assault")] == ["assault C"]  # only C is on the map
    play_texts(s, "assault C", "DE-1A")
    assert "no" not in legal_texts(s)  # P5


def test_p6_zone_f_stays_axis() -> None:
    s = Game().new_initial_state(0)
    assert s.control[s.game.zone_f] == 1
    s.control = [0] * s.game.n_locs
    s.control[s.game.zone_f] = 1
    s.cont = "surrender"
    flow.surrender(s)
    assert s.control[s.game.zone_f] == 1


def test_p3_an_attacker_retreats_where_it_came_from() -> None:
    s = position(
        """
        turn 2 box 2 advantage none
        allied: FR-9A@12
        axis: DE-4A@10
        rolls: 1 1 6 6
        """,
        NO_SKIP,
    )
    play_texts(s, "assault A", "DE-4A", "@12", "combat 12", "DE-4A", "FR-9A", "no", "no", "DE-4A")
    assert s.loc[s.game.unit_ids.index("DE-4A")] == s.game.loc_ids.index("10")


def test_6_2_6_3_6_4_6_4_2_turns_follow_the_sequence() -> None:
    g = Game()
    s = g.new_initial_state(9)
    rng = random.Random(9)
    phases = []
    while s.turn < 3 and not s.is_terminal():
        if not phases or phases[-1] != (s.turn, s.phase):
            phases.append((s.turn, s.phase))
        s.apply_action(rng.choice(s.legal_actions()))
    order = ["political", "maneuver", "refit", "end"]
    seq = [p for t, p in phases if t == 2]
    assert "maneuver" in seq and seq == sorted(seq, key=order.index)
    assert phases[0] == (1, "maneuver") and (2, "maneuver") in phases


def test_6_4_1_6_4_5_armistice_roll_only_at_morale_5_or_less() -> None:
    s = position("turn 3 box 2 advantage none morale 6\nallied: FR-8A@20\naxis: DE-1A@2\nrolls: 1", NO_SKIP)
    act(s, "pass")
    play_texts(s, "no", "no")
    assert not any("Armistice" in d["for"] for d in s.dice_log) and s.turn == 4
