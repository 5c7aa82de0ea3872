"""The opponent pool: scripted bots and frozen snapshots of the other side, sampled per episode.

An :class:`OpponentPool` is a picklable callable handed to the single-agent wrapper
(``opponent_sampler``); the wrapper calls it at every reset, so each episode is played
against an opponent drawn with the configured weights. The special name ``snapshots``
stands for "one of the most recent frozen policies of the other side", drawn uniformly;
while there are none its weight is spread over the others.
"""

from __future__ import annotations

import random
from typing import Any

from ffo_env.games import DEFAULT_GAME

SNAPSHOTS = "snapshots"


class OpponentPool:
    """The opponents of one env of ``game``: its bots by name (:func:`agents.registry.make_agent`) and the
    snapshots, policy files of the game (:func:`agents.network_spec.network_of`)."""

    game = DEFAULT_GAME  # a pool pickled before the pool had a game

    def __init__(
        self,
        opponent_side: str,
        weights: dict[str, float],
        snapshots: list[str] | None = None,
        seed: int = 0,
        game: str = DEFAULT_GAME,
    ) -> None:
        self.game = game
        self.opponent_side = opponent_side
        self.weights = dict(weights)
        self.snapshots = list(snapshots or [])
        self.seed = seed
        self._rng: random.Random | None = None
        self._cache: dict[str, Any] = {}
        self._episodes = 0

    def names(self) -> list[str]:
        names = [n for n, w in self.weights.items() if w > 0 and n != SNAPSHOTS]
        if self.snapshots and self.weights.get(SNAPSHOTS, 0) > 0:
            names.append(SNAPSHOTS)
        return names

    def __getstate__(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["_cache"] = {}  # loaded policies are rebuilt in each worker process
        d["_rng"] = None
        return d

    def _agent(self, name: str) -> Any:
        agent = self._cache.get(name)
        if agent is None:
            if name.startswith("snapshot:"):
                from agents.network_spec import network_of

                agent = network_of(self.game).load_policy(name.split(":", 1)[1])
                agent.name = "snapshot"
            else:
                from agents.registry import make_agent

                seed = self.seed + 7919 * len(self._cache)
                agent = make_agent(name, self.opponent_side, seed=seed, game=self.game)
            self._cache[name] = agent
        return agent

    def __call__(self, rng: Any = None) -> Any:
        """Draw the opponent of the next episode (``rng``: the env's numpy generator, if it passes one)."""
        if rng is not None:
            self._rng = random.Random(int(rng.integers(2**63)))
        elif self._rng is None:
            self._rng = random.Random(self.seed)
        names = self.names()
        weights = [self.weights[n] for n in names]
        pick = self._rng.choices(names, weights=weights)[0]
        self._episodes += 1
        if pick == SNAPSHOTS:
            pick = "snapshot:" + self._rng.choice(self.snapshots)
        agent = self._agent(pick)
        if hasattr(agent, "reset"):
            agent.reset(self._rng.randrange(2**31))
        return agent

    def reseed(self, seed: int) -> None:
        self.seed = seed
        self._rng = random.Random(seed)
