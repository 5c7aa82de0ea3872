"""The sequence of play (rule 6, S20, S23, S44, S51): the automatic steps between decisions.

``State.cont`` names the next automatic step; :func:`step` runs it. A step either asks a decision
(``State.ask``) after setting ``cont`` to where play resumes, or moves ``cont`` on.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from ffo_env.springtime.core import events as ev
from ffo_env.springtime.core.data import ALLIED, AXIS
from ffo_env.springtime.core.state import GONE, MAP

if TYPE_CHECKING:
    from ffo_env.springtime.core.state import State


def step(s: State) -> None:
    STEPS[s.cont](s)


def finish(s: State, winner: int, result: str) -> None:
    s.winner = winner
    s.result = result
    s.phase = "over"
    s.decision = "none"


# ------------------------------------------------------------------ Political Phase (6.1, S20)


def political_start(s: State) -> None:
    s.phase = "political"
    s.morale_at_political = s.morale  # S20 (a)
    s.draws = [0, 0]
    s.cont = "plan_red_offer"


def plan_red_offer(s: State) -> None:
    s.cont = "draw0"
    # S55: in the Plan Red scenario the Axis may take Plan Red as his Turn 5 draw; P1: only while he holds none
    if s.game.scenario == "plan_red" and s.turn == 5 and ev.PLAN_RED in s.container and not s.held[AXIS]:
        s.ask("plan_red_take", AXIS)


def _draw_step(s: State, side: int, nxt: str) -> None:
    s.cont = nxt
    if s.draws[side] > 0 or not s.container:  # the Plan Red take counts as the Axis draw (S55)
        return
    if s.held[side]:
        s.ask("draw", side)  # 6.1.1, S14: keep, or discard then draw
        return
    ev.draw(s, side, "political")


def draw0(s: State) -> None:
    _draw_step(s, ALLIED, "draw1")


def draw1(s: State) -> None:
    _draw_step(s, AXIS, "belgian")


def belgian(s: State) -> None:
    """rule 6.1.2, S21: from Turn 2, while the Belgian Army is on the map."""
    s.cont = "cc_italy"
    g = s.game
    be = g.unit_ids.index("BE-ARMY")
    if s.turn < 2 or s.status[be] != MAP:
        return
    k = sum(1 for loc in g.belgian if s.control[loc] == AXIS)
    dr = s.roll(f"Belgian surrender (Axis-controlled Belgian Areas {k})")
    surrenders = dr <= k if g.options.belgian_surrender == "inverted" else dr > k
    if surrenders:
        s.eliminate(be, "Belgian surrender", permanent=True)  # Morale -2 (C§7.6)
        for loc in sorted(g.belgian):
            if not s.has(loc, ALLIED):
                s.set_control(loc, AXIS)


def cc_italy(s: State) -> None:
    """S20 (d), (e): Command Confidence (6.1.3, S11) and Italy's declaration of war (6.1.4, S22)."""
    t = s.game.data.tables
    m = s.morale_at_political
    s.cc_flag = m <= t["command_confidence_morale"]
    if m <= t["italy_morale"] and not s.italy_at_war:
        s.italy_at_war = True
        it = s.game.unit_ids.index("IT-W")
        if s.status[it] != GONE:
            s.place(it, s.game.zone_f)
    s.cont = "maneuver_start"


# ------------------------------------------------------------------ Maneuvers Phase (6.2, S23)


def maneuver_start(s: State) -> None:
    s.phase = "maneuver"
    s.box = 6 if s.turn == 1 else 1  # rule 6.2, 15.2
    s.last_assault = [[], []]
    s.cont = "impulse_start"


def impulse_start(s: State) -> None:
    s.imp = {"side": s.active, "played": [False, False]}
    s.air_used = []
    s.adv_used_by = -1
    if s.active == ALLIED and s.refugees == "pending":
        s.refugees = "active"  # S19: the next Allied impulse
    s.cont = "kleist"


def kleist_options(s: State) -> list[int]:
    g = s.game
    if g.kleist < 0 or s.kleist_unit == -2:
        return []
    if s.kleist_unit >= 0 and s.status[s.kleist_unit] != MAP:
        return []  # S9: Kleist returns only with his unit
    return [u for u in g.k_units if s.status[u] == MAP]


def kleist(s: State) -> None:
    s.cont = "advantage"
    if s.active == AXIS and s.kleist_turn != s.turn:  # S9: first Axis impulse of every turn
        s.kleist_turn = s.turn
        if kleist_options(s):
            s.ask("kleist", AXIS)


def can_open_city(s: State) -> bool:
    """rule 11.1.1, S39."""
    g = s.game
    if s.open_city or s.control[g.paris] != ALLIED:
        return False
    return any(s.control[n] == AXIS for n, _b in s.neighbours(g.paris))


def can_draw_extra(s: State, side: int) -> bool:
    """rule 11.1.5, S39: the active holder, container not empty, at most two draws a turn."""
    return side == s.active and bool(s.container) and s.draws[side] < 2


def advantage(s: State) -> None:
    s.cont = "event_t1"
    h = s.advantage
    if h >= 0 and s.adv_used_by < 0 and (can_open_city(s) or can_draw_extra(s, h)):
        s.ask("advantage", h)


# P10: an Event window is opened for a side whenever it holds a marker, whatever the marker and whether it
# may be played now (the legal actions say that: NO, and YES only if it is playable, rules.event_legal), and
# the engine never answers it by itself (State.ALWAYS_ASKED). Asking only when the marker is playable told the
# opponent, who sees every decision, that the hidden marker is one of its side that can be played now (S13,
# S59 (a): he may know only that a marker is held).


def event_t1(s: State) -> None:
    s.cont = "event_i"
    if s.turn == 1 and s.active == AXIS and s.held[ALLIED]:  # rule 15.1, S16, P10
        s.imp["window"] = "T1"
        s.ask("event", ALLIED)


def event_i(s: State) -> None:
    s.cont = "declare"
    a = s.active
    if not s.imp["played"][a] and s.held[a]:  # S16, P10
        s.imp["window"] = "I"
        s.ask("event", a)


def declare(s: State) -> None:
    s.cont = "impulse_end"
    s.ask("declare", s.active)


def can_soldier_on(s: State) -> bool:
    return s.advantage >= 0 and s.adv_used_by < 0 and s.box <= s.game.data.tables["impulse_boxes"] - 1


def impulse_end(s: State) -> None:
    s.judge_supply()  # S23 (6), S43
    if s.active == ALLIED and s.refugees == "active":
        s.refugees = "none"
    s.cont = "impulse_advance"
    if s.active == ALLIED:
        s.imp["advance"] = True
        return
    dr = s.roll(f"Logistics (impulse {s.box})")  # rule 6.2.1, S40
    s.imp["advance"] = dr >= s.box
    if not s.imp["advance"] and can_soldier_on(s):
        s.ask("soldier_on", s.advantage)


def impulse_advance(s: State) -> None:
    if s.adv_used_by >= 0:  # rule 11.2
        s.advantage = 1 - s.adv_used_by
        s.adv_used_by = -1
    s.last_assault[s.active] = list(s.imp.get("assault", []))  # S24
    if s.imp.get("advance") and s.box < s.game.data.tables["impulse_boxes"]:
        s.box += 1
        s.cont = "impulse_start"
    else:
        s.cont = "maneuver_end"


def maneuver_end(s: State) -> None:
    s.billotte = False  # S19
    s.refugees = "none"
    if automatic_victory(s):  # S47
        finish(s, AXIS, "automatic")
        return
    if s.turn >= s.game.data.tables["turns"]:
        s.cont = "end_phase"  # rule 12.4
        return
    s.phase = "refit"
    s.refit_ctx = {"side": ALLIED}
    s.cont = "refit"


# ------------------------------------------------------------------ Refit Phase (12, S44)


def refit(s: State) -> None:
    s.ask("refit", s.refit_ctx["side"])


def surrender(s: State) -> None:
    """S44 (3)-(5): supply, OOS surrender drs (13.2.4, C§7.7), cut-off locations (13.2.5, S45)."""
    g = s.game
    t = g.data.tables["surrender"]
    s.judge_supply()
    for side in (ALLIED, AXIS):
        for u in g.side_units[side]:
            if s.status[u] != MAP or not s.oos[u]:
                continue
            where = g.data.locations[s.loc[u]]
            drm = t["fortress_drm"] if (where.maginot or where.paris) else 0
            dr = s.roll(f"OOS surrender {g.unit_ids[u]}") + drm
            if dr <= t["surrender_max"] or (dr == t["reduce_at"] and s.reduced[u]):
                s.eliminate(u, "surrender", permanent=True)
            elif dr == t["reduce_at"]:
                s.reduced[u] = True
    flips = [
        loc for loc in range(g.n_locs) if not s.units_at(loc) and not _side_traces(s, loc, s.control[loc])
    ]
    for loc in flips:
        s.set_control(loc, 1 - s.control[loc])
    s.cont = "end_phase"


def _side_traces(s: State, loc: int, side: int) -> bool:
    g = s.game
    if side == AXIS:
        sources = g.east | {g.zone_f}  # S45, P6
    else:
        src = set(g.supply_zones)
        if s.status[g.unit_ids.index("BE-ARMY")] == MAP:
            src |= g.belgian
        if s.status[g.unit_ids.index("NL-ARMY")] == MAP:
            src |= g.dutch
        sources = frozenset(src)
    return s.traces(loc, side, frozenset(sources))


# ------------------------------------------------------------------ End Phase (6.4, S51)


def end_phase(s: State) -> None:
    s.phase = "end"
    if automatic_victory(s):
        finish(s, AXIS, "automatic")
        return
    if s.morale <= s.game.data.tables["armistice_morale"]:  # 16.2, 6.4.1
        dr = s.roll(f"French Armistice (Morale {s.morale})")
        if dr > s.morale:
            finish(s, AXIS, "operational")
            return
    for m in s.impulse_track:  # 6.4.3
        if m == ev.NEW_SQUADRONS:
            s.allied_air_full = False
        s.container.append(m)
    s.container.sort()
    s.impulse_track = []
    s.cont = "end_event0"


def _end_event(s: State, side: int, nxt: str) -> None:
    s.cont = nxt
    if s.held[side]:  # 6.4.4, S51, P10
        s.ask("end_event", side)


def end_event0(s: State) -> None:
    _end_event(s, ALLIED, "end_event1")


def end_event1(s: State) -> None:
    _end_event(s, AXIS, "end_discard0")


def _end_discard(s: State, side: int, nxt: str) -> None:
    s.cont = nxt
    if s.held[side]:
        s.ask("end_discard", side)


def end_discard0(s: State) -> None:
    _end_discard(s, ALLIED, "end_discard1")


def end_discard1(s: State) -> None:
    _end_discard(s, AXIS, "withdraw")


def withdraw(s: State) -> None:
    """S51 (6): the Axis may withdraw the Air Landing Corps (18.1.3, S63)."""
    s.cont = "next_turn"
    if s.game.options.airdrops and s.status[s.game.unit_ids.index("DE-AIRLAND")] == MAP:
        s.ask("withdraw", AXIS)


def setup_next(s: State) -> None:
    """rule 18.2, S62: the next unit of the Limited Free Setup, or the start of Turn 1."""
    if s.setup_queue:
        s.ask("setup_place", s.game.unit_side[s.setup_queue[0]])
        return
    s.cont = "political_start"


def next_turn(s: State) -> None:
    if s.turn >= s.game.data.tables["turns"]:
        finish(s, ALLIED, "allied")  # 6.4.5, 16.3
        return
    s.turn += 1
    s.box = 1
    s.cont = "political_start"


# ------------------------------------------------------------------ Victory (16, S47)


def axis_linked(s: State, loc: int) -> bool:
    """A chain of Axis-controlled locations from ``loc`` to an Area on the eastern edge (16.1, S47)."""
    g = s.game
    if s.control[loc] != AXIS:
        return False
    seen = {loc}
    todo = deque([loc])
    while todo:
        x = todo.popleft()
        if x in g.east:
            return True
        for n, _b in s.neighbours(x):
            if n not in seen and s.control[n] == AXIS:
                seen.add(n)
                todo.append(n)
    return False


def automatic_victory(s: State) -> bool:
    g = s.game
    if s.morale <= 0:  # 16.1.1
        return True
    if not axis_linked(s, g.paris):
        return False
    zones = [z for z in g.supply_zones if axis_linked(s, z)]
    return len(zones) >= 3


def french_potential(s: State) -> float:
    """The French side's standing on the game's clock, for potential-based reward shaping: French Morale
    (public, S49) over the campaign's printed starting Morale (30, rule 5.1.3).

    1.0 at the start of the campaign (without a bid, rule 17.1), 0.0 where the Axis wins automatically
    (Morale 0 or less, rule 16.1.1, S47). Morale has no bounds (S49), so neither has this: a bid or
    regained Areas can lift it above 1, and it can fall below 0 in mid-phase, which ends nothing by itself.
    """
    return s.morale / s.game.data.scenarios["campaign"].morale


STEPS: dict[str, Callable[[State], None]] = {
    f.__name__: f
    for f in (
        political_start,
        plan_red_offer,
        draw0,
        draw1,
        belgian,
        cc_italy,
        maneuver_start,
        impulse_start,
        kleist,
        advantage,
        event_t1,
        event_i,
        declare,
        impulse_end,
        impulse_advance,
        maneuver_end,
        refit,
        surrender,
        end_phase,
        end_event0,
        end_event1,
        end_discard0,
        end_discard1,
        withdraw,
        next_turn,
        setup_next,
    )
}
