"""Legality and effects of every decision, in one place: ``LEGAL[decision](state)`` lists the legal
actions, ``APPLY[decision](state, action)`` makes one. The Political, Advantage, Event, Refit and End
Phase decisions are here; the impulses are in :mod:`.maneuver`, combat in :mod:`.combat`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ffo_env.springtime.core import actions as A
from ffo_env.springtime.core import combat, flow, maneuver
from ffo_env.springtime.core import events as ev
from ffo_env.springtime.core.data import ALLIED, AXIS
from ffo_env.springtime.core.state import ELIM, MAP, OFF

if TYPE_CHECKING:
    from ffo_env.springtime.core.state import State


def legal_actions(s: State) -> list[int]:
    return LEGAL[s.decision](s)


def apply(s: State, a: int) -> None:
    d = s.decision
    s.decision = "none"  # a handler asks the next decision, or the flow resumes at ``cont``
    APPLY[d](s, a)


def _yes_no(s: State) -> list[int]:
    return [A.NO, A.YES]


# ------------------------------------------------------------------ Political Phase


def _draw(s: State, a: int) -> None:
    if a == A.YES:  # 6.1.1, S14: discard face down, then draw
        ev.discard(s, s.player, "political discard")
        ev.draw(s, s.player, "political")


def _plan_red_take(s: State, a: int) -> None:
    if a == A.YES:  # S55: public
        s.container.remove(ev.PLAN_RED)
        s.held[AXIS] = ev.PLAN_RED
        s.draws[AXIS] = 1
        s.draw_log[AXIS].append(
            {"turn": s.turn, "drew": ev.PLAN_RED, "why": "Plan Red taken (19.2)", "public": True}
        )
        s.draw_log[ALLIED].append({"turn": s.turn, "seen": ev.PLAN_RED, "why": "Plan Red taken (19.2)"})


def _kleist_legal(s: State) -> list[int]:
    return [A.UNIT + u for u in flow.kleist_options(s)]


def _kleist(s: State, a: int) -> None:
    s.kleist_unit = a - A.UNIT  # 4.4.1, S9


# ------------------------------------------------------------------ Advantage (11, S39, S40)


def _advantage_legal(s: State) -> list[int]:
    out = [A.NO]
    if flow.can_open_city(s):
        out.append(A.OPEN_CITY)
    if flow.can_draw_extra(s, s.player):
        out.append(A.DRAW_EXTRA)
    return out


def _advantage(s: State, a: int) -> None:
    if a == A.NO:
        return
    s.adv_used_by = s.player  # 11.2
    if a == A.OPEN_CITY:
        s.open_city = True  # 11.1.1
    else:
        ev.discard(s, s.player, "Draw Extra Event discard")  # 11.1.5
        ev.draw(s, s.player, "Draw Extra Event")


def _soldier_on(s: State, a: int) -> None:
    if a == A.YES:  # 11.1.4
        s.adv_used_by = s.player
        s.imp["advance"] = True


# ------------------------------------------------------------------ Events (6.1.1, S16-S19)


def event_legal(s: State) -> list[int]:
    """S16, P10: the window is open whenever the side holds a marker; YES only if it may be played now."""
    window = s.imp.get("window", "I") if s.decision == "event" else "E"
    return [A.NO, A.YES] if ev.playable(s, s.player, window) else [A.NO]


def _event(s: State, a: int) -> None:
    if a == A.YES:
        s.imp["played"][s.player] = True
        ev.play(s, s.player)


def _event_loc_legal(s: State) -> list[int]:
    return [A.LOC + loc for loc in ev.de_gaulle_locations(s)]


def _event_loc(s: State, a: int) -> None:
    s.place(s.game.unit_ids.index("FR-4DCR"), a - A.LOC)  # C§7.10 #1: Full Strength


def _event_units_legal(s: State) -> list[int]:
    return [A.UNIT + u for u in ev.dynamo_companions(s)] + [A.NO]


def _event_units(s: State, a: int) -> None:
    if a != A.NO:
        s.imp["dynamo"].append(a - A.UNIT)
        if len(s.imp["dynamo"]) < 2 and ev.dynamo_companions(s):
            s.ask("event_units", s.player)
            return
    ev.finish_dynamo(s)


def _end_event(s: State, a: int) -> None:
    if a == A.YES:
        ev.play(s, s.player)


def _end_discard(s: State, a: int) -> None:
    if a == A.YES:
        ev.discard(s, s.player, "End Phase discard")  # 6.4.4


# ------------------------------------------------------------------ Refit (12, S46)


def refit_cost(s: State, u: int, kind: str) -> int:
    c = s.game.data.tables["refit_costs"]
    armor = s.units[u].armor
    if kind == "flip":
        return int(c["flip_armor" if armor else "flip_inf"])
    if kind == "full":
        return int(c["rebuild_armor_full" if armor else "rebuild_inf_full"])
    return int(c["rebuild_armor_reduced" if armor else "rebuild_inf_reduced"])


def rebuild_locations(s: State, u: int) -> list[int]:
    """rule 12.3.2, 12.3.3, S46, S64."""
    g = s.game
    side = s.units[u].side
    nat = s.units[u].nation
    out = []
    for loc in range(g.n_locs):
        if s.control[loc] != side or s.has(loc, 1 - side) or s.full(loc, side):
            continue
        if nat == "DE" and loc == g.zone_f:
            continue
        if nat == "IT" and loc != g.zone_f:
            continue
        if nat == "FR" or nat == "GB":
            if loc == g.zone_f:
                continue
        if nat == "GB" and s.bef_evacuated and not g.data.locations[loc].port:
            continue  # rule 18.3, S64: after Operation Dynamo only in a BEF Evacuation Port (12.3.2 otherwise)
        out.append(loc)
    return out


def _refit_legal(s: State) -> list[int]:
    side = s.player
    rp = s.rp[side]
    out = [A.NO]
    for u in s.game.side_units[side]:
        if s.game.unit_ids[u] == "DE-AIRLAND":
            continue  # 18.1.4: it never uses RPs
        if s.status[u] == MAP and s.reduced[u]:
            if not s.oos[u] and s.in_supply(u) and refit_cost(s, u, "flip") <= rp:  # 12.3.1, 13.2.3
                out.append(A.UNIT + u)
        elif s.status[u] == ELIM and s.units[u].nation not in ("BE", "NL") and rebuild_locations(s, u):
            if refit_cost(s, u, "full") <= rp:
                out.append(A.REBUILD_FULL + u)
            if refit_cost(s, u, "reduced") <= rp:
                out.append(A.REBUILD_RED + u)
    return out


def _refit(s: State, a: int) -> None:
    side = s.player
    if a == A.NO:
        if side == ALLIED:
            s.refit_ctx = {"side": AXIS}  # 12.1
        else:
            s.cont = "surrender"
        return
    if A.UNIT <= a < A.REBUILD_FULL:
        u = a - A.UNIT
        s.rp[side] -= refit_cost(s, u, "flip")
        s.reduced[u] = False
        return
    full = a < A.REBUILD_RED
    u = a - (A.REBUILD_FULL if full else A.REBUILD_RED)
    s.refit_ctx = {"side": side, "unit": u, "full": full}
    s.ask("refit_loc", side)


def _refit_loc_legal(s: State) -> list[int]:
    return [A.LOC + loc for loc in rebuild_locations(s, s.refit_ctx["unit"])]


def _refit_loc(s: State, a: int) -> None:
    ctx = s.refit_ctx
    u, full = ctx["unit"], ctx["full"]
    s.rp[s.player] -= refit_cost(s, u, "full" if full else "reduced")
    s.place(u, a - A.LOC, reduced=not full)
    s.refit_ctx = {"side": s.player}


# ------------------------------------------------------------------ optional rules 18.1, 18.2


def _withdraw(s: State, a: int) -> None:
    if a == A.YES:  # 18.1.3, S63: it keeps its strength
        u = s.game.unit_ids.index("DE-AIRLAND")
        s.status[u] = OFF
        s.loc[u] = -1
        s.oos[u] = False
        s.moved_units()
        s.update_control()


def setup_locations(s: State, u: int) -> list[int]:
    """rule 18.2, S62: French and British units in Areas 14-30, the DCRs and Reserves with the 1st or the
    7th Army; Axis units in Areas 1-6; stacking applies."""
    g = s.game
    spec = s.units[u]
    hosts = [g.unit_ids.index("FR-1A"), g.unit_ids.index("FR-7A")]
    if spec.side == AXIS:
        cands = sorted(g.east)
    elif spec.nation == "FR" and (spec.armor or spec.ag == "R"):
        cands = sorted({s.loc[v] for v in hosts})
    else:
        cands = [loc for loc in sorted(g.french_locs) if not g.data.locations[loc].zone]
    out = [loc for loc in cands if loc >= 0 and not s.full(loc, spec.side)]
    if u == hosts[1] and s.loc[hosts[0]] >= 0:
        # P9: the 7th Army may not take the room that the units joining the two Armies need
        limit: int = g.data.tables["stacking_limit"]
        need = sum(
            1
            for v in s.setup_queue[1:]
            if s.units[v].nation == "FR" and (s.units[v].armor or s.units[v].ag == "R")
        )
        first = s.loc[hosts[0]]
        out = [
            loc
            for loc in out
            if (limit - s.count(first, ALLIED) - (loc == first))
            + (0 if loc == first else limit - s.count(loc, ALLIED) - 1)
            >= need
        ]
    return out


def _setup_place_legal(s: State) -> list[int]:
    return [A.LOC + loc for loc in setup_locations(s, s.setup_queue[0])]


def _setup_place(s: State, a: int) -> None:
    u = s.setup_queue.pop(0)
    s.place(u, a - A.LOC, reduced=s.reduced[u])


# ------------------------------------------------------------------ tables

LEGAL: dict[str, Callable[[State], list[int]]] = {
    "draw": _yes_no,
    "plan_red_take": _yes_no,
    "kleist": _kleist_legal,
    "advantage": _advantage_legal,
    "event": event_legal,
    "event_loc": _event_loc_legal,
    "event_units": _event_units_legal,
    "declare": maneuver.declare_legal,
    "reserve_ag": maneuver.reserve_options,
    "act": maneuver.act_legal,
    "step": maneuver.step_legal,
    "regroup_ag": maneuver.regroup_ag_legal,
    "regroup_k": _yes_no,
    "regroup_pick": maneuver.regroup_pick_legal,
    "regroup_dest": maneuver.regroup_dest_legal,
    "redeploy_pick": maneuver.redeploy_pick_legal,
    "participants": combat.participants_legal,
    "lead_att": combat.lead_att_legal,
    "lead_def": combat.lead_def_legal,
    "air_att": _yes_no,
    "air_def": _yes_no,
    "convert": _yes_no,
    "retreat_pick": combat.retreat_pick_legal,
    "retreat_dest": combat.retreat_dest_legal,
    "soldier_on": _yes_no,
    "refit": _refit_legal,
    "refit_loc": _refit_loc_legal,
    "end_event": event_legal,
    "end_discard": _yes_no,
    "withdraw": _yes_no,
    "setup_place": _setup_place_legal,
}

APPLY: dict[str, Callable[[State, int], None]] = {
    "draw": _draw,
    "plan_red_take": _plan_red_take,
    "kleist": _kleist,
    "advantage": _advantage,
    "event": _event,
    "event_loc": _event_loc,
    "event_units": _event_units,
    "declare": maneuver.declare_apply,
    "reserve_ag": maneuver.reserve_apply,
    "act": maneuver.act_apply,
    "step": maneuver.step_apply,
    "regroup_ag": maneuver.regroup_ag_apply,
    "regroup_k": maneuver.regroup_k_apply,
    "regroup_pick": maneuver.regroup_pick_apply,
    "regroup_dest": maneuver.regroup_dest_apply,
    "redeploy_pick": maneuver.redeploy_pick_apply,
    "participants": combat.participants_apply,
    "lead_att": combat.lead_att_apply,
    "lead_def": combat.lead_def_apply,
    "air_att": lambda s, a: combat.air_apply(s, a, "att"),
    "air_def": lambda s, a: combat.air_apply(s, a, "def"),
    "convert": combat.convert_apply,
    "retreat_pick": combat.retreat_pick_apply,
    "retreat_dest": combat.retreat_dest_apply,
    "soldier_on": _soldier_on,
    "refit": _refit,
    "refit_loc": _refit_loc,
    "end_event": _end_event,
    "end_discard": _end_discard,
    "withdraw": _withdraw,
    "setup_place": _setup_place,
}
