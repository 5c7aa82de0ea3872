"""Hex geometry of the France Fights On map (components.md §1).

Hex ids are ``XXYY``: column ``XX`` = 01..60 runs south -> north, row ``YY``
runs west -> east. Even columns hold rows 00-25 (26 hexes), odd columns rows
00-24 (25 hexes). Odd columns sit half a hex further *east* than even columns,
so a "column" is drawn as a horizontal line of pointy-topped hexes::

      north (XX+1)
         NW(2)   NE(1)
            /  \\ /  \\
     W(3)  | X,Y-1 | X,Y | X,Y+1 |  E(0)
            \\  / \\  /
         SW(4)   SE(5)
      south (XX-1)

    even X:  NE = (X+1, Y)    NW = (X+1, Y-1)   SW = (X-1, Y-1)   SE = (X-1, Y)
    odd  X:  NE = (X+1, Y+1)  NW = (X+1, Y)     SW = (X-1, Y)     SE = (X-1, Y+1)
    all  X:  E  = (X, Y+1)    W  = (X, Y-1)

Directions are numbered 0..5 counter-clockwise from east (E, NE, NW, W, SW,
SE); direction ``d`` and ``(d + 3) % 6`` are opposite, which is what the
concentricity test of rule 13.13 / R25 needs.

Internal index: hexes are numbered column by column from 0100..., i.e.
``0100, 0101, ..., 0124, 0200, ..., 6025`` -> ``0 .. N_HEX-1``. Every table here
is computed once at import and is read-only.
"""

from __future__ import annotations

import numpy as np

N_COLS = 60
DIRECTIONS = ("E", "NE", "NW", "W", "SW", "SE")
N_DIR = 6


def rows_in_column(x: int) -> int:
    """Number of hexes in column ``x`` (26 for even columns, 25 for odd)."""
    return 26 if x % 2 == 0 else 25


def _build_index() -> tuple[np.ndarray, np.ndarray, dict[int, int]]:
    xs: list[int] = []
    ys: list[int] = []
    for x in range(1, N_COLS + 1):
        for y in range(rows_in_column(x)):
            xs.append(x)
            ys.append(y)
    cx = np.array(xs, dtype=np.int16)
    cy = np.array(ys, dtype=np.int16)
    lookup = {x * 100 + y: i for i, (x, y) in enumerate(zip(xs, ys, strict=False))}
    return cx, cy, lookup


HEX_X, HEX_Y, _ID_TO_INDEX = _build_index()
HEX_X.setflags(write=False)
HEX_Y.setflags(write=False)
N_HEX = int(HEX_X.shape[0])
HEX_IDS = (HEX_X.astype(np.int32) * 100 + HEX_Y).astype(np.int32)
HEX_IDS.setflags(write=False)


def on_map(x: int, y: int) -> bool:
    return 1 <= x <= N_COLS and 0 <= y < rows_in_column(x)


def index_of(x: int, y: int) -> int:
    """Internal index of column ``x``, row ``y``; raises ``ValueError`` off the map."""
    if not on_map(x, y):
        raise ValueError(f"hex {x:02d}{y:02d} is off the map")
    return _ID_TO_INDEX[x * 100 + y]


def hex_index(hex_id: int | str) -> int:
    """``5625`` or ``"5625"`` -> internal index."""
    if isinstance(hex_id, str):
        s = hex_id.strip()
        if len(s) != 4 or not s.isdigit():
            raise ValueError(f"hex id {hex_id!r} is not four digits XXYY")
        hex_id = int(s)
    idx = _ID_TO_INDEX.get(int(hex_id))
    if idx is None:
        raise ValueError(f"hex id {int(hex_id):04d} is not on the map")
    return idx


def hex_id(index: int) -> int:
    """Internal index -> integer hex id (``5625``)."""
    return int(HEX_IDS[index])


def hex_name(index: int) -> str:
    """Internal index -> four-digit string (``"0512"``)."""
    return f"{int(HEX_IDS[index]):04d}"


def _offset(x: int, y: int, d: int) -> tuple[int, int]:
    odd = x % 2
    if d == 0:
        return x, y + 1
    if d == 3:
        return x, y - 1
    if d == 1:
        return x + 1, y + odd
    if d == 2:
        return x + 1, y - 1 + odd
    if d == 4:
        return x - 1, y - 1 + odd
    return x - 1, y + odd  # d == 5


def _build_neighbors() -> np.ndarray:
    nb = np.full((N_HEX, N_DIR), -1, dtype=np.int32)
    for i in range(N_HEX):
        x, y = int(HEX_X[i]), int(HEX_Y[i])
        for d in range(N_DIR):
            nx, ny = _offset(x, y, d)
            if on_map(nx, ny):
                nb[i, d] = _ID_TO_INDEX[nx * 100 + ny]
    return nb


NEIGHBORS = _build_neighbors()
"""``NEIGHBORS[i, d]`` = index of the neighbour of hex ``i`` in direction ``d``, or -1 off the map."""
NEIGHBORS.setflags(write=False)

NEIGHBOR_LISTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(int(n) for n in NEIGHBORS[i] if n >= 0) for i in range(N_HEX)
)
"""On-map neighbours of each hex, as Python tuples (fast in pure-Python loops)."""

NEIGHBOR_DIRS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((d, int(NEIGHBORS[i, d])) for d in range(N_DIR) if NEIGHBORS[i, d] >= 0) for i in range(N_HEX)
)
"""``(direction, neighbour)`` pairs of each hex."""


def _build_hexsides() -> tuple[np.ndarray, int]:
    side = np.full((N_HEX, N_DIR), -1, dtype=np.int32)
    n = 0
    for i in range(N_HEX):
        for d in range(N_DIR):
            j = int(NEIGHBORS[i, d])
            if j < 0:
                continue
            if side[i, d] >= 0:
                continue
            side[i, d] = n
            side[j, (d + 3) % 6] = n
            n += 1
    return side, n


HEXSIDES, N_HEXSIDES = _build_hexsides()
"""``HEXSIDES[i, d]`` = id of the hexside between ``i`` and its ``d`` neighbour (same id from both sides)."""
HEXSIDES.setflags(write=False)


def direction_to(a: int, b: int) -> int:
    """Direction from hex ``a`` to its neighbour ``b``; raises ``ValueError`` if not adjacent."""
    for d in range(N_DIR):
        if NEIGHBORS[a, d] == b:
            return d
    raise ValueError(f"hexes {hex_name(a)} and {hex_name(b)} are not adjacent")


def hexside(a: int, b: int) -> int:
    """Hexside id shared by adjacent hexes ``a`` and ``b``."""
    return int(HEXSIDES[a, direction_to(a, b)])


def _cube() -> tuple[np.ndarray, np.ndarray]:
    x = HEX_X.astype(np.int32)
    y = HEX_Y.astype(np.int32)
    # odd columns are shifted east: axial q = y - (x - (x & 1)) / 2, r = x
    q = y - (x - (x & 1)) // 2
    return q, x


_AXIAL_Q, _AXIAL_R = _cube()
_DQ = _AXIAL_Q[:, None] - _AXIAL_Q[None, :]
_DR = _AXIAL_R[:, None] - _AXIAL_R[None, :]
DISTANCE = ((np.abs(_DQ) + np.abs(_DR) + np.abs(_DQ + _DR)) // 2).astype(np.int16)
"""``DISTANCE[a, b]`` = hex distance between hexes ``a`` and ``b``."""
DISTANCE.setflags(write=False)
del _DQ, _DR


def distance(a: int, b: int) -> int:
    return int(DISTANCE[a, b])


def center_xy(index: int) -> tuple[float, float]:
    """Cartesian centre (east, north) in hex-width units, for drawing; 1.0 = centre-to-centre distance."""
    x, y = int(HEX_X[index]), int(HEX_Y[index])
    return (y + 0.5 * (x % 2), (x - 1) * (3**0.5) / 2)


def is_edge(index: int) -> bool:
    """True for a hex with fewer than six on-map neighbours."""
    return bool((NEIGHBORS[index] < 0).any())
