"""Hex sets derived from the position and cached per position version (``State._cache``): the hexes each
side occupies, the hexes next to the enemy (rules 8.2, 11.7, R17, R35) and the supply network (rules 7.2,
7.7, 7.8, R10)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.phases import ON_MAP
from ffo_env.ffo.core.scenario import Side
from ffo_env.ffo.core.search import bits_to_mask, flood_bits

if TYPE_CHECKING:
    from ffo_env.ffo.core.state import State

FRENCH = Side.FRENCH
GERMAN = Side.GERMAN


def garrisoned_ports(s: State) -> tuple[int, ...]:
    key = s._port_version
    hit: tuple[Any, tuple[int, ...]] | None = s._cache.get("ports")
    if hit is not None and hit[0] == key:
        return hit[1]
    ports = tuple(s.loc[u] for u in s.game.port_units if s.status[u] == ON_MAP)
    s._cache["ports"] = (key, ports)
    return ports


def occupied_bits(s: State, side: int) -> int:
    """Hexes holding units of ``side``, as an int bitset."""
    kind = "occ1" if side else "occ0"
    key = s._pos_version[side]
    hit: tuple[Any, int] | None = s._cache.get(kind)
    if hit is not None and hit[0] == key:
        return hit[1]
    sides = s.game.unit_side
    bits = 0
    for h, st in s.stacks.items():
        if sides[st[0]] == side:
            bits |= 1 << h
    s._cache[kind] = (key, bits)
    return bits


def adj_enemy_mask(s: State, side: int) -> bytearray:
    """Hexes holding or next to a unit of ``side``'s enemy (rules 8.2, 11.7, R17, R35). Read-only (cached)."""
    kind = "adjE1" if side else "adjE0"
    key = s._pos_version[1 - side]
    hit: tuple[Any, bytearray] | None = s._cache.get(kind)
    if hit is not None and hit[0] == key:
        return hit[1]
    mask = bytearray(hg.N_HEX)
    enemy = 1 - side
    sides = s.game.unit_side
    for h, st in s.stacks.items():
        if sides[st[0]] == enemy:
            mask[h] = 1
            for n in hg.NEIGHBOR_LISTS[h]:
                mask[n] = 1
    s._cache[kind] = (key, mask)
    return mask


def supply_mask(s: State, side: int, west: bool = False) -> bytearray:
    """Hexes from which a unit of ``side`` (and west group) traces supply (rules 7.2, 7.7, 7.8, R10).

    A 0/1 bytearray of length ``N_HEX``, cached until the enemy's units (or, for the French,
    the naval garrisons) change; treat it as read-only. The French city exception of rule 7.8
    is :meth:`State.is_supplied`'s, not part of the mask."""
    if side == FRENCH:
        kind: Any = "sF"
        key: Any = (s._pos_version[GERMAN], s._port_version)
    else:
        kind = "sGw" if west else "sG"
        key = s._pos_version[FRENCH]
    hit: tuple[Any, bytearray] | None = s._cache.get(kind)
    if hit is not None and hit[0] == key:
        return hit[1]
    game = s.game
    mt = game.tables
    passable = game.passable_bits[side] & ~occupied_bits(s, 1 - side)
    if side == FRENCH:
        sources = 0
        for h in garrisoned_ports(s):  # rule 7.8
            sources |= 1 << h
    else:
        sources = mt.yellow_bits if west else mt.green_bits  # rule 7.7, 9.5
    mask = bytearray(_flood_mask(mt.open_bits, sources, passable))
    s._cache[kind] = (key, mask)
    return mask


# flood_bits is a pure function of its ints, and the same floods recur across games: every new game starts
# with the same French supply network (the German units stand in the green row, which the French may not
# enter anyway), and a flood costs ~0.1 ms. The last floods' masks are kept, keyed on the inputs themselves;
# they are immutable bytes, so no state can write through a kept one.
FLOODS_KEPT = 64


@functools.lru_cache(maxsize=FLOODS_KEPT)
def _flood_mask(open_bits: tuple[int, ...], sources: int, passable: int) -> bytes:
    return bytes(bits_to_mask(flood_bits(open_bits, sources, passable)))
