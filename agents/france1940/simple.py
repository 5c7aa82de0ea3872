"""Baseline bots of France 1940: uniform random (the suite's shared :class:`agents.base.RandomAgent`) and
"pass": the core's ``done`` whenever it is a legal choice, otherwise uniform random."""

from __future__ import annotations

from typing import Any

from agents.base import RandomAgent
from ffo_env.france1940.core.actions import DONE

__all__ = ["PassAgent", "RandomAgent"]


class PassAgent(RandomAgent):
    """``done`` (decline, end the phase, stop) whenever the core offers it; otherwise uniform random."""

    name = "pass"

    def act_state(self, state: Any) -> int:
        legal: list[int] = state.legal_actions()
        if DONE in legal:
            return DONE
        return legal[self.rng.randrange(len(legal))]
