"""The map as typed, immutable arrays over the hex index of :mod:`hexgrid`.

Loaded from the committed, hand-editable map file (see :mod:`ffo_env.ffo.core.mapfile`).
Every array is read-only; derived tables (land, coastal, inland-by-one) are
computed once in :meth:`MapData.__post_init__`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from ffo_env.ffo.core import hexgrid as hg


class Terrain(IntEnum):
    CLEAR = 0
    ROUGH = 1
    MARSH = 2
    MOUNTAIN = 3
    SEA = 4
    NEUTRAL = 5


class ColoredRow(IntEnum):
    NONE = 0
    RED = 1
    GREEN = 2
    YELLOW = 3


def _ro(a: np.ndarray) -> np.ndarray:
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class MapData:
    """Per-hex and per-hexside facts of the map.

    - ``terrain[i]``: :class:`Terrain` of hex ``i`` (a city hex keeps its underlying
      terrain for drawing, but the rules use city effects only, components.md §2);
    - ``city[i]``: city name or ``""``; ``port[i]``: naval port (rule 3.3);
    - ``row[i]``: :class:`ColoredRow`;
    - ``river[i, d]`` / ``blocked[i, d]``: the hexside of ``i`` in direction ``d``
      carries a river / is blocked (symmetric: the same from both sides).
    """

    terrain: np.ndarray
    city: tuple[str, ...]
    port: np.ndarray
    row: np.ndarray
    river: np.ndarray
    blocked: np.ndarray
    source: str = "<memory>"
    land: np.ndarray = field(init=False)
    coastal: np.ndarray = field(init=False)
    inland1: np.ndarray = field(init=False)
    is_city: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "terrain", _ro(np.asarray(self.terrain, dtype=np.int8)))
        set_(self, "port", _ro(np.asarray(self.port, dtype=bool)))
        set_(self, "row", _ro(np.asarray(self.row, dtype=np.int8)))
        set_(self, "river", _ro(np.asarray(self.river, dtype=bool)))
        set_(self, "blocked", _ro(np.asarray(self.blocked, dtype=bool)))
        set_(self, "city", tuple(self.city))
        if self.terrain.shape != (hg.N_HEX,) or len(self.city) != hg.N_HEX:
            raise ValueError(f"{self.source}: map must describe all {hg.N_HEX} hexes")
        land = (self.terrain != Terrain.SEA) & (self.terrain != Terrain.NEUTRAL)
        nb = hg.NEIGHBORS
        sea = self.terrain == Terrain.SEA
        sea_adj = np.zeros(hg.N_HEX, dtype=bool)
        for d in range(hg.N_DIR):
            valid = nb[:, d] >= 0
            sea_adj[valid] |= sea[nb[valid, d]]
        coastal = land & sea_adj  # R32: land hex adjacent to an all-sea hex
        coast_adj = np.zeros(hg.N_HEX, dtype=bool)
        for d in range(hg.N_DIR):
            valid = nb[:, d] >= 0
            coast_adj[valid] |= coastal[nb[valid, d]]
        inland1 = land & ~coastal & coast_adj  # R32: one hex inland
        set_(self, "land", _ro(land))
        set_(self, "coastal", _ro(coastal))
        set_(self, "inland1", _ro(inland1))
        set_(self, "is_city", _ro(np.array([bool(c) for c in self.city])))

    def city_hexes(self) -> list[int]:
        return [i for i, c in enumerate(self.city) if c]

    def port_hexes(self) -> list[int]:
        return [int(i) for i in np.flatnonzero(self.port)]

    def hex_of_city(self, name: str) -> int:
        for i, c in enumerate(self.city):
            if c == name:
                return i
        raise KeyError(f"no city named {name!r} on the map ({self.source})")

    def row_hexes(self, row: ColoredRow) -> list[int]:
        return [int(i) for i in np.flatnonzero(self.row == row)]
