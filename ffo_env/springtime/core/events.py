"""Event markers (rule 6.1.1, C§7.10, S13-S19): drawing, when a marker may be played, and its effects."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffo_env.springtime.core.data import ALLIED, AXIS
from ffo_env.springtime.core.state import MAP, OFF

if TYPE_CHECKING:
    from ffo_env.springtime.core.state import State

DE_GAULLE = 1
CABINET_SHUFFLE = 2
DYNAMO = 3
NEW_SQUADRONS = 4
IMPROVED_LOGISTICS = 5
BILLOTTE = 6
AIR_SUPREMACY = 7
PLAN_RED = 8
REFUGEES = 9


def draw(s: State, side: int, why: str, counts: bool = True) -> None:
    """Draw one marker at random from the container (S14); rule 15.1 and S18 on Turn 1."""
    if not s.container:
        return
    i = s.pick(len(s.container), f"{s.side_name(side)} event draw ({why})")
    ev = s.container.pop(i)
    if counts:
        s.draws[side] += 1
    if s.turn == 1 and side == AXIS and ev == AIR_SUPREMACY:
        # rule 15.1, S18: shown, another drawn, then Air Supremacy returns; the replacement does not count
        s.draw_log[side].append({"turn": s.turn, "drew": ev, "why": why, "public": True})
        s.draw_log[ALLIED].append({"turn": s.turn, "seen": ev, "why": "Air Supremacy shown (15.1)"})
        if s.container:
            j = s.pick(len(s.container), "axis replacement draw (15.1)")
            ev2 = s.container.pop(j)
            s.held[side] = ev2
            s.draw_log[side].append({"turn": s.turn, "drew": ev2, "why": "replacement (15.1)"})
        s.container.append(ev)
        s.container.sort()
        return
    s.held[side] = ev
    s.draw_log[side].append({"turn": s.turn, "drew": ev, "why": why})


def discard(s: State, side: int, why: str) -> None:
    """Return the held marker face down to the container (6.4.4, S14): its identity stays hidden."""
    ev = s.held[side]
    if ev:
        s.held[side] = 0
        s.container.append(ev)
        s.container.sort()
        s.draw_log[side].append({"turn": s.turn, "discarded": ev, "why": why})


def de_gaulle_locations(s: State) -> list[int]:
    """Free Areas of France, not full, from which the 4th DCR could trace supply (C§7.10 #1, S8)."""
    g = s.game
    dcr = g.unit_ids.index("FR-4DCR")
    out = []
    for loc in sorted(g.french_locs):
        if g.data.locations[loc].zone or not s.free(loc, ALLIED) or s.full(loc, ALLIED):
            continue
        if s.traces(loc, ALLIED, s.sources(dcr)):
            out.append(loc)
    return out


def dynamo_companions(s: State) -> list[int]:
    bef = s.game.unit_ids.index("GB-BEF")
    here = s.loc[bef]
    chosen = s.imp.get("dynamo", [])
    return [u for u in s.units_at(here, ALLIED) if s.units[u].nation == "FR" and u not in chosen]


def playable(s: State, side: int, window: str) -> bool:
    """May ``side`` activate its held marker now, in ``window`` (S16)?"""
    ev = s.held[side]
    if not ev:
        return False
    spec = s.game.data.event(ev)
    if not spec.usable_by(side) or window not in spec.windows:
        return False
    if ev == DE_GAULLE:
        dcr = s.game.unit_ids.index("FR-4DCR")
        return s.status[dcr] == OFF and bool(de_gaulle_locations(s))
    if ev == DYNAMO:
        bef = s.game.unit_ids.index("GB-BEF")
        return (
            s.status[bef] == MAP
            and s.game.data.locations[s.loc[bef]].port
            and s.control[s.loc[bef]] == ALLIED
        )
    if ev == AIR_SUPREMACY:
        return s.turn != 1  # rule 15.1
    return True


def play(s: State, side: int) -> None:
    """Activate the held marker (S17): park it, then its effect (C§7.10, S19)."""
    ev = s.held[side]
    spec = s.game.data.event(ev)
    s.held[side] = 0
    s.draw_log[side].append({"turn": s.turn, "played": ev})
    if spec.asterisk and not (ev == DYNAMO and s.game.options.bef_returns):  # rule 18.3
        s.turn_track.append(ev)
    else:
        s.impulse_track.append(ev)
    t = s.game.data.tables
    if ev == DE_GAULLE:
        s.imp["event_side"] = side
        s.ask("event_loc", side)
        return
    if ev == CABINET_SHUFFLE:
        s.change_morale(t["morale"]["cabinet_shuffle"], "Cabinet Shuffle")
    elif ev == DYNAMO:
        s.imp["dynamo"] = []
        if dynamo_companions(s):
            s.ask("event_units", side)
            return
        finish_dynamo(s)
    elif ev == NEW_SQUADRONS:
        s.allied_air_full = True
    elif ev == IMPROVED_LOGISTICS:
        s.rp[side] += t["improved_logistics_rp"]
    elif ev == BILLOTTE:
        s.change_morale(t["morale"]["billotte_killed"], "Billotte Killed")
        s.billotte = True
    elif ev == AIR_SUPREMACY:
        s.german_air_full = True
    elif ev == PLAN_RED:
        s.imp["plan_red"] = True
    elif ev == REFUGEES:
        s.refugees = "pending"


def finish_dynamo(s: State) -> None:
    """The BEF and Gort leave play without Morale change; companions go to the eliminated pool (S19)."""
    bef = s.game.unit_ids.index("GB-BEF")
    s.remove(bef, to_pool=s.game.options.bef_returns)  # rule 18.3, S64
    s.bef_evacuated = s.game.options.bef_returns  # S64: rebuilt in a BEF Evacuation Port only
    for u in s.imp.pop("dynamo", []):
        s.remove(u, to_pool=True)
