"""Springtime for Hitler as a PettingZoo AEC environment (``springtime_v0``) and a one-side gymnasium env.

A thin translation layer over the rules core (:mod:`ffo_env.springtime.core`): the core owns legality,
dice, hidden information and the turn sequence; :mod:`ffo_env.springtime.encoding` owns the tensor. The
PettingZoo and Gymnasium contracts are the suite's, shared with France Fights On
(:class:`~ffo_env.envs.suite_aec.SuiteAECEnv`, :class:`~ffo_env.envs.suite_single_agent.SuiteSingleAgentEnv`);
this module holds Springtime's adapter (:class:`SpringtimeAdapter`) and its options.

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
                    core's redacted view (fog: the other side's Event markers,
                    the seed and the dice generator, a secret free setup)
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
``info``            at the end ``winner``, ``result`` (the core's: ``automatic``,
                    ``operational``, ``allied``; ``""`` after an illegal
                    action), ``turn``, ``steps``
Render              ``render_mode="ansi"``: the core's text notation of the
                    position (omniscient: both held markers; for spectators)
==================  ==========================================================

Options: ``scenario`` (``"campaign"``, ``"plan_red"``), ``rules`` (a
:class:`~ffo_env.springtime.core.game.RulesOptions` or a dict of its fields), ``illegal_action``,
``render_mode``, ``max_steps``, ``reward`` (``"win"``, ``"shaped"``), ``shaping_scale``. The potential is
French Morale over the campaign's printed starting Morale, 30 (rule 5.1.3): Plan Red starts at 20 / 30, a
bid (rule 17.1) moves the start, and Morale has no bounds (S49), so neither has P.

``reset(seed)`` seeds the env's generator, which draws the game seed;
``reset(options={"game_seed": n})`` uses ``n`` directly, ``{"state": s}`` starts from a copy of ``s`` (a
core ``State`` of the same scenario and rules, or a saved-state dict, checked by the core).

The one-side env :class:`SpringtimeSingleAgentEnv` is the suite's (its contract:
:mod:`ffo_env.envs.suite_single_agent`): ``opponent``, ``opponent_sampler``, ``penalty``,
``reset(options={"opponent": o})``; ``info`` holds ``result``, ``turn``, ``winner``, ``opponent``,
``action_mask`` and at the end ``episode_stats`` (``learner_steps``, ``opponent_steps``, ``turns``,
``result``, ``morale``, ``winner``).

Version history: v0 -- first release; ``reward="shaped"`` added; served by the suite's shared
environments (the single-agent env gained the opponent pool, ``penalty``, ``episode_stats`` and the
``info`` keys ``result`` and ``opponent``; after an illegal action its mask is empty and ``winner`` names
the opponent, as in France Fights On); rules engine ``springtime-core-2`` (issue 61): no seed in a view, an
Event window asked whenever a marker is held (P10, ``NO`` then its one legal action if the marker cannot be
played now), the BEF rebuilt per rule 12.3.2 (same spaces and observation layout).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ffo_env.envs import adapter as _shared
from ffo_env.envs.adapter import EnvOptions, GameAdapter, check_choice
from ffo_env.envs.suite_aec import SuiteAECEnv, parallel, wrapped
from ffo_env.envs.suite_single_agent import SuiteSingleAgentEnv
from ffo_env.springtime.core.actions import N_ACTIONS, IllegalActionError
from ffo_env.springtime.core.data import AGENTS
from ffo_env.springtime.core.flow import french_potential
from ffo_env.springtime.core.game import Game, RulesOptions
from ffo_env.springtime.core.state import State
from ffo_env.springtime.core.state_io import state_from_dict
from ffo_env.springtime.encoding import OBS_SIZE, encode

__all__ = [
    "AGENTS",
    "SpringtimeAdapter",
    "SpringtimeSingleAgentEnv",
    "env",
    "make_adapter",
    "make_game",
    "parallel_env",
    "raw_env",
]

ILLEGAL_ACTION_MODES = _shared.ILLEGAL_ACTION_MODES
REWARDS = _shared.REWARDS
RENDER_MODES = ("ansi",)
SHAPING_SCALE = 0.5  # the default: the potential's campaign range (Morale 30 -> 0) is worth half a win


def make_game(scenario: str = "campaign", rules: RulesOptions | dict[str, Any] | None = None) -> Game:
    options = rules if isinstance(rules, RulesOptions) else RulesOptions.from_dict(dict(rules or {}))
    return Game(scenario=scenario, options=options)


def as_action(action: Any) -> int:
    """``action`` as an action number, or a ``TypeError``/``ValueError`` saying what is wrong with it
    (integers only: a float must not be rounded into a move)."""
    return _shared.as_action(action, N_ACTIONS)


def apply_or_reason(state: State, action: Any, mode: str) -> str | None:
    """Apply a legal ``action`` and return None; else the state is unchanged and either
    :class:`IllegalActionError` is raised (``mode="raise"``) or the reason is returned."""
    return _shared.apply_or_reason(state, action, state.current_agent, mode, N_ACTIONS, IllegalActionError)


class _TextRenderer:
    """``render_mode="ansi"``: the core's text notation of the position (omniscient: for spectators)."""

    def render(self, state: State, mode: str) -> str:
        return str(state)


class SpringtimeAdapter(GameAdapter):
    """Springtime for Hitler with ``game`` (a scenario and rules options), as the shared environments see it
    (:mod:`ffo_env.envs.adapter`). The observation is :func:`~ffo_env.springtime.encoding.encode`, computed
    from the core's redacted view; the potential of ``reward="shaped"`` is
    :func:`~ffo_env.springtime.core.flow.french_potential` (French Morale / 30)."""

    illegal_error = IllegalActionError
    n_actions = N_ACTIONS

    def __init__(self, game: Game) -> None:
        self.game = game
        self.observation_space: spaces.Space = spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32)

    def new_state(self, seed: int) -> State:
        return self.game.new_initial_state(seed)

    def start_state(self, start: object) -> State:
        g = self.game
        if isinstance(start, dict):
            start = state_from_dict(start)
        if not isinstance(start, State):
            raise TypeError(
                f"options['state'] must be a Springtime State or a saved-state dict, got {type(start).__name__}"
            )
        if start.game.scenario != g.scenario or start.game.options != g.options:
            raise ValueError(
                f"options['state'] belongs to another game (scenario {start.game.scenario}, rules "
                f"{start.game.options}); this env plays scenario {g.scenario}, rules {g.options}"
            )
        return start.clone()

    def encode(self, state: State, side: int, legal: list[int] | None) -> np.ndarray:
        return encode(state, side)

    def opponent_observation(self, state: State, side: int) -> np.ndarray:
        return encode(state, side)

    def potential(self, state: State) -> float:
        return french_potential(state)

    def winner(self, state: State) -> str | None:
        return AGENTS[state.winner] if state.winner >= 0 else None

    def facts(self, state: State) -> dict[str, Any]:
        return {"result": state.result, "turn": state.turn}

    def episode_facts(self, state: State) -> dict[str, Any]:
        return {"turns": state.turn, "result": state.result, "morale": state.morale}

    def make_renderer(self) -> _TextRenderer:
        return _TextRenderer()

    def for_game(self, game: Any) -> SpringtimeAdapter:
        return self if game is self.game else SpringtimeAdapter(game)

    def __getstate__(self) -> dict[str, Any]:
        return {"scenario": self.game.scenario, "options": self.game.options.to_dict()}

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__init__(make_game(d["scenario"], d["options"]))  # type: ignore[misc]


def make_adapter(
    scenario: str = "campaign", rules: RulesOptions | dict[str, Any] | None = None
) -> SpringtimeAdapter:
    """The adapter of an env with these options (:meth:`ffo_env.games.GameInfo.env_adapter`)."""
    return SpringtimeAdapter(make_game(scenario, rules))


class raw_env(SuiteAECEnv):  # noqa: N801 - PettingZoo naming convention
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
        options = EnvOptions(reward, shaping_scale, max_steps, illegal_action, render_mode, RENDER_MODES)
        super().__init__(make_adapter(scenario, rules), options)

    @property
    def game_state(self) -> State:
        """The core state (read or clone it; change it only through ``step``)."""
        state: State = super().game_state
        return state


def env(**kwargs: Any) -> AECEnv:
    """The AEC env in PettingZoo's ``OrderEnforcingWrapper`` (reset before step, ...); the env itself
    handles illegal actions (``illegal_action``), so no ``TerminateIllegalWrapper``."""
    return wrapped(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> Any:
    """Turn-based parallel view (PettingZoo ``turn_based_aec_to_parallel``), as ``ffo_env.parallel_env``:
    every step takes a dict of actions of which only the acting agent's is used."""
    return parallel(raw_env(**kwargs))


class SpringtimeSingleAgentEnv(SuiteSingleAgentEnv):
    """One side against an ``opponent`` (an object with ``act_state(state) -> int``, ``act(observation,
    action_mask)`` or a callable; None = uniform random from the env's seeded generator; the contract:
    :mod:`ffo_env.envs.suite_single_agent`). ``observation_format="dict"``: ``{"observation",
    "action_mask"}``; ``"flat"``: the 1-D float32 ``Box`` only. :meth:`action_masks` gives the legal actions
    as int8 (sb3-contrib ``MaskablePPO``); ``info["action_mask"]`` too. Reward: the learner's +1 / -1 at the
    end; with ``reward="shaped"`` plus ``shaping_scale`` x the change of
    :func:`~ffo_env.springtime.core.flow.french_potential` over the step (the learner's move and the
    opponent's answers), with the learner's sign (minus for the German). An episode's total is then its
    +/-1 plus the scale x (final potential - potential at the learner's first decision).

    ``side`` is the learner's side number (0 ``french``, 1 ``german``), as before the shared env;
    ``num_steps`` the learner's decisions this episode."""

    metadata = {"render_modes": ["ansi"]}
    mask_dtype = np.int8

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
        opponent_sampler: Callable[[np.random.Generator], Any] | None = None,
        penalty: float = -1.0,
    ) -> None:
        options = EnvOptions(reward, shaping_scale, max_steps, illegal_action, render_mode, RENDER_MODES)
        check_choice("observation_format", observation_format, ("dict", "flat"))
        adapter = make_adapter(scenario, rules)
        super().__init__(adapter, options, side, opponent, opponent_sampler, penalty)
        self.side = self.learner
        self.observation_format = observation_format
        obs = adapter.observation_space
        self.observation_space: spaces.Space = (
            obs
            if observation_format == "flat"
            else spaces.Dict({"observation": obs, "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8)})
        )

    @property
    def game_state(self) -> State:
        state: State = self._game_state()
        return state

    @game_state.setter
    def game_state(self, value: State) -> None:
        self._state = value

    @property
    def num_steps(self) -> int:
        return self._stats.get("learner_steps", 0)

    def _obs(self) -> Any:
        obs = encode(self.game_state, self.learner)
        if self.observation_format == "flat":
            return obs
        return {"observation": obs, "action_mask": self.action_masks()}
