"""The optional German airborne rule ([R Optional: German Airborne Units (A)-(K)], F41, F8, F11).

Paratroop battalions (no strengths, no MA, no ZOC, weight 0) and air-landing regiments (1-4) wait off the
map (``State.arrive[u] == POOL``). Before setup the German player removes two corps-equivalents of starting
ground units; in his Initial Movement Phases he may drop each paratroop once, assault fortified hexes with
them (an Aircraft Element flies the assault and lands at the end of the Combat Phase), and land air-landing
regiments in a hex a paratroop has secured. Paratroops attacked alone are destroyed; they are withdrawn
(no VP) once a German ground unit reaches them and their hex traces supply.
"""

from __future__ import annotations

from typing import Any

from ffo_env.france1940.core import actions as A
from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.hexgrid import NEIGHBOURS, distance, within
from ffo_env.france1940.core.state import MAP, OUT, REMOVED, State

POOL = 99  # ``arrive`` of an airborne unit waiting off the map


def pool(s: State, symbol: str) -> list[int]:
    return [
        u
        for u in s.game.side_units[GERMAN]
        if s.status[u] == OUT and s.arrive[u] == POOL and s.spec(u).type.symbol == symbol
    ]


def removable(s: State, left: int) -> list[int]:
    """Starting German ground units the German may remove for the airborne rule (F41 a): weight <= left."""
    return [
        u
        for u in s.game.side_units[GERMAN]
        if s.arrive[u] == 0 and not s.spec(u).is_gse and s.spec(u).type.weight <= left
    ]


def anchors(s: State) -> list[int]:
    """German GSEs that have not moved this player-turn (a drop's range is counted from one, F41 b)."""
    return [u for u in s.on_map(GERMAN) if s.spec(u).is_gse and s.gse_moved_turn[u] != s.turn]


def drop_hexes(s: State) -> list[int]:
    """Hexes a paratroop may drop on now (F41 b): within 20 of an unmoved German GSE, playable, no enemy
    units unless an undestroyed fortified hex (which needs an Aircraft Element in range, F41 c)."""
    rng = int(s.game.data.tables["ranges"]["paratroop"])
    cand: set[int] = set()
    for g in anchors(s):
        cand.update(within(s.hex[g], rng))
    out = []
    for h in sorted(cand):
        if not s.game.data.playable(h):
            continue
        if s.fort_active(h):
            if assault_aircraft(s, h):
                out.append(h)
            continue
        if s.side_at(h) == ALLIED:
            continue
        out.append(h)
    return out


def assault_aircraft(s: State, h: int) -> list[int]:
    from ffo_env.france1940.core import air

    rng = air.air_range(s, GERMAN)
    return [u for u in air.available(s, GERMAN) if distance(s.hex[u], h) <= rng]


def airland_units(s: State, h: int) -> list[int]:
    if s.stack_count(h) >= 3 or s.side_at(h) == ALLIED:
        return []
    return pool(s, "air_landing")


def legal(s: State, dec: str, q: dict[str, Any]) -> list[int] | None:
    if dec == "airborne_remove":
        return [A.unit_action(u) for u in removable(s, q["left"])]
    if dec == "drop":
        return [A.hex_action(h) for h in drop_hexes(s)]
    if dec == "assault_ac":
        return [A.unit_action(u) for u in assault_aircraft(s, q["hex"])]
    if dec == "airland":
        return [A.DONE] + [A.unit_action(u) for u in airland_units(s, q["hex"])]
    return None


def do(s: State, dec: str, a: int) -> bool:
    """Apply an airborne decision; False if ``dec`` is not one."""
    q = s.queue[0] if s.queue else {}
    if dec == "airborne_remove":
        u = a - A.UNIT
        s.arrive[u] = -1  # out of the game, not destroyed (F41 a)
        q["left"] -= s.spec(u).type.weight
        s.log.append(["airborne: removed", s.uid(u), ""])
        if q["left"] <= 0:
            s.queue.pop(0)
        return True
    if dec == "drop":
        s.queue.pop(0)
        u, h = q["unit"], A.action_hex(a)
        if s.fort_active(h):
            s.queue.insert(0, {"kind": "assault_ac", "unit": u, "hex": h})
        else:
            _land(s, u, h, assault=False, ac=-1)
        return True
    if dec == "assault_ac":
        s.queue.pop(0)
        ac = a - A.UNIT
        s.ac_mission[ac], s.ac_hex[ac], s.ac_turn[ac] = "asl", q["hex"], s.turn  # lands after combat
        _land(s, q["unit"], q["hex"], assault=True, ac=ac)
        return True
    if dec == "airland":
        if a == A.DONE:
            s.queue.pop(0)
        else:
            u = a - A.UNIT
            s.status[u], s.arrive[u], s.moved[u] = MAP, 0, True  # no move in the player-turn of landing
            s.move_unit(u, q["hex"])
            s.log.append(["air-landed", s.uid(u), str(q["hex"])])
        return True
    return False


def _land(s: State, u: int, h: int, assault: bool, ac: int) -> None:
    """A paratroop lands on ``h``: landing roll, then an assault roll on a fortified hex (F41 b, c)."""
    s.invade(s.invades_on_entry(h), f"{s.uid(u)} dropped on {h}")  # F6 a
    s.arrive[u] = 0
    s.status[u] = MAP
    s.move_unit(u, h)
    if s.roll(f"landing {s.uid(u)} @{h}") >= 5:  # [R Optional (I)]: 5 or 6 destroys it
        s.destroy(u, "landing")
        return
    if assault:
        occupied = any(s.side_of(v) == ALLIED for v in s.occupants(h))
        r = s.roll(f"assault {s.uid(u)} @{h}")
        if occupied:  # [R Optional (J)]: 1-2 destroys the forts; the paratroop dies whatever the roll
            if r <= 2:
                _fort_falls(s, h)
            s.destroy(u, "assault on an occupied fortress")
            return
        if r == 6:
            s.destroy(u, "assault")
            return
        _fort_falls(s, h)
    s.queue.insert(0, {"kind": "airland", "hex": h})  # [R Optional (K)]


def _fort_falls(s: State, h: int) -> None:
    s.fort_destroyed.append(h)
    s.touch()
    s.log.append(["fortress destroyed", h, "paratroop assault"])


def withdraw(s: State) -> None:
    """End of each German phase: a paratroop reached by a German ground unit, whose hex traces supply, is
    withdrawn, not lost (F41 f, [R Optional (H)])."""
    paras = [u for u in s.on_map(GERMAN) if s.spec(u).is_para]
    if not paras:
        return
    sup = s.judge_supply(paras)
    for u in paras:
        h = s.hex[u]
        near = [v for m in (h, *NEIGHBOURS[h]) for v in s.occupants(m)]
        reached = any(s.side_of(v) == GERMAN and not s.spec(v).is_para for v in near)
        if reached and sup[u]:
            s.remove(u, REMOVED, "withdrawn")


def land_assault_aircraft(s: State) -> None:
    for u in s.game.side_units[GERMAN]:
        if s.ac_mission[u] == "asl":
            s.ac_mission[u], s.ac_hex[u] = "", 0


def paras_alone(s: State, h: int, side: int = GERMAN) -> bool:
    """Does ``h`` hold ``side``'s units, all of them paratroops (other units ignored)? (F41 e)"""
    occ = s.occupants(h)
    if not occ:
        return False  # the common case: movement asks it of every hex a unit might enter
    own = [v for v in occ if s.side_of(v) == side]
    return bool(own) and all(s.spec(v).is_para for v in own)
