"""The environments of a task: training envs (one side against an agent) and the evaluation starts, each from
the task's game's benchmark part (:mod:`benchmarks.protocol.games`), and :class:`FromStates`, which starts each
episode of a single-agent env of any game from a drawn saved state."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from benchmarks.protocol.games import bench_of
from benchmarks.protocol.task import Task


def eval_start(task: Task, i: int) -> Any:
    """The start of evaluation game ``i``, the same for every algorithm and seed: a new game with seed
    ``EVAL_SEED_BASE + i``, or for a task of saved starts (France Fights On's endgames) state ``i mod n`` of its
    evaluation set with dice seeded from that seed (the game's ``eval_start``)."""
    return bench_of(task.game).eval_start(task, i)


class FromStates(gym.Wrapper):
    """``starts.draw(rng)`` gives a saved state's dict (France Fights On's :class:`benchmarks.ffo.StartSampler`).
    Each reset starts the wrapped single-agent env from a drawn saved state. A drawn start whose game ends
    before the learner decides (the opponent wins first with these dice) is no episode: another is drawn, as
    the env itself deals another game when a new game ends before the learner moves."""

    MAX_DRAWS = 100

    def __init__(self, env: gym.Env, starts: Any) -> None:
        super().__init__(env)
        self.starts = starts
        self.rng = np.random.default_rng(0)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        from ffo_env.envs.suite_single_agent import NoLearnerDecision

        if seed is not None:
            self.rng = np.random.default_rng(seed)
        opts = dict(options or {})
        for _ in range(self.MAX_DRAWS):
            opts["state"] = self.starts.draw(self.rng)
            try:
                return self.env.reset(seed=seed, options=opts)
            except NoLearnerDecision:
                seed = None  # the next draw goes on from the env's generator, not a replay of this one
        raise RuntimeError(f"{self.MAX_DRAWS} drawn starts in a row ended before the learner decided")

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()  # type: ignore[attr-defined]


def make_env(
    task: Task, side: str, opponent: Any, observation_format: str, seed: int, reward: str = "win"
) -> gym.Env:
    """A training env of ``task`` for ``side`` against ``opponent`` (an agent object), reset with ``seed`` (the
    game's ``make_env``: France Fights On's endgame tasks start every episode from a drawn saved state;
    ``reward`` may be ``"shaped"`` where the game offers it, a learner's training choice)."""
    env: gym.Env = bench_of(task.game).make_env(task, side, opponent, observation_format, seed, reward)
    return env
