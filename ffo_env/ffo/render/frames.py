"""The one adapter between the core and the viewers: game records -> compact per-decision frames.

Only public State attributes and methods are read here (``stacks``, ``loc``, ``status``, ``control``,
``refugees``, ``revealed``, ``vp``, ``vp_log``, ``dice_log``, ``turn``, ``phase``, ``decision``,
``current_agent``, ``attacked``, ``units``, ``game.layout``, ``legal_actions``, ``action_to_string``,
``decision_string``, ``cf``, ``is_full``; never ``state.ctx``):
the HTML replay viewer and the web play app both draw what this module hands them.

A replay has one frame for the initial position and one after each agent decision (the engine applies
the automatic decisions that follow an agent decision inside ``apply_action``, so they share its frame).
Frames are deltas against the previous frame, so a 2,000-decision game stays a few hundred kB.
"""

from __future__ import annotations

from typing import Any

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.record import replay
from ffo_env.ffo.core.sides import Side
from ffo_env.ffo.core.state import STATUS_NAMES, State

__all__ = ["unit_table", "snapshot", "delta", "replay_frames", "viewer_data", "BattleTracker"]

HIDDEN = -1  # a unit of an enemy stack the viewer may not identify (rule 3.6, R3)


def unit_table(state: State) -> list[dict[str, Any]]:
    """Static facts of every counter (what is printed on it)."""
    return [
        {
            "id": u.id,
            "name": u.name,
            "side": u.side.agent,
            "nat": u.nationality,
            "type": u.type,
            "size": u.size,
            "cf": [u.cf_full, u.cf_reduced],
            "steps": u.steps,
        }
        for u in state.units
    ]


def snapshot(
    state: State, hidden_hexes: frozenset[int] | set[int] = frozenset(), hidden_side: str | None = None
) -> dict[str, Any]:
    """The visible position: stacks (bottom -> top), unit status/CF, control, refugees, VP, turn/phase.

    Fog of war is the caller's (rendering depends on the core only; ``ffo_env.ffo.encoding.fog`` decides it):
    every stack of ``hidden_side`` on a hex in ``hidden_hexes`` keeps only its top unit, the units under it
    become :data:`HIDDEN` and their CF is not sent (rule 3.6, R3).
    """
    units = state.units
    stacks: dict[str, list[int]] = {}
    secret: set[int] = set()
    for h, st in state.stacks.items():
        if hidden_side is not None and h in hidden_hexes and units[st[-1]].side.agent == hidden_side:
            stacks[str(h)] = [HIDDEN] * (len(st) - 1) + [st[-1]]
            secret.update(st[:-1])
        else:
            stacks[str(h)] = list(st)
    return {
        "stacks": stacks,
        "status": [STATUS_NAMES[s] for s in state.status],  # public (fog.py: unit status is public)
        "cfv": [None if u in secret else [state.cf(u), bool(state.is_full(u))] for u in range(len(units))],
        "control": [int(c) for c in state.control],
        "refugees": {str(h): bool(f) for h, f in state.refugees.items()},
        "vp": state.vp,
        "turn": state.turn,
        "phase": state.phase.name,
        "player": state.current_agent if not state.is_terminal() else "",
        "decision": state.decision.name,
        "at": state.decision_string(),
        "n_dice": len(state.dice_log),
        "n_vp": len(state.vp_log),
        "terminal": state.is_terminal(),
        "winner": None if state.winner is None else ("french" if state.winner == 0 else "german"),
    }


def delta(prev: dict[str, Any], cur: dict[str, Any]) -> dict[str, Any]:
    """What changed from snapshot ``prev`` to ``cur`` (scalars always; lists/dicts as sparse updates)."""
    out: dict[str, Any] = {
        k: cur[k]
        for k in ("vp", "turn", "phase", "player", "decision", "at", "n_dice", "n_vp", "terminal", "winner")
    }
    st = {h: v for h, v in cur["stacks"].items() if prev["stacks"].get(h) != v}
    st.update({h: [] for h in prev["stacks"] if h not in cur["stacks"]})
    if st:
        out["stacks"] = st
    for key in ("status", "cfv", "control"):
        ch = {str(i): v for i, (a, v) in enumerate(zip(prev[key], cur[key], strict=True)) if a != v}
        if ch:
            out[key] = ch
    rf = {h: v for h, v in cur["refugees"].items() if prev["refugees"].get(h) != v}
    rf.update({h: None for h in prev["refugees"] if h not in cur["refugees"]})
    if rf:
        out["refugees"] = rf
    return out


class BattleTracker:
    """Follows the battle being declared from the decisions made (target, attackers, support, lowering).

    Fed with every agent decision *before* it is applied. It shows the combat factors of the attackers
    and of the defending stack and the engine's own odds (:meth:`State.battle_preview`: differential, each
    column shift with its rule, the final column and the chance of each result). All of it is public once
    the attack is declared (the declaration reveals the stack, rule 3.6, R3, R22), so the play UI may show
    it to a player under fog of war; the odds are those before the supports' dice.
    """

    def __init__(self) -> None:
        self.cur: dict[str, Any] | None = None
        self._phase = ""

    def before(self, state: State, action: int) -> None:
        dec = state.decision.name
        kind = state.game.layout.kind(action)
        if state.phase.name != self._phase:
            self.cur, self._phase = None, state.phase.name
        if dec == "ATTACK_TARGET":
            # attackers are read from State.attacked (R23) so that automatic additions count too
            self.cur = (
                {
                    "hex": action,
                    "side": state.current_agent,
                    "extra": [],
                    "picked": [],
                    "before": [u for u, a in enumerate(state.attacked) if a],
                }
                if kind == "hex"
                else None
            )
        elif self.cur is None:
            return
        elif dec == "ATTACK_ADD" and kind == "unit":
            self.cur["picked"].append(action - state.game.layout.unit_base)
        elif dec in ("SUPPORT_ATTACK", "SUPPORT_DEFENCE", "LOWER") and action not in (
            state.game.layout.special(0),
        ):
            self.cur["extra"].append(state.action_to_string(action))

    def view(self, state: State) -> dict[str, Any] | None:
        """The current battle with raw strengths, or None (plug ``State.battle_preview`` in here)."""
        if self.cur is None or state.phase.name != self._phase:
            return None
        h = self.cur["hex"]
        before = set(self.cur["before"])
        att = list(self.cur["picked"])
        att += [u for u, a in enumerate(state.attacked) if a and u not in before and u not in att]
        if not self.cur.get("defs"):  # the defenders as declared: they may retreat or die in the battle
            self.cur["defs"] = [
                u for u in state.stacks.get(h, []) if state.units[u].side.agent != self.cur["side"]
            ]
        cf: dict[int, int] = self.cur.setdefault("cf", {})
        for u in att + self.cur["defs"]:  # strengths as committed, before the result is applied
            if u not in cf and state.loc[u] >= 0:
                cf[u] = state.cf(u)
        defs = list(self.cur["defs"])
        # only while the battle still stands before its dice: afterwards the cached preview is kept
        pending = state.decision.name in ("ATTACK_ADD", "SUPPORT_ATTACK", "SUPPORT_DEFENCE", "LOWER")
        if (
            pending
            and att
            and all(state.loc[u] >= 0 for u in att)
            and defs
            and all(state.loc[u] == h for u in defs)
        ):
            try:
                self.cur["odds"] = odds_view(state, h, att)
            except ValueError:  # not a ground battle the preview covers (e.g. an air-only strike)
                pass
        return {
            "hex": h,
            "side": self.cur["side"],
            "att": att,
            "def": defs,
            "att_cf": sum(cf.get(u, 0) for u in att),
            "def_cf": sum(cf.get(u, 0) for u in defs),
            "extra": list(self.cur["extra"]),
            "odds": self.cur.get("odds"),
        }


def odds_view(state: State, target: int, attackers: list[int]) -> dict[str, Any]:
    """The engine's preview of a battle as plain JSON for the pages (rules 13.12-13.19, R25, R26)."""
    p = state.battle_preview(target, attackers)
    crt = state.game.scenario.tables.crt
    return {
        "att_cf": p.att_cf,
        "def_cf": p.def_cf,
        "diff": p.differential,
        "base": crt.column_label(p.base_column),
        "column": crt.column_label(p.column),
        "shifts": [[sh.cause, sh.columns, sh.rule] for sh in p.shifts],
        "city_die": p.city_die,
        "outcomes": {k: round(v, 4) for k, v in sorted(p.outcomes.items())},
    }


class _FrameMaker:
    """Builds the viewer's deltas while :func:`ffo_env.ffo.core.record.replay` verifies the record."""

    def __init__(self) -> None:
        self.first: dict[str, Any] = {}
        self.prev: dict[str, Any] = {}
        self.frames: list[dict[str, Any]] = []
        self.battles = BattleTracker()
        self.pre: dict[str, Any] | None = None

    def start(self, state: State) -> None:
        self.first = snapshot(state)
        self.first["d"] = [0, len(state.history)]
        self.prev = self.first

    def before(self, state: State, action: int) -> None:
        self.battles.before(state, action)
        self.pre = self.battles.view(state)  # strengths as declared, before the battle is resolved

    def after(self, state: State, first: int) -> None:
        cur = snapshot(state)
        dl = delta(self.prev, cur)
        dl["d"] = [first, len(state.history)]
        post = self.battles.view(state)
        if post is not None or self.pre is not None:
            dl["battle"] = post if post is not None else self.pre
        self.frames.append(dl)
        self.prev = cur


def replay_frames(record: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]], State]:
    """Replay ``record`` with the core: (first snapshot, deltas, final state).

    Delta ``k`` follows agent decision ``k`` and carries ``"d": [i, j]``, the record decisions it covers
    (the agent decision ``i`` and the automatic ones up to ``j - 1``). The replay is
    :func:`ffo_env.ffo.core.record.replay` itself, so a record is drawn only when every field the viewer
    shows verifies; otherwise :class:`RecordError` names the first divergence.
    """
    maker = _FrameMaker()
    state = replay(record, observer=maker)
    return maker.first, maker.frames, state


def _decision_rows(record: dict[str, Any]) -> list[list[Any]]:
    """[player (0/1), auto (0/1), text, at] per record decision (auto decisions have no text: say so)."""
    rows = []
    for d in record["decisions"]:
        text = d.get("text") or ("automatic" if d.get("auto") else f"action {d['action']}")
        rows.append([int(Side.of(d["player"])), int(bool(d.get("auto"))), text, d.get("at", "")])
    return rows


def viewer_data(record: dict[str, Any]) -> dict[str, Any]:
    """Everything the HTML viewer needs besides the board: units, frames, decisions, dice, VP log, result."""
    first, frames, state = replay_frames(record)
    return {
        "units": unit_table(state),
        "first": first,
        "frames": frames,
        "decisions": _decision_rows(record),
        "dice": [
            [
                x.get("die", x.get("pick")),
                x.get("of", 6) if "pick" in x else 6,
                x.get("for", ""),
                x.get("turn", 0),
                x.get("phase", ""),
            ]
            for x in record.get("dice", [])
        ],
        "vp_log": [
            [v["turn"], v["phase"], v["kind"], v["vp"], v["detail"]] for v in record.get("vp_log", [])
        ],
        "result": record.get("result", {}),
        "agents": record.get("agents", {}),
        "seed": record.get("seed"),
        "hex_names": [hg.hex_name(i) for i in range(hg.N_HEX)],
    }
