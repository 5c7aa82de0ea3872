"""The PettingZoo AEC environment of every game of the suite: :class:`SuiteAECEnv`, and its wrapped and
turn-based parallel forms (:func:`wrapped`, :func:`parallel`).

A game's env (``ffo_env.ffo.env.raw_env``, ``ffo_env.springtime.env.raw_env``) is a thin subclass that
builds its :class:`~ffo_env.envs.adapter.GameAdapter` from the game's options; the contract below is
the same for all (each game's module docstring is its spec):

==================  ==========================================================
Agents              ``["french", "german"]``; the agent to act is the core's
                    ``state.current_agent`` (a decision may belong to the side
                    whose phase it is not: retreats, losses, answers)
Observation         ``{"observation": adapter.observation_space,
                    "action_mask": Box(0, 1, (n_actions,), int8)}``; the mask
                    is all zeros for an agent not to act and after the end
Rewards             ``reward="win"`` (default): the core's ``returns()`` at the
                    end, +1 / -1, else 0. ``reward="shaped"``: besides, every
                    step gives the French ``shaping_scale`` x (P' - P) and the
                    German minus that, P = ``adapter.potential`` before and
                    after the step; so a game's French total is its +/-1 plus
                    ``shaping_scale`` x (final P - initial P), zero-sum
Illegal actions     ``illegal_action="penalty"`` (default, PettingZoo classic):
                    the offender gets -1, the other +1, the game ends; the
                    ``info`` of both names ``illegal_action``, ``offender``,
                    ``reason`` and ``winner`` (the other agent). ``"raise"``:
                    the core's ``IllegalActionError``. Either way the core
                    state is not changed (the core checks before it acts)
Truncation          after ``max_steps`` decisions (default: none)
``info`` at the     ``winner`` (agent or None), the game's facts
end                 (``adapter.facts``), ``steps`` (decisions made)
Seeding             ``reset(seed)`` seeds the env's generator, which draws the
                    core seed of each game; ``options={"game_seed": n}`` uses
                    ``n``; ``options={"state": s}`` starts from a checked copy
Render              ``render_mode`` of the game's ``metadata``; ``"human"``
                    prints after every step
==================  ==========================================================

Deep copies share the adapter (the immutable game, encoders, tables) and clone the core state; pickling
sends the adapter as its options.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from ffo_env.envs.adapter import AGENTS, EnvOptions, GameAdapter, apply_or_reason

__all__ = ["SuiteAECEnv", "parallel", "wrapped"]

_SIDE = {a: i for i, a in enumerate(AGENTS)}
_OTHER = {"french": "german", "german": "french"}


class SuiteAECEnv(AECEnv):
    """The AEC env over ``adapter`` (see the module docstring); ``render_modes``: the game's modes."""

    metadata: dict[str, Any] = {"render_modes": [], "is_parallelizable": False}

    def __init__(
        self,
        adapter: GameAdapter,
        options: EnvOptions,
    ) -> None:
        super().__init__()
        if options.reward == "potential":
            # its per-episode sum is the learner's result: a one-side notion (the one-side env has it)
            raise ValueError(
                "reward='potential' is for the one-side Gymnasium env; the AEC env has 'win', 'shaped'"
            )
        self.adapter = adapter
        self.reward_mode = options.reward
        self.shaping_scale = float(options.shaping_scale)
        self.max_steps = options.max_steps
        self.illegal_action = options.illegal_action
        self.render_mode = options.render_mode
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        n = adapter.n_actions
        obs_space = spaces.Dict(
            {"observation": adapter.observation_space, "action_mask": spaces.Box(0, 1, (n,), np.int8)}
        )
        self.observation_spaces = dict.fromkeys(AGENTS, obs_space)
        self.action_spaces: dict[str, spaces.Space] = {a: spaces.Discrete(n) for a in AGENTS}
        self._state: Any = None
        self._over = False  # the game ended on an illegal action (the core state is not terminal then)
        self._rng = np.random.default_rng()
        self._renderer: Any = None
        self.num_steps = 0

    @property
    def game(self) -> Any:
        """The core's immutable ``Game`` (rules options, scenario, tables)."""
        return self.adapter.game

    # ------------------------------------------------------------- spaces

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------- state

    @property
    def game_state(self) -> Any:
        """The core game state (read it, clone it; change it only through ``step``)."""
        if self._state is None:
            raise RuntimeError("call reset() before reading the game state")
        return self._state

    def __str__(self) -> str:
        return str(self.metadata["name"])

    # ------------------------------------------------------------- reset / step

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """New game. ``seed`` seeds the env's generator, which draws the core seed of each game.

        ``options``: ``{"state": s}`` starts from a checked copy of ``s`` (a state of this env's game, or
        a saved-state dict); ``{"game_seed": int}`` uses that core seed directly. Other keys are ignored.
        """
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = options or {}
        start = options.get("state")
        if start is not None:
            self._state = self.adapter.start_state(start)
        else:
            gs = options.get("game_seed")
            game_seed = int(gs) if gs is not None else int(self._rng.integers(0, 2**31 - 1))
            self._state = self.adapter.new_state(game_seed)
        self.num_steps = 0
        self._over = False
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        if self._state.is_terminal():
            self._finish_infos()
            self.terminations = dict.fromkeys(AGENTS, True)
            self.agent_selection = AGENTS[0]
        else:
            self.agent_selection = self._state.current_agent

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.game_state
        adapter = self.adapter
        shaped = self.reward_mode == "shaped"
        p0 = adapter.potential(s) if shaped else 0.0
        reason = apply_or_reason(
            s, action, agent, self.illegal_action, adapter.n_actions, adapter.illegal_error
        )
        if reason is not None:
            self._end_on_illegal(agent, action, reason)
            return
        self.num_steps += 1
        self._cumulative_rewards[agent] = 0.0
        fr = self.shaping_scale * (adapter.potential(s) - p0) if shaped else 0.0
        if s.is_terminal():
            ret = s.returns()
            self.rewards = {"french": fr + ret[0], "german": ret[1] - fr}
            self.terminations = dict.fromkeys(self.agents, True)
            self._finish_infos()
            self.agent_selection = _OTHER[agent]
        else:
            self.rewards = {"french": fr, "german": 0.0 - fr}  # 0.0 - fr: never a negative zero
            if self.max_steps is not None and self.num_steps >= self.max_steps:
                self.truncations = dict.fromkeys(self.agents, True)
                self._finish_infos()
            self.agent_selection = s.current_agent
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_on_illegal(self, agent: str, action: Any, reason: str) -> None:
        """PettingZoo classic: the offender loses, the other agent wins, the game ends (state unchanged)."""
        other = _OTHER[agent]
        self._over = True
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {agent: -1.0, other: 1.0}
        self.terminations = dict.fromkeys(self.agents, True)
        facts = self.adapter.facts(self.game_state)
        for a in self.agents:
            self.infos[a] = {
                "winner": other,
                **facts,
                "steps": self.num_steps,
                "illegal_action": action,
                "offender": agent,
                "reason": reason,
            }
        self.agent_selection = other
        self._accumulate_rewards()

    def _finish_infos(self) -> None:
        s = self.game_state
        info = {"winner": self.adapter.winner(s), **self.adapter.facts(s), "steps": self.num_steps}
        for a in self.agents:
            self.infos[a] = dict(info)

    # ------------------------------------------------------------- observe

    def _acting(self, agent: str) -> bool:
        s = self.game_state
        return (
            not self._over
            and not s.is_terminal()
            and not self.truncations.get(agent, False)
            and s.current_agent == agent
        )

    def observe(self, agent: str) -> dict[str, Any]:
        s = self.game_state
        mask = np.zeros(self.adapter.n_actions, dtype=np.int8)
        legal = None
        if self._acting(agent):
            legal = s.legal_actions()
            mask[legal] = 1
        return {"observation": self.adapter.encode(s, _SIDE[agent], legal), "action_mask": mask}

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The action mask of ``agent`` (default: the agent to act), without the observation."""
        agent = agent or self.agent_selection
        mask = np.zeros(self.adapter.n_actions, dtype=np.int8)
        if self._acting(agent):
            mask[self.game_state.legal_actions()] = 1
        return mask

    # ------------------------------------------------------------- render

    def render(self) -> Any:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "render() called without a render_mode; pass one of "
                + ", ".join(self.metadata["render_modes"])
            )
            return None
        if self._renderer is None:
            self._renderer = self.adapter.make_renderer()
        return self._renderer.render(self.game_state, self.render_mode)

    def close(self) -> None:
        self._renderer = None

    # ------------------------------------------------------------- copying

    def __deepcopy__(self, memo: dict[int, Any]) -> SuiteAECEnv:
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            if k in ("adapter", "_renderer"):
                new.__dict__[k] = v
            elif k == "_state":
                new.__dict__[k] = None if v is None else v.clone()
            else:
                new.__dict__[k] = copy.deepcopy(v, memo)
        return new

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_renderer"}

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__dict__.update(d)
        self._renderer = None
        if self._state is not None:
            self.adapter = self.adapter.for_game(self._state.game)


def wrapped(env: AECEnv) -> AECEnv:
    """``env`` in PettingZoo's ``OrderEnforcingWrapper`` (reset before step, ...).

    Not ``AssertOutOfBoundsWrapper``: the core already rejects any action outside the action space or not
    legal with a clear ``IllegalActionError`` (an ``assert`` would vanish under ``python -O``), and the
    wrapper cost ~10 µs a step. Not ``TerminateIllegalWrapper`` either: the env itself ends the game on an
    illegal action (``illegal_action="penalty"``, the default) with a zero-sum -1/+1 and the reason in
    ``info``."""
    out: AECEnv = wrappers.OrderEnforcingWrapper(env)
    return out


def parallel(env: AECEnv) -> Any:
    """Turn-based parallel view (PettingZoo ``turn_based_aec_to_parallel``): every step takes a dict of
    actions, of which only the acting agent's is used."""
    return turn_based_aec_to_parallel(env)
