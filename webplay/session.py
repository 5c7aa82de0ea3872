"""One game between a human (or two) and agents, as the web app sees it.

Every choice offered to a human is one of ``State.legal_actions()`` with ``State.action_to_string`` (the
same legal actions and masks the agents use); anything else is refused and changes nothing. What a human
sees of the enemy follows the fog of war an agent gets (rule 3.6, R3, ``ffo_env.encoding.fog``).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from ffo_env.atomic import atomic_write_text
from ffo_env.core import hexgrid as hg
from ffo_env.core.game import Game, RulesOptions
from ffo_env.core.record import Recorder
from ffo_env.encoding.fog import revealed_hex_mask
from ffo_env.render.frames import BattleTracker, snapshot, unit_table

HUMAN = "human"
SIDES = ("french", "german")


class PlayError(ValueError):
    """A request the game cannot take (not the human's turn, an illegal action, a finished game)."""


class GameSession:
    """A game in progress. ``players[side]`` is ``"human"`` or an agent name; agents are built here."""

    def __init__(
        self,
        french: str,
        german: str,
        seed: int = 0,
        setup: str = "random",
        record_path: str | Path | None = None,
    ) -> None:
        from agents import make_agent

        self.players = {"french": french, "german": german}
        self.seed = seed
        self.agents: dict[str, Any] = {}
        for i, side in enumerate(SIDES):
            if self.players[side] != HUMAN:
                agent = make_agent(self.players[side], side, seed=seed * 2 + 1 + i)
                if hasattr(agent, "reset"):
                    agent.reset(None)
                self.agents[side] = agent
        self.state = Game(options=RulesOptions(setup=setup)).new_initial_state(seed)
        self.recorder = Recorder(self.state)
        self.battles = BattleTracker()
        self.units = unit_table(self.state)
        self.record_path = Path(record_path) if record_path else None
        self.saved: dict[str, str] | None = None
        self.lock = threading.RLock()  # the server is threaded: one request at a time touches the game
        self.finished_at: float | None = None

    # ----------------------------------------------------------------- queries

    def humans(self) -> list[str]:
        return [s for s in SIDES if self.players[s] == HUMAN]

    def human_to_move(self) -> bool:
        return not self.state.is_terminal() and self.players[self.state.current_agent] == HUMAN

    def viewer(self) -> str | None:
        """Whose eyes the board is drawn with: the one human, or the deciding human when both are."""
        hs = self.humans()
        if len(hs) == 1:
            return hs[0]
        if len(hs) == 2:
            return self.state.current_agent if not self.state.is_terminal() else None
        return None

    def _fogged_snapshot(self, viewer: str | None) -> dict[str, Any]:
        st = self.state
        if viewer is None or st.is_terminal():  # the game is over: everything is shown
            return snapshot(st)
        v = SIDES.index(viewer)
        revealed = revealed_hex_mask(st, v)  # rule 3.6, R3: the fog an agent's observation gets
        hidden = {h for h in st.stacks if not revealed[h]}
        return snapshot(st, hidden, hidden_side=SIDES[1 - v])

    def choices(self) -> list[dict[str, Any]]:
        """The human's legal choices now: action, text, kind and where on the board it is picked."""
        st = self.state
        if not self.human_to_move():
            return []
        lay = st.game.layout
        out = []
        attack_target = st.decision.name == "ATTACK_TARGET"
        for a in st.legal_actions():
            kind = lay.kind(a)
            c: dict[str, Any] = {"a": a, "text": st.action_to_string(a), "kind": kind}
            if kind == "hex":
                c["hex"] = a
                if attack_target and a in st.stacks:  # what the attacker can see of the defender (R3)
                    stack = st.stacks[a]
                    top = st.units[stack[-1]]
                    c["text"] += f" - defender {top.id} CF {st.cf(stack[-1])}, stack of {len(stack)}"
            elif kind == "unit":
                u = a - lay.unit_base
                c["unit"] = u
                if st.loc[u] >= 0:
                    c["hex"] = st.loc[u]
            out.append(c)
        return out

    def selected_hex(self) -> int | None:
        """The hex of the unit the human just picked, while they choose where it goes."""
        st = self.state
        decs = self.recorder.decisions
        if not self.human_to_move() or not decs or decs[-1]["auto"] or decs[-1]["player"] != st.current_agent:
            return None
        if st.decision.name not in ("MOVE_DEST", "RAIL_DEST", "SETUP_HEX", "ADVANCE_SECOND"):
            return None
        lay = st.game.layout
        a = decs[-1]["action"]
        if lay.kind(a) != "unit":
            return None
        h = st.loc[a - lay.unit_base]
        return h if h >= 0 else None

    def view(self, since_dice: int = 0, since_decision: int = 0) -> dict[str, Any]:
        with self.lock:
            return self._view(since_dice, since_decision)

    def _view(self, since_dice: int, since_decision: int) -> dict[str, Any]:
        st = self.state
        viewer = self.viewer()
        pos = self._fogged_snapshot(viewer)
        decs = self.recorder.decisions
        return {
            "pos": pos,
            "viewer": viewer,
            "players": self.players,
            "human_to_move": self.human_to_move(),
            "choices": self.choices(),
            "battle": self.battles.view(st),
            "selected": self.selected_hex(),
            "dice": st.dice_log[max(0, since_dice) :],
            "log": [
                [d["player"], bool(d["auto"]), d.get("text") or "automatic", d.get("at", "")]
                for d in decs[max(0, since_decision) :]
            ],
            "n_decisions": len(decs),
            "vp_log": st.vp_log,
            "saved": self.saved,
        }

    # ----------------------------------------------------------------- actions

    def _apply(self, action: int) -> None:
        self.battles.before(self.state, action)
        self.battles.view(self.state)  # notes the strengths as committed, before the battle is resolved
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

    def _finish(self) -> None:
        """Write the record (and its viewer) once the game is over."""
        self.finished_at = time.time()
        if self.record_path is None:
            return
        import json

        from ffo_env.render.html_viewer import write_viewer

        record = self.recorder.record()
        record["agents"] = dict(self.players)
        atomic_write_text(self.record_path, json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        html = self.record_path.with_suffix(".html")
        write_viewer(record, html)
        self.saved = {"record": str(self.record_path), "viewer": str(html)}


def hex_names() -> list[str]:
    return [hg.hex_name(i) for i in range(hg.N_HEX)]


__all__ = ["GameSession", "PlayError", "HUMAN", "hex_names"]
