"""The reconstruction's data (C§1-C§12) and its loader: the cited facts and checks of C§14, bad files."""

from __future__ import annotations

import random
import shutil
from collections import deque
from pathlib import Path

import pytest
import yaml

from ffo_env.core.errors import DataError
from ffo_env.france1940.core import hexgrid as H
from ffo_env.france1940.core.data import DATA_DIR, DATA_VERSION, data_for, default_data, load_data

D = default_data()
LAND = [n for n in range(1, H.N_HEXES + 1) if D.playable(n)]


def test_data_version() -> None:
    assert (
        DATA_VERSION == "f40-reconstruction-v3"
    )  # the default since session 48 (P20, docs/france1940/bots.md)
    for name in ("map.yaml", "units.yaml", "obac.yaml", "tables.yaml"):
        assert yaml.safe_load((DATA_DIR / name).read_text())["version"] == DATA_VERSION


def test_c1_grid_numbering_inverse() -> None:
    for n in range(1, H.N_HEXES + 1):
        assert H.hex_number(*H.col_row(n)) == n
    assert H.col_row(1249) == (40, 1)  # "the northwest corner square" [BEF], F3
    assert H.col_row(32) == (1, 32) and H.col_row(1280) == (40, 32)


def test_c1_2_neighbour_symmetry_and_edges() -> None:
    for n in range(1, H.N_HEXES + 1):
        for m in H.neighbours(n):
            assert n in H.neighbours(m)
        c, r = H.col_row(n)
        interior = 1 < c < H.COLUMNS and 1 < r < H.ROWS
        assert len(H.neighbours(n)) == 6 or not interior
    assert H.neighbours(1) == (2, 33)  # odd column, north-east corner: (c, r+1) and (c+1, r)
    assert len(H.neighbours(32)) == 3  # odd column south end: (1,31), (2,31), (2,32)


def test_f3_154_neighbours_cited_by_bef() -> None:
    # [BEF Special Stacking Rules]: 154 is attacked from 153, 121 and 122 (C§1.1, F3)
    assert set(H.neighbours(154)) == {153, 155, 121, 122, 185, 186}


def test_c1_2_distance_equals_bfs() -> None:
    for start in (1, 154, 640, 1024, 1249, 417):
        dist = {start: 0}
        q = deque([start])
        while q:
            n = q.popleft()
            for m in H.neighbours(n):
                if m not in dist:
                    dist[m] = dist[n] + 1
                    q.append(m)
        for n in range(1, H.N_HEXES + 1):
            assert H.distance(start, n) == dist[n], (start, n)


def test_c1_2_neighbour_bits_match_the_neighbour_lists() -> None:
    # supply traces with bit sets (hexgrid.neighbour_bits): every hex alone, then random sets of hexes
    for n in range(1, H.N_HEXES + 1):
        assert H.neighbour_bits(1 << n) == H.NEIGHBOUR_BITS[n] == H.bits(H.neighbours(n)), n
        assert H.bit_hexes(H.NEIGHBOUR_BITS[n]) == list(H.neighbours(n))
    rng = random.Random(0)
    for _ in range(100):
        hexes = rng.sample(range(1, H.N_HEXES + 1), rng.randint(0, 400))
        expected = set().union(*(H.neighbours(n) for n in hexes)) if hexes else set()
        assert H.bit_hexes(H.neighbour_bits(H.bits(hexes))) == sorted(expected)


def test_c1_2_flood_bits_equals_a_breadth_first_search() -> None:
    rng = random.Random(1)
    for _ in range(30):
        good = set(rng.sample(LAND, rng.randint(100, len(LAND))))
        sources = rng.sample(range(1, H.N_HEXES + 1), 3)
        seen, q = set(sources), deque(sources)
        while q:
            for m in H.neighbours(q.popleft()):
                if m in good and m not in seen:
                    seen.add(m)
                    q.append(m)
        assert H.bit_hexes(H.flood_bits(H.bits(good), H.bits(sources))) == sorted(seen)


def test_c2_1_terrain_counts_and_notch() -> None:
    t = D.terrain
    counts = {k: sum(1 for n in range(1, H.N_HEXES + 1) if t[n] == k) for k in ".fswx~"}
    assert counts == {".": 841, "f": 98, "s": 8, "w": 5, "x": 18, "~": 310}
    notch = {n for n in range(1, H.N_HEXES + 1) if t[n] == "x"}
    assert notch == set(range(27, 33)) | set(range(59, 65)) | set(range(91, 97))


def test_c2_2_border_band_and_counts() -> None:
    pure = {n: D.country[n] for n in range(1, H.N_HEXES + 1) if D.country[n] in "FBNLG"}
    for n, c in pure.items():
        for m in H.neighbours(n):
            assert D.country[m] == c or D.country[m] not in "FBNLG", (n, m)
    border = [n for n in range(1, H.N_HEXES + 1) if D.country[n].isdigit()]
    assert len(border) == 98
    assert sorted(n for n in border if D.country[n] == "3") == [121, 122, 153, 185, 218, 250]
    assert all(D.countries[n] == frozenset("FG") for n in (121, 122, 153))


def test_c3_1_paris_triangle() -> None:
    assert D.paris == (992, 1023, 1024)
    for a in D.paris:
        assert D.cities[a] == ("C", "Paris") and D.country[a] == "F" and D.terrain[a] == "."
        for b in D.paris:
            assert a == b or H.adjacent(a, b)
    assert {992, 1024} <= set(D.allied_south_edge)


def test_c3_2_maginot_chain_contiguous_and_french() -> None:
    chain = [412, 380, 348, 316, 284, 251, 219, 186, 154, 155, 123]
    mag = [h for h, f in D.fortified.items() if f.kind == "maginot"]
    assert mag == chain
    for a, b in zip(chain, chain[1:], strict=False):
        assert H.adjacent(a, b)
    for h in chain:
        assert D.country[h] == "F" and D.terrain[h] == "."
    assert set(H.neighbours(123)) & {91, 92}  # 123 touches the notch: the line closes the map edge (F4)


def test_c3_2_fortified_sides_cover_all_neighbours() -> None:
    for h, f in D.fortified.items():
        covered = f.front | f.rear | f.line
        rest = {m for m in H.neighbours(h) if m not in covered}
        assert all(not D.playable(m) for m in rest), (h, rest)
        assert not (f.front & f.rear)


def test_c3_2_belgian_fortified_area() -> None:
    bel = {h for h, f in D.fortified.items() if f.kind == "belgian"}
    assert bel == {401, 402, 370}
    assert all(D.country[h] == "B" for h in bel)
    assert H.adjacent(401, 368)  # Eben-Emael beside Maastricht


def test_c14_one_land_component() -> None:
    seen = {LAND[0]}
    q = deque([LAND[0]])
    while q:
        n = q.popleft()
        for m in H.neighbours(n):
            if D.playable(m) and m not in seen:
                seen.add(m)
                q.append(m)
    assert len(seen) == len(LAND) == 947


def test_c4_rivers_and_cities() -> None:
    assert len(D.rivers) == 448
    assert sum(len(v) for v in D.river_names.values()) == 448
    assert len(D.cities) == 149 and sum(1 for c in D.cities.values() if c[0] == "C") == 24  # F55
    assert D.is_river(368, 401) and D.is_river(401, 368)


def test_f4_edges() -> None:
    assert D.german_edge == tuple(range(1, 27)) and all(D.country[n] == "G" for n in D.german_edge)
    assert len(D.allied_south_edge) == 37 and all(D.country[n] == "F" for n in D.allied_south_edge)
    assert all(D.country[n] == "F" for n in D.allied_west_edge)


def test_c3_5_mild_winter_line() -> None:
    assert len(D.mild_winter) == 57  # 29 code-1 hexes + 28 pure-France hexes (F42)


def test_c9_obac_totals_and_capacity() -> None:
    a, g = D.allied_obac, D.german_obac
    assert len(a.columns) == 11 and len(g.columns) == 6
    assert [sum(v[i] for v in a.start.values()) for i in range(11)] == [
        54,
        58,
        60,
        57,
        63,
        66,
        64,
        65,
        67,
        58,
        64,
    ]
    assert [sum(v[i] for v in g.start.values()) for i in range(6)] == [45, 56, 42, 49, 45, 41]
    # three per hex is enough for every column's setup (C§14)
    assert max(sum(v[i] for v in a.start.values()) for i in range(11)) <= 3 * 406
    assert D.types["DE-ART"].attack == 10 and D.types["GB-CORPS8"].weight == 3


def test_c6_crt_machine_form() -> None:
    v1 = data_for("f40-reconstruction-v1")  # components.md §6.2's machine form
    assert v1.crt(0, -5) == "CA" and v1.crt(7, 12) == "DX"
    assert [v1.crt(3, d) for d in range(-1, 9)] == [
        "AR",
        "CA",
        "CA",
        "CA",
        "BR",
        "DR",
        "DR",
        "1CA",
        "2CA",
        "DX",
    ]


def test_c6_crt_machine_form_v2() -> None:
    """f40-reconstruction-v2 (the default of sessions 42-47, P18): the loss results of 2-1 one row later, of 3-1 to
    5-1 two rows later, DR in the rows freed; 1-3 to 1-1 and 6-1 and the clamping of the die as in v1."""
    v2 = data_for("f40-reconstruction-v2")
    assert v2.crt(0, -5) == "CA" and v2.crt(7, 12) == "DX"
    assert [v2.crt(3, d) for d in range(-1, 9)] == [
        "AR",
        "CA",
        "CA",
        "CA",
        "BR",
        "DR",
        "DR",
        "DR",
        "1CA",
        "2CA",
    ]
    assert [v2.crt(4, d) for d in range(-1, 9)] == [
        "AR",
        "CA",
        "CA",
        "BR",
        "DR",
        "DR",
        "DR",
        "DR",
        "1CA",
        "DX",
    ]
    assert [v2.crt(6, d) for d in range(-1, 9)] == [
        "CA",
        "BR",
        "DR",
        "DR",
        "DR",
        "1CA",
        "2CA",
        "DX",
        "DX",
        "DX",
    ]


# ---- the loader refuses bad files with one error naming file, key and what was expected ----


def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / "data"
    shutil.copytree(DATA_DIR, dst)
    return dst


def _edit(folder: Path, name: str, old: str, new: str) -> None:
    p = folder / name
    text = p.read_text()
    assert old in text, old
    p.write_text(text.replace(old, new, 1))


BAD = [
    (
        "map.yaml",
        'c05: "..................fffff........."',
        'c05: "..................fffff.."',
        "terrain.c05",
    ),
    (
        "map.yaml",
        'c05: "..................fffff........."',
        'c05: "..................fffQf........."',
        "row 22",
    ),
    ("map.yaml", '"268-300"', '"268-999"', "rivers.Meuse[0]"),
    ("map.yaml", '"268-300"', '"268-301"', "two adjacent hexes"),
    ("map.yaml", "front: [379, 411, 443]", "front: [379, 411, 500]", "fortified.maginot[0].front"),
    ("map.yaml", "2139: x", "", "cities"),
    (
        "units.yaml",
        'DE-INF: [DE, "7-6", 7, 7, 6, infantry, false, corps]',
        'DE-INF: [DE, "7-6", 7, 7, 6, tank, false, corps]',
        "types.DE-INF symbol",
    ),
    (
        "units.yaml",
        'DE-PZ7: [DE, "7-8", 7, 7, 8, armor, true, small]',
        'DE-PZ7: [DE, "7-8", -7, 7, 8, armor, true, small]',
        "types.DE-PZ7 attack",
    ),
    ("obac.yaml", "FR-INF: [13, 13, 13, 18", "FR-INF: [14, 13, 13, 18", "allied.totals column Hist"),
    ("obac.yaml", "FR-DCR: [3, 4, 3, 3, 4, 4, 4, 4, 4, 4, 4]", "FR-DCR: [3, 4, 3]", "allied.start.FR-DCR"),
    ("obac.yaml", "- [4, GB-ARMD,", "- [4, DE-PZ7,", "allied.reinforcements[1] type"),
    ("tables.yaml", '"2-1": [AR, CA, CA, CA, BR', '"2-1": [AR, XX, CA, CA, BR', "crt.columns.2-1 row 0"),
    ("tables.yaml", f"version: {DATA_VERSION}", "version: f40-reconstruction-v0", "version"),
    ("tables.yaml", "german_min_vp: 25", "german_min_vp: many", "victory.german_min_vp"),
]


@pytest.mark.parametrize(("name", "old", "new", "where"), BAD)
def test_loader_names_file_and_key(tmp_path: Path, name: str, old: str, new: str, where: str) -> None:
    folder = _copy(tmp_path)
    if old == "2139: x":  # a city on a sea hex
        _edit(folder, name, "  21: [T, ", "  1249: [T, ")
    else:
        _edit(folder, name, old, new)
    with pytest.raises(DataError) as e:
        load_data(folder)
    assert name in str(e.value) and where in str(e.value), str(e.value)


def test_loader_missing_file_and_bad_yaml(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    (folder / "units.yaml").unlink()
    with pytest.raises(DataError, match="units.yaml: cannot read"):
        load_data(folder)
    (folder / "units.yaml").write_text("version: [unclosed\n")
    with pytest.raises(DataError, match="units.yaml: not valid YAML"):
        load_data(folder)
    (folder / "units.yaml").write_text("- a list\n")
    with pytest.raises(DataError, match="units.yaml: \\(top level\\): expected a mapping"):
        load_data(folder)


def test_loader_fuzz_random_byte_edits(tmp_path: Path) -> None:
    """Random single-character corruptions either load or raise DataError, never anything else."""
    import random

    rng = random.Random(63)
    for i in range(40):
        folder = tmp_path / f"f{i}"
        shutil.copytree(DATA_DIR, folder)
        name = rng.choice(["map.yaml", "units.yaml", "obac.yaml", "tables.yaml"])
        p = folder / name
        text = p.read_text()
        k = rng.randrange(len(text))
        p.write_text(text[:k] + rng.choice("x9-:[]{}\"' \n") + text[k + 1 :])
        try:
            load_data(folder)
        except DataError as e:
            assert str(e)
