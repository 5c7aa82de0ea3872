"""The opponent of a training game: one bot drawn per game from a weighted mix.

Names: ``random``, ``pass``, ``heuristic``, ``expert`` (the Springtime bots of :mod:`agents.springtime`) and
``self`` (the other side's latest policy, sampled, so that the learner meets its own progress; a heuristic
until the other side has a policy).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from agents.springtime import make_agent


class MixOpponent:
    """An ``act_state`` opponent for :class:`ffo_env.springtime.env.SpringtimeSingleAgentEnv` (and the
    imitation games): each ``reset(seed)`` draws the bot of the next game by weight."""

    def __init__(
        self, side: str, mix: dict[str, float], self_policy: Callable[[], Any | None] | None = None
    ) -> None:
        self.side = side  # the side the opponent plays
        self.names = [n for n, w in mix.items() if w > 0]
        self.weights = [mix[n] for n in self.names]
        self.self_policy = self_policy
        self.rng = random.Random(0)
        self.bots: dict[str, Any] = {}
        self.current: Any = None
        self.current_name = ""

    def _bot(self, name: str) -> Any:
        if name == "self":
            policy = self.self_policy() if self.self_policy is not None else None
            if policy is not None:
                return policy
            name = "heuristic"
        if name not in self.bots:
            self.bots[name] = make_agent(name, self.side)
        return self.bots[name]

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)
        self.current_name = self.rng.choices(self.names, self.weights)[0]
        self.current = self._bot(self.current_name)
        if hasattr(self.current, "reset"):
            self.current.reset(self.rng.randrange(2**31))

    def act_state(self, state: Any) -> int:
        if self.current is None:
            self.reset()
        return int(self.current.act_state(state))
