"""Springtime for Hitler as a PettingZoo AEC environment (``springtime_v0``) and a one-side gymnasium env.

A thin translation layer over the rules core (:mod:`ffo_env.springtime.core`): the core owns legality,
dice, hidden information and the turn sequence; :mod:`ffo_env.springtime.encoding` owns the tensor.

==================  ==========================================================
Import              ``from ffo_env import springtime_v0``; ``springtime_v0.env()``
                    (wrapped), ``raw_env()``, ``parallel_env()`` (turn-based)
Agents              ``["french", "german"]`` (the Allied and the Axis player);
                    the agent to act is the core's ``State.current_agent``:
                    inside an impulse the other side answers its own decisions
                    (Lead Defending Unit, defender's air, retreats, ...)
Action space        ``Discrete(294)``, the core's segments
                    (:mod:`ffo_env.springtime.core.actions`)
Observation         ``{"observation": Box(0, 1, (1351,), float32),
                    "action_mask": Box(0, 1, (294,), int8)}``; layout in
                    :mod:`ffo_env.springtime.encoding`; computed from the
                    core's redacted view (fog: the other side's Event markers)
Rewards             ``reward="win"`` (default): +1 / -1 at the end (zero-sum),
                    else 0. ``reward="shaped"``: besides, at every step the
                    French get ``shaping_scale`` x (P' - P) and the German
                    minus that, where P is ``french_potential(state)`` of
                    :mod:`ffo_env.springtime.core.flow` (French Morale / 30:
                    1.0 at the campaign's start, 0 where the Axis wins
                    automatically, rule 16.1.1) before and after the step
                    (an illegal action changes nothing); zero-sum, and a
                    game's French total is its +/-1 plus ``shaping_scale`` x
                    (final P - initial P). Default ``shaping_scale`` 0.5: one
                    Morale point is worth 1/60
Illegal actions     ``illegal_action="penalty"`` (default, PettingZoo classic):
                    the offender gets -1, the other +1, the game ends, ``info``
                    names the action and the reason; the core state is not
                    changed. ``"raise"`` raises ``IllegalActionError``
Truncation          after ``max_steps`` decisions (default: none)
Render              ``render_mode="ansi"``: the core's text notation of the
                    position (omniscient: both held markers; for spectators)
==================  ==========================================================

Options: ``scenario`` (``"campaign"``, ``"plan_red"``), ``rules`` (a
:class:`~ffo_env.springtime.core.game.RulesOptions` or a dict of its fields), ``illegal_action``,
``render_mode``, ``max_steps``, ``reward`` (``"win"``, ``"shaped"``), ``shaping_scale``. ``reset(seed)`` seeds the env's generator, which draws the game seed;
``reset(options={"game_seed": n})`` uses ``n`` directly, ``{"state": s}`` starts from a copy of ``s``.

Version history: v0 -- first release.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from ffo_env.springtime.core.actions import N_ACTIONS, IllegalActionError
from ffo_env.springtime.core.data import AGENTS
from ffo_env.springtime.core.flow import french_potential
from ffo_env.springtime.core.game import Game, RulesOptions
from ffo_env.springtime.core.state import State
from ffo_env.springtime.encoding import OBS_SIZE, encode

__all__ = ["AGENTS", "SpringtimeSingleAgentEnv", "env", "make_game", "parallel_env", "raw_env"]

ILLEGAL_ACTION_MODES = ("penalty", "raise")
REWARDS = ("win", "shaped")
SHAPING_SCALE = 0.5  # the default: the potential's campaign range (Morale 30 -> 0) is worth half a win
RENDER_MODES = ("ansi",)


def make_game(scenario: str = "campaign", rules: RulesOptions | dict[str, Any] | None = None) -> Game:
    options = rules if isinstance(rules, RulesOptions) else RulesOptions.from_dict(dict(rules or {}))
    return Game(scenario=scenario, options=options)


def as_action(action: Any) -> int:
    """``action`` as an action number, or a ``TypeError``/``ValueError`` saying what is wrong with it
    (integers only: a float must not be rounded into a move)."""
    a = action
    if isinstance(a, np.ndarray):
        if a.size != 1 or not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"an action is one integer, got an array of dtype {a.dtype} and shape {a.shape}")
        a = a.reshape(()).item()
    elif isinstance(a, np.integer):
        a = int(a)
    if isinstance(a, bool) or not isinstance(a, int):
        raise TypeError(f"an action is an integer in 0..{N_ACTIONS - 1}, got {action!r}")
    if not 0 <= a < N_ACTIONS:
        raise ValueError(f"action {a} is out of range 0..{N_ACTIONS - 1}")
    return a


def apply_or_reason(state: State, action: Any, mode: str) -> str | None:
    """Apply a legal ``action`` and return None; else the state is unchanged and either
    :class:`IllegalActionError` is raised (``mode="raise"``) or the reason is returned."""
    try:
        state.apply_action(as_action(action))
    except (IllegalActionError, TypeError, ValueError) as e:
        if mode == "raise":
            if isinstance(e, IllegalActionError):
                raise
            raise IllegalActionError(f"{state.decision_string()}: {e}") from e
        return str(e)
    return None


def _check(name: str, value: Any, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")


def _obs_space() -> spaces.Box:
    return spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32)


def _mask_space() -> spaces.Box:
    return spaces.Box(0, 1, (N_ACTIONS,), np.int8)


def _start(game: Game, rng: np.random.Generator, options: dict[str, Any] | None) -> State:
    options = options or {}
    start = options.get("state")
    if start is not None:
        if not isinstance(start, State):
            raise TypeError(f"options['state'] must be a Springtime State, got {type(start).__name__}")
        return start.clone()
    gs = options.get("game_seed")
    return game.new_initial_state(int(gs) if gs is not None else int(rng.integers(0, 2**31 - 1)))


class raw_env(AECEnv):  # noqa: N801 - PettingZoo naming convention
    """The unwrapped AEC environment (see the module docstring)."""

    metadata = {"name": "springtime_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        scenario: str = "campaign",
        rules: RulesOptions | dict[str, Any] | None = None,
        illegal_action: str = "penalty",
        render_mode: str | None = None,
        max_steps: int | None = None,
        reward: str = "win",
        shaping_scale: float = SHAPING_SCALE,
    ) -> None:
        super().__init__()
        _check("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        _check("reward", reward, REWARDS)
        if render_mode is not None:
            _check("render_mode", render_mode, RENDER_MODES)
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"max_steps must be positive or None, got {max_steps!r}")
        self.game = make_game(scenario, rules)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.reward_mode = reward
        self.shaping_scale = float(shaping_scale)
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        space = spaces.Dict({"observation": _obs_space(), "action_mask": _mask_space()})
        self.observation_spaces = dict.fromkeys(AGENTS, space)
        self.action_spaces: dict[str, spaces.Space] = {a: spaces.Discrete(N_ACTIONS) for a in AGENTS}
        self._state: State | None = None
        self._over = False
        self._rng = np.random.default_rng()
        self.num_steps = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def game_state(self) -> State:
        """The core state (read or clone it; change it only through ``step``)."""
        if self._state is None:
            raise RuntimeError("call reset() before reading the game state")
        return self._state

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._state = _start(self.game, self._rng, options)
        self.num_steps = 0
        self._over = False
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        if self._state.is_terminal():
            self.terminations = dict.fromkeys(AGENTS, True)
            self._finish_infos()
            self.agent_selection = AGENTS[0]
        else:
            self.agent_selection = self._state.current_agent

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.game_state
        shaped = self.reward_mode == "shaped"
        p0 = french_potential(s) if shaped else 0.0
        reason = apply_or_reason(s, action, self.illegal_action)
        self._cumulative_rewards[agent] = 0.0
        if reason is not None:
            other = AGENTS[1 - AGENTS.index(agent)]
            self._over = True
            self.rewards = {agent: -1.0, other: 1.0}
            self.terminations = dict.fromkeys(self.agents, True)
            for a in self.agents:
                self.infos[a] = {
                    "winner": other,
                    "illegal_action": action,
                    "offender": agent,
                    "reason": reason,
                    "steps": self.num_steps,
                }
            self.agent_selection = other
            self._accumulate_rewards()
            return
        self.num_steps += 1
        fr = self.shaping_scale * (french_potential(s) - p0) if shaped else 0.0
        if s.is_terminal():
            ret = s.returns()
            self.rewards = {"french": fr + ret[0], "german": -fr + ret[1]}
            self.terminations = dict.fromkeys(self.agents, True)
            self._finish_infos()
            self.agent_selection = AGENTS[1 - AGENTS.index(agent)]
        else:
            self.rewards = {"french": fr, "german": -fr}
            if self.max_steps is not None and self.num_steps >= self.max_steps:
                self.truncations = dict.fromkeys(self.agents, True)
                self._finish_infos()
            self.agent_selection = s.current_agent
        self._accumulate_rewards()

    def _finish_infos(self) -> None:
        s = self.game_state
        winner = AGENTS[s.winner] if s.winner >= 0 else None
        for a in self.agents:
            self.infos[a] = {"winner": winner, "result": s.result, "turn": s.turn, "steps": self.num_steps}

    def _acting(self, agent: str) -> bool:
        s = self.game_state
        return (
            not self._over
            and not s.is_terminal()
            and not self.truncations.get(agent, False)
            and s.current_agent == agent
        )

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        agent = agent or self.agent_selection
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        if self._acting(agent):
            mask[self.game_state.legal_actions()] = 1
        return mask

    def observe(self, agent: str) -> dict[str, Any]:
        obs = encode(self.game_state, AGENTS.index(agent))
        return {"observation": obs, "action_mask": self.action_mask(agent)}

    def render(self) -> str | None:
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        return str(self.game_state)

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> AECEnv:
    """The AEC env in PettingZoo's ``OrderEnforcingWrapper`` (reset before step, ...); the env itself
    handles illegal actions (``illegal_action``), so no ``TerminateIllegalWrapper``."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> Any:
    """Turn-based parallel view (PettingZoo ``turn_based_aec_to_parallel``), as ``ffo_env.parallel_env``:
    every step takes a dict of actions of which only the acting agent's is used."""
    return turn_based_aec_to_parallel(raw_env(**kwargs))


class SpringtimeSingleAgentEnv(gym.Env):
    """One side against an ``opponent`` (an object with ``act_state(state) -> int``; None = uniform random
    from the env's seeded generator). ``observation_format="dict"``: ``{"observation", "action_mask"}``;
    ``"flat"``: the 1-D float32 ``Box`` only. :meth:`action_masks` gives the legal actions (sb3-contrib
    ``MaskablePPO``); ``info["action_mask"]`` too. Reward: the learner's +1 / -1 at the end; with
    ``reward="shaped"`` plus ``shaping_scale`` x the change of
    :func:`~ffo_env.springtime.core.flow.french_potential` over the step (the learner's move and the
    opponent's answers), with the learner's sign (minus for the German). An episode's total is then its
    +/-1 plus the scale x (final potential - potential at the learner's first decision)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        side: str = "french",
        opponent: Any = None,
        observation_format: str = "dict",
        scenario: str = "campaign",
        rules: RulesOptions | dict[str, Any] | None = None,
        illegal_action: str = "penalty",
        render_mode: str | None = None,
        max_steps: int | None = None,
        reward: str = "win",
        shaping_scale: float = SHAPING_SCALE,
    ) -> None:
        _check("side", side, AGENTS)
        _check("reward", reward, REWARDS)
        _check("observation_format", observation_format, ("dict", "flat"))
        _check("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        if render_mode is not None:
            _check("render_mode", render_mode, RENDER_MODES)
        self.side = AGENTS.index(side)
        self.opponent = opponent
        self.observation_format = observation_format
        self.game = make_game(scenario, rules)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.reward_mode = reward
        self.shaping_scale = float(shaping_scale)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space: spaces.Space = (
            _obs_space()
            if observation_format == "flat"
            else spaces.Dict({"observation": _obs_space(), "action_mask": _mask_space()})
        )
        self._state: State | None = None
        self.num_steps = 0

    @property
    def game_state(self) -> State:
        if self._state is None:
            raise RuntimeError("call reset() before reading the game state")
        return self._state

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        super().reset(seed=seed)
        if self.opponent is not None and hasattr(self.opponent, "reset"):
            self.opponent.reset(int(self.np_random.integers(0, 2**31 - 1)))
        self.num_steps = 0
        for _ in range(100):
            self._state = _start(self.game, self.np_random, options)
            self._play_opponent()
            if not self._state.is_terminal():
                return self._obs(), self._info()
            if options and "state" in options:
                break
        raise RuntimeError("the game ended before the learner could move")

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        s = self.game_state
        shaped = self.reward_mode == "shaped"
        p0 = french_potential(s) if shaped else 0.0
        reason = apply_or_reason(s, action, self.illegal_action)
        if reason is not None:
            info = {**self._info(), "illegal_action": action, "reason": reason}
            return self._obs(), -1.0, True, False, info
        self.num_steps += 1
        self._play_opponent()
        done = s.is_terminal()
        reward = float(s.returns()[self.side]) if done else 0.0
        if shaped:
            d = self.shaping_scale * (french_potential(s) - p0)
            reward += d if self.side == 0 else -d
        truncated = not done and self.max_steps is not None and self.num_steps >= self.max_steps
        return self._obs(), reward, done, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        s = self.game_state
        if not s.is_terminal() and s.current_side == self.side:
            mask[s.legal_actions()] = 1
        return mask

    def render(self) -> Any:
        return str(self.game_state) if self.render_mode == "ansi" else None

    def _play_opponent(self) -> None:
        s = self.game_state
        while not s.is_terminal() and s.current_side != self.side:
            if self.opponent is None:
                legal = s.legal_actions()
                a = legal[int(self.np_random.integers(len(legal)))]
            else:
                a = self.opponent.act_state(s)
            s.apply_action(a)

    def _obs(self) -> Any:
        obs = encode(self.game_state, self.side)
        if self.observation_format == "flat":
            return obs
        return {"observation": obs, "action_mask": self.action_masks()}

    def _info(self) -> dict[str, Any]:
        s = self.game_state
        winner = AGENTS[s.winner] if s.winner >= 0 else None
        return {"action_mask": self.action_masks(), "turn": s.turn, "winner": winner}
