"""One game of Springtime for Hitler between a human (or two) and Springtime bots, as the web app sees it.

Every choice offered to a human is one of ``State.legal_actions()`` with ``State.action_to_string`` (the
same legal actions the bots use); anything else is refused and changes nothing. The map is drawn by
:mod:`ffo_env.springtime.render.svg` with the eyes of the human (S59: their own held Event marker by
name, the opponent's as "a marker"); with two humans, with the eyes of the one deciding.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ffo_env.springtime.core import actions as A
from ffo_env.springtime.render.svg import layers
from ffo_env.springtime.render.view import PUBLIC
from webplay.game_session import SIDES, PlaySession

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


class SpringtimeSession(PlaySession):
    """A Springtime game in progress; ``players[side]`` is ``"human"`` or a Springtime agent name. The turn, the
    checks of a human decision, the bots' steps and the record are :class:`~webplay.game_session.PlaySession`'s;
    the map drawn with the human's eyes is this class's."""

    game = "springtime"
    record_hides = "the Event markers held, the container, the dice generator"  # S13, S59

    def __init__(
        self, french: str, german: str, seed: int = 0, record_path: str | Path | None = None
    ) -> None:
        super().__init__(french, german, seed, record_path)
        self._cache: dict[int | None, dict[tuple[Any, ...], str]] = {}

    # ----------------------------------------------------------------- queries

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
            "log": self.log(since_decision),
            "n_decisions": len(decs),
            "terminal": st.is_terminal(),
            "record_ready": self.record_ready(),
            "winner": None if st.winner < 0 else SIDES[st.winner],
            "morale": st.morale,
            "turn": st.turn,
            "saved": self.saved,
        }
