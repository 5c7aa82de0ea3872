"""France Fights On as an RLlib ``MultiAgentEnv`` (turn-based), for ``ffo train --backend rllib``.

Each agent (``"french"``, ``"german"``) observes ``{"observations": flat, "action_mask": mask}``: the flat
observation of :mod:`ffo_env.ffo.encoding.flat` and the legal actions as 0/1 floats, the form RLlib's action-masking
RLModule reads. Only the agent to act receives an observation at each step (the decider of every decision
is named by the core); rewards are zero-sum (+1/-1 at the end, or the AEC env's shaped reward), and both
agents get their final reward when the game ends. Illegal actions cannot occur under the mask; if one is
sent the AEC env's PettingZoo-classic rule applies (the offender loses).
"""

from __future__ import annotations

from typing import Any, cast

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from ffo_env.ffo.env import AGENTS, raw_env

__all__ = ["FFOMultiAgentEnv"]


class FFOMultiAgentEnv(MultiAgentEnv):
    """``config``: the keyword arguments of :class:`ffo_env.ffo.env.raw_env` (``setup``, ``reward``, ...)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        kwargs = dict(config or {})
        kwargs["observation_format"] = "flat"
        self.env = raw_env(**kwargs)
        flat = cast(gym.spaces.Dict, self.env.observation_space("french"))["observation"]
        n = int(cast(gym.spaces.Discrete, self.env.action_space("french")).n)
        space = gym.spaces.Dict(
            {
                "observations": flat,
                "action_mask": gym.spaces.Box(0.0, 1.0, shape=(n,), dtype=np.float32),
            }
        )
        self.agents = self.possible_agents = list(AGENTS)
        self.observation_spaces = {a: space for a in AGENTS}
        self.action_spaces = {a: self.env.action_space(a) for a in AGENTS}

    def _obs_of(self, agent: str) -> dict[str, np.ndarray]:
        o = self.env.observe(agent)
        return {"observations": o["observation"], "action_mask": o["action_mask"].astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        self.env.reset(seed=seed, options=options)
        agent = self.env.agent_selection
        return {agent: self._obs_of(agent)}, {}

    def step(self, action_dict: dict[Any, Any]) -> tuple[dict, dict, dict, dict, dict]:  # type: ignore[override]
        agent = self.env.agent_selection
        self.env.step(action_dict[agent])
        # RLlib wants a reward for every agent that acted and observes again (0.0 on most turns)
        rewards = {a: float(r) for a, r in self.env.rewards.items() if r or a == agent}
        done = all(self.env.terminations.values())
        truncated = all(self.env.truncations.values())
        if done or truncated:
            rewards = {a: float(self.env.rewards.get(a, 0.0)) for a in AGENTS}
            obs = {a: self._obs_of(a) for a in AGENTS}  # final observations (all-zero masks)
            infos = {a: dict(self.env.infos.get(a, {})) for a in AGENTS}
            for info in infos.values():
                info.pop("illegal_action", None)  # may be any object: keep infos serialisable
            return obs, rewards, {"__all__": done}, {"__all__": truncated and not done}, infos
        nxt = self.env.agent_selection
        return {nxt: self._obs_of(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {}
