"""The agent interface shared by scripted bots, trained policies and the harness.

An agent answers two ways:

- ``act(observation, action_mask) -> int``: from an environment observation (what a
  learned policy or an env loop uses);
- ``act_state(state) -> int``: directly on the core :class:`~ffo_env.core.state.State`
  (fast path for scripted bots and the evaluation harness). Scripted bots must only
  read what their side may see (rule 3.6) when they play through this path.

Both return one of ``state.legal_actions()``; legality is never re-derived here.
"""

from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ffo_env.core.state import State


@runtime_checkable
class Agent(Protocol):
    name: str

    def act(self, observation: Any, action_mask: np.ndarray) -> int: ...

    def act_state(self, state: State) -> int: ...

    def reset(self, seed: int | None = None) -> None: ...


class RandomAgent:
    """Uniform over the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(np.asarray(action_mask))
        if legal.size == 0:
            raise ValueError("RandomAgent.act: the action mask has no legal action")
        return int(legal[self.rng.randrange(legal.size)])

    def act_state(self, state: State) -> int:
        legal = state.legal_actions()
        return legal[self.rng.randrange(len(legal))]
