"""Options and optional rules: S27 army_group Regroup, 17.1 bids as a Morale handicap (S61, P7), 18.1 the
Air Landing Corps (S63, P8), 18.2 Limited Free Setup (S62, P9), 18.3 the BEF returns (S64; rule 12.3.2 for a
BEF eliminated in combat)."""

from __future__ import annotations

import random

import pytest

from ffo_env.springtime.core import Game
from ffo_env.springtime.core.state import ELIM, GONE, MAP, OFF, State

from .sfh_helpers import RulesOptions, act, legal_texts, play_texts, position

AIR = RulesOptions(airdrops=True, skip_forced=False)


def test_s27_army_group_regroup_scope() -> None:
    s = position(
        """
        turn 2 box 2 advantage none
        allied: FR-8A@20
        axis: DE-4A@4 DE-2A@4 DE-6A@5 DE-XIX@3
        """,
        RulesOptions(regroup_scope="army_group", skip_forced=False),
    )
    act(s, "regroup")
    assert (s.decision, legal_texts(s)) == ("regroup_ag", ["AG A", "AG B", "AG K"])
    play_texts(s, "AG A")
    assert s.decision == "regroup_k"
    act(s, "no")
    assert legal_texts(s) == ["no", "DE-4A", "DE-2A"]  # the Reserve stacked with Army Group A joins


def test_17_1_s61_p7_bid_changes_the_starting_morale() -> None:
    assert Game(options=RulesOptions(morale_bid=5)).new_initial_state(0).morale == 35
    s = Game(options=RulesOptions(morale_bid=-12)).new_initial_state(0)
    assert s.morale == 18 and s.cc_flag  # S20: Command Confidence from the Turn 1 Political Phase
    with pytest.raises(TypeError):
        RulesOptions(morale_bid=True)  # type: ignore[arg-type]


def test_18_1_s63_air_landing_placement_within_two_areas() -> None:
    s = position(
        """
        turn 2 box 2 advantage none
        allied: FR-8A@20 FR-9A@12
        axis: DE-4A@10
        off: DE-AIRLAND
        rolls: 6
        """,
        AIR,
    )
    play_texts(s, "assault A")
    drops = [t for t in legal_texts(s) if t.startswith("@")]
    # within two steps of 10: 5 7 9 11 12 13 and their neighbours (not Zone F, not 20's side of the map)
    assert "@12" in drops and "@3" in drops and "@20" not in drops and "@F" not in drops
    act(s, "@12")
    g = s.game
    u = g.unit_ids.index("DE-AIRLAND")
    assert s.loc[u] == g.loc_ids.index("12") and not s.reduced[u]  # dr 6 - 1 Allied unit = 5 > 3
    assert "no" not in legal_texts(s) and "combat 12" in legal_texts(s)  # an entry: mandatory (S31)
    assert not any(t.startswith("@") for t in legal_texts(s))  # once per impulse


def test_18_1_1_air_landing_cancels_the_river_modifier() -> None:
    s = position(
        """
        turn 2 box 2 advantage none
        allied: FR-2A@17
        axis: DE-XIX@11
        off: DE-AIRLAND
        rolls: 6
        """,
        RulesOptions(airdrops=True, skip_forced=False),
    )
    play_texts(s, "assault K", "DE-XIX", "@17")
    from ffo_env.springtime.core import combat

    play_texts(s, "combat 17", "DE-XIX", "FR-2A")
    assert s.cmb is not None
    river = combat.values(s, s.cmb)[1]
    s.imp["airdrop"] = s.game.loc_ids.index("17")
    assert combat.values(s, s.cmb)[1] == river - 2


def test_18_1_3_18_1_4_withdrawal_and_elimination() -> None:
    s = position("turn 2 box 4 advantage none\nallied: FR-8A@20\naxis: DE-AIRLAND@5(r)\nrolls: 1", AIR)
    act(s, "pass")
    play_texts(s, "no", "no")  # refit
    assert (s.decision, s.current_agent) == ("withdraw", "german")
    act(s, "yes")
    u = s.game.unit_ids.index("DE-AIRLAND")
    assert s.status[u] == OFF and s.reduced[u]  # it keeps its strength
    s2 = position("turn 2 box 2 advantage none\nallied: FR-8A@20\naxis: DE-AIRLAND@5(r)", AIR)
    s2.eliminate(u, "test")
    assert s2.status[u] == GONE and s2.morale == 32  # +2 (18.1.4)


def test_18_2_s62_p9_limited_free_setup() -> None:
    g = Game(options=RulesOptions(free_setup=True, skip_forced=False))
    s = g.new_initial_state(0)
    assert (s.phase, s.decision, s.current_agent) == ("setup", "setup_place", "french")
    assert s.game.unit_ids[s.setup_queue[0]] == "FR-1A"
    assert len(legal_texts(s)) == 17  # Areas 14-30
    act(s, "@16")
    # P9: in 16 with the 1st Army only 3 places would be left for the five units that must join them
    assert s.game.unit_ids[s.setup_queue[0]] == "FR-7A"
    assert "@16" not in legal_texts(s) and len(legal_texts(s)) == 16
    act(s, "@25")
    assert s.game.unit_ids[s.setup_queue[0]] == "FR-1DCR" and legal_texts(s) == ["@16", "@25"]


def test_s59_free_setup_is_hidden_until_complete() -> None:
    g = Game(options=RulesOptions(free_setup=True))
    s = g.new_initial_state(1)
    rng = random.Random(1)
    while s.current_agent == "french":
        s.apply_action(rng.choice(s.legal_actions()))
    assert s.phase == "setup"
    view = s.visible_to(1)
    assert all(view["loc"][u] == -1 for u in g.side_units[0])
    while s.phase == "setup":
        s.apply_action(rng.choice(s.legal_actions()))
    for u in s.on_map(0):
        name = g.unit_ids[u]
        if name not in ("FR-ALP", "BE-ARMY", "NL-ARMY"):
            assert s.loc[u] in g.french_locs and not g.data.locations[s.loc[u]].zone
    hosts = {s.loc[g.unit_ids.index("FR-1A")], s.loc[g.unit_ids.index("FR-7A")]}
    for uid in ("FR-1DCR", "FR-2DCR", "FR-3DCR", "FR-6A", "FR-10A"):
        assert s.loc[g.unit_ids.index(uid)] in hosts
    assert all(s.loc[u] in g.east for u in s.on_map(1))


PORTS = ["@14", "@26", "@A", "@B"]


def _refit(s: State) -> list[str]:
    """The Allied rebuild locations of the BEF, from a Refit Phase started at ``s``."""
    s.phase, s.refit_ctx = "refit", {"side": 0}
    s.ask("refit", 0)
    act(s, "rebuild GB-BEF full")
    return legal_texts(s)


def test_18_3_s64_the_bef_evacuated_by_dynamo_returns_through_a_port() -> None:
    """rule 18.3, S64: after Operation Dynamo the BEF is rebuilt in a BEF Evacuation Port only."""
    s = position(
        """
        turn 2 box 1 advantage none rp 3 0
        allied: GB-BEF@14 FR-8A@20
        axis: DE-1A@2
        held: allied 3
        """,
        RulesOptions(bef_returns=True, skip_forced=False),
    )
    bef = s.game.unit_ids.index("GB-BEF")
    assert s.decision == "event" and legal_texts(s) == ["no", "yes"]
    act(s, "yes")  # Operation Dynamo from the port of Area 14 (S19)
    assert s.status[bef] == ELIM and s.bef_evacuated
    assert _refit(s) == PORTS
    act(s, "@26")
    assert s.status[bef] == MAP and not s.bef_evacuated
    pr = Game(scenario="plan_red", options=RulesOptions(bef_returns=True)).new_initial_state(0)
    assert pr.status[bef] == ELIM and pr.bef_evacuated and 3 in pr.container and 3 not in pr.turn_track  # S58
    assert Game(scenario="plan_red").new_initial_state(0).status[bef] == GONE
    assert pr.status[pr.game.unit_ids.index("FR-8A")] == MAP


@pytest.mark.parametrize("bef_returns", [False, True])
def test_12_3_2_s64_a_bef_eliminated_in_combat_is_rebuilt_in_any_allied_area(bef_returns: bool) -> None:
    """rule 12.3.2, S46, S64: the port-only limit of 18.3 is for the BEF that Operation Dynamo removed; a BEF
    eliminated in combat is rebuilt like any Allied unit, with or without 18.3 (the withdrawn project
    ruling 2 said otherwise)."""
    s = position(
        """
        turn 2 box 2 advantage none rp 3 0
        allied: GB-BEF@14 FR-8A@20
        axis: DE-1A@2
        """,
        RulesOptions(bef_returns=bef_returns, skip_forced=False),
    )
    bef = s.game.unit_ids.index("GB-BEF")
    s.eliminate(bef, "combat")
    assert s.status[bef] == ELIM and not s.bef_evacuated
    where = _refit(s)
    assert set(PORTS) < set(where) and "@20" in where and "@17" in where and "@F" not in where
    assert len(where) > 20


def test_12_3_2_s64_the_bef_eliminated_after_a_return_is_rebuilt_anywhere() -> None:
    """rule 12.3.2, 18.3: evacuated, rebuilt in a port, then eliminated in combat: any Allied Area again."""
    s = position(
        """
        turn 2 box 1 advantage none rp 6 0
        allied: GB-BEF@14 FR-8A@20
        axis: DE-1A@2
        held: allied 3
        """,
        RulesOptions(bef_returns=True, skip_forced=False),
    )
    bef = s.game.unit_ids.index("GB-BEF")
    act(s, "yes")
    assert _refit(s) == PORTS
    act(s, "@A")
    s.eliminate(bef, "combat")
    assert "@20" in _refit(s)


def test_18_1_2_p8_air_landing_repulsed_retreats_by_priority_then_acts_as_a_reserve() -> None:
    s = position(
        """
        turn 2 box 2 advantage none
        allied: FR-9A@12
        axis: DE-4A@10
        off: DE-AIRLAND
        rolls: 6 1 1 6 6
        """,
        AIR,
    )
    g = s.game
    u = g.unit_ids.index("DE-AIRLAND")
    play_texts(s, "assault A", "@12", "combat 12", "DE-AIRLAND", "FR-9A", "no", "no")
    assert s.cmb is not None and s.cmb["result"] == "repulse" and s.reduced[u]
    act(s, "DE-AIRLAND")  # a mandatory retreat: it came from nowhere (P8), so by the priorities of 10.5.2
    assert s.status[u] == MAP and s.loc[u] in {n for n, _ in s.neighbours(g.loc_ids.index("12"))}
    assert s.units[u].ag == "R"  # 18.1.2: afterwards an Axis Reserve unit
