"""The environments of a task: training envs (one side against an agent) and the evaluation starts."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from benchmarks.protocol.states import start_states
from benchmarks.protocol.tasks import EVAL_SEED_BASE, Task


class StartSampler:
    """An endgame task's saved states (checked by the core on load); draws one per training episode with
    freshly seeded dice (R37: the saved dice state is replaced, so every episode has its own rolls)."""

    def __init__(self, path: Path) -> None:
        self.states = start_states(path)

    def draw(self, rng: np.random.Generator) -> dict[str, Any]:
        d = self.states[int(rng.integers(len(self.states)))].to_dict()
        d["dice_state"] = str(int(rng.integers(0, 2**63 - 1)))
        return d


@lru_cache(maxsize=4)
def sampler(path: Path) -> StartSampler:
    return StartSampler(path)


def eval_start(task: Task, i: int) -> Any:
    """The start of evaluation game ``i``: a new game with seed ``EVAL_SEED_BASE + i``, or for an endgame
    task state ``i mod n`` of its evaluation set (``n`` states; version 2: a set training never starts from)
    with dice seeded from that seed: the games are spread evenly over the saved states and every algorithm
    plays the same ones. A Springtime task: a new campaign with that seed."""
    from ffo_env.ffo.core.state import State
    from ffo_env.ffo.env import make_game

    seed = EVAL_SEED_BASE + i
    if task.game == "springtime":
        from benchmarks.protocol import springtime

        return springtime.eval_start(seed)
    game = make_game("random")
    path = task.eval_state_path()
    if path is None:
        return game.new_initial_state(seed)
    states = sampler(path).states
    d = states[i % len(states)].to_dict()
    d["dice_state"] = str(seed * 1_000_003 + 17)
    return State.from_dict(game, d)


class FromStates(gym.Wrapper):
    """Each reset starts the wrapped single-agent env from a drawn saved state. A drawn start whose game ends
    before the learner decides (the opponent wins first with these dice) is no episode: another is drawn, as
    the env itself deals another game when a new game ends before the learner moves."""

    MAX_DRAWS = 100

    def __init__(self, env: gym.Env, starts: StartSampler) -> None:
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
    """A training env of ``task`` for ``side`` against ``opponent`` (an agent object), reset with ``seed``.
    Endgame tasks start every episode from a drawn saved state (``reset(options={"state": ...})``).
    Springtime tasks: :func:`benchmarks.protocol.springtime.make_env`, whose ``reward`` may be ``"shaped"``
    (a learner's training choice; France Fights On's training envs have the win reward only)."""
    from ffo_env.ffo.single_agent import FFOSingleAgentEnv

    if task.game == "springtime":
        from benchmarks.protocol import springtime

        sfh: gym.Env = springtime.make_env(side, opponent, observation_format, seed, reward)
        return sfh
    if reward != "win":
        raise ValueError(f"the {reward!r} training reward is for Springtime tasks only, not {task.id}")

    env: gym.Env = FFOSingleAgentEnv(side=side, opponent=opponent, observation_format=observation_format)
    path = task.state_path()
    if path is not None:
        env = FromStates(env, sampler(path))
    env.reset(seed=seed)
    return env
