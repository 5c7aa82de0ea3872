"""One game between a human (or two) and agents, as the web app sees it.

Every choice offered to a human is one of ``State.legal_actions()`` with ``State.action_to_string`` (the
same legal actions and masks the agents use); anything else is refused and changes nothing. What a human
sees of the enemy follows the fog of war an agent gets (rule 3.6, R3, ``ffo_env.ffo.encoding.fog``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.encoding.fog import revealed_hex_mask
from ffo_env.ffo.render.frames import BattleTracker, snapshot, unit_table
from webplay.game_session import HUMAN, SIDES, PlayError, PlaySession


class GameSession(PlaySession):
    """A France Fights On game in progress. ``players[side]`` is ``"human"`` or an agent name; agents are built
    here. The turn, the checks of a human decision, the bots' steps and the record are
    :class:`~webplay.game_session.PlaySession`'s; the board with its fog of war and battles is this class's."""

    game = "ffo"

    def __init__(
        self,
        french: str,
        german: str,
        seed: int = 0,
        setup: str = "random",
        record_path: str | Path | None = None,
    ) -> None:
        super().__init__(french, german, seed, record_path, options={"setup": setup})
        self.battles = BattleTracker()
        self.units = unit_table(self.state)

    # ----------------------------------------------------------------- queries

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
            "log": self.log(since_decision),
            "n_decisions": len(decs),
            "vp_log": st.vp_log,
            "saved": self.saved,
        }

    def record(self) -> dict[str, Any]:
        """The game record so far, with the players' names (a France Fights On record may carry them)."""
        record = super().record()
        record["agents"] = dict(self.players)
        return record

    # ----------------------------------------------------------------- actions

    def _before_apply(self, action: int) -> None:
        self.battles.before(self.state, action)
        self.battles.view(self.state)  # notes the strengths as committed, before the battle is resolved


def hex_names() -> list[str]:
    return [hg.hex_name(i) for i in range(hg.N_HEX)]


__all__ = ["GameSession", "PlayError", "HUMAN", "hex_names"]
