"""Hex grid geometry (components.md §1): ids, neighbours, hexsides, distances."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from ffo_env.ffo.core import hexgrid as hg

E, NE, NW, W, SW, SE = range(6)


def nb(hex_id: int, d: int) -> int | None:
    j = int(hg.NEIGHBORS[hg.hex_index(hex_id), d])
    return None if j < 0 else hg.hex_id(j)


def test_counts_and_id_round_trip() -> None:
    assert hg.N_HEX == 30 * 26 + 30 * 25 == 1530
    seen = set()
    for i in range(hg.N_HEX):
        hid = hg.hex_id(i)
        assert hg.hex_index(hid) == i
        assert hg.hex_index(hg.hex_name(i)) == i
        assert len(hg.hex_name(i)) == 4
        x, y = divmod(hid, 100)
        assert hg.index_of(x, y) == i
        seen.add(hid)
    assert len(seen) == hg.N_HEX
    assert hg.hex_index("0100") == 0 and hg.hex_id(hg.N_HEX - 1) == 6025


@pytest.mark.parametrize("bad", [125, 2525, 6100, 6026, "0125", "12", "abcd", 9999, -1])
def test_off_map_ids_rejected(bad: int | str) -> None:
    with pytest.raises(ValueError):
        hg.hex_index(bad)


def test_column_lengths() -> None:
    for x in range(1, 61):
        n = sum(1 for i in range(hg.N_HEX) if hg.HEX_X[i] == x)
        assert n == (26 if x % 2 == 0 else 25)


def test_neighbour_rule_even_and_odd_columns() -> None:
    # even x: NE (x+1, y), NW (x+1, y-1), SW (x-1, y-1), SE (x-1, y)
    assert [nb(4412, d) for d in range(6)] == [4413, 4512, 4511, 4411, 4311, 4312]
    # odd x: NE (x+1, y+1), NW (x+1, y), SW (x-1, y), SE (x-1, y+1)
    assert [nb(4312, d) for d in range(6)] == [4313, 4413, 4412, 4311, 4212, 4213]


@pytest.mark.parametrize(
    "hex_id, expected",
    [
        (100, [101, 201, 200, None, None, None]),  # south-west corner (odd column)
        (124, [None, 225, 224, 123, None, None]),  # south-east corner
        (200, [201, 300, None, None, None, 100]),  # even column, west end
        (225, [None, None, 324, 224, 124, None]),  # even column, east end
        (5900, [5901, 6001, 6000, None, 5800, 5801]),  # red row west end (odd column)
        (5924, [None, 6025, 6024, 5923, 5824, 5825]),  # red row east end
        (6000, [6001, None, None, None, None, 5900]),  # green row west end: no north
        (6025, [None, None, None, 6024, 5924, None]),  # green row east end
        (6012, [6013, None, None, 6011, 5911, 5912]),
        (3000, [3001, 3100, None, None, None, 2900]),  # yellow row hex on the west edge
    ],
)
def test_map_edges_and_corners(hex_id: int, expected: list[int | None]) -> None:
    assert [nb(hex_id, d) for d in range(6)] == expected


def test_edge_flags() -> None:
    for hid in (100, 124, 200, 225, 5900, 5924, 6000, 6025, 3000, 3025, 3100, 3124):
        assert hg.is_edge(hg.hex_index(hid))
    for hid in (4412, 4312, 5624, 201):
        assert not hg.is_edge(hg.hex_index(hid))


def test_neighbour_symmetry_and_opposites() -> None:
    for i in range(hg.N_HEX):
        for d in range(6):
            j = int(hg.NEIGHBORS[i, d])
            if j >= 0:
                assert hg.NEIGHBORS[j, (d + 3) % 6] == i
                assert hg.direction_to(i, j) == d
                assert hg.DISTANCE[i, j] == 1
    assert [(d + 3) % 6 for d in range(6)] == [W, SW, SE, E, NE, NW]
    assert hg.DIRECTIONS[(hg.DIRECTIONS.index("NE") + 3) % 6] == "SW"


def test_hexsides_symmetric_and_unique() -> None:
    ids: dict[int, frozenset[int]] = {}
    for i in range(hg.N_HEX):
        for d in range(6):
            j = int(hg.NEIGHBORS[i, d])
            s = int(hg.HEXSIDES[i, d])
            if j < 0:
                assert s == -1
                continue
            assert hg.HEXSIDES[j, (d + 3) % 6] == s
            assert hg.hexside(i, j) == s
            pair = frozenset((i, j))
            assert ids.setdefault(s, pair) == pair  # one id <-> one pair of hexes
    assert len(ids) == hg.N_HEXSIDES
    assert sorted(ids) == list(range(hg.N_HEXSIDES))


def test_geometry_matches_neighbours() -> None:
    # centre_xy puts every neighbour at distance 1 and direction d at 60*d degrees
    for i in (hg.hex_index(h) for h in (4412, 4312, 5624, 1517)):
        x0, y0 = hg.center_xy(i)
        for d in range(6):
            j = int(hg.NEIGHBORS[i, d])
            x1, y1 = hg.center_xy(j)
            assert np.hypot(x1 - x0, y1 - y0) == pytest.approx(1.0)
            assert np.degrees(np.arctan2(y1 - y0, x1 - x0)) % 360 == pytest.approx(60 * d)


def _bfs(start: int) -> np.ndarray:
    dist = np.full(hg.N_HEX, -1)
    dist[start] = 0
    q = deque([start])
    while q:
        i = q.popleft()
        for j in hg.NEIGHBOR_LISTS[i]:
            if dist[j] < 0:
                dist[j] = dist[i] + 1
                q.append(j)
    return dist


@pytest.mark.parametrize("start", [100, 124, 225, 3000, 3112, 5625, 6000, 6025])
def test_distance_equals_bfs(start: int) -> None:
    i = hg.hex_index(start)
    assert np.array_equal(_bfs(i), hg.DISTANCE[i])
    assert np.array_equal(hg.DISTANCE[i], hg.DISTANCE[:, i])


def test_tables_read_only() -> None:
    with pytest.raises(ValueError):
        hg.NEIGHBORS[0, 0] = 5
