"""Sections 1 and 2 of the rulebook: the premise, scale and components, checked on the shipped data.

These rules fix facts of the counters and the map rather than procedures; each test reads them through
the same loaders and core the game uses, so a data edit that breaks a rule fails here.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from ffo_env.core.dice import Dice
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.mapdata import Terrain
from ffo_env.ffo.core.scenario import Side, default_scenario

DATA = Path(__file__).resolve().parents[1] / "ffo_env" / "ffo" / "data"

MECH = {"panzer", "motorized", "cavalry", "armor"}
NON_MECH = {"infantry", "colonial", "adhoc", "fortress", "mountain"}
STATIC = {"naval_garrison"}
FRENCH, GERMAN = Side.FRENCH, Side.GERMAN


pytestmark = pytest.mark.usefixtures("rules_data")  # conftest.RULES_DATA: figures of reconstruction-v1


@pytest.fixture(scope="module")
def scen():  # type: ignore[no-untyped-def]
    return default_scenario()


def test_1_1_1_2_the_game_is_one_month_of_two_day_turns(scen) -> None:  # type: ignore[no-untyped-def]
    # rule 1.1: "held to only one month"; rule 1.2: "Each game turn represents two days"
    assert scen.tables.last_turn * 2 == 30


def test_1_2_hexes_are_eight_miles_across() -> None:
    geo = yaml.safe_load((DATA / "geography.yaml").read_text(encoding="utf-8"))
    assert geo["projection"]["hex_km"] == pytest.approx(8 * 1.609344, abs=0.01)  # rule 1.2: 8 miles (13 km)


def test_1_3_no_alpine_front_no_italian_forces_and_neutral_hexes_closed(scen) -> None:  # type: ignore[no-untyped-def]
    # rule 1.3: the Alpine front, its Italian attackers and the French units engaged there are left out
    assert {u.nationality for u in scen.units} == {"french", "british", "german"}
    assert not any("alpin" in u.name.lower() for u in scen.units)
    game = Game(scenario=scen)
    neutral = [h for h in range(hg.N_HEX) if scen.map.terrain[h] == Terrain.NEUTRAL]
    for side in (FRENCH, GERMAN):
        assert all(game.forbidden[side][h] for h in neutral)  # no unit may enter a neutral hex


def test_2_1_one_six_sided_die() -> None:
    dice = Dice(seed=7)
    rolls = Counter(dice.roll() for _ in range(6000))
    assert set(rolls) == {1, 2, 3, 4, 5, 6}  # rule 2.1: a standard six-sided die
    assert min(rolls.values()) > 850


def test_2_2_every_hex_has_a_unique_four_digit_number_and_dijon_is_5625(scen) -> None:  # type: ignore[no-untyped-def]
    names = [hg.hex_name(h) for h in range(hg.N_HEX)]
    assert len(set(names)) == hg.N_HEX
    assert all(len(n) == 4 and n.isdigit() for n in names)
    assert hg.hex_name(scen.map.hex_of_city("Dijon")) == "5625"  # rule 2.2


def test_2_3_every_counter_shows_nationality_type_strength_and_identity(scen) -> None:  # type: ignore[no-untyped-def]
    ids = [u.id for u in scen.units]
    assert len(ids) == len(set(ids))
    for u in scen.units:
        assert u.id and u.name and u.nationality and u.type  # rule 2.3
        assert u.cf_full >= u.cf_reduced >= 0


def test_2_4_sample_unit_is_the_german_14th_motorized_corps(scen) -> None:  # type: ignore[no-untyped-def]
    u = scen.unit("de-XIV")
    assert u.side == GERMAN and u.type == "motorized" and u.mechanized and u.steps == 2  # rule 2.4


def test_2_5_the_british_51st_is_a_french_unit(scen) -> None:  # type: ignore[no-untyped-def]
    british = [u for u in scen.units if u.nationality == "british"]
    assert [u.id for u in british] == ["br-51"]
    assert british[0].side == FRENCH and british[0].is_british_51  # rule 2.5 note
    mountain = [u for u in scen.units if u.type == "mountain"]
    assert mountain and all(
        u.side == GERMAN and not u.mechanized for u in mountain
    )  # non-mechanized sub-type


def test_2_6_every_unit_is_mechanized_non_mechanized_or_static(scen) -> None:  # type: ignore[no-untyped-def]
    for u in scen.units:
        assert u.type in MECH | NON_MECH | STATIC, u.id  # rule 2.6
        assert u.mechanized == (u.type in MECH)
        assert u.static == (u.type in STATIC)
    assert all(u.port for u in scen.units if u.static)  # the static units are the port garrisons


def test_2_7_sizes_are_corps_division_or_brigade(scen) -> None:  # type: ignore[no-untyped-def]
    assert {u.size.strip("[]") for u in scen.units} <= {"XXX", "XX", "X"}  # rule 2.7 (brackets: ad hoc)
    assert all(u.size.startswith("[") for u in scen.units if u.type == "adhoc")


def test_2_8_w_marks_the_west_edge_reinforcement_group(scen) -> None:  # type: ignore[no-untyped-def]
    west = {u.id for u in scen.units if u.west}
    assert west == {
        u.id for u in scen.units if u.side == GERMAN and u.group in ("4", "K")
    }  # rule 2.8 "W", 9.5
    assert all(u.setup == "reinforcement" for u in scen.units if u.west)
    assert {u.id for u in scen.units if u.type == "colonial"} == {"fr-CAC", "fr-1CAC"}  # "Col"


def test_2_10_movement_factors_six_mechanized_four_non_mechanized(scen) -> None:  # type: ignore[no-untyped-def]
    state = Game(scenario=scen, options=RulesOptions(setup="fixed")).new_initial_state(0)
    for u in scen.units:
        want = 6 if u.mechanized else 0 if u.static else 4  # rule 2.10, R19
        assert state.mf(u.index) == want, u.id


def test_2_11_units_start_at_full_strength_and_two_step_units_have_two_factors(scen) -> None:  # type: ignore[no-untyped-def]
    state = Game(scenario=scen, options=RulesOptions(setup="fixed")).new_initial_state(0)
    for u in scen.units:
        assert u.steps in (1, 2)
        assert (u.steps == 1) == (u.cf_full == u.cf_reduced)
        assert state.is_full(u.index) and state.cf(u.index) == u.cf_full  # rule 2.11: set up at full strength


def test_2_12_zero_factor_units_exist_and_are_units_of_the_game(scen) -> None:  # type: ignore[no-untyped-def]
    zero = [u for u in scen.units if u.cf_reduced == 0]
    # rule 2.12: reduced fortress corps and the naval garrisons have a combat factor of zero
    assert {u.type for u in zero} == {"fortress", "naval_garrison"}


def test_2_13_markers_four_refugees_two_naval_one_fliegerkorps(scen) -> None:  # type: ignore[no-untyped-def]
    t = scen.tables
    assert t.refugee_max == 4  # rule 2.13, 10.1
    assert {k for k in t.support if k.startswith("naval_")} and {
        k for k in t.support if k.startswith("stuka_")
    }
