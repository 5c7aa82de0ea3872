"""The optional German airborne rule (F41, F8, F11, F19, F26 for paratroops)."""

from __future__ import annotations

from ffo_env.france1940.core import airborne
from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.options import RulesOptions
from ffo_env.france1940.core.state import ELIM, MAP, REMOVED

from .f40_helpers import act, attack, legal_texts, pos

AB = {"optional_airborne": True}


def test_f41_a_airborne_units_off_map_and_two_corps_removed_before_setup() -> None:
    s = Game(RulesOptions(**AB)).new_initial_state(0)
    assert s.decision == "airborne_remove" and s.current_player == GERMAN
    assert len(airborne.pool(s, "paratroop")) == 6 and len(airborne.pool(s, "air_landing")) == 3
    act(s, "DE-INF-01", "DE-PZ4-01", "DE-PZ4-02")
    assert s.decision == "airborne_remove"  # 5 of 6: only weight-1 units fit now
    assert all(s.spec(s.game.unit_index(t)).type.weight == 1 for t in legal_texts(s))
    act(s, "DE-PZ4-03")
    assert s.decision == "place" and s.current_player == ALLIED
    assert not any(q["kind"] == "restrict" for q in s.queue)  # F11 lapses with the airborne rule
    assert sum(1 for u in s.game.side_units[GERMAN] if s.arrive[u] == 0) == 45 - 4


def test_f8_belgian_fortified_area_stays_with_the_airborne_rule() -> None:
    s = pos("turn 1 german initial\ngerman: DE-INF-01@1013\n", skip_forced=False, **AB)
    act(s, "done")
    assert s.fort_active(401) and s.belgian_area


def test_f41_b_drop_within_twenty_of_an_unmoved_gse_and_landing_roll() -> None:
    text = "turn 1 german initial\ngerman: DE-GSE-01@200\npool: DE-PARA-01 DE-ALND-01\n"
    s = pos(text + "rolls: 4\n", skip_forced=False, **AB)
    assert "DE-PARA-01" in legal_texts(s) and "DE-ALND-01" not in legal_texts(s)
    act(s, "DE-PARA-01")
    hexes = {int(t[1:]) for t in legal_texts(s)}
    from ffo_env.france1940.core.hexgrid import distance

    assert max(distance(200, h) for h in hexes) == 20
    act(s, "@329")  # Nijmegen: invades the Netherlands
    para = s.game.unit_index("DE-PARA-01")
    assert s.status[para] == MAP and s.hex[para] == 329 and "N" in s.invaded
    assert s.decision == "airland"
    s = pos(text + "rolls: 5\n", skip_forced=False, **AB)
    act(s, "DE-PARA-01", "@329")
    assert s.status[para] == ELIM and s.vp[ALLIED] == 1  # 5-6 destroys it on landing (F39)


def test_f41_c_assault_on_an_empty_fortified_hex() -> None:
    text = "turn 1 german initial\ngerman: DE-GSE-01@200 DE-GSE-02@201\npool: DE-PARA-01\n"
    s = pos(text + "rolls: 1 3\n", skip_forced=False, **AB)
    act(s, "DE-PARA-01")
    assert "@401" in legal_texts(s)
    act(s, "@401")
    assert s.decision == "assault_ac" and sorted(legal_texts(s)) == ["DE-GSE-01", "DE-GSE-02"]
    act(s, "DE-GSE-01")
    assert 401 in s.fort_destroyed and s.hex[s.game.unit_index("DE-PARA-01")] == 401
    assert s.ac_mission[s.game.unit_index("DE-GSE-01")] == "asl"
    s = pos(text + "rolls: 1 6\n", skip_forced=False, **AB)
    act(s, "DE-PARA-01", "@401", "DE-GSE-01")
    assert 401 not in s.fort_destroyed and s.status[s.game.unit_index("DE-PARA-01")] == ELIM


def test_f41_c_assault_on_an_occupied_fortified_hex_costs_the_paratroop() -> None:
    text = (
        "turn 1 german initial\ninvaded: B\nallied: BE-INF-01@401\ngerman: DE-GSE-01@200\npool: DE-PARA-01\n"
    )
    s = pos(text + "rolls: 1 2\n", skip_forced=False, **AB)
    act(s, "DE-PARA-01", "@401", "DE-GSE-01")
    assert 401 in s.fort_destroyed and s.status[s.game.unit_index("DE-PARA-01")] == ELIM
    assert s.status[s.game.unit_index("BE-INF-01")] == MAP  # the defenders are never affected


def test_f41_d_air_landing_regiments_land_and_do_not_move() -> None:
    text = "turn 1 german initial\ngerman: DE-GSE-01@200\npool: DE-PARA-01 DE-ALND-01 DE-ALND-02\nrolls: 1\n"
    s = pos(text, skip_forced=False, **AB)
    act(s, "DE-PARA-01", "@329", "DE-ALND-01", "DE-ALND-02", "done")
    g = s.game
    assert [s.hex[g.unit_index(t)] for t in ("DE-ALND-01", "DE-ALND-02")] == [329, 329]
    assert "DE-ALND-01" not in legal_texts(s) and s.exerts_zoc(g.unit_index("DE-ALND-01"))


def test_f41_e_paratroops_attacked_alone_are_destroyed_and_passed_through() -> None:
    s = pos(
        "turn 2 allied combat\ninvaded: N\nallied: NL-INF-01@328\ngerman: DE-PARA-01@329\n",
        skip_forced=False,
        **AB,
    )
    act(s, "@329", "NL-INF-01", "done")
    assert s.status[s.game.unit_index("DE-PARA-01")] == ELIM and s.vp[ALLIED] == 1 and not s.rolls
    text = "turn 2 allied initial\ninvaded: N\nallied: {}@328\ngerman: DE-PARA-01@329\n"
    s = pos(text.format("NL-INF-01"), skip_forced=False, **AB)
    act(s, "NL-INF-01")
    assert "@329" not in legal_texts(s)  # 1 + 3 in, then 1 + 2 out: more than 6 MP
    s = pos(text.format("GB-CORPS8-01"), skip_forced=False, **AB)
    act(s, "GB-CORPS8-01", "@329")  # 1 + 3 to enter, as for a ZOC
    assert s.mp_left == 4 and "done" not in legal_texts(s)  # may not stop there
    passing = (s.occupants(329), s.side_at(329), s.stack_count(329))
    s.touch()  # the index kept across the step is what a rebuild from the counters gives
    assert len(passing[0]) == 2 and passing == (s.occupants(329), s.side_at(329), s.stack_count(329))
    act(s, legal_texts(s)[0])
    assert s.mp_left == 1 and s.hex[s.game.unit_index("GB-CORPS8-01")] != 329
    assert s.occupants(329) == [s.game.unit_index("DE-PARA-01")] and s.side_at(329) == GERMAN
    assert s.stack_count(329) == 0  # paratroops count zero (F13)


def test_f26_paratroops_that_must_retreat_are_eliminated() -> None:
    s = pos(
        "turn 2 allied combat\ninvaded: N\nallied: NL-INF-01@330\ngerman: DE-PARA-01@329 DE-ALND-01@329\nrolls: 2\n",
        skip_forced=False,
        **AB,
    )
    attack(s, 329, ["NL-INF-01"], ["DE-ALND-01"])  # 4:1 -> 4-1, die 2: DR
    assert s.status[s.game.unit_index("DE-PARA-01")] == ELIM and s.vp[ALLIED] == 1
    assert s.decision == "retreat" and s.queue[0]["unit"] == s.game.unit_index("DE-ALND-01")


def test_f41_f_paratroops_withdrawn_when_reached_and_supplied() -> None:
    s = pos("turn 2 german initial\ngerman: DE-PARA-01@329 DE-INF-01@297\n", skip_forced=False, **AB)
    act(s, "done")  # end of the German Initial Movement Phase
    assert s.status[s.game.unit_index("DE-PARA-01")] == REMOVED and s.vp == [0, 0]


def test_f19_belgian_fortified_hexes_supply_with_the_airborne_rule() -> None:
    text = (
        "turn 3 german combat\ninvaded: B\nbelgian_area: yes\nallied: BE-INF-01@402\n"
        "german: DE-INF-01@369 DE-INF-02@403 DE-INF-03@433 DE-INF-04@434\n"
    )
    s = pos(text, **AB)
    u = s.game.unit_index("BE-INF-01")
    assert s.fort_active(402) and s.judge_supply([u])[u]


def test_f19_p5_fortress_supply_traces_for_each_unit_its_own_home() -> None:
    """F19 (P5), F6 c: a unit traces to a fortress through hexes open to *its* home country. A Belgian unit
    in an encircled pocket of uninvaded Belgium reaches the Belgian fortified hexes through Belgium; a French
    unit asking first (closed out of neutral Belgium) must not close the way for it."""
    pocket_ring = [
        305,
        306,
        307,
        336,
        337,
        340,
        341,
        367,
        373,
        399,
        406,
        431,
        437,
        464,
        465,
        466,
        467,
        468,
        469,
    ]
    around_1013 = [981, 982, 1012, 1014, 1045, 1046]  # a French unit encircled in France: out of any supply
    german = " ".join(f"DE-INF-{i + 1:02d}@{h}" for i, h in enumerate(pocket_ring + around_1013))
    s = pos(
        f"turn 3 german combat\nbelgian_area: yes\nallied: FR-INF-01@1013 BE-INF-01@404\ngerman: {german}\n",
        **AB,
    )
    fr, be = s.game.unit_index("FR-INF-01"), s.game.unit_index("BE-INF-01")
    assert "B" not in s.invaded and s.fort_active(402) and s.closed_to_home("F", 403)
    assert not s.closed_to_home("B", 403) and 403 not in s.enemy_zoc_for_supply(ALLIED)
    for order in ([fr, be], [be, fr]):
        s.touch()
        sup = s.judge_supply(order)
        assert sup[be] is True and sup[fr] is False, order  # 404 -> 403 -> the fortress 402 (or 370, 401)
