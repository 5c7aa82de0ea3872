"""Control agents that do not try to win."""

from __future__ import annotations

from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.state import State


class PassAgent:
    """Does nothing: takes PASS (end the phase, done, decline, stay) whenever it is legal,
    otherwise the first legal action. A do-nothing control for the evaluation harness."""

    name = "pass"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed

    def act_state(self, state: State) -> int:
        legal = state.legal_actions()
        a = state.game.layout.special(Special.PASS)
        if a in legal:
            return a
        if state.decision.name == "MOVE_DEST" and state.loc[state.selected_unit()] in legal:
            return state.loc[state.selected_unit()]  # staying put is "pass" for a destination
        return legal[0]
