"""Impulses and movement (rules 8, 9, 14; S5, S7, S8, S9, S12, S24-S29, S52): exact legal actions of
hand-built positions in the compact notation."""

from __future__ import annotations

from .sfh_helpers import Game, RulesOptions, act, legal_texts, play_texts, position

FRONT = """
turn 2 box 2 advantage none
allied: FR-2A@17 FR-9A@12(r)
axis: DE-XIX@11 DE-XLI@11 DE-4A@5 DE-6A@5 DE-1A@2
"""


def test_8_1_8_1_1_s25_axis_declares_x_k_or_x_plus_k() -> None:
    s = position(FRONT)
    assert (s.decision, s.current_agent) == ("declare", "german")
    assert legal_texts(s) == [
        "pass",
        "regroup",
        "assault A",
        "assault B",
        "assault C",
        "assault K",
        "assault A+K",
        "assault B+K",
        "assault C+K",
        "redeploy 2",
        "redeploy 5",
        "redeploy 11",
    ]


def test_s24_same_army_group_not_on_consecutive_impulses() -> None:
    s = position(FRONT + "last_assault: axis B K\n")
    assert [t for t in legal_texts(s) if t.startswith("assault")] == ["assault A", "assault C"]


def test_8_1_1_allied_declares_one_army_group() -> None:
    s = position("""
        turn 2 box 1 advantage none
        allied: FR-2A@17 FR-9A@12 FR-6A@23 BE-ARMY@13 FR-ALP@E
        axis: DE-XIX@11
    """)
    assert [t for t in legal_texts(s) if t.startswith("assault")] == ["assault 1", "assault 4", "assault Be"]


def test_15_3_s52_turn_1_any_set_of_army_groups() -> None:
    s = Game().new_initial_state(0)
    while s.decision != "declare":
        act(s, "DE-XIX" if s.decision == "kleist" else "no")
    assaults = [t for t in legal_texts(s) if t.startswith("assault")]
    assert len(assaults) == 15  # every non-empty subset of A, B, C, K (Italy is not at war)
    assert "assault A+B+C+K" in assaults


def test_s9_kleist_attaches_to_an_on_map_k_unit() -> None:
    s = Game().new_initial_state(0)
    assert (s.decision, legal_texts(s)) == ("kleist", ["DE-XIX", "DE-XLI", "DE-XIV"])
    act(s, "DE-XLI")
    assert s.kleist_unit == s.game.unit_ids.index("DE-XLI")
    assert s.leader_rating(s.kleist_unit) == 2


def test_9_2_s29_assault_steps_and_entering_an_enemy_area_stops() -> None:
    s = position(FRONT)
    play_texts(s, "assault K", "DE-XIX")
    assert legal_texts(s) == ["@3", "@5", "@10", "@12", "@17", "@18"]  # 18 across the Maginot Line
    act(s, "@17")  # enemy-occupied: the move ends
    assert s.decision == "act"
    assert "no" not in legal_texts(s)  # 10.1, S31: a mandatory combat is owed at 17
    assert legal_texts(s) == ["combat 17", "DE-XLI"]


def test_s5_maginot_boundary_stops_a_panzer_corps() -> None:
    s = position("""
        turn 2 box 2 advantage none
        allied: FR-8A@20
        axis: DE-XIX@2
    """)
    play_texts(s, "assault K", "DE-XIX", "@18")  # 18 is then empty of Allied units: the move still ends
    assert s.loc[s.game.unit_ids.index("DE-XIX")] == s.game.loc_ids.index("18")
    assert s.decision != "step" and s.control[s.game.loc_ids.index("18")] == 1


def test_s7_control_taken_in_transit_changes_morale() -> None:
    s = position("""
        turn 2 box 2 advantage none
        allied: FR-8A@20
        axis: DE-XIX@17
    """)
    g = s.game
    play_texts(s, "assault K", "DE-XIX", "@16")
    assert s.control[g.loc_ids.index("16")] == 1 and s.morale == 29
    act(s, "@26")
    assert s.morale == 28 and s.decision == "step"


def test_7_1_s8_no_entry_into_a_fully_stacked_area() -> None:
    s = position("""
        turn 2 box 1 advantage none
        allied: FR-1A@13 FR-PRIOUX@13 FR-1DCR@13 GB-BEF@13 FR-9A@13 FR-7A@9
        axis: DE-XIX@3
    """)
    play_texts(s, "assault 1", "FR-7A")
    assert "@13" not in legal_texts(s)


def test_14_3_no_german_unit_enters_zone_f() -> None:
    s = position("""
        turn 2 box 2 advantage none
        allied: FR-8A@20
        axis: DE-XIX@E
        axis_control: E
    """)
    play_texts(s, "assault K", "DE-XIX")
    assert "@F" not in legal_texts(s)


def test_9_3_3_s12_alp_army_may_not_move_before_italy() -> None:
    s = position("""
        turn 2 box 1 advantage none
        allied: FR-ALP@E
        axis: DE-XIX@3
    """)
    assert "assault 4" in legal_texts(s) and "regroup" not in legal_texts(s)
    act(s, "assault 4")  # it may only end the impulse (applied at once: one legal action)
    assert (s.decision, s.current_agent) == ("declare", "german")
    assert s.loc[s.game.unit_ids.index("FR-ALP")] == s.game.loc_ids.index("E")


def test_8_1_2_s27_regroup_one_location_into_free_areas() -> None:
    s = position("""
        turn 2 box 1 advantage none
        allied: FR-2A@17 FR-9A@12
        axis: DE-XIX@11 DE-XLI@15
    """)
    play_texts(s, "regroup", "FR-2A")
    # 17's neighbours: 11 (Axis), 12 (Allied), 15 (Axis-held), 16, 18, 24 (Free)
    assert legal_texts(s) == ["@12", "@16", "@18", "@24"]
    act(s, "@24")
    assert legal_texts(s) == ["no", "FR-9A"]  # every unit at most once


def test_8_1_2_s28_redeploy_double_mf_not_into_enemy_uncontested() -> None:
    s = position(
        """
        turn 2 box 1 advantage none
        allied: FR-6A@23
        axis: DE-XIX@24
        axis_control: 29
        """,
        RulesOptions(skip_forced=False),
    )
    play_texts(s, "redeploy 23", "FR-6A")
    assert legal_texts(s) == ["@25"]  # 24 and 29 are Axis-controlled and uncontested
    play_texts(s, "@25", "@26", "@27", "@28")  # twice its MF of 2
    assert s.decision == "redeploy_pick" and legal_texts(s) == ["no"]
