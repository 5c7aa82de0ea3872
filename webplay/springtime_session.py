"""One game of Springtime for Hitler between a human (or two) and Springtime bots, as the web app sees it.

Every choice offered to a human is one of ``State.legal_actions()`` with ``State.action_to_string`` (the
same legal actions the bots use); anything else is refused and changes nothing. The map is drawn by
:mod:`ffo_env.springtime.render.svg` with the eyes of the human (S59: their own held Event marker by
name, the opponent's as "a marker"); with two humans, with the eyes of the one deciding.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from ffo_env.springtime.core import actions as A
from ffo_env.springtime.core.game import Game
from ffo_env.springtime.core.record import Recorder, write_record
from ffo_env.springtime.render.svg import layers
from ffo_env.springtime.render.view import PUBLIC
from webplay.session import HUMAN, SIDES, PlayError

__all__ = ["SpringtimeSession", "action_target"]


def action_target(state: Any, a: int) -> dict[str, Any]:
    """Where on the map an action is picked: ``{"loc": id}`` for a location, ``{"unit": id}`` for a unit
    (and its location when it is on the map), ``{}`` for the rest (yes/no, pass, Army Groups ...)."""
    g = state.game
    for base in (A.REDEPLOY, A.LOC, A.COMBAT):
        if base <= a < base + A.N_LOC:
            return {"loc": g.loc_ids[a - base]}
    for base in (A.UNIT, A.REBUILD_FULL, A.REBUILD_RED):
        if base <= a < base + A.N_UNIT:
            u = a - base
            out: dict[str, Any] = {"unit": g.unit_ids[u]}
            if base == A.UNIT and state.status[u] == 1 and state.loc[u] >= 0:  # MAP
                out["loc"] = g.loc_ids[state.loc[u]]
            return out
    return {}


class SpringtimeSession:
    """A Springtime game in progress; ``players[side]`` is ``"human"`` or a Springtime agent name."""

    game = "springtime"

    def __init__(
        self, french: str, german: str, seed: int = 0, record_path: str | Path | None = None
    ) -> None:
        from agents.harness import agent_seed
        from agents.registry import make_agent

        self.players = {"french": french, "german": german}
        self.seed = seed
        self.agents: dict[str, Any] = {}
        for side in SIDES:
            if self.players[side] != HUMAN:
                self.agents[side] = make_agent(
                    self.players[side], side, seed=agent_seed(seed, side), game="springtime"
                )
        self.state = Game().new_initial_state(seed)
        self.recorder = Recorder(self.state)
        self.record_path = Path(record_path) if record_path else None
        self.saved: dict[str, str] | None = None
        self.lock = threading.RLock()  # the server is threaded: one request at a time touches the game
        self.finished_at: float | None = None
        self._cache: dict[int | None, dict[tuple[Any, ...], str]] = {}

    # ----------------------------------------------------------------- queries

    def humans(self) -> list[str]:
        return [s for s in SIDES if self.players[s] == HUMAN]

    def human_to_move(self) -> bool:
        return not self.state.is_terminal() and self.players[self.state.current_agent] == HUMAN

    def viewer(self) -> int | None:
        """Whose eyes the map is drawn with: the one human, the deciding human when both are, else public."""
        hs = self.humans()
        if len(hs) == 1:
            return SIDES.index(hs[0])
        if len(hs) == 2 and not self.state.is_terminal():
            return self.state.player
        return PUBLIC

    def choices(self) -> list[dict[str, Any]]:
        """The human's legal choices now: action, text and where on the map it is picked."""
        st = self.state
        if not self.human_to_move():
            return []
        return [{"a": a, "text": st.action_to_string(a), **action_target(st, a)} for a in st.legal_actions()]

    def view(self, since_dice: int = 0, since_decision: int = 0) -> dict[str, Any]:
        with self.lock:
            return self._view(since_dice, since_decision)

    def _view(self, since_dice: int, since_decision: int) -> dict[str, Any]:
        st = self.state
        viewer = self.viewer()
        decs = self.recorder.decisions
        return {
            "game": "springtime",
            "layers": layers(st, viewer, cache=self._cache.setdefault(viewer, {})),
            "viewer": None if viewer is None else SIDES[viewer],
            "players": self.players,
            "human_to_move": self.human_to_move(),
            "decision": st.decision if not st.is_terminal() else "over",
            "at": st.decision_string() if not st.is_terminal() else f"game over: {st.result}",
            "choices": self.choices(),
            "dice": [
                [x.get("die"), x.get("for", "")] for x in st.dice_log[max(0, since_dice) :] if "die" in x
            ],
            "n_dice": len(st.dice_log),
            "log": [
                [d["player"], bool(d["auto"]), d.get("text") or "automatic", d.get("at", "")]
                for d in decs[max(0, since_decision) :]
            ],
            "n_decisions": len(decs),
            "terminal": st.is_terminal(),
            "winner": None if st.winner < 0 else SIDES[st.winner],
            "morale": st.morale,
            "turn": st.turn,
            "saved": self.saved,
        }

    # ----------------------------------------------------------------- actions

    def _apply(self, action: int) -> None:
        self.recorder.apply(action)
        if self.state.is_terminal():
            self._finish()

    def act(self, action: Any) -> None:
        """Apply a human decision; an action that is not legal now is refused with the state unchanged."""
        with self.lock:
            if self.state.is_terminal():
                raise PlayError("the game is over")
            if not self.human_to_move():
                raise PlayError(f"it is the {self.state.current_agent} bot's decision, not yours")
            if isinstance(action, bool) or not isinstance(action, int):
                raise PlayError(f"action must be an integer, not {action!r}")
            if action not in self.state.legal_actions():
                raise PlayError(f"action {action} is not legal now ({self.state.decision_string()})")
            self._apply(action)

    def bot_step(self) -> bool:
        """Let the bot on move make one decision; False when a human is to move or the game is over."""
        with self.lock:
            st = self.state
            if st.is_terminal() or self.human_to_move():
                return False
            self._apply(int(self.agents[st.current_agent].act_state(st)))
            return True

    def record(self) -> dict[str, Any]:
        """The game record so far (the suite's Springtime record: it replays and verifies)."""
        return self.recorder.record()

    def _finish(self) -> None:
        """Write the record (and its viewer) once the game is over."""
        self.finished_at = time.time()
        if self.record_path is None:
            return
        from ffo_env.springtime.render.viewer import write_viewer

        record = self.record()
        write_record(self.record_path, record)
        html = self.record_path.with_suffix(".html")
        write_viewer(record, html)
        self.saved = {"record": str(self.record_path), "viewer": str(html)}
