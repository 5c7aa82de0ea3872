"""Data-file validation: every bad value, misspelt key or illegal fixed placement raises one DataError
naming the file and key, what was found and what was expected; the shipped data loads."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ffo_env.core.errors import DataError
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.scenario import DATA_DIR, load_scenario


def test_shipped_data_loads_and_its_fixed_setup_is_legal():
    sc = load_scenario()
    assert sc.fixed_setup


@pytest.fixture
def data(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    return d


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


TABLES = [
    (
        "clear: 1, rough",
        "clear: 0, rough",
        r"tables\.yaml: tec\.move_cost\.clear: expected an integer in \[1, 30\], got 0",
    ),
    (
        "clear: 1, rough",
        "clear: -2, rough",
        r"tec\.move_cost\.clear: expected an integer in \[1, 30\], got -2",
    ),
    (
        "mechanized: 6,",
        "mechanized: -1,",
        r"game\.movement_factor\.mechanized: expected an integer in \[0, 30\], got -1",
    ),
    ("mechanized: 6,", "mechanized: 1000000,", r"game\.movement_factor\.mechanized: .* got 1000000"),
    (
        "mechanized: 6,",
        "mechanized: six,",
        r"game\.movement_factor\.mechanized: expected an integer, got 'six'",
    ),
    (
        "  last_turn: 15",
        "  last_turns: 15",
        r"tables\.yaml: game\.last_turns: unknown key; did you mean 'last_turn'\?",
    ),
    ("  stack_limit: 1 ", "  stak_limit: 1 ", r"game\.stak_limit: unknown key; did you mean 'stack_limit'\?"),
    ("tec:", "tecs:", r"tables\.yaml: tecs: unknown key; did you mean 'tec'\?"),
]


@pytest.mark.parametrize("old, new, message", TABLES)
def test_r8_11_1_bad_tables_values_name_file_and_key(data, old, new, message):
    _edit(data / "tables.yaml", old, new)
    with pytest.raises(DataError, match=message):
        load_scenario(data)


def test_misspelt_unit_key_names_the_nearest_valid_one(data):
    _edit(
        data / "units.yaml",
        "side: german, nationality: german, type: mountain",
        "side: german, nationalty: german, type: mountain",
    )
    with pytest.raises(
        DataError,
        match=r"units\.yaml: units\[\d+\]\.nationalty: unknown key; "
        r"did you mean 'nationality'\?",
    ):
        load_scenario(data)


def test_misspelt_setup_key_is_refused(data):
    _edit(data / "setup_fixed.yaml", "placement:", "placements:")
    with pytest.raises(
        DataError, match=r"setup_fixed\.yaml: placements: unknown key; did you mean 'placement'\?"
    ):
        load_scenario(data)


def _sea_hex_name() -> str:
    land = load_scenario().map.land
    return hg.hex_name(next(h for h in range(hg.N_HEX) if not land[h]))


def test_3_3_fixed_placement_at_sea_is_refused(data):
    sea = _sea_hex_name()
    _edit(data / "setup_fixed.yaml", 'fr-III: "5901"', f'fr-III: "{sea}"')
    with pytest.raises(
        DataError, match=rf"setup_fixed\.yaml: placement\.fr-III: hex {sea} is not a legal setup hex"
    ):
        load_scenario(data)


def test_3_4_german_placement_in_the_french_row_is_refused(data):
    _edit(data / "setup_fixed.yaml", 'de-IV: "6001"', 'de-IV: "5920"')
    with pytest.raises(DataError, match=r"placement\.de-IV: hex 5920 is not a legal setup hex"):
        load_scenario(data)


def test_6_2_fixed_setup_overstack_is_refused(data):
    _edit(data / "setup_fixed.yaml", 'fr-III: "5901"', 'fr-III: "5900"')
    _edit(data / "setup_fixed.yaml", 'fr-VI: "5902"', 'fr-VI: "5900"')
    with pytest.raises(DataError, match=r"placement\.fr-VI: hex 5900 is not a legal setup hex"):
        load_scenario(data)


def test_r2_reinforcement_in_fixed_setup_is_refused(data):
    path = data / "setup_fixed.yaml"
    path.write_text(path.read_text(encoding="utf-8") + '  de-X: "6010"\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"placement\.de-X"):
        load_scenario(data)


def test_unknown_unit_in_fixed_setup_is_refused(data):
    path = data / "setup_fixed.yaml"
    path.write_text(path.read_text(encoding="utf-8") + '  fr-XCIX: "5920"\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"placement\.fr-XCIX: expected a unit id"):
        load_scenario(data)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "1625,clear,Cannes,port,",
            "1625,clear,Kannes,port,",
            r"fr-Can\.port: expected a city of .*map\.csv, got 'Cannes'",
        ),
        (
            "1625,clear,Cannes,port,",
            "1625,clear,Cannes,,",
            r"fr-Can\.port: Cannes is not a port in .*map\.csv",
        ),
    ],
)
def test_a_units_port_missing_from_the_map_names_both_files(data, old, new, message):
    """An edit of map.csv can break a unit's port in units.yaml: the error names both files (a fuzzed map
    edit once got an error naming units.yaml only)."""
    _edit(data / "map.csv", old, new)
    with pytest.raises(DataError, match=message) as e:
        load_scenario(data)
    assert "units.yaml" in str(e.value)
