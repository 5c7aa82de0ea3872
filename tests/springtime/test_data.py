"""The data files (C§2-C§8): the checks the reconstruction must pass, and located errors for bad data."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ffo_env.core.errors import DataError
from ffo_env.springtime.core import Game
from ffo_env.springtime.core.data import DATA_DIR, load_data

D = load_data()


def test_3_1_thirty_areas_and_six_zones() -> None:
    assert [x.id for x in D.locations] == [str(i) for i in range(1, 31)] + list("ABCDEF")
    assert [x.id for x in D.locations if x.zone] == list("ABCDEF")


def test_3_1_4_s5_adjacency_symmetric_one_type_81() -> None:
    pairs = set()
    for loc in D.locations:
        for n, b in D.adjacency[loc.index]:
            assert (loc.index, b) in D.adjacency[n]
            pairs.add(frozenset((loc.index, n)))
    assert len(pairs) == 81


def test_14_3_zone_f_only_next_to_e_and_east_edge() -> None:
    f = D.loc_index("F")
    assert [D.locations[n].id for n, _ in D.adjacency[f]] == ["E"]
    assert [x.id for x in D.locations if x.east] == ["1", "2", "3", "4", "5", "6"]


def test_3_1_1_country_counts_and_special_locations() -> None:
    areas = [x for x in D.locations if not x.zone]
    count = {c: sum(1 for x in areas if x.country == c) for c in ("DE", "NL", "BE", "FR")}
    assert count == {"DE": 6, "NL": 2, "BE": 5, "FR": 17}
    assert [x.id for x in D.locations if x.maginot] == ["18", "19", "20"]
    assert [x.id for x in D.locations if x.paris] == ["25"]
    assert [x.id for x in D.locations if x.port] == ["14", "26", "A", "B"]
    assert [x.id for x in D.locations if x.supply_zone] == list("ABCDE")


def test_s6_initial_axis_control() -> None:
    s = Game().new_initial_state(0)
    assert {s.game.loc_ids[i] for i, c in enumerate(s.control) if c == 1} == {
        "1",
        "2",
        "3",
        "4",
        "5",
        "6",
        "F",
    }


def test_4_2_units_and_leaders() -> None:
    assert len(D.units) == 35 and len(D.leaders) == 25
    allied_armor = [u.id for u in D.units if u.armor and u.side == 0]
    axis_armor = [u.id for u in D.units if u.armor and u.side == 1]
    assert len(allied_armor) == 4 and len(axis_armor) == 5
    assert len({u.id for u in D.units}) == 35


def test_s13_nine_events_six_asterisked() -> None:
    assert len(D.events) == 9
    assert [e.number for e in D.events if e.asterisk] == [1, 2, 3, 6, 7, 8]
    assert [e.side for e in D.events] == ["allied"] * 4 + ["either"] + ["axis"] * 4


@pytest.mark.parametrize("scenario", ["campaign", "plan_red"])
def test_s42_every_unit_in_supply_at_setup(scenario: str) -> None:
    s = Game(scenario=scenario).new_initial_state(0)
    for u in s.on_map():
        assert s.in_supply(u), s.game.unit_ids[u]


def test_5_2_campaign_setup_stacks() -> None:
    s = Game().new_initial_state(0)
    g = s.game
    assert s.count(g.loc_ids.index("13"), 0) == 5
    assert s.reduced[g.unit_ids.index("FR-10A")] and sum(s.reduced) == 1
    assert s.status[g.unit_ids.index("FR-4DCR")] == 0 and s.status[g.unit_ids.index("IT-W")] == 0
    assert (s.morale, s.rp, s.advantage) == (30, [5, 10], 1)


def test_19_plan_red_front_is_closed() -> None:
    """C§8: every Allied location next to an Axis one holds Allied units; no Axis Area next to Paris."""
    s = Game(scenario="plan_red").new_initial_state(0)
    g = s.game
    for loc in range(g.n_locs):
        if s.control[loc] == 0 and any(s.control[n] == 1 and n != g.zone_f for n, _ in s.neighbours(loc)):
            assert s.has(loc, 0), g.loc_ids[loc]
    assert not any(s.control[n] == 1 for n, _ in s.neighbours(g.paris))


def _copy(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    return d


@pytest.mark.parametrize(
    ("file", "old", "new", "message"),
    [
        ("map.yaml", '"7":  [NL, 1, A', '"7":  [NL, 9, A', "locations.7 TEM: expected an integer in [1, 4]"),
        ("map.yaml", "  E F O\n", "  E F X\n", "adjacency line 81: expected 'a b O|R|M'"),
        ("map.yaml", "  1 2 R\n", "  1 2 R\n  2 1 O\n", "a new adjacency of two distinct locations"),
        ("units.yaml", '"1", 6, 3, 2]', '"Q", 6, 3, 2]', "units.FR-1A Army Group: expected one of"),
        ("units.yaml", "FR-1A, 1, 0]", "FR-99, 1, 0]", "leaders.L-BLANCHARD unit"),
        ("tables.yaml", "impulse_boxes: 10", "impulse_boxes: ten", "tables.yaml: impulse_boxes"),
        ("scenarios.yaml", '    FR-2A: "17"', '    FR-2A: "99"', "campaign.units.FR-2A"),
        ("scenarios.yaml", '    DE-16A: "11"', '    DE-16A: "16"', "at most 5 units a side per Area"),
        ("tables.yaml", "version: sfh", "version: xx", "tables.yaml: version"),
        ("tables.yaml", "flip_inf: 1", "flip_inf: 0", "refit_costs.flip_inf: expected an integer in [1, 50]"),
    ],
)
def test_bad_data_names_file_and_key(tmp_path: Path, file: str, old: str, new: str, message: str) -> None:
    d = _copy(tmp_path)
    p = d / file
    text = p.read_text(encoding="utf-8")
    assert old in text
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_data(d)
    assert message in str(e.value)
    assert file in str(e.value)


def test_3_1_2_3_1_3_s3_s4_tem_ports_and_no_other_locations() -> None:
    assert all(1 <= x.tem <= 4 for x in D.locations)
    assert len(D.locations) == 36  # S3; Luxembourg is part of Area 11, Belgian (S4)
    assert D.locations[D.loc_index("11")].country == "BE"
    assert all(0 <= n < 36 for row in D.adjacency for n, _ in row)  # nothing leads to Switzerland or the sea


def test_3_2_3_3_3_4_3_5_tracks_and_dice() -> None:
    from ffo_env.core.dice import Dice

    assert D.tables["turns"] == 7 and D.tables["impulse_boxes"] == 10
    d = Dice(3)
    rolls = [d.roll() for _ in range(600)]
    assert set(rolls) == {1, 2, 3, 4, 5, 6}
    s = Game().new_initial_state(0)
    assert (s.turn, s.box, s.morale, s.rp) == (1, 6, 30, [5, 10])


def test_4_1_4_3_4_3_1_4_3_2_4_3_3_unit_information() -> None:
    u = {x.id: x for x in D.units}
    assert u["FR-PRIOUX"].size == "corps" and not u["FR-PRIOUX"].armor
    assert u["DE-XIV"].size == "corps" and not u["DE-XIV"].armor
    assert all(x.size == "division" for x in D.units if x.armor and x.side == 0)
    assert all(x.size == "corps" for x in D.units if x.armor and x.side == 1)
    assert all(x.cv_full >= x.cv_reduced and x.mf >= 1 for x in D.units)
    assert {x.nation for x in D.units} == {"FR", "GB", "BE", "NL", "DE", "IT"}
    assert u["IT-W"].ag == "W" and u["GB-BEF"].ag == "1" and u["FR-6A"].ag == "R" and u["DE-2A"].ag == "R"


def test_4_4_markers_4_4_1_4_4_2_4_4_3_4_4_4_4_4_5_4_4_6_4_4_7_4_4_8_4_4_9() -> None:
    s = Game(
        options=__import__("ffo_env.springtime.core", fromlist=["RulesOptions"]).RulesOptions()
    ).new_initial_state(0)
    g = s.game
    assert len(D.leaders) == 25 and D.leaders[g.kleist].name == "Kleist"  # 4.4.1
    assert s.control.count(1) == 7  # 4.4.2
    assert (s.turn, s.advantage) == (1, 1)  # 4.4.3, 4.4.4: Axis holds the Advantage
    assert s.rp == [5, 10]  # 4.4.5
    assert len(s.container) + sum(1 for h in s.held if h) == 9  # 4.4.6
    assert {k: v[0] for k, v in D.tables["air"].items()} == {"DE": 2, "FR": 1, "GB": 1}  # 4.4.7
    assert not any(s.oos)  # 4.4.8
    assert s.morale == 30  # 4.4.9


def test_5_1_1_5_1_2_5_1_3_5_1_4_5_1_5_5_1_6_5_1_7_marker_placement() -> None:
    s = Game().new_initial_state(0)
    assert (s.turn, s.box, s.advantage, s.morale, s.rp) == (1, 6, 1, 30, [5, 10])
    assert not s.german_air_full and not s.allied_air_full
    assert sorted(s.container + [h for h in s.held if h]) == list(range(1, 10))


def test_5_2_1_5_2_2_s1_s2_setups_as_printed() -> None:
    s = Game().new_initial_state(0)
    g = s.game
    where = {g.unit_ids[u]: g.loc_ids[s.loc[u]] for u in s.on_map()}
    assert (
        where["FR-1A"] == "13"
        and where["GB-BEF"] == "13"
        and where["FR-ALP"] == "E"
        and where["NL-ARMY"] == "8"
    )
    assert (
        where["DE-XIX"] == "3" and where["DE-XIV"] == "4" and where["DE-7A"] == "1" and where["DE-18A"] == "6"
    )
    assert D.leaders[g.leader_of[g.unit_ids.index("FR-2A")]].name == "Huntziger"  # S2
    assert len(s.on_map(0)) == 18 and len(s.on_map(1)) == 14


def test_19_1_19_1_1_19_1_2_19_2_s56_s57_s58_plan_red_setup() -> None:
    s = Game(scenario="plan_red").new_initial_state(0)
    g = s.game
    u = g.unit_ids.index
    assert s.loc[u("FR-4DCR")] == g.loc_ids.index("26") and s.reduced[u("FR-4DCR")]  # S56
    assert [g.unit_ids[x] for x in range(g.n_units) if s.reduced[x]] == [
        "FR-2A",
        "FR-2DCR",
        "FR-3DCR",
        "FR-4DCR",
    ]
    assert {g.loc_ids[i] for i, c in enumerate(s.control) if c == 1} == {str(i) for i in range(1, 18)} | {"F"}
    assert s.status[u("DE-XXXIX")] == 2 and s.status[u("FR-1A")] == 3  # eliminated / permanently removed
    assert sorted(s.turn_track) == [1, 2, 3, 6, 7] and (s.morale, s.rp) == (20, [0, 5])


def test_s60_morale_and_rps_are_unbounded() -> None:
    s = Game().new_initial_state(0)
    s.change_morale(-45, "test")
    s.rp[0] = 250
    from ffo_env.springtime.core.state_io import check_state

    check_state(s)
    assert s.morale == -15
