"""Impulses (rule 8): the declaration, Assault movement (9, S29), Regroup (8.1.2a, S27) and Redeploy
(8.1.2b, S28). Combat is in :mod:`.combat`.

The impulse's working data is ``State.imp`` (plain JSON values):
``mode`` pass|regroup|redeploy|assault; ``assault`` the declared Army Groups; ``multi`` an S52 impulse;
``cstart`` locations Contested at the declaration (S31); ``active`` active units; ``ag`` per unit its
Army Group for S52 ("" = not active); ``pending`` Reserves awaiting assignment; ``moved`` units whose
move is over; ``moving`` the unit moving now (-1 none), ``mf`` its MF left, ``steps`` steps taken;
``entered`` per unit the location it entered holding enemy units (-1); ``came`` per unit the location
of its last step (for retreats and S34); ``cross`` per unit the boundary of its last step;
``entry_ag`` per location the Army Group that entered it (S52); ``done`` locations where combat was
resolved (S30); ``mandatory`` locations with a combat still owed (S31); ``attacked`` units that
took part in a combat; ``regrouped`` units that regrouped; ``origin`` the Redeploy location.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffo_env.springtime.core import actions as A
from ffo_env.springtime.core.data import ALLIED, AXIS, RESERVE, SIDE_AGS
from ffo_env.springtime.core.state import MAP, OFF

if TYPE_CHECKING:
    from ffo_env.springtime.core.state import State


# ------------------------------------------------------------------ declaration (8.1, S24, S25, S52)


def alp_immobile(s: State, u: int) -> bool:
    """rule 9.3.3, S12: the Alp Army may not move before Italy declares war."""
    return s.game.unit_ids[u] == "FR-ALP" and not s.italy_at_war


def is_multi(s: State) -> bool:
    """S52: Turn 1 Impulse 6 (15.3) or an impulse in which Plan Red was played."""
    return (s.turn == 1 and s.box == 6) or bool(s.imp.get("plan_red"))


def available_ags(s: State, side: int) -> list[str]:
    """Army Groups with a unit on the map that may be declared now (S24, S25, S19 Billotte)."""
    out = []
    multi = side == AXIS and is_multi(s)
    for ag in SIDE_AGS[side]:
        if ag == "W" and not s.italy_at_war:
            continue
        if ag == "1" and s.billotte:
            continue
        if not multi and ag in s.last_assault[side]:
            continue
        if any(s.status[u] == MAP and s.units[u].ag == ag for u in s.game.side_units[side]):
            out.append(ag)
    return out


def assault_masks(s: State) -> list[int]:
    side = s.active
    ags = available_ags(s, side)
    if side == ALLIED:
        return [A.ag_mask(side, [x]) for x in ags]
    if is_multi(s):  # S52: any non-empty set
        bits = [A.ag_mask(side, [x]) for x in ags]
        masks = {sum(bits[i] for i in range(len(bits)) if m >> i & 1) for m in range(1, 1 << len(bits))}
        return sorted(masks)
    out = [A.ag_mask(side, [x]) for x in ags]  # S25: X, K or X + K
    if "K" in ags:
        out += [A.ag_mask(side, [x, "K"]) for x in ags if x != "K"]
    return out


def can_regroup(s: State) -> bool:
    return any(regroup_targets(s, u) for u in s.on_map(s.active))


def redeploy_origins(s: State) -> list[int]:
    side = s.active
    if side == ALLIED and s.refugees == "active":
        return []  # S19 Refugees
    out = set()
    for u in s.on_map(side):
        loc = s.loc[u]
        if loc not in out and redeployable(s, u) and _first_step_exists(s, u, loc):
            out.add(loc)
    return sorted(out)


def _first_step_exists(s: State, u: int, origin: int) -> bool:
    began_contested = s.contested(origin)
    return bool(step_targets(s, u, "redeploy", first=True, began_contested=began_contested))


def redeployable(s: State, u: int) -> bool:
    return not s.oos[u] and not alp_immobile(s, u)  # 8.1.2b, S28, S12


def declare_legal(s: State) -> list[int]:
    """rule 8.1; P4: declarations that would do nothing are not offered."""
    out = [A.PASS]
    if can_regroup(s):
        out.append(A.REGROUP)
    out += [A.REDEPLOY + loc for loc in redeploy_origins(s)]
    out += [A.ASSAULT + m for m in assault_masks(s)]
    return out


def _new_impulse(s: State, mode: str) -> None:
    n, nl = s.game.n_units, s.game.n_locs
    s.imp.update(
        mode=mode,
        assault=[],
        multi=False,
        active=[],
        ag=[""] * n,
        pending=[],
        moved=[],
        moving=-1,
        mf=0,
        steps=0,
        entered=[-1] * n,
        came=[-1] * n,
        cross=[""] * n,
        entry_ag=[""] * nl,
        done=[],
        mandatory=[],
        attacked=[],
        regrouped=[],
        origin=-1,
        cstart=[loc for loc in range(nl) if s.contested(loc)],
    )


def declare_apply(s: State, a: int) -> None:
    side = s.active
    if a == A.PASS:
        _new_impulse(s, "pass")
        s.decision = "none"  # cont is impulse_end
        return
    if a == A.REGROUP:
        _new_impulse(s, "regroup")
        if s.game.options.regroup_scope == "army_group":
            s.ask("regroup_ag", side)  # S27 option army_group
        else:
            s.ask("regroup_pick", side)
        return
    if A.REDEPLOY <= a < A.LOC:
        _new_impulse(s, "redeploy")
        s.imp["origin"] = a - A.REDEPLOY
        s.ask("redeploy_pick", side)
        return
    ags = list(A.mask_ags(side, a - A.ASSAULT))
    _new_impulse(s, "assault")
    s.imp["assault"] = ags
    s.imp["multi"] = side == AXIS and is_multi(s)
    ag_of = s.imp["ag"]
    for u in s.game.side_units[side]:
        if s.status[u] == MAP and s.units[u].ag in ags:
            ag_of[u] = s.units[u].ag
            s.imp["active"].append(u)
    for u in s.game.side_units[side]:  # S26: Reserves stacked with an activated Army Group
        if s.status[u] != MAP or s.units[u].ag != RESERVE:
            continue
        present = sorted(
            {ag_of[v] for v in s.units_at(s.loc[u], side) if ag_of[v] and s.units[v].ag != RESERVE}
        )
        if not present:
            continue
        s.imp["active"].append(u)
        if s.imp["multi"] and len(present) > 1:
            s.imp["pending"].append(u)
        else:
            ag_of[u] = present[0]
    s.imp["active"].sort()
    next_assault_decision(s)


def reserve_options(s: State) -> list[int]:
    u = s.imp["pending"][0]
    side = s.active
    ag_of = s.imp["ag"]
    present = {ag_of[v] for v in s.units_at(s.loc[u], side) if ag_of[v] and s.units[v].ag != RESERVE}
    return [A.AG + A.ALL_AGS.index(x) for x in sorted(present)]


def reserve_apply(s: State, a: int) -> None:
    u = s.imp["pending"].pop(0)
    s.imp["ag"][u] = A.ALL_AGS[a - A.AG]
    next_assault_decision(s)


def next_assault_decision(s: State) -> None:
    if s.imp["pending"]:
        s.ask("reserve_ag", s.active)
    else:
        s.ask("act", s.active)


# ------------------------------------------------------------------ movement (9.1, 9.2, S29, S28)


def mf(s: State, u: int, mode: str) -> int:
    spec = s.units[u]
    m = spec.mf
    if mode == "redeploy":
        return 2 * m  # 8.1.2b
    if spec.armor and s.oos[u]:
        m -= 1  # 13.2.2
    if spec.side == ALLIED and s.refugees == "active":
        m -= 1  # Refugees (C§7.10 #9)
    return max(1, m)


def step_targets(s: State, u: int, mode: str, first: bool, began_contested: bool) -> list[int]:
    """Locations unit ``u`` may enter with its next step (S29 Assault, S28 Redeploy)."""
    side = s.units[u].side
    g = s.game
    here = s.loc[u]
    out = []
    for n, _b in s.neighbours(here):
        if n == g.zone_f and s.units[u].nation != "IT":
            continue  # 14.3
        if s.full(n, side):
            continue  # 9.3.1, S8
        enemy = s.has(n, 1 - side)
        if mode == "assault":
            if n in s.imp["done"]:
                continue  # S29, S30
            if first and began_contested and not s.free(n, side):
                continue  # 9.2: leave a Contested Active Area into a Free Area
            if enemy and s.imp["multi"]:
                eag = s.imp["entry_ag"][n]
                if eag and eag != s.imp["ag"][u]:
                    continue  # S52: no combining of Army Groups
        else:  # redeploy
            if s.control[n] != side and not s.contested(n):
                continue  # 8.1.2b
            if began_contested and (s.contested(n) or (first and not s.free(n, side))):
                continue  # S28
        out.append(n)
    return out


def movable(s: State, u: int) -> bool:
    """May active unit ``u`` start its Assault move now?"""
    imp = s.imp
    if u in imp["moved"] or u in imp["attacked"] or imp["entered"][u] >= 0 or alp_immobile(s, u):
        return False
    here = s.loc[u]
    return bool(step_targets(s, u, "assault", first=True, began_contested=here in imp["cstart"]))


def start_move(s: State, u: int, mode: str) -> None:
    imp = s.imp
    imp["moving"] = u
    imp["mf"] = mf(s, u, mode)
    imp["steps"] = 0
    imp["began_contested"] = s.loc[u] in imp["cstart"]
    s.ask("step", s.active)


def step_legal(s: State) -> list[int]:
    imp = s.imp
    u = imp["moving"]
    mode = imp["mode"]
    out = [A.LOC + n for n in step_targets(s, u, mode, imp["steps"] == 0, imp["began_contested"])]
    if imp["steps"] > 0:
        out.append(A.NO)  # P5: a selected unit takes at least one step
    return out


def step_apply(s: State, a: int) -> None:
    imp = s.imp
    u = imp["moving"]
    if a == A.NO:
        _end_move(s)
        return
    n = a - A.LOC
    here = s.loc[u]
    boundary = dict(s.neighbours(here))[n]
    side = s.units[u].side
    enemy = s.has(n, 1 - side)
    s.move(u, n)  # control in transit (7.2, S7)
    imp["steps"] += 1
    imp["mf"] -= 1
    imp["came"][u] = here
    imp["cross"][u] = boundary
    stop = imp["mf"] <= 0 or boundary == "M"  # 9.2, S5
    if enemy:
        stop = True  # 9.2: a unit entering an enemy-occupied Area stops
        if imp["mode"] == "assault":
            imp["entered"][u] = n
            if imp["multi"] and not imp["entry_ag"][n]:
                imp["entry_ag"][n] = imp["ag"][u]
            if n not in imp["cstart"] and n not in imp["mandatory"]:
                imp["mandatory"].append(n)  # 10.1, S31
    if stop or not step_targets(s, u, imp["mode"], False, imp["began_contested"]):
        _end_move(s)
    else:
        s.ask("step", s.active)


def _end_move(s: State) -> None:
    imp = s.imp
    imp["moved"].append(imp["moving"])
    imp["moving"] = -1
    if imp["mode"] == "assault":
        s.ask("act", s.active)
    else:
        s.ask("redeploy_pick", s.active)


# ------------------------------------------------------------------ the Assault loop


def act_legal(s: State) -> list[int]:
    from ffo_env.springtime.core import combat

    imp = s.imp
    out = [A.UNIT + u for u in imp["active"] if s.status[u] == MAP and movable(s, u)]
    out += [A.COMBAT + loc for loc in combat.combat_locations(s)]
    out += [A.LOC + loc for loc in airdrop_locations(s)]
    if not imp["mandatory"]:
        out.append(A.NO)  # S31: the impulse cannot end with a mandatory combat owed
    return out


def act_apply(s: State, a: int) -> None:
    from ffo_env.springtime.core import combat

    if a == A.NO:
        s.decision = "none"  # cont: impulse_end
        return
    if A.UNIT <= a < A.REBUILD_FULL:
        start_move(s, a - A.UNIT, "assault")
        return
    if A.LOC <= a < A.COMBAT:
        airdrop(s, a - A.LOC)
        return
    combat.declare(s, a - A.COMBAT)


# ------------------------------------------------------------------ Air Landing Corps (18.1, S63)


def airdrop_locations(s: State) -> list[int]:
    """S63: any location but Zone F within two steps of a German unit, not full, not yet fought over."""
    g = s.game
    if not g.options.airdrops or s.active != AXIS or s.imp.get("airdrop", -1) >= 0:
        return []
    u = g.unit_ids.index("DE-AIRLAND")
    if s.status[u] != OFF:
        return []
    near: set[int] = set()
    for v in s.on_map(AXIS):
        if s.units[v].nation != "DE":
            continue
        near.add(s.loc[v])
        for n, _b in s.neighbours(s.loc[v]):
            near.add(n)
            near.update(m for m, _ in s.neighbours(n))
    return sorted(
        loc for loc in near if loc != g.zone_f and not s.full(loc, AXIS) and loc not in s.imp["done"]
    )


def airdrop(s: State, loc: int) -> None:
    """rule 18.1, S63: place, roll (-1 per Allied unit there; 3 or less: a step lost), maybe a combat."""
    g = s.game
    imp = s.imp
    u = g.unit_ids.index("DE-AIRLAND")
    allied = s.count(loc, ALLIED)
    s.place(u, loc, reduced=s.reduced[u])
    imp["airdrop"] = loc
    imp["active"].append(u)
    imp["ag"][u] = RESERVE
    imp["moved"].append(u)  # it moves no further this impulse
    dr = s.roll(f"Air Landing at {g.loc_ids[loc]} (-{allied})") - allied
    if dr <= 3:
        s.lose_step(u, "air landing")
    if s.status[u] == MAP and allied:
        imp["entered"][u] = loc  # S63: an entry; mandatory if the location was not Contested (S31)
        if loc not in imp["cstart"] and loc not in imp["mandatory"]:
            imp["mandatory"].append(loc)
    s.ask("act", AXIS)


# ------------------------------------------------------------------ Regroup (8.1.2a, S27)


def regroup_targets(s: State, u: int) -> list[int]:
    if alp_immobile(s, u):
        return []
    side = s.units[u].side
    g = s.game
    return [
        n for n, _b in s.neighbours(s.loc[u]) if n != g.zone_f and s.free(n, side) and not s.full(n, side)
    ]


def regroup_ags(s: State) -> list[str]:
    """S27 option army_group: the Army Groups with a unit on the map (W once Italy is at war)."""
    side = s.active
    return [
        ag
        for ag in SIDE_AGS[side]
        if (ag != "W" or s.italy_at_war) and any(s.units[u].ag == ag for u in s.on_map(side))
    ]


def regroup_ag_legal(s: State) -> list[int]:
    return [A.AG + A.ALL_AGS.index(ag) for ag in regroup_ags(s)]


def regroup_ag_apply(s: State, a: int) -> None:
    ag = A.ALL_AGS[a - A.AG]
    s.imp["assault"] = [ag]  # the declared Army Groups (a Regroup is not an Assault: S24 ignores it)
    if s.active == AXIS and ag != "K" and "K" in regroup_ags(s):
        s.ask("regroup_k", s.active)  # S25, S27: the Axis may add K
        return
    _regroup_units(s)


def regroup_k_apply(s: State, a: int) -> None:
    if a == A.YES:
        s.imp["assault"].append("K")
    _regroup_units(s)


def _regroup_units(s: State) -> None:
    side = s.active
    ags = s.imp["assault"]
    units = [u for u in s.on_map(side) if s.units[u].ag in ags]
    where = {s.loc[u] for u in units}
    units += [u for u in s.on_map(side) if s.units[u].ag == RESERVE and s.loc[u] in where]  # S27
    s.imp["eligible"] = sorted(units)
    s.imp["assault"] = []
    s.ask("regroup_pick", side)


def regroup_pick_legal(s: State) -> list[int]:
    done = s.imp["regrouped"]
    units = s.imp.get("eligible", s.on_map(s.active))
    out = [A.UNIT + u for u in units if u not in done and regroup_targets(s, u)]
    return out + [A.NO]


def regroup_pick_apply(s: State, a: int) -> None:
    if a == A.NO:
        s.decision = "none"
        return
    s.imp["moving"] = a - A.UNIT
    s.ask("regroup_dest", s.active)


def regroup_dest_legal(s: State) -> list[int]:
    return [A.LOC + n for n in regroup_targets(s, s.imp["moving"])]


def regroup_dest_apply(s: State, a: int) -> None:
    u = s.imp["moving"]
    s.move(u, a - A.LOC)
    s.imp["regrouped"].append(u)
    s.imp["moving"] = -1
    s.ask("regroup_pick", s.active)


# ------------------------------------------------------------------ Redeploy (8.1.2b, S28)


def redeploy_pick_legal(s: State) -> list[int]:
    imp = s.imp
    origin = imp["origin"]
    out = [
        A.UNIT + u
        for u in s.units_at(origin, s.active)
        if u not in imp["moved"] and redeployable(s, u) and _first_step_exists(s, u, origin)
    ]
    return out + [A.NO]


def redeploy_pick_apply(s: State, a: int) -> None:
    if a == A.NO:
        s.decision = "none"
        return
    start_move(s, a - A.UNIT, "redeploy")
