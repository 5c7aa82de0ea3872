"""Precomputed map tables and the two graph searches of the rules: movement and supply.

Built once per scenario (:class:`MapTables`) so that the per-decision work is
plain Python over tuples. The state passes in occupancy and restriction masks;
nothing here knows about phases.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, KeysView, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.mapdata import ColoredRow, MapData, Terrain

if TYPE_CHECKING:
    from ffo_env.ffo.core.scenario import Tables

# index offset of the neighbour in each direction (E, NE, NW, W, SW, SE): hexes are numbered column
# by column with 26 / 25 rows alternately, so the offsets are the same for every hex (hexgrid)
_DIR_OFFSET = (1, 26, 25, -1, -26, -25)

_TERRAIN_NAME = {
    Terrain.CLEAR: "clear",
    Terrain.ROUGH: "rough",
    Terrain.MARSH: "marsh",
    Terrain.MOUNTAIN: "mountain",
}


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
    # (neighbour, MP to enter it from here) for the same moves: enter_cost + river_extra
    steps: tuple[tuple[tuple[int, int], ...], ...]
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
    # --- derived tables for the fast searches (speed only; no rule lives here) ---
    # may a unit end a move here? index 2 * side + comply (rules 5.3-5.5, R6, R7)
    end_ok: tuple[bytes, bytes, bytes, bytes]
    no_return_yellow: bytes  # rule 9.5 region of search.reachable
    no_return_green_red: bytes  # rule 9.2 region
    land_not_colored: tuple[int, ...]  # refugee hexes before the German-adjacent test (R35)
    # hex sets as Python int bitsets (bit h = hex h); see flood_bits
    open_bits: tuple[int, ...]  # per direction: hexes whose hexside that way is open (= open_nb)
    green_bits: int
    yellow_bits: int
    rail_ok_bits: int


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
    rail_ok = tuple(land[i] and not colored[i] and (city[i] or terrain[i] == Terrain.CLEAR) for i in range(n))
    # the same predicate as State._end_ok had, per (side, comply)
    end_ok = []
    for side in (0, 1):
        for comply in (False, True):
            ok = bytearray(n)
            for i in range(n):
                if side == 0:
                    ok[i] = not (adj_gy[i] or (comply and (row[i] == ColoredRow.RED or adj_red[i])))
                else:
                    ok[i] = not (row[i] == ColoredRow.RED or (comply and row[i] == ColoredRow.GREEN))
            end_ok.append(bytes(ok))
    open_bits = [0] * 6
    for i in range(n):
        for d, j in hg.NEIGHBOR_DIRS[i]:
            if blocked_side[i][d]:
                continue
            if j != i + _DIR_OFFSET[d]:  # pragma: no cover - the grid is numbered column by column
                raise AssertionError("hex numbering does not give constant neighbour offsets")
            open_bits[d] |= 1 << i
    if min(enter_cost) < 1:  # pragma: no cover - reachable's bucket queue needs positive costs
        raise ValueError("movement costs must be at least 1")
    return MapTables(
        land=land,
        city=city,
        port=tuple(bool(x) for x in m.port),
        row=row,
        terrain=terrain,
        mountain=tuple(terrain[i] == Terrain.MOUNTAIN and not city[i] and not colored[i] for i in range(n)),
        enter_cost=tuple(enter_cost),
        moves=tuple(moves),
        steps=tuple(tuple((j, enter_cost[j] + extra) for _d, j, extra in mv) for mv in moves),
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
        end_ok=(end_ok[0], end_ok[1], end_ok[2], end_ok[3]),
        no_return_yellow=bytes(1 if row[i] == ColoredRow.YELLOW else 0 for i in range(n)),
        no_return_green_red=bytes(1 if row[i] in (ColoredRow.GREEN, ColoredRow.RED) else 0 for i in range(n)),
        land_not_colored=tuple(i for i in range(n) if land[i] and not colored[i]),
        open_bits=tuple(open_bits),
        green_bits=sum(1 << i for i in green),
        yellow_bits=sum(1 << i for i in yellow),
        rail_ok_bits=sum(1 << i for i in range(n) if rail_ok[i]),
    )


class Reach(tuple):  # type: ignore[type-arg]
    """A reachable destination: VP lost to overrun refugees (R13), MP spent, path (start excluded),
    and the refugee hexes overrun on that path (rule 10.4).

    Immutable. Construct with ``Reach(vp, mp, path, overrun)``; compare, hash and pickle by those
    four. The path of a plain search result is walked from the search tree when asked for (only
    the destination actually chosen needs one)."""

    __slots__ = ()

    def __new__(cls, vp: int, mp: int, path: tuple[int, ...] = (), overrun: tuple[int, ...] = ()) -> Reach:
        return tuple.__new__(cls, (vp, mp, overrun, tuple(path), None, -1))

    vp = property(itemgetter(0))
    mp = property(itemgetter(1))
    overrun = property(itemgetter(2))

    @property
    def path(self) -> tuple[int, ...]:
        p: tuple[int, ...] | None = self[3]
        if p is None:
            parent = self[4]
            h = self[5]
            out = []
            while h in parent:  # the start hex has no parent
                out.append(h)
                h = parent[h]
            p = tuple(reversed(out))
        return p

    def _key(self) -> tuple[int, int, tuple[int, ...], tuple[int, ...]]:
        return (self[0], self[1], self.path, self[2])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Reach):
            return NotImplemented
        return self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Reach(vp={self[0]}, mp={self[1]}, path={self.path}, overrun={self[2]})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Reach, (self[0], self[1], self.path, self[2]))

    def __copy__(self) -> Reach:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Reach:
        return self


_new_tuple = tuple.__new__


class Dests(Mapping[int, Reach]):
    """Read-only ``{hex: Reach}`` of a plain search (no refugee VP): the hexes in discovery order
    with their MP and the search tree the paths are walked from."""

    __slots__ = ("_mp", "_parent")

    def __init__(self, mp: dict[int, int], parent: dict[int, int]) -> None:
        self._mp = mp
        self._parent = parent

    def __getitem__(self, h: int) -> Reach:
        return _new_tuple(Reach, (0, self._mp[h], (), None, self._parent, h))

    def __iter__(self) -> Iterator[int]:
        return iter(self._mp)

    def __len__(self) -> int:
        return len(self._mp)

    def __contains__(self, h: object) -> bool:
        return h in self._mp

    def keys(self) -> KeysView[int]:
        return self._mp.keys()

    def values(self) -> list[Reach]:  # type: ignore[override]
        p = self._parent
        return [_new_tuple(Reach, (0, mp, (), None, p, h)) for h, mp in self._mp.items()]

    def items(self) -> list[tuple[int, Reach]]:  # type: ignore[override]
        p = self._parent
        return [(h, _new_tuple(Reach, (0, mp, (), None, p, h))) for h, mp in self._mp.items()]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        return dict(self.items()) == dict(other.items())

    def __repr__(self) -> str:
        return f"Dests({dict(self.items())!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self.items()),))

    def __copy__(self) -> Dests:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Dests:
        return self


def reachable(
    mt: MapTables,
    start: int,
    mp: int,
    blocked_hex: Sequence[int] | bytes | bytearray,
    refugees: Mapping[int, bool] | None,
    refugee_extra: int,
    no_return: Sequence[int] | bytes | bytearray | None = None,
    end_ok: bytes | bytearray | None = None,
) -> Mapping[int, Reach]:
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
    ``end_ok``, if given, keeps only the hexes where it is true (the caller's
    ending restrictions); otherwise ending restrictions are the caller's job.
    The start hex is not included.

    Ties: among equally cheap paths the one through the predecessor expanded first
    (fewest VP, then MP, then lowest hex index) is kept. Without an unflipped
    refugee marker in reach every label has 0 VP, and the search is a bucket-queue
    Dijkstra over hexes that expands in exactly that order; otherwise the (hex, VP)
    label search runs.
    """
    steps = mt.steps
    big = mp + 1
    blk: Any = blocked_hex
    if refugees:
        hot = [h for h, flipped in refugees.items() if not flipped]
        if hot:
            # 1 = may not enter, 2 = an unflipped refugee marker (leave for the label search)
            blk = bytearray(blocked_hex)
            for h in hot:
                if not blk[h]:
                    blk[h] = 2
    # outside the no-return region, its hexes are closed too (a per-edge restriction, rules 9.2, 9.5);
    # a value of 2 stays 2 only where the step is otherwise open
    blk_out = blk
    if no_return is not None:
        blk_out = (int.from_bytes(blk, "little") | int.from_bytes(no_return, "little")).to_bytes(
            hg.N_HEX, "little"
        )
    dist = [big] * hg.N_HEX
    dist[start] = 0
    order: list[int] = []  # hexes in the order they were first reached
    parent: dict[int, int] = {}
    buckets: list[list[int]] = [[] for _ in range(big)]
    buckets[0].append(start)
    for d in range(big):
        bucket = buckets[d]
        if not bucket:
            continue
        if len(bucket) > 1:
            bucket.sort()  # costs are >= 1: nothing joins bucket d while it is expanded
        for h in bucket:
            if dist[h] != d:
                continue  # improved since it was queued
            closed = blk_out if no_return is not None and not no_return[h] else blk
            for n, w in steps[h]:
                b = closed[n]
                if b:
                    if b == 2 and d + w <= mp:
                        return _reachable_labels(
                            mt, start, mp, blocked_hex, refugees, refugee_extra, no_return, end_ok
                        )
                    continue
                c = d + w
                if c < dist[n]:
                    if dist[n] == big:
                        order.append(n)
                    dist[n] = c
                    parent[n] = h
                    buckets[c].append(n)
    if end_ok is not None:
        out = {h: dist[h] for h in order if end_ok[h]}
    else:
        out = {h: dist[h] for h in order}
    # rule 11.4, R15: one hex, spending everything, whatever it would cost
    for n, _w in steps[start]:
        if blocked_hex[n] or n in out or (end_ok is not None and not end_ok[n]):
            continue
        out[n] = mp
        parent[n] = start
    return Dests(out, parent)


def _reachable_labels(
    mt: MapTables,
    start: int,
    mp: int,
    blocked_hex: Sequence[int] | bytes | bytearray,
    refugees: Mapping[int, bool] | None,
    refugee_extra: int,
    no_return: Sequence[int] | bytes | bytearray | None,
    end_ok: bytes | bytearray | None,
) -> dict[int, Reach]:
    """:func:`reachable` over (hex, VP) labels, for moves that may overrun refugees (R13).

    Labels are ints ``hex << 8 | vp`` and heap entries ints ``vp << 24 | mp << 12 | hex``, which
    order as the tuples ``(vp, mp, hex)`` (hex < 4096, MP < 4096; VP <= MP)."""
    steps = mt.steps
    refs = refugees if refugees is not None else {}
    best: dict[int, int] = {start << 8: 0}
    parent: dict[int, int] = {}
    heap: list[int] = [start]
    pop = heapq.heappop
    push = heapq.heappush
    while heap:
        e = pop(heap)
        vp = e >> 24
        used = (e >> 12) & 0xFFF
        h = e & 0xFFF
        lab = h << 8 | vp
        if best.get(lab, 99) < used:
            continue
        back = no_return is not None and not no_return[h]
        for n, w in steps[h]:
            if blocked_hex[n] or (back and no_return[n]):  # type: ignore[index]
                continue
            c = used + w
            flipped = refs.get(n)
            if flipped is None or flipped:
                options: tuple[tuple[int, int], ...] = ((vp, c),)  # rule 10.4: already paid for this phase
            else:
                options = ((vp, c + refugee_extra), (vp + 1, c))  # rule 10.3 / 10.4
            for nvp, nmp in options:
                if nmp > mp:
                    continue
                # dominated by a label with fewer or equal VP and no more MP?
                base = n << 8
                for v in range(nvp + 1):
                    b = best.get(base | v)
                    if b is not None and b <= nmp:
                        break
                else:
                    best[base | nvp] = nmp
                    parent[base | nvp] = lab
                    push(heap, nvp << 24 | nmp << 12 | n)
    out: dict[int, Reach] = {}
    for key, used in best.items():
        h = key >> 8
        vp = key & 255
        if h == start:
            continue
        cur = out.get(h)
        if cur is not None and (cur.vp, cur.mp) <= (vp, used):
            continue
        path = [h]
        overrun = []
        while key in parent:
            prev = parent[key]
            if (prev & 255) < (key & 255):
                overrun.append(key >> 8)
            key = prev
            if key >> 8 != start:
                path.append(key >> 8)
        out[h] = Reach(vp, used, tuple(reversed(path)), tuple(overrun))
    # rule 11.4, R15: one hex, spending everything, whatever it would cost
    for n, _w in steps[start]:
        if blocked_hex[n]:
            continue
        cur = out.get(n)
        if cur is None or cur.vp > 0:
            out[n] = Reach(0, mp, (n,))
    if end_ok is not None:
        out = {h: r for h, r in out.items() if end_ok[h]}
    return out


def flood(
    open_nb: tuple[tuple[int, ...], ...], sources: Iterable[int], passable: Sequence[int] | bytes | bytearray
) -> bytearray:
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


def rail_route(open_nb: tuple[tuple[int, ...], ...], start: int, dest: int, passable: int) -> tuple[int, ...]:
    """The route of a rail move from ``start`` to ``dest`` through the ``passable`` hexes (an int bitset of
    the clear/city hexes out of the colored rows and not adjacent to enemy units, rule 11.7, R17).

    Chosen by the convention of a regular move's path (``reachable``, R13) with every hex costing one
    (rail ignores refugees, R16, and has no MP): the fewest hexes, and among equally short routes the one
    through the predecessor expanded first, hexes of one distance being expanded in increasing index.
    Returns the hexes entered, ``dest`` last (start excluded, like :attr:`Reach.path`); ``()`` if
    ``dest`` cannot be reached."""
    parent = {start: -1}
    frontier = [start]
    while frontier and dest not in parent:
        nxt = []
        for h in sorted(frontier):
            for n in open_nb[h]:
                if n not in parent and (passable >> n) & 1:
                    parent[n] = h
                    nxt.append(n)
        frontier = nxt
    if dest not in parent:
        return ()
    out = []
    h = dest
    while h != start:
        out.append(h)
        h = parent[h]
    return tuple(reversed(out))


def flood_bits(open_bits: tuple[int, ...], sources: int, passable: int) -> int:
    """:func:`flood` on int bitsets (bit h = hex h): the passable hexes connected to the passable
    ``sources`` through open hexsides. ``open_bits`` is :attr:`MapTables.open_bits`; each round
    moves the whole set one hex in all six directions (constant index offsets, ``_DIR_OFFSET``)."""
    o0, o1, o2, o3, o4, o5 = open_bits
    r = sources & passable
    while True:
        n = (
            r
            | ((r & o0) << 1)
            | ((r & o1) << 26)
            | ((r & o2) << 25)
            | ((r & o3) >> 1)
            | ((r & o4) >> 26)
            | ((r & o5) >> 25)
        ) & passable
        if n == r:
            return r
        r = n


_N_BYTES = (hg.N_HEX + 7) // 8


def bits_to_mask(bits: int) -> bytearray:
    """An int bitset as a 0/1 bytearray of length ``N_HEX``."""
    a = np.unpackbits(
        np.frombuffer(bits.to_bytes(_N_BYTES, "little"), dtype=np.uint8), count=hg.N_HEX, bitorder="little"
    )
    return bytearray(a.data)


def mask_to_bits(mask: bytes | bytearray) -> int:
    """A 0/1 mask of length ``N_HEX`` as an int bitset."""
    return int.from_bytes(
        np.packbits(np.frombuffer(mask, dtype=np.uint8), bitorder="little").tobytes(), "little"
    )
