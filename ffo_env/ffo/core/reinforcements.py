"""German reinforcements (rules 9.1-9.5, R34): entry rolls and entry hexes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffo_env.ffo.core.mapdata import ColoredRow
from ffo_env.ffo.core.phases import RESERVE, Decision
from ffo_env.ffo.core.scenario import Side

if TYPE_CHECKING:
    from ffo_env.ffo.core.state import State


def enter_reinforcement(s: State) -> bool:
    t = s.game.scenario.tables
    queue = []
    for g in ("18", "4", "K"):
        sched = t.entry[g]
        if s.turn < sched.first_turn:
            continue
        for u in s.units:
            if u.group != g or s.status[u.index] != RESERVE:
                continue
            if s.entry_ready[u.index]:
                queue.append(u.index)  # R34: no new roll
                continue
            die = s._roll(f"entry of {u.id} (rule 9.2-9.4, R34)")
            if die <= sched.max_roll(s.turn):
                s.entry_ready[u.index] = True
                queue.append(u.index)
    s._ctx.entering = queue
    return next_reinforcement(s)


def entry_hexes(s: State, u: int) -> list[int]:
    row = s.game.scenario.tables.entry[s.units[u].group].row
    hexes = s.game.tables.green if row == ColoredRow.GREEN else s.game.tables.yellow
    return [h for h in hexes if not s.stacks.get(h)]  # rules 9.2-9.4: no stacking


def next_reinforcement(s: State) -> bool:
    q = s._ctx.entering or []
    while q:
        if entry_hexes(s, q[0]):
            s._set(Decision.REINFORCE_HEX, Side.GERMAN)
            return True
        q.pop(0)  # R34: stays ready, enters next turn without a new roll
    s.decision = Decision.END_PHASE
    return True


def legal_reinforce_hex(s: State) -> list[int]:
    q = s._ctx.entering
    assert q
    return entry_hexes(s, q[0])


def apply_reinforce_hex(s: State, a: int) -> None:
    q = s._ctx.entering
    assert q
    u = q.pop(0)
    s.entry_ready[u] = False
    s._place(u, a)
    if s.units[u].group == "18":
        s.must_leave[u] = True  # rule 9.2, R7
    next_reinforcement(s)
