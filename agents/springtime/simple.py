"""Baseline bots of Springtime for Hitler: uniform random, and "pass" (a Pass Impulse whenever legal)."""

from __future__ import annotations

import random

from ffo_env.springtime.core.actions import PASS
from ffo_env.springtime.core.state import State


class RandomAgent:
    """Uniform over the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)

    def act_state(self, state: State) -> int:
        legal = state.legal_actions()
        return legal[self.rng.randrange(len(legal))]


class PassAgent(RandomAgent):
    """Declares a Pass Impulse (8.1.3) whenever it is legal; otherwise uniform random."""

    name = "pass"

    def act_state(self, state: State) -> int:
        legal = state.legal_actions()
        if PASS in legal:
            return PASS
        return legal[self.rng.randrange(len(legal))]
