"""The agent interface shared by scripted bots, trained policies and the harness.

Every agent implements ``act_state(state) -> int``: a choice made directly on the game's core state (a
:class:`~ffo_env.games.GameState` of any game of the suite: the fast path used by scripted bots, the evaluation
harness and the environments' opponent loops). Scripted bots only read what their side
may see (rule 3.6).

Agents that work from observations (random, trained policies) also implement
``act(observation, action_mask) -> int``. Env loops call ``act_state`` when an agent
has it, ``act`` otherwise. Both return one of ``state.legal_actions()``; legality is
never re-derived here.
"""

from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    name: str

    def act_state(self, state: Any) -> int: ...

    def reset(self, seed: int | None = None) -> None: ...


@runtime_checkable
class ObservationAgent(Agent, Protocol):
    def act(self, observation: Any, action_mask: np.ndarray) -> int: ...


class RandomAgent:
    """Uniform over the legal actions, from its own seeded generator (every game's ``random``)."""

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

    def act_state(self, state: Any) -> int:
        """A uniform choice among ``state.legal_actions()`` (any game's :class:`~ffo_env.games.GameState`)."""
        legal: list[int] = state.legal_actions()
        return legal[self.rng.randrange(len(legal))]
