"""Air units and their missions ([R Air Units], C§7, F31-F38): interception (step 2), Air Superiority
(steps 4 and 7), Combat Air Patrol and Interdiction (step 9). Close Support is part of an attack
(:mod:`.flow`, :mod:`.combat`).

An air unit is its GSE's roster entry: ``State.ac_mission[gse]`` says where its Aircraft Element is
("" = on the ground at its GSE; ``cap``/``int`` over ``ac_hex``; ``cs`` close support; ``sup`` Air
Superiority), ``State.ac_turn[gse]`` the game-turn of its last take-off (once per game-turn, F31).
"""

from __future__ import annotations

from typing import Any

from ffo_env.france1940.core import actions as A
from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.hexgrid import distance, within
from ffo_env.france1940.core.state import MAP, State


def air_range(s: State, side: int) -> int:
    return int(s.game.data.tables["ranges"]["air_de" if side == GERMAN else "air_allied"])


def home(s: State, u: int) -> int:
    """The hex an aircraft's range is counted from: its GSE, or for Bomber Command its base in Paris once
    rebased, else the north-west corner square (F31, F58)."""
    if s.spec(u).is_bomber:
        bases = [b for b in s.on_map(ALLIED) if s.spec(b).is_base]
        return s.hex[bases[0]] if bases else s.game.data.bomber_base
    return s.hex[u]


def reach(s: State, u: int) -> int:
    if s.spec(u).is_bomber:
        return int(s.game.data.tables["ranges"]["bomber"])  # F58: 30
    return air_range(s, s.side_of(u))


def available(s: State, side: int) -> list[int]:
    """Air units of ``side`` whose Aircraft Element may take off now (F31, F11, F58)."""
    out = [
        u
        for u in s.on_map(side)
        if s.spec(u).is_gse
        and not s.ac_mission[u]
        and s.ac_turn[u] != s.turn
        and s.gse_moved_turn[u] != s.turn
        and not (s.restricted[u] and s.turn == 1)
    ]
    if side == ALLIED and s.game.options.bef_bomber_command:
        out += [
            u
            for u in s.game.side_units[ALLIED]
            if s.spec(u).is_bomber and s.in_air_play(u) and not s.ac_mission[u] and s.ac_turn[u] != s.turn
        ]
    return out


def gse_available(s: State, side: int) -> list[int]:
    """Aircraft that may intercept or fly Air Superiority: not Bomber Command (F58)."""
    return [u for u in available(s, side) if not s.spec(u).is_bomber]


def may_interdict(s: State, side: int) -> bool:
    """F37: Allied only with a column holding B; German never with V."""
    d = s.game.data
    if side == ALLIED:
        return s.columns[ALLIED] in d.allied_interdiction
    return s.columns[GERMAN] not in d.german_no_interdiction


def kinds(s: State, ac: int) -> list[str]:
    """Step-9 missions of ``ac``: CAP, and Interdiction where allowed (F37); Bomber Command flies only
    Interdiction, whatever the Allied column (F58)."""
    if s.spec(ac).is_bomber:
        return ["int"]
    return ["cap"] + (["int"] if may_interdict(s, s.side_of(ac)) else [])


def _enemy_ending(s: State, side: int) -> set[int]:
    """Hexes holding enemy aircraft that are ending their CAP or Interdiction missions (F33, F34)."""
    return {s.ac_hex[v] for v in s.game.side_units[1 - side] if s.ac_mission[v] in ("cap", "int")}


def _closed_for_allied_air(s: State, h: int) -> bool:
    return s.closed_to_home("F", h)  # F6 c: no Allied missions over a non-invaded neutral hex


# ---------------------------------------------------------------- step 2: interception (F36)


def interceptable_hexes(s: State, gse: int) -> list[int]:
    side = s.phasing
    out = set()
    for v in s.game.side_units[1 - side]:
        if s.ac_mission[v] not in ("cap", "int"):
            continue
        h = s.ac_hex[v]
        if s.ac_mission[v] == "cap" and _protects_gse(s, v):
            continue  # CAP over its own side's GSE is not subject to interception
        if distance(home(s, gse), h) <= reach(s, gse):
            out.add(h)
    return sorted(out)


def _protects_gse(s: State, v: int) -> bool:
    side = s.side_of(v)
    return any(s.spec(w).is_gse and s.side_of(w) == side for w in s.occupants(s.ac_hex[v]))


def enter_intercept(s: State) -> None:
    s.air = {}


# ---------------------------------------------------------------- step 4: Air Superiority (F35)


def enter_airsup(s: State) -> None:
    s.air = {"allot": {}, "cap": {}, "done": False}


def airsup_targets(s: State, ac: int) -> list[int]:
    rng = air_range(s, s.phasing)
    return [
        v
        for v in s.on_map(1 - s.phasing)
        if (s.spec(v).is_gse or s.spec(v).is_base)  # F58: the bomber base is attacked as a GSE
        and distance(s.hex[ac], s.hex[v]) <= rng
        and not (s.phasing == ALLIED and _closed_for_allied_air(s, s.hex[v]))
    ]


def _cap_over(s: State, h: int) -> list[int]:
    return [v for v in s.game.side_units[1 - s.phasing] if s.ac_mission[v] == "cap" and s.ac_hex[v] == h]


def airsup_destroy_faces(s: State, attackers: int, defenders: int) -> int:
    """F35: the faces of the die (1 to this) that destroy a GSE attacked by ``attackers`` aircraft against
    ``defenders`` (1 + the CAP over it); the odds are rounded in the defender's favour."""
    tbl = s.game.data.tables["air_superiority"]
    cols: list[str] = tbl["columns"]
    k = attackers // defenders if attackers >= defenders else 0  # 1-2 or worse -> the first column
    return int(tbl["destroy_at_most"][min(len(cols) - 1, k)])  # index 0 = 1-2, 1 = 1-1, ... 6 = 6-1


def _resolve_airsup(s: State) -> None:
    for key, attackers in sorted(s.air["allot"].items(), key=lambda kv: int(kv[0])):
        tgt = int(key)
        if s.status[tgt] != MAP:
            continue
        dfn = 1 + len(s.air["cap"].get(key, []))
        att = len(attackers)
        die = s.roll(f"air superiority {s.uid(tgt)}")
        if die <= airsup_destroy_faces(s, att, dfn):  # rule F35
            s.destroy(tgt, "air superiority")
        s.log.append(["air superiority", s.uid(tgt), f"{att}:{dfn} die {die}"])
    s.air["done"] = True


def land_air_superiority(s: State) -> None:
    for u in s.game.side_units[s.phasing]:
        if s.ac_mission[u] == "sup":
            s.ac_mission[u], s.ac_hex[u] = "", 0


# ---------------------------------------------------------------- step 9: CAP and Interdiction (F33, F34)


def enter_missions(s: State) -> None:
    s.air = {"ac": -1, "kind": ""}


def mission_hexes(s: State, ac: int, kind: str) -> list[int]:
    side = s.phasing
    rng = reach(s, ac)
    ending = _enemy_ending(s, side)
    g = home(s, ac)
    out = []
    for h in within(g, rng):
        if h in ending:
            continue
        if side == ALLIED and _closed_for_allied_air(s, h):
            continue
        if kind == "cap" and s.side_at(h) == 1 - side:
            continue  # CAP over friendly units or an empty hex only (F34)
        out.append(h)
    return out


def land_enemy_missions(s: State) -> None:
    """Step 9: the enemy's CAP and Interdiction launched in its last player-turn land."""
    changed = False
    for u in s.game.side_units[1 - s.phasing]:
        if s.ac_mission[u] in ("cap", "int"):
            s.ac_mission[u], s.ac_hex[u] = "", 0
            changed = True
    if changed:
        s.touch()


# ---------------------------------------------------------------- the flow's hooks


def phase_decision(s: State) -> str:
    """The decision of an air step, or "" when the step is over."""
    if s.phase == "intercept":
        if s.air.get("ac", -1) >= 0:
            return "intercept_hex"
        if s.air.get("done"):
            return ""
        return "intercept"
    if s.phase == "airsup":
        if s.air.get("done"):
            return ""
        if s.air.get("ac", -1) >= 0:
            return "airsup_target"
        if s.air.get("stage") == "cap":
            return "cap_allot"
        return "airsup"
    if s.phase == "missions":
        if s.air.get("done"):
            return ""
        if s.air.get("ac", -1) >= 0:
            return "mission_hex" if s.air.get("kind") else "mission_kind"
        return "mission"
    return ""


def owner(s: State, item: dict[str, Any]) -> int:
    return s.phasing


def auto_item(s: State, item: dict[str, Any]) -> bool:
    return False


def legal(s: State, dec: str, q: dict[str, Any]) -> list[int]:
    side = s.phasing
    if dec == "intercept":
        return [A.DONE] + [A.unit_action(u) for u in gse_available(s, side) if interceptable_hexes(s, u)]
    if dec == "intercept_hex":
        return [A.hex_action(h) for h in interceptable_hexes(s, s.air["ac"])]
    if dec == "airsup":
        return [A.DONE] + [A.unit_action(u) for u in gse_available(s, side) if airsup_targets(s, u)]
    if dec == "airsup_target":
        return [A.unit_action(v) for v in airsup_targets(s, s.air["ac"])]
    if dec == "cap_allot":
        taken = {v for vs in s.air["cap"].values() for v in vs}
        hexes = {s.hex[int(k)] for k in s.air["allot"]}
        return [A.DONE] + [A.unit_action(v) for h in sorted(hexes) for v in _cap_over(s, h) if v not in taken]
    if dec == "mission":
        return [A.DONE] + [
            A.unit_action(u) for u in available(s, side) if any(mission_hexes(s, u, k) for k in kinds(s, u))
        ]
    if dec == "mission_kind":
        ac = s.air["ac"]
        acts = [A.CAP] if "cap" in kinds(s, ac) and mission_hexes(s, ac, "cap") else []
        if "int" in kinds(s, ac) and mission_hexes(s, ac, "int"):
            acts.append(A.INTERDICT)
        return acts
    if dec == "mission_hex":
        return [A.hex_action(h) for h in mission_hexes(s, s.air["ac"], s.air["kind"])]
    return []


def do(s: State, dec: str, a: int) -> None:
    if dec == "intercept":
        if a == A.DONE:
            s.air["done"] = True
        else:
            s.air["ac"] = a - A.UNIT
    elif dec == "intercept_hex":
        ac, h = s.air["ac"], A.action_hex(a)
        s.air["ac"] = -1
        s.ac_turn[ac] = s.turn  # the interceptor flew and is back at base (F36)
        enemy = [
            v
            for v in s.game.side_units[1 - s.phasing]
            if s.ac_hex[v] == h and s.ac_mission[v] in ("cap", "int")
        ]
        caps = [v for v in enemy if s.ac_mission[v] == "cap" and not _protects_gse(s, v)]
        ints = [v for v in enemy if s.ac_mission[v] == "int"]
        victim = (caps or ints)[0]  # CAP first, then Interdiction ([R Air Units (D)(5)]); P8
        s.ac_mission[victim], s.ac_hex[victim] = "", 0
        s.touch()
        s.log.append(["intercepted", s.uid(victim), str(h)])
    elif dec == "airsup":
        if a == A.DONE:
            if s.air["allot"]:
                s.air["stage"] = "cap"
            else:
                s.air["done"] = True
        else:
            s.air["ac"] = a - A.UNIT
    elif dec == "airsup_target":
        ac, tgt = s.air["ac"], a - A.UNIT
        s.air["ac"] = -1
        s.ac_mission[ac], s.ac_hex[ac], s.ac_turn[ac] = "sup", s.hex[tgt], s.turn
        s.air["allot"].setdefault(str(tgt), []).append(ac)
        if s.phasing == GERMAN:
            s.invade(s.invades_on_entry(s.hex[tgt]), "air superiority")  # F6 a
    elif dec == "cap_allot":
        if a == A.DONE:
            _resolve_airsup(s)
        else:
            v = a - A.UNIT
            here = sorted(int(k) for k in s.air["allot"] if s.hex[int(k)] == s.ac_hex[v])
            # P7: the CAP element helps the attacked GSE of its hex with the fewest helpers so far
            tgt = min(here, key=lambda g: (len(s.air["cap"].get(str(g), [])), g))
            s.air["cap"].setdefault(str(tgt), []).append(v)
    elif dec == "mission":
        if a == A.DONE:
            s.air["done"] = True
        else:
            s.air["ac"], s.air["kind"] = a - A.UNIT, ""
    elif dec == "mission_kind":
        s.air["kind"] = "cap" if a == A.CAP else "int"
    elif dec == "mission_hex":
        ac, h = s.air["ac"], A.action_hex(a)
        s.ac_mission[ac], s.ac_hex[ac], s.ac_turn[ac] = s.air["kind"], h, s.turn
        s.air["ac"], s.air["kind"] = -1, ""
        if s.phasing == GERMAN:
            s.invade(s.invades_on_entry(h), "air mission")  # F6 a
        s.touch()
    else:  # pragma: no cover - every decision is dispatched above
        raise ValueError(f"unknown decision {dec!r}")
