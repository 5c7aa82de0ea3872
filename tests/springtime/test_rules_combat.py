"""Combat (rules 9.4, 10, 11; C§7.2-C§7.5; S30-S39): values, results, losses, retreats, the Advantage."""

from __future__ import annotations

import pytest

from ffo_env.springtime.core import combat

from .sfh_helpers import RulesOptions, act, legal_texts, play_texts, position

NO_SKIP = RulesOptions(skip_forced=False)

SEDAN = """
turn 2 box 2 advantage none
allied: FR-2A@17
axis: DE-XIX@11 DE-XLI@11 DE-XIV@11
kleist: DE-XIX
"""


def test_10_4_2_10_4_3_worked_example_of_c7_4() -> None:
    """Guderian (Kleist) leads Reinhardt and Wietersheim across the Meuse into 17, reduced air both sides:
    AV 8 + 2 + 2 + 2 = 14; the 2nd Army (Huntziger) with reduced French air: DV 4 + 2 + 1 + 1 + 2 = 10."""
    s = position(SEDAN, NO_SKIP)
    play_texts(s, "assault K")
    for u in ("DE-XIX", "DE-XLI", "DE-XIV"):
        play_texts(s, u, "@17")
    play_texts(s, "combat 17")
    assert s.decision == "lead_att" and legal_texts(s) == ["DE-XIX", "DE-XLI", "DE-XIV"]
    play_texts(s, "DE-XIX", "FR-2A", "yes")
    assert (s.decision, s.current_agent) == ("air_def", "french") and s.cmb is not None
    c = dict(s.cmb, air_def="FR")
    assert combat.values(s, c) == (14, 10)


@pytest.mark.parametrize(
    ("av", "dv", "da", "dd", "armor", "result"),
    [
        (10, 10, 6, 7, "inf", "repulse"),
        (10, 10, 7, 7, "inf", "stalemate"),
        (10, 10, 8, 7, "inf", "success"),
        (10, 10, 8, 7, "armor", "overrun"),
    ],
)
def test_10_4_4_s36_results(av: int, dv: int, da: int, dd: int, armor: str, result: str) -> None:
    s = position(SEDAN)
    assert combat.outcome(s, av, dv, da, dd, armor == "armor") == result


def _attack(text: str, rolls: str, *moves: str) -> object:
    s = position(text + f"rolls: {rolls}\n", NO_SKIP)
    play_texts(s, *moves)
    return s


def test_10_4_4_overrun_eliminates_full_lead_and_morale() -> None:
    # AV 8+2 (Kleist)=10 +air? none committed; DV 4+2 TEM+1 leader+2 river=9; dice 6+6 vs 1+1
    s = _attack(SEDAN, "6 6 1 1", "assault K", "DE-XIX", "@17", "combat 17", "DE-XIX", "FR-2A", "no", "no")
    g = s.game
    assert s.status[g.unit_ids.index("FR-2A")] == 2  # eliminated pool
    assert s.morale == 30 - 1 - 1 - 1  # unit, Axis Overrun on a French Lead, Area 17 lost (C§7.6, S49)
    assert s.control[g.loc_ids.index("17")] == 1


def test_10_4_4_success_defender_dr_8_costs_the_attacker_a_step() -> None:
    s = _attack(
        """
        turn 2 box 2 advantage none
        allied: FR-9A@12
        axis: DE-4A@10
        """,
        "6 6 4 4",
        "assault A",
        "DE-4A",
        "@12",
        "combat 12",
        "DE-4A",
        "FR-9A",
        "no",
        "no",
    )
    g = s.game
    # AV 6 + 1 (Kluge) = 7 + 12 = 19 > DV 3 + 2 + 1 = 6 + 8 = 14: Success; defender DR 8 -> attacker reduced
    assert s.reduced[g.unit_ids.index("DE-4A")] and s.reduced[g.unit_ids.index("FR-9A")]
    assert s.decision == "retreat_pick" and legal_texts(s) == ["FR-9A"]  # 10.4.4: survivors must retreat


def test_10_1_repulse_of_a_mandatory_attack_retreats_the_attackers() -> None:
    s = _attack(
        """
        turn 2 box 2 advantage none
        allied: FR-9A@12
        axis: DE-4A@10
        """,
        "1 1 6 6",
        "assault A",
        "DE-4A",
        "@12",
        "combat 12",
        "DE-4A",
        "FR-9A",
        "no",
        "no",
    )
    g = s.game
    assert s.reduced[g.unit_ids.index("DE-4A")]
    assert s.decision == "retreat_pick" and legal_texts(s) == ["DE-4A"]  # required: no "done"
    act(s, "DE-4A")
    assert s.loc[g.unit_ids.index("DE-4A")] == g.loc_ids.index("10")


def test_11_1_2_s39_heroic_defense_turns_success_into_stalemate() -> None:
    s = position(
        """
        turn 2 box 2 advantage allied
        allied: FR-9A@12
        axis: DE-4A@10
        rolls: 6 6 4 4
        """,
        NO_SKIP,
    )
    # the Allied holder has no Advantage use at the start of this Axis impulse: no window is asked
    play_texts(s, "assault A", "DE-4A", "@12", "combat 12", "DE-4A", "FR-9A", "no", "no")
    assert (s.decision, s.current_agent) == ("convert", "french")
    act(s, "yes")
    g = s.game
    assert s.cmb is not None and s.cmb["result"] == "stalemate" and s.adv_used_by == 0
    assert s.reduced[g.unit_ids.index("DE-4A")] and s.reduced[g.unit_ids.index("FR-9A")]
    assert s.decision == "retreat_pick" and legal_texts(s) == ["no", "FR-9A"]  # Stalemate: optional


def test_10_5_4_s38_maginot_defenders_may_stay() -> None:
    s = _attack(
        """
        turn 2 box 2 advantage none
        allied: FR-3A@18 FR-4A@18
        axis: DE-1A@2
        """,
        "6 6 1 1",
        "assault C",
        "DE-1A",
        "@18",
        "combat 18",
        "DE-1A",
        "FR-3A",
        "no",
        "no",
    )
    assert s.decision == "retreat_pick" and legal_texts(s) == ["no", "FR-3A", "FR-4A"]


def test_10_5_2_s37_retreat_priorities_free_area_with_fewest_enemy_neighbours() -> None:
    s = _attack(
        """
        turn 2 box 2 advantage none
        allied: FR-2A@17
        axis: DE-XIX@11 DE-4A@15
        """,
        "6 6 1 1",
        "assault A",
        "DE-4A",
        "@17",
        "combat 17",
        "DE-4A",
        "FR-2A",
        "no",
        "no",
    )
    g = s.game
    # Success (infantry lead): FR-2A reduced and must retreat; 16 (next to Axis 15, 17) and 24, 18 are Free
    assert s.decision == "retreat_pick" and legal_texts(s) == ["FR-2A"]
    act(s, "FR-2A")
    # fewest adjacent Axis-controlled: 18 touches 2, 11, 17 -> 3; 24 touches 17 -> 1; 16 touches 15, 17 -> 2; 12 is
    # Allied-controlled and Free too (touches 11, 15, 17, 10? 10 is Allied) -> 3
    assert s.loc[g.unit_ids.index("FR-2A")] == g.loc_ids.index("24")


def test_10_5_6_belgian_army_retreats_only_in_belgium() -> None:
    s = _attack(
        """
        turn 2 box 2 advantage none
        allied: BE-ARMY@13
        axis: DE-6A@10 DE-4A@12 DE-XV@9
        """,
        "6 6 1 1",
        "assault B",
        "DE-6A",
        "@13",
        "combat 13",
        "DE-6A",
        "BE-ARMY",
        "no",
        "BE-ARMY",
    )
    g = s.game
    # every Belgian neighbour of 13 (9, 10, 12) is Axis: no candidate -> eliminated, Morale -2 (C§7.6)
    assert s.status[g.unit_ids.index("BE-ARMY")] == 3 and s.morale == 28


def test_9_4_9_4_1_s35_air_marker_of_the_lead_nationality_once_per_impulse() -> None:
    s = position(
        """
        turn 2 box 2 advantage none
        allied: BE-ARMY@13 FR-9A@12
        axis: DE-6A@10 DE-4A@10
        rolls: 6 6 1 1
        """,
        NO_SKIP,
    )
    play_texts(s, "assault B", "DE-6A", "@13", "combat 13", "DE-6A", "BE-ARMY")
    assert s.decision == "air_att"  # German air for a German lead; no Belgian air exists
    act(s, "yes")
    assert s.decision != "air_def"  # the Belgian Lead gets none
    assert s.air_used == ["DE0"]
