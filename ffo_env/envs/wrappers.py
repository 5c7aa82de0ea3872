"""Opt-in wrappers of the AEC environment.

:class:`IllegalActionPenalty` -- instead of raising, an illegal action ends the game:
the offender gets ``penalty`` (default -1), the other agent ``opponent_reward``
(default 0), every agent is terminated and ``infos[agent]["illegal_action"]`` names
the action. The core state is never changed by the illegal action. Legality is the
core's (``state.legal_actions()``), not a cached mask.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

__all__ = ["IllegalActionPenalty"]


class IllegalActionPenalty(BaseWrapper):
    def __init__(self, env: AECEnv, penalty: float = -1.0, opponent_reward: float = 0.0) -> None:
        super().__init__(env)
        self.penalty = float(penalty)
        self.opponent_reward = float(opponent_reward)

    def step(self, action: Any) -> None:
        raw = self.env.unwrapped
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            super().step(action)
            return
        legal = raw.game_state.legal_actions()
        try:
            a = int(action)
        except (TypeError, ValueError):
            a = -1
        if 0 <= a < raw.game.num_distinct_actions and a in legal:
            super().step(a)
            return
        raw._cumulative_rewards[agent] = 0.0
        raw.rewards = {x: (self.penalty if x == agent else self.opponent_reward) for x in raw.agents}
        raw.terminations = dict.fromkeys(raw.agents, True)
        for x in raw.agents:
            raw.infos[x] = {**raw.infos.get(x, {}), "illegal_action": action, "offender": agent}
        raw._accumulate_rewards()

    def __str__(self) -> str:
        return str(self.env)
