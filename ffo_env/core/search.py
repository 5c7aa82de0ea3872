"""Precomputed map tables and the two graph searches of the rules: movement and supply.

Built once per scenario (:class:`MapTables`) so that the per-decision work is
plain Python over tuples. The state passes in occupancy and restriction masks;
nothing here knows about phases.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from ffo_env.core import hexgrid as hg
from ffo_env.core.mapdata import ColoredRow, MapData, Terrain
from ffo_env.core.scenario import Tables

_TERRAIN_NAME = {Terrain.CLEAR: "clear", Terrain.ROUGH: "rough", Terrain.MARSH: "marsh", Terrain.MOUNTAIN: "mountain"}


@dataclass(frozen=True, eq=False)
class MapTables:
    """Per-hex facts in Python tuples for fast pure-Python loops."""

    land: tuple[bool, ...]
    city: tuple[bool, ...]
    port: tuple[bool, ...]
    row: tuple[int, ...]
    terrain: tuple[int, ...]
    mountain: tuple[bool, ...]
    enter_cost: tuple[int, ...]
    # (direction, neighbour, river_extra) for every neighbour not across a blocked hexside and on land
    moves: tuple[tuple[tuple[int, int, int], ...], ...]
    # neighbours through non-blocked hexsides (land or not)
    open_nb: tuple[tuple[int, ...], ...]
    river_side: tuple[tuple[bool, ...], ...]  # effective river (R14: none around cities)
    blocked_side: tuple[tuple[bool, ...], ...]
    defence_shift: tuple[int, ...]  # in-hex terrain shift for non-city hexes
    coastal: tuple[bool, ...]
    inland1: tuple[bool, ...]
    rail_ok: tuple[bool, ...]  # clear or city, land, not a colored row (rule 11.7, R17)
    green: tuple[int, ...]
    yellow: tuple[int, ...]
    red: tuple[int, ...]
    colored: tuple[bool, ...]
    adj_green_or_yellow: tuple[bool, ...]  # rule 5.5, R6
    adj_red: tuple[bool, ...]  # rule 5.3, R7
    city_hexes: tuple[int, ...]
    port_hexes: tuple[int, ...]


def build_tables(m: MapData, t: Tables) -> MapTables:
    n = hg.N_HEX
    land = tuple(bool(x) for x in m.land)
    city = tuple(bool(x) for x in m.is_city)
    row = tuple(int(x) for x in m.row)
    colored = tuple(r != ColoredRow.NONE for r in row)
    terrain = tuple(int(x) for x in m.terrain)
    enter_cost = []
    dshift = []
    for i in range(n):
        if city[i] or colored[i]:
            enter_cost.append(t.move_cost["city"] if city[i] else t.move_cost["clear"])
            dshift.append(0)
        elif terrain[i] in _TERRAIN_NAME:
            name = _TERRAIN_NAME[Terrain(terrain[i])]
            enter_cost.append(t.move_cost[name])
            dshift.append(t.defence_shift[name])
        else:
            enter_cost.append(99)
            dshift.append(0)
    river_side = []
    blocked_side = []
    for i in range(n):
        rs = []
        bs = []
        for d in range(6):
            j = int(hg.NEIGHBORS[i, d])
            if j < 0:
                rs.append(False)
                bs.append(True)
                continue
            # rule 5.5: no rivers on colored-row hexsides; R14: cities nullify rivers
            r = bool(m.river[i, d]) and not (city[i] or city[j] or colored[i] or colored[j])
            rs.append(r)
            bs.append(bool(m.blocked[i, d]))
        river_side.append(tuple(rs))
        blocked_side.append(tuple(bs))
    moves = []
    open_nb = []
    for i in range(n):
        mv = []
        on = []
        for d, j in hg.NEIGHBOR_DIRS[i]:
            if blocked_side[i][d]:
                continue
            on.append(j)
            if land[j]:
                mv.append((d, j, t.river_move_extra if river_side[i][d] else 0))
        moves.append(tuple(mv))
        open_nb.append(tuple(on))
    green = tuple(i for i in range(n) if row[i] == ColoredRow.GREEN)
    yellow = tuple(i for i in range(n) if row[i] == ColoredRow.YELLOW)
    red = tuple(i for i in range(n) if row[i] == ColoredRow.RED)
    gy = set(green) | set(yellow)
    adj_gy = tuple(any(j in gy for j in hg.NEIGHBOR_LISTS[i]) for i in range(n))
    reds = set(red)
    adj_red = tuple(any(j in reds for j in hg.NEIGHBOR_LISTS[i]) for i in range(n))
    rail_ok = tuple(
        land[i] and not colored[i] and (city[i] or terrain[i] == Terrain.CLEAR) for i in range(n)
    )
    return MapTables(
        land=land,
        city=city,
        port=tuple(bool(x) for x in m.port),
        row=row,
        terrain=terrain,
        mountain=tuple(terrain[i] == Terrain.MOUNTAIN and not city[i] and not colored[i] for i in range(n)),
        enter_cost=tuple(enter_cost),
        moves=tuple(moves),
        open_nb=tuple(open_nb),
        river_side=tuple(river_side),
        blocked_side=tuple(blocked_side),
        defence_shift=tuple(dshift),
        coastal=tuple(bool(x) for x in m.coastal),
        inland1=tuple(bool(x) for x in m.inland1),
        rail_ok=rail_ok,
        green=green,
        yellow=yellow,
        red=red,
        colored=colored,
        adj_green_or_yellow=adj_gy,
        adj_red=adj_red,
        city_hexes=tuple(i for i in range(n) if city[i]),
        port_hexes=tuple(i for i in range(n) if m.port[i]),
    )


@dataclass(frozen=True)
class Reach:
    """A reachable destination: VP lost to overrun refugees (R13), MP spent, path (start excluded),
    and the refugee hexes overrun on that path (rule 10.4)."""

    vp: int
    mp: int
    path: tuple[int, ...]
    overrun: tuple[int, ...] = ()


def reachable(
    mt: MapTables,
    start: int,
    mp: int,
    blocked_hex: Collection[int] | bytearray,
    refugees: Mapping[int, bool] | None,
    refugee_extra: int,
    no_return: Collection[int] | bytearray | None = None,
) -> dict[int, Reach]:
    """Destinations of one unit's move (rules 11.2-11.5, 10.3-10.4, R13, R15).

    ``blocked_hex[h]`` is true for hexes the unit may not enter at all (enemy
    units, sea, neutral, rows forbidden to its side). ``refugees`` maps refugee
    hexes to whether their marker is already flipped this phase (French moves
    only). Among paths to a destination the one with the fewest VP lost, then
    the fewest MP, is taken (R13): labels are (hex, vp) so a cheaper-in-VP but
    dearer-in-MP path is never discarded for a dearer-in-VP one.
    ``no_return[h]`` marks a region the unit may not come back into once it has
    left it during this move (a west-group unit leaving the yellow row, rule 9.5;
    an 18th Army unit leaving the green and red rows, rule 9.2): a step from a
    hex outside the region into it is not taken. It is a per-edge restriction, so
    the search stays a plain Dijkstra over (hex, VP) labels.
    Ending restrictions are the caller's job. The start hex is not included.
    """
    moves = mt.moves
    cost = mt.enter_cost
    best: dict[tuple[int, int], int] = {(start, 0): 0}
    parent: dict[tuple[int, int], tuple[int, int]] = {}
    heap: list[tuple[int, int, int]] = [(0, 0, start)]
    while heap:
        vp, used, h = heapq.heappop(heap)
        if best.get((h, vp), 99) < used:
            continue
        back = no_return is not None and not no_return[h]
        for _d, n, river in moves[h]:
            if blocked_hex[n] or (back and no_return[n]):  # type: ignore[index]
                continue
            c = used + cost[n] + river
            options: Iterable[tuple[int, int]]
            if refugees is not None and n in refugees:
                if refugees[n]:
                    options = ((vp, c),)  # rule 10.4: already paid for this phase
                else:
                    options = ((vp, c + refugee_extra), (vp + 1, c))  # rule 10.3 / 10.4
            else:
                options = ((vp, c),)
            for nvp, nmp in options:
                if nmp > mp:
                    continue
                # dominated by a label with fewer or equal VP and no more MP?
                dominated = False
                for v in range(nvp + 1):
                    b = best.get((n, v))
                    if b is not None and b <= nmp:
                        dominated = True
                        break
                if dominated:
                    continue
                best[(n, nvp)] = nmp
                parent[(n, nvp)] = (h, vp)
                heapq.heappush(heap, (nvp, nmp, n))
    out: dict[int, Reach] = {}
    for (h, vp), used in best.items():
        if h == start:
            continue
        cur = out.get(h)
        if cur is not None and (cur.vp, cur.mp) <= (vp, used):
            continue
        path = [h]
        overrun = []
        key = (h, vp)
        while key in parent:
            prev = parent[key]
            if prev[1] < key[1]:
                overrun.append(key[0])
            key = prev
            if key[0] != start:
                path.append(key[0])
        out[h] = Reach(vp, used, tuple(reversed(path)), tuple(overrun))
    # rule 11.4, R15: one hex, spending everything, whatever it would cost
    for _d, n, _r in moves[start]:
        if blocked_hex[n]:
            continue
        cur = out.get(n)
        if cur is None or cur.vp > 0:
            out[n] = Reach(0, mp, (n,))
    return out


def flood(open_nb: tuple[tuple[int, ...], ...], sources: Iterable[int], passable: Collection[int] | bytearray) -> bytearray:
    """Hexes connected to ``sources`` through passable hexes (sources must be passable). Returns a 0/1 mask."""
    seen = bytearray(hg.N_HEX)
    stack = []
    for s in sources:
        if passable[s] and not seen[s]:
            seen[s] = 1
            stack.append(s)
    while stack:
        h = stack.pop()
        for n in open_nb[h]:
            if not seen[n] and passable[n]:
                seen[n] = 1
                stack.append(n)
    return seen
