"""The hex grid of the map (C§1, F3): 40 columns x 32 rows numbered 1..1280 down the columns.

Hex ``n = 32*(c-1) + r``; column ``c = 1..40`` counts from the **east** edge westward, row ``r = 1..32``
from north to south. Hexes are flat-topped; odd columns sit half a hex higher (north) than even ones.
The six neighbours::

            odd column c                          even column c
     (c+1,r-1)  (c,r-1)  (c-1,r-1)        (c+1,r)   (c,r-1)   (c-1,r)
            \\      |      /                     \\       |       /
               (c, r)                               (c, r)
            /      |      \\                     /       |       \\
      (c+1,r)   (c,r+1)   (c-1,r)         (c+1,r+1) (c,r+1) (c-1,r+1)
     west <-                   -> east     west <-                    -> east

Distance: axial ``q = c``, ``a = r - (c + c % 2) // 2``; ``(|dq| + |da| + |dq + da|) / 2``.
Tables are built once at import (numbers are small and fixed).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

COLUMNS = 40
ROWS = 32
N_HEXES = COLUMNS * ROWS  # 1280


def hex_number(c: int, r: int) -> int:
    """The printed number of the hex in column ``c`` (from the east), row ``r`` (from the north)."""
    return ROWS * (c - 1) + r


def col_row(n: int) -> tuple[int, int]:
    """(column, row) of hex ``n``."""
    return (n - 1) // ROWS + 1, (n - 1) % ROWS + 1


def on_grid(n: int) -> bool:
    return 1 <= n <= N_HEXES


def _neighbours(n: int) -> tuple[int, ...]:
    c, r = col_row(n)
    if c % 2 == 1:  # odd column: (c, r±1), (c±1, r-1), (c±1, r)  [C§1.2]
        cand = [(c, r - 1), (c, r + 1), (c + 1, r - 1), (c - 1, r - 1), (c + 1, r), (c - 1, r)]
    else:  # even column: (c, r±1), (c±1, r), (c±1, r+1)
        cand = [(c, r - 1), (c, r + 1), (c + 1, r), (c - 1, r), (c + 1, r + 1), (c - 1, r + 1)]
    return tuple(sorted(hex_number(cc, rr) for cc, rr in cand if 1 <= cc <= COLUMNS and 1 <= rr <= ROWS))


# index 0 unused so that NEIGHBOURS[n] is hex n's neighbours
NEIGHBOURS: tuple[tuple[int, ...], ...] = ((),) + tuple(_neighbours(n) for n in range(1, N_HEXES + 1))
NEIGHBOUR_SETS: tuple[frozenset[int], ...] = tuple(frozenset(x) for x in NEIGHBOURS)


def neighbours(n: int) -> tuple[int, ...]:
    return NEIGHBOURS[n]


def adjacent(a: int, b: int) -> bool:
    return b in NEIGHBOUR_SETS[a]


def _axial(n: int) -> tuple[int, int]:
    c, r = col_row(n)
    return c, r - (c + c % 2) // 2


@lru_cache(maxsize=4096)
def within(h: int, r: int) -> tuple[int, ...]:
    """Every hex at distance <= ``r`` from ``h``, in number order (air and paratroop ranges)."""
    return tuple(n for n in range(1, N_HEXES + 1) if distance(h, n) <= r)


# axial coordinates of every hex, index 0 unused: the bots and the rules ask distances by the hundred thousand
_AXIAL: tuple[tuple[int, int], ...] = ((0, 0),) + tuple(_axial(n) for n in range(1, N_HEXES + 1))


def distance(a: int, b: int) -> int:
    """Hex distance (air ranges, paratroop range, artillery range; C§1.2)."""
    qa, ra = _AXIAL[a] if 0 < a <= N_HEXES else _axial(a)
    qb, rb = _AXIAL[b] if 0 < b <= N_HEXES else _axial(b)
    dq, dr = qa - qb, ra - rb
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


# ---------------------------------------------------------------- sets of hexes as bits of an int
# Supply traces over the whole map after every move (F18, F19); as bit sets (bit n = hex n) a ring of a flood
# fill is a few shifts of one int, whatever its size.


def bits(hexes: Iterable[int]) -> int:
    """The hexes ``hexes`` as an int with bit ``n`` set for hex ``n``."""
    out = 0
    for n in hexes:
        out |= 1 << n
    return out


def bit_hexes(x: int) -> list[int]:
    """The hexes of the bit set ``x``, in number order."""
    return [n for n in range(1, N_HEXES + 1) if x >> n & 1]


ALL_BITS = bits(range(1, N_HEXES + 1))
_NOT_TOP = bits(n for n in range(1, N_HEXES + 1) if col_row(n)[1] > 1)
_NOT_BOTTOM = bits(n for n in range(1, N_HEXES + 1) if col_row(n)[1] < ROWS)
_ODD_NOT_TOP = bits(n for n in range(1, N_HEXES + 1) if col_row(n)[0] % 2 == 1) & _NOT_TOP
_EVEN_NOT_BOTTOM = bits(n for n in range(1, N_HEXES + 1) if col_row(n)[0] % 2 == 0) & _NOT_BOTTOM


def neighbour_bits(x: int) -> int:
    """Every hex next to a hex of the bit set ``x`` (the union of their :data:`NEIGHBOURS`)."""
    up = x & _NOT_TOP  # (c, r-1) = n-1
    down = x & _NOT_BOTTOM  # (c, r+1) = n+1
    odd = x & _ODD_NOT_TOP  # odd column: (c±1, r-1) = n±32-1
    even = x & _EVEN_NOT_BOTTOM  # even column: (c±1, r+1) = n±32+1
    near = (up >> 1) | (down << 1) | (x << ROWS) | (x >> ROWS)
    near |= (odd << (ROWS - 1)) | (odd >> (ROWS + 1)) | (even << (ROWS + 1)) | (even >> (ROWS - 1))
    return near & ALL_BITS


NEIGHBOUR_BITS: tuple[int, ...] = tuple(bits(x) for x in NEIGHBOURS)


def flood_bits(good: int, sources: int) -> int:
    """The hexes of ``good`` connected to ``sources`` through ``good``, with ``sources`` (good or not)."""
    seen = ring = sources
    while ring:
        ring = neighbour_bits(ring) & good & ~seen
        seen |= ring
    return seen
