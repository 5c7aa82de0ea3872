"""One game between a human (or two) and bots, as the web app sees it, for any game of the suite: who plays,
whose turn it is, the human's decision checked against ``State.legal_actions()``, the bots' steps, and the
record and its replay viewer written when the game ends. Everything game-specific is reached through the
game interface (:mod:`ffo_env.games`: the new state, the recorder, the record and viewer writers) or is
the subclass's: what the human sees (``_view``) and how each choice is shown (``choices``).

Each game's subclass is its web play package's ``Session`` (``webplay/<game>/session.py``, found by
:mod:`webplay.games`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from ffo_env.games import SIDES, game_info

HUMAN = "human"

__all__ = ["HUMAN", "SIDES", "PlayError", "PlaySession"]


class PlayError(ValueError):
    """A request the game cannot take (not the human's turn, an illegal action, a finished game)."""


class PlaySession:
    """A game in progress. ``players[side]`` is ``"human"`` or an agent name of ``game`` (built here with the
    seeds every tool uses, :func:`agents.harness.agent_seed`); one request at a time touches the game."""

    game: ClassVar[str]  # the game of the suite a subclass plays (its ffo_env.games name)
    # what a game's record holds that the rules hide from a player ("" = nothing): while a human plays a game
    # not yet over, the record is refused with this in the reason
    record_hides: ClassVar[str] = ""

    def __init__(
        self,
        french: str,
        german: str,
        seed: int = 0,
        record_path: str | Path | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        from agents.harness import agent_seed
        from agents.registry import make_agent

        self.info = game_info(self.game)
        self.players = {"french": french, "german": german}
        self.seed = seed
        self.agents: dict[str, Any] = {}
        for side in SIDES:
            if self.players[side] != HUMAN:
                agent = make_agent(self.players[side], side, seed=agent_seed(seed, side), game=self.game)
                if hasattr(agent, "reset"):
                    agent.reset(None)
                self.agents[side] = agent
        self.state: Any = self.info.new_state(seed, options=options)
        self.recorder = self.info.recorder(self.state)
        self.record_path = Path(record_path) if record_path else None
        self.saved: dict[str, str] | None = None
        self.lock = threading.RLock()  # the server is threaded: one request at a time touches the game
        self.finished_at: float | None = None

    # ----------------------------------------------------------------- queries

    def humans(self) -> list[str]:
        return [s for s in SIDES if self.players[s] == HUMAN]

    def human_to_move(self) -> bool:
        return not self.state.is_terminal() and self.players[self.state.current_agent] == HUMAN

    def choices(self) -> list[dict[str, Any]]:
        """The human's legal choices now: action, text and where it is picked (the game's own view)."""
        raise NotImplementedError

    def view(self, since_dice: int = 0, since_decision: int = 0) -> dict[str, Any]:
        with self.lock:
            return self._view(since_dice, since_decision)

    def _view(self, since_dice: int, since_decision: int) -> dict[str, Any]:
        raise NotImplementedError

    def log(self, since_decision: int) -> list[list[Any]]:
        """The decisions from ``since_decision`` on: player, automatic, text, where in the game."""
        return [
            [d["player"], bool(d["auto"]), d.get("text") or "automatic", d.get("at", "")]
            for d in self.recorder.decisions[max(0, since_decision) :]
        ]

    def record(self) -> dict[str, Any]:
        """The game record so far, as the game's recorder writes it; refused while a human plays a game not yet
        over when the record holds what the rules hide from a player (:attr:`record_hides`)."""
        if self.record_hides and self.humans() and not self.state.is_terminal():
            raise PlayError(
                "the game record can be downloaded when the game is over: before that it would show what the "
                f"rules hide ({self.record_hides})"
            )
        rec: dict[str, Any] = self.recorder.record()
        return rec

    def record_ready(self) -> bool:
        """Whether :meth:`record` gives the record now (the page's download link is shown then)."""
        return not self.record_hides or self.state.is_terminal() or not self.humans()

    # ----------------------------------------------------------------- actions

    def _before_apply(self, action: int) -> None:
        """What the game's view notes before ``action`` changes the state (nothing by default)."""

    def _apply(self, action: int) -> None:
        self._before_apply(action)
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
        """Write the record and its replay viewer (the game's, which verifies the record) once the game is over."""
        self.finished_at = time.time()
        if self.record_path is None:
            return
        record = self.record()
        self.info.save_record(record, self.record_path)
        html = self.record_path.with_suffix(".html")
        self.info.write_viewer(record, html)
        self.saved = {"record": str(self.record_path), "viewer": str(html)}
