"""Baseline bots of Springtime for Hitler: uniform random (the suite's shared :class:`agents.base.RandomAgent`),
and "pass" (a Pass Impulse whenever legal)."""

from __future__ import annotations

from agents.base import RandomAgent
from ffo_env.springtime.core.actions import PASS
from ffo_env.springtime.core.state import State

__all__ = ["PassAgent", "RandomAgent"]


class PassAgent(RandomAgent):
    """Declares a Pass Impulse (8.1.3) whenever it is legal; otherwise uniform random."""

    name = "pass"

    def act_state(self, state: State) -> int:
        legal = state.legal_actions()
        if PASS in legal:
            return PASS
        return legal[self.rng.randrange(len(legal))]
