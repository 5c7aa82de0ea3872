"""More combat rules (10.2-10.5, 11, S26, S30-S34, S41, S52): participants, modifiers, retreats, the
Advantage."""

from __future__ import annotations

from ffo_env.springtime.core import combat

from .sfh_helpers import RulesOptions, act, legal_texts, play_texts, position

NO_SKIP = RulesOptions(skip_forced=False)

CONTESTED = """
turn 2 box 2 advantage none
allied: FR-2A@17 FR-9A@17
axis: DE-XIX@17 DE-XLI@17 DE-XV@11
axis_control: 11
"""


def test_10_2_10_3_s31_contested_area_attacker_chooses_participants() -> None:
    s = position(CONTESTED, NO_SKIP)
    play_texts(s, "assault K")
    assert "no" in legal_texts(s)  # no mandatory combat: 17 was Contested at the declaration
    act(s, "combat 17")
    assert (s.decision, legal_texts(s)) == ("participants", ["DE-XIX", "DE-XLI"])  # no "done" before one
    act(s, "DE-XLI")
    assert legal_texts(s) == ["no", "DE-XIX"]
    act(s, "no")
    assert legal_texts(s) == ["DE-XLI"]  # the Lead is one of the participants


def test_10_3_s31_attackers_in_a_contested_area_never_retreat() -> None:
    s = position(CONTESTED + "rolls: 1 1 6 6\n", NO_SKIP)
    play_texts(s, "assault K", "combat 17", "DE-XLI", "no", "DE-XLI", "FR-2A", "no", "no")
    g = s.game
    assert s.reduced[g.unit_ids.index("DE-XLI")]  # Repulse
    # only the defender's voluntary retreat is offered (10.5.3), then the impulse goes on
    assert (s.decision, s.current_agent) == ("retreat_pick", "french")
    play_texts(s, "no")
    assert s.decision == "act" and s.loc[g.unit_ids.index("DE-XLI")] == g.loc_ids.index("17")


def test_10_5_3_voluntary_retreat_after_a_repulse() -> None:
    s = position(CONTESTED + "rolls: 1 1 6 6\n", NO_SKIP)
    play_texts(s, "assault K", "combat 17", "DE-XLI", "no", "DE-XLI", "FR-2A", "no", "no")
    assert legal_texts(s) == ["no", "FR-2A", "FR-9A"]
    play_texts(s, "FR-9A")
    assert s.decision == "retreat_dest" or s.loc[s.game.unit_ids.index("FR-9A")] != s.game.loc_ids.index("17")


def test_10_4_1_s54_each_side_rolls_its_own_recorded_dr() -> None:
    s = position(CONTESTED + "rolls: 1 2 3 4\n", NO_SKIP)
    play_texts(s, "assault K", "combat 17", "DE-XLI", "no", "DE-XLI", "FR-2A", "no", "no")
    rolls = [(d["for"], d["die"]) for d in s.dice_log[-4:]]
    assert rolls == [
        ("attack DR die 1 at 17", 1),
        ("attack DR die 2 at 17", 2),
        ("defense DR die 1 at 17", 3),
        ("defense DR die 2 at 17", 4),
    ]


def test_s30_no_unit_enters_a_location_after_its_combat() -> None:
    s = position(CONTESTED + "rolls: 6 6 1 1\n", NO_SKIP)
    play_texts(s, "assault K", "combat 17", "DE-XLI", "no", "DE-XLI", "FR-9A", "no", "no")
    while s.decision == "retreat_pick" or s.decision == "retreat_dest":
        act(s, legal_texts(s)[-1])
    assert "combat 17" not in legal_texts(s)
    s3 = position(
        """
        turn 2 box 2 advantage none
        allied: FR-2A@17
        axis: DE-XIX@11 DE-XLI@11
        rolls: 1 1 6 6
        """,
        NO_SKIP,
    )
    play_texts(s3, "assault K", "DE-XIX", "@17", "combat 17", "DE-XIX", "FR-2A", "no", "no", "DE-XIX", "no")
    act(s3, "DE-XLI")
    assert "@17" not in legal_texts(s3)


def test_s34_river_and_maginot_modifiers_need_every_attacker_to_cross() -> None:
    s = position(
        """
        turn 2 box 2 advantage none
        allied: FR-2A@17
        axis: DE-XIX@11 DE-XLI@12
        axis_control: 12
        """,
        NO_SKIP,
    )
    play_texts(s, "assault K", "DE-XIX", "@17", "DE-XLI", "@17", "combat 17", "DE-XIX", "FR-2A")
    assert s.cmb is not None
    both = combat.values(s, s.cmb)
    only_river = combat.values(s, dict(s.cmb, parts=[s.game.unit_ids.index("DE-XIX")]))
    assert only_river[1] - both[1] == 2  # 11|17 is a river; 12|17 open ground: no modifier with both
    # AV: CV 8 + 1 for the second unit
    assert both[0] - only_river[0] == 1


def test_s33_13_2_2_out_of_supply_costs_one_by_lead_or_by_any_unit() -> None:
    text = """
        turn 2 box 2 advantage none
        allied: FR-2A@17(oos) FR-9A@17
        axis: DE-XIX@17 DE-XLI@17(oos)
        """
    # AV 8 + 1; DV 3 (9th Army lead) + 1 + TEM 2 + Corap 1; the OOS units are not the Leads
    for opts, want in (
        (NO_SKIP, (9, 7)),
        (RulesOptions(skip_forced=False, oos_combat_penalty="any_unit"), (8, 6)),
    ):
        s = position(text, opts)
        play_texts(s, "assault K", "combat 17", "DE-XIX", "DE-XLI", "no", "DE-XIX", "FR-9A")
        assert s.cmb is not None
        assert combat.values(s, s.cmb) == want
    s = position(text, NO_SKIP)
    play_texts(s, "assault K", "combat 17", "DE-XIX", "DE-XLI", "no", "DE-XLI", "FR-2A")
    assert s.cmb is not None
    assert combat.values(s, s.cmb) == (7 + 1 - 1, 4 + 1 + 2 + 1 - 1)  # both Leads OOS


def test_9_4_2_s35_air_values_full_and_reduced() -> None:
    s = position(CONTESTED)
    assert [combat.air_value(s, m) for m in ("DE0", "FR", "GB")] == [2, 1, 1]
    s.german_air_full = s.allied_air_full = True
    assert [combat.air_value(s, m) for m in ("DE1", "FR", "GB")] == [4, 3, 2]


def test_s26_reserves_activate_only_with_an_activated_army_group() -> None:
    s = position(
        """
        turn 2 box 2 advantage none
        allied: FR-8A@20
        axis: DE-4A@4 DE-2A@4 DE-18A@6
        """,
        NO_SKIP,
    )
    play_texts(s, "assault A")
    assert legal_texts(s) == ["no", "DE-4A", "DE-2A"]
    s = position(
        """
        turn 2 box 2 advantage none
        allied: FR-8A@20
        axis: DE-4A@5 DE-2A@4 DE-18A@6
        """,
        NO_SKIP,
    )
    play_texts(s, "assault A")
    assert legal_texts(s) == ["no", "DE-4A"]  # 8.1.1: a Reserve alone cannot activate


def test_15_3_s52_army_groups_may_not_combine_in_one_area() -> None:
    s = position(
        """
        turn 1 box 6 advantage none
        allied: FR-9A@12
        axis: DE-4A@10 DE-6A@10 DE-2A@10
        """,
        NO_SKIP,
    )
    play_texts(s, "assault A+B")
    assert (s.decision, legal_texts(s)) == ("reserve_ag", ["AG A", "AG B"])  # S26: DE-2A joins A or B
    play_texts(s, "AG B", "DE-4A", "@12")
    play_texts(s, "DE-6A")
    assert "@12" not in legal_texts(s)  # 12 was entered by Army Group A
    play_texts(s, "@13", "no", "DE-2A")
    assert "@12" not in legal_texts(s)


def test_11_1_3_maximum_attack_turns_a_repulse_into_a_stalemate() -> None:
    s = position(CONTESTED.replace("advantage none", "advantage axis") + "rolls: 1 1 6 6\n", NO_SKIP)
    play_texts(s, "no", "assault K", "combat 17", "DE-XLI", "no", "DE-XLI", "FR-2A", "no", "no")
    assert (s.decision, s.current_agent) == ("convert", "german")
    act(s, "yes")
    g = s.game
    assert s.reduced[g.unit_ids.index("DE-XLI")] and s.reduced[g.unit_ids.index("FR-2A")]
    assert s.adv_used_by == 1


def test_11_1_1_s38_open_city_ends_the_paris_stay_and_halves_the_loss() -> None:
    text = """
        turn 2 box 2 advantage axis
        allied: FR-10A@25 FR-6A@25
        axis: DE-XIX@24 DE-XLI@24
        rolls: 6 6 1 1
        """
    s = position(text, NO_SKIP)
    assert (s.decision, legal_texts(s)) == ("advantage", ["no", "open-city", "draw-extra"])
    act(s, "open-city")
    assert s.open_city and s.advantage == 1 and s.adv_used_by == 1
    play_texts(s, "assault K", "DE-XIX", "@25", "DE-XLI", "@25", "combat 25", "DE-XIX", "FR-6A", "no", "no")
    # Overrun: FR-6A eliminated; FR-10A must retreat (no stay in an Open City)
    assert s.decision == "retreat_pick" and legal_texts(s) == ["FR-10A"]
    morale = s.morale
    while s.decision in ("retreat_pick", "retreat_dest"):
        act(s, legal_texts(s)[0])
    assert s.control[s.game.paris] == 1 and morale - s.morale == 5  # C§7.6: -5 for an Open City


def test_s38_paris_defenders_may_stay_when_not_an_open_city() -> None:
    s = position(
        """
        turn 2 box 2 advantage none
        allied: FR-10A@25 FR-6A@25
        axis: DE-XIX@24
        rolls: 6 6 1 1
        """,
        NO_SKIP,
    )
    play_texts(s, "assault K", "DE-XIX", "@25", "combat 25", "DE-XIX", "FR-6A", "no", "no")
    assert legal_texts(s) == ["no", "FR-10A"]


def test_10_5_1_s37_retreat_passes_through_a_full_area() -> None:
    s = position(
        """
        turn 2 box 2 advantage none
        allied: FR-2A@17 FR-9A@17 FR-3A@24 FR-4A@24 FR-5A@24 FR-6A@24 FR-8A@24
        axis: DE-XIX@11
        axis_control: 12 15 16 18
        rolls: 6 6 1 1
        """,
        NO_SKIP,
    )
    play_texts(s, "assault K", "DE-XIX", "@17", "combat 17", "DE-XIX", "FR-2A", "no", "no")
    play_texts(s, "FR-9A")
    # the only candidate, 24, is full (D): pass through; from 24 the Free Areas next to no Axis Area tie
    assert (s.decision, legal_texts(s)) == ("retreat_dest", ["@23", "@25", "@29"])
    act(s, "@29")
    assert s.loc[s.game.unit_ids.index("FR-9A")] == s.game.loc_ids.index("29")


def test_10_4_6_s49_allied_success_raises_morale() -> None:
    s = position(
        """
        turn 2 box 1 advantage none
        allied: FR-1A@15
        axis: DE-18A@16(r)
        axis_control: 16
        rolls: 6 6 1 1
        """,
        NO_SKIP,
    )
    play_texts(s, "assault 1", "FR-1A", "@16", "combat 16", "FR-1A", "DE-18A", "no", "no")
    # Success: DE-18A (reduced) eliminated (+1), Allied success (+1), Area 16 regained (+1)
    assert s.morale == 33


def test_10_4_5_s10_leader_returns_with_his_rebuilt_unit_on_the_side_shown() -> None:
    s = position(
        """
        turn 2 box 2 advantage none
        allied: FR-2A@17(r)
        axis: DE-XIX@11
        rolls: 6 6 1 1
        """,
        NO_SKIP,
    )
    g = s.game
    huntziger = g.leader_of[g.unit_ids.index("FR-2A")]
    s.flipped[huntziger] = True
    play_texts(s, "assault K", "DE-XIX", "@17", "combat 17", "DE-XIX", "FR-2A", "no", "no")
    assert s.status[g.unit_ids.index("FR-2A")] == 2
    s.place(g.unit_ids.index("FR-2A"), g.loc_ids.index("25"))
    assert s.leader_rating(g.unit_ids.index("FR-2A")) == 0


def test_s41_combat_in_a_zone_uses_its_tem() -> None:
    s = position(
        """
        turn 5 box 2 advantage none
        allied: FR-ALP@E
        axis: DE-XIX@30
        axis_control: 30
        """,
        NO_SKIP,
    )
    play_texts(s, "assault K", "DE-XIX", "@E", "combat E", "DE-XIX", "FR-ALP")
    assert s.cmb is not None
    assert combat.values(s, s.cmb) == (8, 3 + 4 + 2)  # Zone E TEM 4, Olry 2


def test_10_4_10_5_11_1_s32_combat_decisions_in_order_and_one_advantage_use() -> None:
    s = position(
        """
        turn 2 box 2 advantage french
        allied: FR-9A@12 FR-2A@12
        axis: DE-4A@10
        rolls: 6 6 1 1 1
        """.replace("french", "allied"),
        NO_SKIP,
    )
    play_texts(s, "assault A", "DE-4A", "@12", "combat 12")
    seen = []
    for text in ("DE-4A", "FR-9A", "yes", "yes", "yes"):
        seen.append((s.decision, s.current_agent))
        act(s, text)
    assert seen == [
        ("lead_att", "german"),
        ("lead_def", "french"),
        ("air_att", "german"),
        ("air_def", "french"),
        ("convert", "french"),
    ]
    assert s.cmb is not None and s.cmb["result"] == "stalemate"
    while s.decision in ("retreat_pick", "retreat_dest"):
        act(s, "no" if "no" in legal_texts(s) else legal_texts(s)[0])
    act(s, "no")  # end the impulse; Logistics 1 < 2 fails
    assert s.decision != "soldier_on"  # the Advantage was used this impulse (S39: once per impulse)
