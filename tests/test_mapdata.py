"""The committed map (ffo_env/ffo/data/map.csv): components.md §6 checks, load/save, validation."""

from __future__ import annotations

import importlib.util
import sys
from collections import deque
from pathlib import Path

import numpy as np
import pytest

from ffo_env.core.errors import DataError
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.datasets import DATA_VERSIONS, DEFAULT_DATA, data_dir
from ffo_env.ffo.core.mapdata import ColoredRow, MapData, Terrain
from ffo_env.ffo.core.mapfile import MAP_VERSION, default_map_path, dumps_map, load_map, map_version, save_map

ROOT = Path(__file__).resolve().parent.parent
CITIES = (
    "Dijon",
    "Nevers",
    "Moulins",
    "Montluçon",
    "Vichy",
    "Clermont-Ferrand",
    "Chalon-sur-Saône",
    "Mâcon",
    "Lyon",
    "Saint-Étienne",
    "Le Puy",
    "Grenoble",
    "Valence",
    "Avignon",
    "Nîmes",
    "Montpellier",
    "Sète",
    "Marseille",
    "Toulon",
    "Cannes",
)
PORTS = ("Marseille", "Toulon", "Cannes", "Sète")


@pytest.fixture(scope="module")
def md() -> MapData:
    return load_map()


def test_version_and_default_path() -> None:
    assert default_map_path().is_file()
    assert map_version() == DEFAULT_DATA == "reconstruction-v3"  # the balanced data is played by default
    assert MAP_VERSION == "reconstruction-v1"  # what geography.yaml builds and save_map writes by default
    for version in DATA_VERSIONS:
        assert map_version(data_dir(version) / "map.csv") == version


def test_reconstruction_v2_and_v3_keep_the_v1_map() -> None:
    # the balance was tuned with counters and the CRT only (README, Game data): same hexes
    v1 = data_dir(DATA_VERSIONS[0]) / "map.csv"
    for later in DATA_VERSIONS[1:]:
        assert dumps_map(load_map(v1), later) == (data_dir(later) / "map.csv").read_text(encoding="utf-8")


def test_dijon_is_5625(md: MapData) -> None:
    assert hg.hex_name(md.hex_of_city("Dijon")) == "5625"


def test_the_twenty_cities(md: MapData) -> None:
    names = [md.city[i] for i in md.city_hexes()]
    assert sorted(names) == sorted(CITIES)
    for i in md.city_hexes():
        assert md.land[i], md.city[i]
        assert md.row[i] == ColoredRow.NONE, md.city[i]


def test_ports_are_the_four_coastal_cities(md: MapData) -> None:
    assert sorted(md.city[i] for i in md.port_hexes()) == sorted(PORTS)
    for i in md.port_hexes():
        assert md.coastal[i] and md.land[i] and md.is_city[i]


@pytest.mark.parametrize("row, n", [(ColoredRow.RED, 25), (ColoredRow.GREEN, 26), (ColoredRow.YELLOW, 30)])
def test_colored_rows(md: MapData, row: ColoredRow, n: int) -> None:
    hexes = md.row_hexes(row)
    assert len(hexes) == n
    for i in hexes:
        assert md.terrain[i] == Terrain.CLEAR
        assert not md.river[i].any()
        assert not md.city[i]
        for d in np.flatnonzero(md.blocked[i]):  # blocked only toward sea / neutral
            assert not md.land[hg.NEIGHBORS[i, d]]
    ids = sorted(hg.hex_id(i) for i in hexes)
    expected = {
        ColoredRow.RED: range(5900, 5925),
        ColoredRow.GREEN: range(6000, 6026),
        ColoredRow.YELLOW: range(2900, 5900, 100),
    }[row]
    assert ids == list(expected)


def _reach(md: MapData, start: list[int]) -> np.ndarray:
    seen = np.zeros(hg.N_HEX, dtype=bool)
    seen[start] = True
    q = deque(start)
    while q:
        i = q.popleft()
        for d, j in hg.NEIGHBOR_DIRS[i]:
            if md.land[j] and not md.blocked[i, d] and not seen[j]:
                seen[j] = True
                q.append(j)
    return seen


def test_every_land_hex_reachable_from_green_row(md: MapData) -> None:
    seen = _reach(md, md.row_hexes(ColoredRow.GREEN))
    cut = [hg.hex_name(i) for i in np.flatnonzero(md.land & ~seen)]
    assert cut == []


def test_every_port_reachable_from_red_row(md: MapData) -> None:
    seen = _reach(md, md.row_hexes(ColoredRow.RED))
    assert all(seen[i] for i in md.port_hexes())


def test_map_is_southern_france(md: MapData) -> None:
    # coarse shape: sea in the south, the Alps (mountain) in the south-east, Massif Central rough/mountain
    assert md.terrain[hg.hex_index(101)] == Terrain.SEA
    assert md.terrain[hg.hex_index(3022)] == Terrain.MOUNTAIN
    mc = [md.terrain[hg.hex_index(h)] for h in (4005, 3808, 3510)]
    assert all(t in (Terrain.ROUGH, Terrain.MOUNTAIN) for t in mc)
    lyon, marseille = md.hex_of_city("Lyon"), md.hex_of_city("Marseille")
    assert hg.HEX_X[lyon] > hg.HEX_X[md.hex_of_city("Valence")] > hg.HEX_X[marseille]
    assert md.river.sum() > 100 and md.river.sum() % 2 == 0
    # R14: no river hexsides around cities
    assert not md.river[md.city_hexes()].any()


def test_round_trip_byte_identical(md: MapData, tmp_path: Path) -> None:
    text = default_map_path().read_text(encoding="utf-8")
    assert dumps_map(md, DEFAULT_DATA) == text
    out = tmp_path / "copy.csv"
    save_map(md, out, DEFAULT_DATA)
    assert out.read_bytes() == default_map_path().read_bytes()
    again = load_map(out)
    for name in ("terrain", "port", "row", "river", "blocked", "coastal"):
        assert np.array_equal(getattr(again, name), getattr(md, name)), name
    assert again.city == md.city


def test_save_map_is_atomic(md: MapData, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ffo_env.atomic as atomic_mod  # the one atomic writer save_map goes through

    out = tmp_path / "map.csv"
    out.write_text("old contents\n", encoding="utf-8")

    def boom(*_a: object, **_k: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(atomic_mod.os, "replace", boom)
    with pytest.raises(OSError, match="cannot write .*map.csv"):
        save_map(md, out)
    assert out.read_text(encoding="utf-8") == "old contents\n"
    assert [p.name for p in tmp_path.iterdir()] == ["map.csv"]


def test_builder_projection_anchor() -> None:
    spec = importlib.util.spec_from_file_location("build_map", ROOT / "tools" / "ffo" / "build_map.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("build_map", mod)
    spec.loader.exec_module(mod)
    import yaml

    geo = yaml.safe_load((ROOT / "ffo_env" / "ffo" / "data" / "geography.yaml").read_text(encoding="utf-8"))
    proj = mod.make_projection(geo)
    assert int(mod.hexes_by_distance(proj.xy(47.322, 5.041))[0]) == hg.hex_index(5625)
    # 100 km along grid north (bearing 340) is 100 / 11.15 columns north of Dijon
    x0, y0 = proj.xy(47.322, 5.041)
    lat = 47.322 + 100 * np.cos(np.radians(340)) / 111.2
    lon = 5.041 + 100 * np.sin(np.radians(340)) / (111.2 * np.cos(np.radians(47.3)))
    x1, y1 = proj.xy(lat, lon)
    assert (y1 - y0) * 12.87 == pytest.approx(100, abs=1.5) and abs(x1 - x0) < 0.1


# --------------------------------------------------------------- malformed files
def _lines() -> list[str]:
    return default_map_path().read_text(encoding="utf-8").splitlines(keepends=True)


def _lineno(lines: list[str], hex_id: str) -> int:
    for k, line in enumerate(lines):
        if line.startswith(hex_id + ","):
            return k
    raise AssertionError(hex_id)


def _edit(lines: list[str], hex_id: str, **fields: str) -> int:
    k = _lineno(lines, hex_id)
    cols = ["hex", "terrain", "city", "port", "row", "river", "blocked"]
    parts = lines[k].rstrip("\n").split(",")
    for key, val in fields.items():
        parts[cols.index(key)] = val
    lines[k] = ",".join(parts) + "\n"
    return k + 1  # 1-based line number


def _load_bad(tmp_path: Path, lines: list[str]) -> str:
    path = tmp_path / "bad_map.csv"
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_map(path)
    msg = str(e.value)
    assert str(path) in msg
    assert isinstance(e.value, ValueError)
    return msg


def test_bad_terrain(tmp_path: Path) -> None:
    lines = _lines()
    n = _edit(lines, "4412", terrain="swamp")
    msg = _load_bad(tmp_path, lines)
    assert f"line {n}" in msg and "'swamp'" in msg and "clear, rough, marsh, mountain, sea, neutral" in msg


def test_unknown_hex_id(tmp_path: Path) -> None:
    lines = _lines()
    n = _edit(lines, "4412", hex="2525")
    msg = _load_bad(tmp_path, lines)
    assert f"line {n}" in msg and "2525" in msg


def test_duplicate_and_missing_hex(tmp_path: Path) -> None:
    lines = _lines()
    first = _lineno(lines, "4411") + 1
    n = _edit(lines, "4412", hex="4411")
    msg = _load_bad(tmp_path, lines)
    assert f"line {n}" in msg and "twice" in msg and f"line {first}" in msg
    lines = _lines()
    del lines[_lineno(lines, "4412")]
    msg = _load_bad(tmp_path, lines)
    assert "4412" in msg and "missing" in msg and f"line {len(lines)}" in msg


def test_asymmetric_river_names_both_hexes(tmp_path: Path) -> None:
    lines = _lines()
    # 3110 and 3111 are inland rough hexes without a river between them
    n = _edit(lines, "3110", river="E")
    msg = _load_bad(tmp_path, lines)
    assert f"line {n}" in msg and "3110" in msg and "3111" in msg and "river" in msg


def test_river_toward_off_map(tmp_path: Path) -> None:
    lines = _lines()
    n = _edit(lines, "5625", river="E")
    msg = _load_bad(tmp_path, lines)
    assert f"line {n}" in msg and "off-map" in msg


def test_bad_direction(tmp_path: Path) -> None:
    lines = _lines()
    n = _edit(lines, "4412", blocked="N")
    msg = _load_bad(tmp_path, lines)
    assert f"line {n}" in msg and "column blocked" in msg and "'N'" in msg


def test_duplicate_city_name(tmp_path: Path) -> None:
    lines = _lines()
    n = _edit(lines, "4412", city="Lyon")
    msg = _load_bad(tmp_path, lines)
    assert "Lyon" in msg and "unique" in msg and (f"line {n}" in msg)


def test_port_without_city(tmp_path: Path) -> None:
    lines = _lines()
    n = _edit(lines, "1418", port="port")  # a sea hex next to Toulon, no city
    msg = _load_bad(tmp_path, lines)
    assert f"line {n}" in msg and "port" in msg


@pytest.mark.parametrize(
    "fields, words",
    [
        ({"terrain": "rough"}, "clear"),
        ({"city": "Paris"}, "city"),
        ({"row": ""}, "red"),
    ],
)
def test_colored_row_rules(tmp_path: Path, fields: dict[str, str], words: str) -> None:
    lines = _lines()
    n = _edit(lines, "5910", **fields)
    msg = _load_bad(tmp_path, lines)
    assert f"line {n}" in msg and words in msg


def test_colored_row_river(tmp_path: Path) -> None:
    lines = _lines()
    _edit(lines, "5910", river="SE")
    n = _edit(lines, "5811", river="NW")
    msg = _load_bad(tmp_path, lines)
    assert "riverless" in msg and "5910" in msg and f"line {n}" in msg  # 5811 comes first in the file


def test_missing_version_and_header(tmp_path: Path) -> None:
    lines = [ln for ln in _lines() if not ln.startswith("version,")]
    msg = _load_bad(tmp_path, lines)
    assert "version" in msg and "line" in msg
    lines = [ln for ln in _lines() if not ln.startswith("hex,")]
    msg = _load_bad(tmp_path, lines)
    assert "header" in msg


def test_wrong_field_count(tmp_path: Path) -> None:
    lines = _lines()
    k = _lineno(lines, "4412")
    lines[k] = "4412,clear\n"
    msg = _load_bad(tmp_path, lines)
    assert f"line {k + 1}" in msg and "7" in msg


def test_comments_and_blank_lines_allowed(tmp_path: Path) -> None:
    lines = _lines()
    k = _lineno(lines, "4412")
    lines.insert(k, "# a hand note about 4412\n\n")
    path = tmp_path / "ok.csv"
    path.write_text("".join(lines), encoding="utf-8")
    assert load_map(path).terrain.shape == (hg.N_HEX,)
