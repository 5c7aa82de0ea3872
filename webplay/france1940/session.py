"""One game of France 1940 between a human (or two) and France 1940 bots, as the web app sees it.

Every choice offered to a human is one of ``State.legal_actions()`` with ``State.action_to_string`` (the
same legal actions the bots use); anything else is refused and changes nothing. What the page gets is drawn
from the human's side's view (:func:`ffo_env.france1940.render.view.seen`, i.e. the core's
:func:`~ffo_env.france1940.core.visibility.view`): never the seed nor the dice generator, and with
``hidden_obac`` not the opponent's army nor its arrival schedule. With two humans the view is the deciding
player's; with none (two bots watched) it is public.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ffo_env.france1940.core import actions as A
from ffo_env.france1940.core.state import MAP, State
from ffo_env.france1940.render.svg import layers
from ffo_env.france1940.render.view import PUBLIC, seen
from webplay.game_session import SIDES, PlaySession

__all__ = ["France1940Session", "action_target"]

EVENTS_SHOWN = 12  # the latest events of the game's log sent with each view


def action_target(state: State, a: int) -> dict[str, Any]:
    """Where on the map an action is picked: ``{"hex": n}`` for a hex, ``{"unit": id}`` for a unit (and its
    hex when it is on the map), ``{}`` for the rest (done, yes, exit, the air missions)."""
    if A.HEX <= a < A.UNIT:
        return {"hex": A.action_hex(a)}
    if A.UNIT <= a < A.UNIT + len(state.game.units):
        u = a - A.UNIT
        out: dict[str, Any] = {"unit": state.game.unit_ids[u]}
        if state.status[u] == MAP:
            out["hex"] = state.hex[u]
        return out
    return {}


class France1940Session(PlaySession):
    """A France 1940 game in progress; ``players[side]`` is ``"human"`` or a France 1940 agent name and
    ``options`` are :class:`~ffo_env.france1940.core.options.RulesOptions` fields (the armies, optional
    rules, the BEF variant, ``hidden_obac``)."""

    game = "france1940"
    # the seed and the dice generator, and with hidden_obac the opponent's army
    record_hides = "the dice generator's seed, and with hidden armies the opponent's army"

    def __init__(
        self,
        french: str,
        german: str,
        seed: int = 0,
        record_path: str | Path | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(french, german, seed, record_path, options)
        self._cache: dict[int | None, dict[Any, str]] = {}

    # ----------------------------------------------------------------- queries

    def viewer(self) -> int | None:
        """Whose eyes the map is drawn with: the one human, the deciding human when both are, else public."""
        hs = self.humans()
        if len(hs) == 1:
            return SIDES.index(hs[0])
        if len(hs) == 2:
            return self.state.player if self.state.player in (0, 1) else 0
        return PUBLIC

    def choices(self) -> list[dict[str, Any]]:
        """The human's legal choices now: action, text and where on the map it is picked."""
        st = self.state
        if not self.human_to_move():
            return []
        cities = st.game.data.cities
        out = []
        for a in st.legal_actions():
            target = action_target(st, a)
            text = st.action_to_string(a)
            if "hex" in target and "unit" not in target and target["hex"] in cities:
                text += f" ({cities[target['hex']][1].replace('_', ' ')})"
            out.append({"a": a, "text": text, **target})
        return out

    def _view(self, since_dice: int, since_decision: int) -> dict[str, Any]:
        st = self.state
        viewer = self.viewer()
        v = seen(st, viewer)  # everything below is drawn from what this viewer may see
        decs = self.recorder.decisions
        return {
            "game": "france1940",
            "layers": layers(st.game, v, cache=self._cache.setdefault(viewer, {})),
            "viewer": None if viewer is None else SIDES[viewer],
            "players": self.players,
            "human_to_move": self.human_to_move(),
            "decision": v["decision"] if not st.is_terminal() else "over",
            "at": st.decision_string() if not st.is_terminal() else f"game over: {v['result']}",
            "choices": self.choices(),
            "dice": [[str(r[0]), r[1]] for r in v["rolls"][max(0, since_dice) :]],
            "n_dice": len(v["rolls"]),
            "events": [[str(x) for x in e] for e in v["log"][-EVENTS_SHOWN:]],
            "log": self.log(since_decision),
            "n_decisions": len(decs),
            "terminal": st.is_terminal(),
            "record_ready": self.record_ready(),
            "winner": None if st.winner < 0 else SIDES[st.winner],
            "vp": list(v["vp"]),
            "turn": v["turn"],
            "columns": list(v["columns"]),
            "saved": self.saved,
        }
