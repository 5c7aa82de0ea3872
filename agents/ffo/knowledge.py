"""What a scripted bot may know and the estimates it shares: visibility, distance maps, battle odds.

Visibility (rule 3.6, R3): a side sees its own stacks fully; of an enemy stack it
sees the top unit and the stack height, and the whole stack once it has declared
an attack on that hex (``state.revealed[side]``, cleared by the engine when the
stack changes). Everything here reads only that.

Distance maps are movement-point distances *to* a set of target hexes over the
hexes a side may enter (enemy-occupied hexes excluded), computed by one reverse
Dijkstra and cached by the caller. Battle estimates enumerate the CRT die, the
city die (rule 13.16) and support dice exactly, so they are cheap and
deterministic.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.combat_odds import direction  # noqa: F401 - re-exported for the bots
from ffo_env.ffo.core.state import State
from ffo_env.ffo.core.visibility import SeenStack, seen_stack

INF = 10**6


# ------------------------------------------------------------------ visibility


def enemy_stacks(state: State, viewer: int) -> list[SeenStack]:
    out = []
    for h in state.occupied_hexes(1 - viewer):
        s = seen_stack(state, viewer, h)
        if s is not None:
            out.append(s)
    return out


def stack_cf(state: State, s: SeenStack, hidden_cf: float) -> float:
    return sum(state.cf(u) for u in s.known) + hidden_cf * s.hidden


def counted_own(state: State, h: int, exclude: int = -1) -> int:
    """Own units in ``h`` that count for stacking (rule 6.3, R8)."""
    return sum(1 for u in state.stacks.get(h, ()) if u != exclude and not state.units[u].free_stacking)


# --------------------------------------------------------------- distance maps


def distance_map(
    state: State, side: int, targets: Iterable[int], offsets: dict[int, float] | None = None
) -> list[float]:
    """Movement cost from every hex to the nearest target (reverse Dijkstra, rules 11.2-11.5).

    Hexes the side may never enter and enemy-occupied hexes are impassable (a target
    may be enemy-occupied: then the distance is that of entering it, i.e. of being
    adjacent plus its cost). ``offsets`` gives a target a starting cost.
    """
    mt = state.game.tables
    into = _entries(state.game, side)
    enemy_occ = bytearray(hg.N_HEX)
    for h in state.occupied_hexes(1 - side):
        enemy_occ[h] = 1
    dist = [float(INF)] * hg.N_HEX
    heap: list[tuple[float, int]] = []
    for t in targets:
        d0 = offsets.get(t, 0.0) if offsets else 0.0
        if d0 < dist[t]:
            dist[t] = d0
            heap.append((d0, t))
    heapq.heapify(heap)
    cost = mt.enter_cost
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        d, n = pop(heap)
        if d > dist[n]:
            continue
        cn = cost[n]
        for h, river in into[n]:
            if enemy_occ[h]:
                continue
            nd = d + cn + river  # this sum's order: a map stays the same to the last bit
            if nd < dist[h]:
                dist[h] = nd
                push(heap, (nd, h))
    return dist


_ENTRIES: dict[tuple[int, int], tuple[Any, list[tuple[tuple[int, int], ...]]]] = {}


def _entries(game: Any, side: int) -> list[tuple[tuple[int, int], ...]]:
    """For every hex ``n``, the ``(h, river)`` of the moves out of it into hexes ``side`` may enter (the
    reverse search's steps), made once per game and side."""
    hit = _ENTRIES.get((id(game), side))
    if hit is not None and hit[0] is game:
        return hit[1]
    forbidden = game.forbidden[side]
    table = [tuple((h, river) for _d, h, river in moves if not forbidden[h]) for moves in game.tables.moves]
    if len(_ENTRIES) >= 16:  # a process that builds many games keeps only the latest
        _ENTRIES.clear()
    _ENTRIES[(id(game), side)] = (game, table)
    return table


def hex_distance_to(targets: Iterable[int]) -> list[int]:
    """Plain hex distance (no terrain) from every hex to the nearest target."""
    ts = list(targets)
    if not ts:
        return [INF] * hg.N_HEX
    return [int(x) for x in hg.DISTANCE[:, ts].min(axis=1)]


# ------------------------------------------------------------------ battles


@cache
def _die_dist(n: int, divisor: int) -> tuple[tuple[int, float], ...]:
    """Distribution of (sum of n dice) // divisor."""
    dist: dict[int, float] = {0: 1.0}
    for _ in range(n):
        nxt: dict[int, float] = {}
        for s, p in dist.items():
            for f in range(1, 7):
                nxt[s + f] = nxt.get(s + f, 0.0) + p / 6
        dist = nxt
    out: dict[int, float] = {}
    for s, p in dist.items():
        out[s // divisor] = out.get(s // divisor, 0.0) + p
    return tuple(sorted(out.items()))


def dice_dist(n: int, divisor: int = 1) -> tuple[tuple[int, float], ...]:
    if n <= 0:
        return ((0, 1.0),)
    return _die_dist(n, divisor)


@dataclass
class BattleSetup:
    """Everything known about a prospective battle before support and the city die."""

    target: int
    attacker_side: int
    attackers: list[int]
    att_cf: float
    def_cf: float
    fixed_shift: int  # terrain, river, OOS, concentricity (rules 7.4, 13.13-13.17, R25, R26)
    city: bool  # the city die applies (rule 13.16)


def battle_setup(
    state: State, attackers: list[int], target: int, hidden_cf: float, attacker_side: int
) -> BattleSetup:
    """Column shifts known before the dice, asked of the core with only what ``attacker_side`` sees of the
    defending stack (``State.battle_preview(viewer=...)``, rule 3.6, R3, R26): the defenders it sees count
    their strength, each hidden one ``hidden_cf``."""
    pv = state.battle_preview(target, list(attackers), viewer=attacker_side)
    return BattleSetup(
        target,
        attacker_side,
        list(attackers),
        float(pv.att_cf),
        float(pv.def_cf) + hidden_cf * pv.hidden_defenders,
        sum(s.columns for s in pv.shifts),
        pv.city_die,
    )


def column_probs(
    state: State,
    bs: BattleSetup,
    att_support: tuple[tuple[int, float], ...] = ((0, 1.0),),
    def_support: tuple[tuple[int, float], ...] = ((0, 1.0),),
) -> dict[int, float]:
    """Distribution of the CRT column (before lowering) over support and city dice."""
    t = state.game.scenario.tables
    crt = t.crt
    ncol = len(crt.columns)
    city = dice_dist(1, t.city_die_divisor) if bs.city else ((0, 1.0),)
    out: dict[int, float] = {}
    for a, pa in att_support:
        for d, pd in def_support:
            diff = int(round(bs.att_cf + a - bs.def_cf - d))
            base = crt.column_of(diff)
            for c, pc in city:
                col = max(0, min(ncol - 1, base + bs.fixed_shift - c))
                out[col] = out.get(col, 0.0) + pa * pd * pc
    return out


def result_probs(state: State, col: int) -> dict[str, float]:
    crt = state.game.scenario.tables.crt
    out: dict[str, float] = {}
    for die in range(1, 7):
        r = crt.result(col, die)
        out[r] = out.get(r, 0.0) + 1 / 6
    return out


def has_retreat(state: State, u: int, origins: set[int]) -> bool:
    """Could unit ``u`` retreat one hex now (rule 13.6, R28; approximate, from public facts)?"""
    spec = state.units[u]
    if spec.static:
        return False  # rule 13.20
    side = spec.side
    forbidden = state.game.forbidden[side]
    limit = state.game.scenario.tables.stack_limit
    for _d, n, _r in state.game.tables.moves[state.loc[u]]:
        if forbidden[n] or n in origins:
            continue
        st = state.stacks.get(n)
        if st and state.units[st[0]].side != side:
            continue
        if not spec.free_stacking and counted_own(state, n) >= limit:
            continue
        return True
    return False
