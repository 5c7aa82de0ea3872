"""The scripted teacher's move at every learner decision of a PPO rollout, for kickstarting (``ppo.teacher``,
``ppo.teacher_coef``; issue 60).

Kickstarting (Schmitt et al. 2018, *Kickstarting Deep Reinforcement Learning*) adds to the PPO loss a
cross-entropy between the learner's policy and a teacher's on the states the *learner* visits. The teacher
here is a scripted bot (the side's ``expert``), so the term is DAgger's label on the learner's own states,
weighted beside the policy gradient: where the returns say nothing clear, the policy is pulled toward the
teacher instead of drifting, and where they do, PPO may move it away. The term is ``ppo.teacher_coef`` x
``-log pi(teacher's move)``.

Two pieces bring the label into the rollout buffer beside the observation it belongs to:

- :class:`TeacherLabelEnv` (a Gymnasium wrapper of the one-side env) asks the teacher for its move whenever
  the env hands the learner an observation (after ``reset`` and after every ``step`` that does not end the
  game) and keeps it as ``teacher_label`` (``-1`` where the game is over). The teacher sees the true state as
  the harness shows a bot its side's position (``act_state``, as the imitation stage labels,
  :mod:`training.imitation`); it is reset with its own seeded generator every game, so the labels, and the
  env's own dice, do not depend on whether they are asked for.
- :class:`TeacherLabelsVecEnv` reads the labels of the observations the learner is about to act on when the
  step is sent (``step_async``), before the envs move on; the rollout buffer copies them in ``add``, which
  SB3 calls after the step (:class:`training.model` ``FastDictRolloutBuffer``).
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

# the key under which a minibatch's observations carry the teacher's moves (the policy reads its inputs by
# name and ignores it)
TEACHER_KEY = "teacher_action"
NO_LABEL = -1


class TeacherLabelEnv(gym.Wrapper):
    """The one-side env with ``teacher_label``: the teacher's move at the learner's current decision."""

    def __init__(self, env: gym.Env, teacher: Any, seed: int) -> None:
        super().__init__(env)
        self.teacher = teacher
        self._rng = random.Random(seed)
        self.teacher_label = NO_LABEL

    def _label(self, done: bool) -> None:
        state = self.env.unwrapped.state  # type: ignore[attr-defined]
        self.teacher_label = NO_LABEL if done or state is None else int(self.teacher.act_state(state))

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        if hasattr(self.teacher, "reset"):
            self.teacher.reset(self._rng.randrange(2**31))
        self._label(False)
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._label(bool(terminated or truncated))
        return obs, float(reward), bool(terminated), bool(truncated), info


class TeacherLabelsVecEnv(VecEnvWrapper):
    """The vectorised envs, with ``labels_of_last_obs``: the teacher's move at each env's observation that the
    learner acts on in the step being sent (read before the envs step and auto-reset)."""

    provides_teacher_labels = True

    def __init__(self, venv: VecEnv) -> None:
        super().__init__(venv)
        self.labels_of_last_obs = np.full(self.num_envs, NO_LABEL, dtype=np.int64)

    def reset(self) -> Any:
        return self.venv.reset()

    def step_async(self, actions: np.ndarray) -> None:
        self.labels_of_last_obs = np.asarray(self.venv.get_attr("teacher_label"), dtype=np.int64)
        self.venv.step_async(actions)

    def step_wait(self) -> Any:
        return self.venv.step_wait()


def teacher_loss(distribution: Any, labels: Any) -> tuple[Any, float, float]:
    """``-log pi(label)`` averaged over the rows that have a label, the share of those rows whose argmax is
    the label, and that share of rows (a zero loss where none has one)."""
    import torch

    labels = labels.long().flatten()
    has = labels >= 0
    if not bool(has.any()):
        return torch.zeros(()), 0.0, 0.0
    safe = torch.where(has, labels, torch.zeros_like(labels))
    logp = distribution.log_prob(safe)
    ce = -(logp * has).sum() / has.sum()
    with torch.no_grad():
        agree = (distribution.logits.argmax(-1) == labels)[has].float().mean().item()
    return ce, agree, float(has.float().mean().item())
