"""The sequence of play (rules 6, 12, 13, 15, 16, 19; S9, S11, S14, S18, S20-S23, S40, S44-S51, S55)."""

from __future__ import annotations

from ffo_env.springtime.core import Game, flow
from ffo_env.springtime.core import events as ev
from ffo_env.springtime.core.state import ELIM, GONE, MAP

from .sfh_helpers import RulesOptions, act, legal_texts, play_texts, position

NO_SKIP = RulesOptions(skip_forced=False)


def test_5_1_15_2_campaign_starts_at_axis_impulse_6_with_draws() -> None:
    s = Game().new_initial_state(5)
    assert (s.turn, s.box, s.phase, s.current_agent) == (1, 6, "maneuver", "german")
    assert s.held[0] and s.held[1] and s.draws == [1, 1]  # 6.1.1: each player drew one marker
    assert s.held[1] != ev.AIR_SUPREMACY  # 15.1: the Axis may not hold it on Turn 1
    assert len(s.container) == 7


def test_15_1_s18_air_supremacy_drawn_by_the_axis_on_turn_1_is_replaced() -> None:
    for seed in range(200):
        s = Game().new_initial_state(seed)
        if any(d.get("drew") == ev.AIR_SUPREMACY for d in s.draw_log[1]):
            assert s.held[1] not in (0, ev.AIR_SUPREMACY) and ev.AIR_SUPREMACY in s.container
            assert s.draws[1] == 1  # the replacement draw does not count (S18)
            return
    raise AssertionError("no seed below 200 drew Air Supremacy for the Axis")


def test_6_2_1_s40_logistics_dr_below_the_box_ends_the_phase() -> None:
    s = position("turn 2 box 4 advantage none\nallied: FR-2A@17\naxis: DE-1A@2\nrolls: 3", NO_SKIP)
    act(s, "pass")
    assert s.phase == "refit" and s.dice_log[-1]["die"] == 3


def test_6_2_1_logistics_dr_at_least_the_box_advances() -> None:
    s = position("turn 2 box 4 advantage none\nallied: FR-2A@17\naxis: DE-1A@2\nrolls: 4", NO_SKIP)
    act(s, "pass")
    assert (s.phase, s.box, s.current_agent) == ("maneuver", 5, "french")


def test_11_1_4_s40_soldier_on_after_a_failed_logistics_dr() -> None:
    s = position("turn 2 box 4 advantage allied\nallied: FR-2A@17\naxis: DE-1A@2\nrolls: 1", NO_SKIP)
    act(s, "pass")
    assert (s.decision, s.current_agent) == ("soldier_on", "french")
    act(s, "yes")
    assert (s.box, s.advantage) == (5, 1)  # 11.2: the Advantage passes to the player who did not use it


def test_s21_belgian_surrender_inverted() -> None:
    def surrenders(k_axis_areas: list[str], die: int) -> bool:
        s = Game().new_initial_state(0)
        g = s.game
        s.turn, s.cont, s.decision = 2, "belgian", "none"
        for loc in k_axis_areas:
            s.control[g.loc_ids.index(loc)] = 1
        s.dice_state = __import__("ffo_env.core.dice", fromlist=["Dice"]).Dice(_seed_for(die)).state
        flow.belgian(s)
        return bool(s.status[g.unit_ids.index("BE-ARMY")] == GONE)

    assert not any(surrenders([], d) for d in range(1, 7))  # k = 0 never surrenders
    assert surrenders(["9", "10", "11", "12", "13"], 5) and not surrenders(["9", "10", "11", "12", "13"], 6)
    assert surrenders(["11"], 1) and not surrenders(["11"], 2)


def _seed_for(die: int) -> int:
    from ffo_env.springtime.core.notation import seed_for_rolls

    return seed_for_rolls([die])


def test_6_1_4_s22_italy_declares_war_at_morale_9() -> None:
    s = Game().new_initial_state(0)
    s.morale = 9
    s.cont, s.decision = "political_start", "none"
    flow.political_start(s)
    s.cont = "cc_italy"
    flow.cc_italy(s)
    g = s.game
    assert s.italy_at_war and s.cc_flag and s.loc[g.unit_ids.index("IT-W")] == g.zone_f


def test_6_1_3_s11_command_confidence_flips_leaders_on_an_axis_success() -> None:
    s = position(
        """
        turn 2 box 2 advantage none morale 19
        allied: FR-9A@12
        axis: DE-6A@10
        flags: cc_flag
        rolls: 6 6 1 1
        """,
        NO_SKIP,
    )
    play_texts(s, "assault B", "DE-6A", "@12", "combat 12", "DE-6A", "FR-9A", "no", "no")
    g = s.game
    reichenau = g.leader_of[g.unit_ids.index("DE-6A")]
    corap = g.leader_of[g.unit_ids.index("FR-9A")]
    assert s.flipped[reichenau] and s.flipped[corap]
    assert s.leader_rating(g.unit_ids.index("DE-6A")) == 3


def test_13_2_13_2_1_s42_supply_blocked_by_a_vacant_enemy_area() -> None:
    s = position("""
        turn 2 box 2 advantage none
        allied: FR-2A@17
        axis: DE-XIX@11
        axis_control: 24 16 18 12 15
    """)
    g = s.game
    assert not s.in_supply(g.unit_ids.index("FR-2A"))
    s.control[g.loc_ids.index("24")] = 0
    assert s.in_supply(g.unit_ids.index("FR-2A"))  # 24 -> 25/29 -> Zones


def test_13_2_4_s44_oos_surrender_and_13_2_5_cut_off_control() -> None:
    s = position("""
        turn 2 box 2 advantage none
        allied: FR-2A@17(r)
        axis: DE-XIX@11
        axis_control: 24 16 18 12 15
        rolls: 2
    """)
    s.judge_supply()
    s.cont = "surrender"
    flow.surrender(s)
    g = s.game
    assert s.status[g.unit_ids.index("FR-2A")] == GONE  # reduced, dr 2: surrender (C§7.7)


def test_12_3_s46_refit_costs_and_rebuild_locations() -> None:
    s = position("""
        turn 2 box 2 advantage none rp 3 2
        allied: FR-2A@17(r) FR-1DCR@24(r)
        axis: DE-XIX@11
        elim: FR-9A GB-BEF
    """)
    g = s.game
    s.phase, s.refit_ctx = "refit", {"side": 0}
    s.ask("refit", 0)
    # flip inf 1, flip armor 2, rebuild inf reduced 2 / full 3
    assert legal_texts(s) == [
        "no",
        "FR-2A",
        "FR-1DCR",
        "rebuild FR-9A full",
        "rebuild GB-BEF full",
        "rebuild FR-9A reduced",
        "rebuild GB-BEF reduced",
    ]
    act(s, "rebuild FR-9A full")
    assert s.decision == "refit_loc" and "@11" not in legal_texts(s) and "@F" not in legal_texts(s)
    act(s, "@25")
    assert s.status[g.unit_ids.index("FR-9A")] == MAP and s.rp[0] == 0
    assert s.leader_rating(g.unit_ids.index("FR-9A")) == 1  # S10: Corap returns with his army
    assert s.status[g.unit_ids.index("GB-BEF")] == ELIM


def test_16_1_s47_automatic_victory_paris_and_three_zones_linked() -> None:
    s = position("""
        turn 3 box 2 advantage none
        allied: FR-8A@20
        axis: DE-XIX@25
        axis_control: 11 17 24 27 A B 28 C
    """)
    assert flow.automatic_victory(s)
    s.control[s.game.loc_ids.index("24")] = 0
    assert not flow.automatic_victory(s)  # Paris no longer traces to the eastern edge
    s.morale = 0
    assert flow.automatic_victory(s)  # 16.1.1


def test_16_2_s48_armistice_and_16_3_allied_victory_on_turn_7() -> None:
    s = position("turn 7 box 2 advantage none morale 3\nallied: FR-8A@20\naxis: DE-1A@2\nrolls: 1 4", NO_SKIP)
    act(s, "pass")  # Logistics 1 < 2: the phase ends; no Refit on Turn 7 (12.4)
    assert s.is_terminal() and s.result == "operational" and s.returns() == [-1.0, 1.0]
    s = position("turn 7 box 2 advantage none morale 3\nallied: FR-8A@20\naxis: DE-1A@2\nrolls: 1 3", NO_SKIP)
    act(s, "pass")
    assert s.is_terminal() and s.result == "allied" and s.returns() == [1.0, -1.0]


def test_6_4_4_s51_end_phase_event_play_and_discard() -> None:
    s = position(
        "turn 2 box 4 advantage none\nallied: FR-8A@20\naxis: DE-1A@2\nheld: allied 2 axis 9\nrolls: 1",
        NO_SKIP,
    )
    play_texts(s, "no", "pass")  # the Axis keeps Refugees, passes; Logistics 1 < 4
    play_texts(s, "no", "no")  # refit: nothing for either side
    assert (s.phase, s.decision, s.current_agent) == ("end", "end_event", "french")
    act(s, "yes")  # Cabinet Shuffle: +3
    assert s.morale == 33 and 2 in s.turn_track
    # Refugees has no E window: the Axis is asked all the same (P10) and may only decline
    assert (s.decision, s.current_agent, legal_texts(s)) == ("end_event", "german", ["no"])
    act(s, "no")
    assert (s.decision, s.current_agent) == ("end_discard", "german")
    act(s, "yes")
    assert s.turn == 3 and ev.REFUGEES not in s.turn_track  # the Turn 3 Political Phase drew again
    assert any(d.get("discarded") == ev.REFUGEES for d in s.draw_log[1])


def test_s59_visible_to_hides_the_opponents_marker() -> None:
    s = Game().new_initial_state(2)
    for side in (0, 1):
        v = s.visible_to(side)
        assert v["held"][side] == s.held[side] and v["held"][1 - side] == -1
        assert v["container"] == len(s.container) and "dice_state" not in v
    assert s.visible_to(0)["draw_log"] == s.draw_log[0]
    # the index of the opponent's draw would reveal his marker (the container is sorted and public at start)
    picks = [d for d in s.visible_to(0)["dice_log"] if "pick" in d]
    assert [d["pick"] >= 0 for d in picks] == [d["for"].startswith("allied") for d in picks]
    s.visible_to(1)["control"][0] = 0
    assert s.control[0] == 1  # a copy


def test_19_s55_plan_red_starts_turn_4_axis_impulse_6_with_kleist() -> None:
    s = Game(scenario="plan_red").new_initial_state(0)
    assert (s.turn, s.box, s.decision) == (4, 6, "kleist")
    assert legal_texts(s) == ["DE-XIX", "DE-XLI", "DE-XIV"]
    assert s.german_air_full and s.morale == 20 and s.rp == [5 - 5, 5] and s.held == [0, 0]
    assert sorted(s.container) == [4, 5, 8, 9]


def test_s55_p1_plan_red_taken_as_the_turn_5_draw() -> None:
    s = Game(scenario="plan_red", options=NO_SKIP).new_initial_state(0)
    s.turn, s.phase, s.cont, s.decision = 5, "political", "political_start", "none"
    s._run()
    assert (s.decision, s.current_agent) == ("plan_red_take", "german")
    act(s, "yes")
    assert s.held[1] == ev.PLAN_RED and s.draws[1] == 1


def test_13_2_4_s42_s43_judged_supply_equals_the_trace_of_every_unit() -> None:
    import random as _random

    g = Game()
    for seed in range(6):
        s = g.new_initial_state(seed)
        rng = _random.Random(seed)
        for _ in range(150 + 40 * seed):
            if s.is_terminal():
                break
            s.apply_action(rng.choice(s.legal_actions()))
        s.judge_supply()
        assert all(s.oos[u] == (not s.in_supply(u)) for u in s.on_map())


def test_s59_possible_markers_as_a_player_knows_them() -> None:
    from ffo_env.springtime.core.visibility import possible_markers

    s = position(
        "turn 3 box 1 advantage none\nallied: FR-8A@20\naxis: DE-1A@2\nheld: allied 4 axis 9\nplayed: 1 2"
    )
    assert possible_markers(s, 0) == [3, 5, 6, 7, 8, 9]  # the Axis marker is among them, unknown to him
    assert possible_markers(s, 1) == [3, 4, 5, 6, 7, 8]
