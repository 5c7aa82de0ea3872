"""The algorithms ``ffo benchmark run --algo NAME`` trains, as one registry.

An algorithm is an :class:`AlgoSpec`: its name, what it is, whether it learns, the observation format it
reads, its hyperparameters (written into every result) and ``make(ctx) -> Learner``. A :class:`Learner`
plays one side of a task; it spends the learner's own decisions (``learn(until)`` trains until it has used at
least ``until`` of them), gives the agent that is evaluated (``agent()``: ``act_state(state)``), and saves and
restores everything a resumed run needs (``save(folder)`` / ``load(folder)``).

To add a method (say the project's strongest RL method), write a Learner and call :func:`register`.
Reference rows (``random``, ``untrained``, ``expert``) do not learn; their scores are the floor and the
ceiling of a task's normalised score and the check that a task is not solved before training.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.protocol.task import Task


class AlgoError(ValueError):
    """An unknown algorithm, or one that cannot run a task."""


@dataclass
class Context:
    """What a learner is made with."""

    task: Task
    side: str
    seed: int
    budget: int  # this side's learner decisions over the whole run
    workdir: Path  # the seed's folder (checkpoints, logs)
    opponent: Callable[[int], Any]  # rank -> the training opponent (an agent object) of env ``rank``
    # side -> a trained policy file the ``policy`` reference row plays (``ffo benchmark run --policy``)
    policies: dict[str, str] = field(default_factory=dict)


class Learner:
    """One side's learner (see the module docstring). ``decisions`` counts the learner decisions used."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    @property
    def decisions(self) -> int:
        return 0

    def learn(self, until: int, segment: int) -> None:
        """Train until at least ``until`` decisions are used; ``segment`` numbers the evaluation interval
        (for seeding it the same way in a resumed run)."""

    def agent(self) -> Any:
        raise NotImplementedError

    def save(self, folder: Path) -> None:
        """Write what a resumed run needs into ``folder`` (atomically)."""

    def load(self, folder: Path) -> None:
        """Restore what :meth:`save` wrote."""


@dataclass(frozen=True)
class AlgoSpec:
    name: str
    description: str
    learns: bool
    observation: str  # the observation format the learner reads ("dict", "compact", "-" for none)
    make: Callable[[Context], Learner]
    hyperparameters: dict[str, Any] = field(default_factory=dict)
    kinds: tuple[str, ...] = ("full", "endgame", "selfplay")
    # the games of the suite whose tasks it can run (empty: every one that has tasks)
    games: tuple[str, ...] = ()
    # what it needs of a game's benchmark part beyond the shared contract (one of the part's FEATURES, such as
    # "shaped_reward"); "" needs nothing more
    needs: str = ""

    def game_list(self) -> tuple[str, ...]:
        """The games whose tasks it can run (:mod:`benchmarks.protocol.games`)."""
        from benchmarks.protocol.games import bench_games, games_offering

        found = games_offering(self.needs) if self.needs else tuple(bench_games())
        return tuple(g for g in found if not self.games or g in self.games)

    def observation_in(self, game: str) -> str:
        """The observation format it reads in ``game`` (the game's benchmark part says: Springtime has one flat
        vector, 1,351 floats, for every learner)."""
        from benchmarks.protocol.games import bench_of

        return bench_of(game).observation_in(self.observation)


ALGOS: dict[str, AlgoSpec] = {}


class LogitsAgent:
    """A policy network as an agent: the argmax of its logits over the legal actions, or with ``sample`` a draw
    from its distribution over them (from a generator seeded by :meth:`reset`, which the evaluation calls with a
    seed fixed by the game and the run). ``encode(state)`` is the observation the network reads and
    ``logits(batch)`` the network's logits for a batch of one (a torch tensor in, one row out)."""

    def __init__(
        self, encode: Callable[[Any], Any], logits: Callable[[Any], Any], sample: bool = False
    ) -> None:
        self.encode = encode
        self.logits = logits
        self.sample = sample
        self.rng = np.random.default_rng(0)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act_state(self, state: Any) -> int:
        import torch

        obs = torch.as_tensor(self.encode(state)).unsqueeze(0)
        legal = state.legal_actions()
        with torch.inference_mode():
            logits = np.asarray(self.logits(obs)[0].numpy(), dtype=np.float64)
        if not self.sample:
            return int(legal[int(np.argmax(logits[legal]))])
        z = logits[legal] - logits[legal].max()
        p = np.exp(z)
        return int(legal[int(self.rng.choice(len(legal), p=p / p.sum()))])


def register(spec: AlgoSpec) -> None:
    ALGOS[spec.name] = spec
