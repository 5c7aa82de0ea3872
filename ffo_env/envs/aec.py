"""France Fights On (World at War #39) as a PettingZoo AEC environment: ``france_fights_on_v0``.

A thin translation layer over the rules core (:mod:`ffo_env.core`): the core owns
legality, dice and the turn sequence; this module owns the PettingZoo contract;
:mod:`ffo_env.encoding` owns the tensors.

==================  ==========================================================
Import              ``from ffo_env import env`` (wrapped) or ``raw_env``;
                    ``parallel_env`` (turn-based parallel view)
Agents              ``["french", "german"]`` (the decider of every decision is
                    named by the core: retreats, step losses, over-stack
                    removals and defensive support are made by the owning or
                    opposing side even in the other side's phase)
Action space        ``Discrete(1607)``: ``0..1529`` a hex (internal index,
                    :mod:`ffo_env.core.hexgrid`), ``1530..1591`` a unit (its
                    index in the scenario), ``1592..1597`` PASS, MOVE_FIRST,
                    FIGHT_FIRST, STUKA, NAVAL_FRENCH, NAVAL_BRITISH,
                    ``1598..1606`` lower the differential by 0..8 columns
Observation         ``{"observation": Dict(planes, globals, units),
                    "action_mask": Box(0, 1, (1607,), int8)}``; layout in
                    :mod:`ffo_env.encoding.observation`. With
                    ``observation_format="flat"`` the ``"observation"`` is one
                    1-D float32 ``Box`` (layout and offset lookup:
                    :mod:`ffo_env.envs.flat`), the mask beside it as before;
                    ``observation_format="compact"``: a 1-D float32 ``Box`` of
                    4,490 floats (:mod:`ffo_env.encoding.compact`)
Global state        ``state()`` / ``state_space``: the omniscient flat
                    observation seen from the French side (every unit
                    revealed; compact with ``observation_format="compact"``),
                    for centralised critics; ``game_state`` is
                    the core :class:`State`
Rewards             ``reward="win"``: +1 / -1 at the end (rule 4.3), else 0;
                    ``reward="shaped"``: plus ``shaping_scale`` x the change of
                    :func:`shaped_vp` (French VP + VP pending in over-stacked
                    German hexes) at every step to the French and minus that to
                    the German (zero-sum, potential-based: sums to
                    ``shaping_scale * final VP``)
Illegal actions     PettingZoo classic convention (``illegal_action="penalty"``,
                    the default): the acting agent loses (reward -1, the
                    other +1), the game ends, ``info`` names the action and
                    the reason; the core state is never changed by it.
                    ``illegal_action="raise"`` raises
                    :class:`~ffo_env.core.actions.IllegalActionError` instead
                    (for debugging), the state unchanged
Truncation          after ``max_steps`` decisions (default: none)
==================  ==========================================================

Options: ``setup`` (``"random"`` default, ``"fixed"``, ``"decide"``: R2),
``rules`` (a dict of other :class:`~ffo_env.core.game.RulesOptions` fields),
``data`` (the game data: ``"reconstruction-v3"``, the balanced default, ``"reconstruction-v2"``,
``"reconstruction-v1"``, or a folder of data files; None reads ``$FFO_DATA``),
``view`` (``"player"``: fog of war, rule 3.6; ``"omniscient"``: the same layout
with every unit revealed, for analysis only -- never the default),
``render_mode`` (``"ansi"``, ``"rgb_array"``; ``"human"`` prints the ansi text).

An action is an integer (``int``, a numpy integer or a 0-d integer array) in
``0..1606`` that is legal now; anything else (``None``, a float, a string, ``NaN``)
is illegal. ``env.unwrapped.game_state`` is the core :class:`State` (``clone()``,
``to_json()``); ``reset(options={"state": s})`` starts from a copy of ``s``. The env
survives ``copy.deepcopy`` and ``pickle``.

Version history: v0 -- first release; illegal actions end the game by default
(PettingZoo classic), flat observations, ``state()``; the core state moved from
``env.state`` to ``env.game_state``.
"""

from __future__ import annotations

import copy
import os
from collections import OrderedDict
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from ffo_env.core.actions import IllegalActionError
from ffo_env.core.datasets import DATA_VERSIONS, data_dir
from ffo_env.core.game import Game, RulesOptions
from ffo_env.core.scenario import scenario_for
from ffo_env.core.sides import SIDE_NAMES, Side
from ffo_env.core.state import State
from ffo_env.encoding.compact import compact_encoder_for
from ffo_env.encoding.observation import encoder_for
from ffo_env.envs.flat import flat_layout
from ffo_env.envs.render import Renderer
from ffo_env.envs.spaces import action_mask_space, action_space, compact_space, observation_dict_space

__all__ = [
    "AGENTS",
    "IllegalActionError",
    "apply_or_reason",
    "as_action",
    "env",
    "make_game",
    "parallel_env",
    "raw_env",
]

AGENTS = SIDE_NAMES
REWARDS = ("win", "shaped")


def shaped_vp(state: State) -> int:
    """The French VP that ``reward="shaped"`` follows: the score plus the VP pending in over-stacked
    German hexes (:meth:`~ffo_env.core.state.State.pending_overstack_vp`). The pending part is a
    potential (Ng, Harada & Russell 1999): it charges an over-stack to the move that makes it instead
    of to the removal at the end of the phase, many decisions later, and it is back to 0 when the
    phase ends, so it changes no game's total reward."""
    return state.vp + state.pending_overstack_vp()


VIEWS = ("player", "omniscient")
RENDER_MODES = ("ansi", "rgb_array", "human")
ILLEGAL_ACTION_MODES = ("penalty", "raise")
OBSERVATION_FORMATS = ("dict", "flat", "compact")


def as_action(action: Any, n_actions: int) -> int:
    """``action`` as an action number, or a ``TypeError``/``ValueError`` saying what is wrong with it.

    Integers only (``int``, numpy integers, 0-d or one-element integer arrays); not ``bool``, floats,
    strings or ``None``: a float such as ``1379.9`` must not be rounded into a move."""
    a = action
    if isinstance(a, np.ndarray):
        if a.size != 1 or not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"an action is one integer, got an array of dtype {a.dtype} and shape {a.shape}")
        a = a.reshape(()).item()
    elif isinstance(a, np.integer):
        a = int(a)
    if isinstance(a, bool) or not isinstance(a, int):
        raise TypeError(
            f"an action is an integer in 0..{n_actions - 1}, got {action!r} ({type(action).__name__})"
        )
    if not 0 <= a < n_actions:
        raise ValueError(f"action {a} is out of range 0..{n_actions - 1}")
    return a


def apply_or_reason(state: State, action: Any, who: str, mode: str) -> str | None:
    """Apply ``action`` if it is a legal action number and return None; otherwise the state is unchanged and
    either :class:`IllegalActionError` is raised (``mode="raise"``) or the reason is returned (the env then
    ends the game, PettingZoo's classic convention). One definition for the AEC and single-agent envs."""
    try:
        state.apply_action(as_action(action, state.game.num_distinct_actions))
    except (IllegalActionError, TypeError, ValueError) as e:
        if mode == "raise":
            if isinstance(e, IllegalActionError):
                raise
            raise IllegalActionError(f"{who} at {state.decision_string()}: {e}") from e
        return str(e)
    return None


def _check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")


_GAMES: OrderedDict[tuple[RulesOptions, str], Game] = OrderedDict()


def make_game(
    setup: str = "random", rules: dict[str, Any] | None = None, data: str | os.PathLike[str] | None = None
) -> Game:
    """The :class:`Game` with ``setup``, the other rules options of ``rules`` and the game data ``data``
    (a shipped data version such as ``"reconstruction-v1"``, a data folder, or None: ``$FFO_DATA`` or the
    default version).

    Games are immutable, so envs with the same options share one (and its encoder and tables): creating
    and closing many envs then costs no memory that outlives them."""
    opts = dict(rules or {})
    if "setup" in opts and opts["setup"] != setup:
        raise ValueError(f"setup given twice: setup={setup!r} and rules['setup']={opts['setup']!r}")
    opts["setup"] = setup
    options = RulesOptions.from_dict(opts)
    key = (options, str(data_dir(data).resolve()))
    game = _GAMES.get(key)
    if game is None:
        game = _GAMES[key] = Game(scenario=scenario_for(data), options=options)
        while len(_GAMES) > 8:
            _GAMES.popitem(last=False)
    else:
        _GAMES.move_to_end(key)
    return game


class raw_env(AECEnv):  # noqa: N801 - PettingZoo naming convention
    """The unwrapped AEC environment (see the module docstring)."""

    metadata = {
        "name": "france_fights_on_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "render_fps": 2,
        "is_parallelizable": False,  # turn-based: see parallel_env
    }

    def __init__(
        self,
        setup: str = "random",
        reward: str = "win",
        rules: dict[str, Any] | None = None,
        max_steps: int | None = None,
        view: str = "player",
        render_mode: str | None = None,
        shaping_scale: float = 0.02,
        render_scale: float = 0.35,
        game: Game | None = None,
        illegal_action: str = "penalty",
        observation_format: str = "dict",
        data: str | os.PathLike[str] | None = None,
    ) -> None:
        super().__init__()
        _check_choice("reward", reward, REWARDS)
        _check_choice("view", view, VIEWS)
        _check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        _check_choice("observation_format", observation_format, OBSERVATION_FORMATS)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES} or None, got {render_mode!r}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"max_steps must be positive or None, got {max_steps!r}")
        self.game = game if game is not None else make_game(setup, rules, data)
        self._data = None if data is None else str(data)
        self.reward_mode = reward
        self.shaping_scale = float(shaping_scale)
        self.max_steps = max_steps
        self.view = view
        self.omniscient = view == "omniscient"
        self.render_mode = render_mode
        self.render_scale = render_scale
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self._encoder = encoder_for(self.game)
        self.illegal_action = illegal_action
        self.observation_format = observation_format
        self._flat = flat_layout(self.game)
        self._compact = compact_encoder_for(self.game) if observation_format == "compact" else None
        inner: spaces.Space = (
            self._flat.space()
            if observation_format == "flat"
            else compact_space(self.game)
            if self._compact is not None
            else observation_dict_space(self.game)
        )
        obs_space = spaces.Dict({"observation": inner, "action_mask": action_mask_space(self.game)})
        self.state_space = compact_space(self.game) if self._compact is not None else self._flat.space()
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: action_space(self.game) for a in AGENTS}
        self._state: State | None = None
        self._over = False  # the game ended on an illegal action (the core state is not terminal then)
        self._rng = np.random.default_rng()
        self._renderer: Renderer | None = None
        self.num_steps = 0

    # ------------------------------------------------------------- spaces

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------- state

    @property
    def game_state(self) -> State:
        """The core game state (read it, clone it; change it only through ``step``)."""
        if self._state is None:
            raise RuntimeError("call reset() before reading the game state")
        return self._state

    def state(self) -> np.ndarray:
        """The global state for centralised critics: the omniscient observation from the French side,
        flat (``state_space``; layout :mod:`ffo_env.envs.flat`), or compact with ``observation_format=
        "compact"``. Not for acting agents."""
        if self._compact is not None:
            return self._compact.encode(self.game_state, 0, True)
        obs = self._encoder.encode(self.game_state, 0, True)
        return self._flat.flatten(obs)

    def __str__(self) -> str:
        return str(self.metadata["name"])

    # ------------------------------------------------------------- reset / step

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """New game. ``seed`` seeds the env's generator, which draws the game seed (R37).

        ``options``: ``{"state": State}`` starts from a clone of that state (same game
        options required); ``{"game_seed": int}`` uses that core seed directly.
        Other keys are ignored.
        """
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = options or {}
        start = options.get("state")
        if start is not None:
            if not isinstance(start, State):
                raise TypeError(f"options['state'] must be a core State, got {type(start).__name__}")
            if start.game.options != self.game.options:
                raise ValueError(
                    f"options['state'] was made with rules {start.game.options}, this env has "
                    f"{self.game.options}"
                )
            self._state = start.clone()
        else:
            gs = options.get("game_seed")
            game_seed = int(gs) if gs is not None else int(self._rng.integers(0, 2**31 - 1))
            self._state = self.game.new_initial_state(game_seed)
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
        shaped = self.reward_mode == "shaped"
        vp0 = shaped_vp(s) if shaped else 0
        reason = apply_or_reason(s, action, agent, self.illegal_action)
        if reason is not None:
            self._end_on_illegal(agent, action, reason)
            return
        self.num_steps += 1
        self._cumulative_rewards[agent] = 0.0
        fr = 0.0
        if shaped:
            fr = self.shaping_scale * (shaped_vp(s) - vp0)
        if s.is_terminal():
            ret = s.returns()
            self.rewards = {"french": fr + ret[0], "german": -fr + ret[1]}
            self.terminations = dict.fromkeys(self.agents, True)
            self._finish_infos()
            self.agent_selection = "german" if agent == "french" else "french"
        else:
            self.rewards = {"french": fr, "german": -fr}
            if self.max_steps is not None and self.num_steps >= self.max_steps:
                self.truncations = dict.fromkeys(self.agents, True)
                self._finish_infos()
            self.agent_selection = s.current_agent
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_on_illegal(self, agent: str, action: Any, reason: str) -> None:
        """PettingZoo classic: the offender loses, the other agent wins, the game ends (state unchanged)."""
        other = "german" if agent == "french" else "french"
        self._over = True
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {agent: -1.0, other: 1.0}
        self.terminations = dict.fromkeys(self.agents, True)
        s = self.game_state
        for a in self.agents:
            self.infos[a] = {
                "winner": other,
                "vp": s.vp,
                "turn": s.turn,
                "steps": self.num_steps,
                "illegal_action": action,
                "offender": agent,
                "reason": reason,
            }
        self.agent_selection = other
        self._accumulate_rewards()

    def _finish_infos(self) -> None:
        s = self.game_state
        winner = None if s.winner is None else AGENTS[int(s.winner)]
        for a in self.agents:
            self.infos[a] = {"winner": winner, "vp": s.vp, "turn": s.turn, "steps": self.num_steps}

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
        side = int(Side.of(agent))
        mask = np.zeros(self._encoder.n_actions, dtype=np.int8)
        legal = None
        if self._acting(agent):
            legal = s.legal_actions()
            mask[legal] = 1
        if self._compact is not None:
            return {
                "observation": self._compact.encode(s, side, self.omniscient, legal=legal),
                "action_mask": mask,
            }
        obs: Any = self._encoder.encode(s, side, self.omniscient, legal=legal)
        if self.observation_format == "flat":
            obs = self._flat.flatten(obs)
        return {"observation": obs, "action_mask": mask}

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The action mask of ``agent`` (default: the agent to act), without the observation."""
        agent = agent or self.agent_selection
        mask = np.zeros(self._encoder.n_actions, dtype=np.int8)
        if self._acting(agent):
            mask[self.game_state.legal_actions()] = 1
        return mask

    # ------------------------------------------------------------- render

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi' or 'rgb_array'"
            )
            return None
        if self._renderer is None:
            self._renderer = Renderer(self.game, self.render_scale)
        return self._renderer.render(self.game_state, self.render_mode)

    def close(self) -> None:
        self._renderer = None

    # ------------------------------------------------------------- copying

    def __deepcopy__(self, memo: dict[int, Any]) -> raw_env:
        new = raw_env.__new__(raw_env)
        memo[id(self)] = new
        shared = {"game", "_encoder", "observation_spaces", "_renderer", "_flat", "_compact", "state_space"}
        for k, v in self.__dict__.items():
            if k in shared:
                new.__dict__[k] = v
            elif k == "_state":
                new.__dict__[k] = None if v is None else v.clone()
            else:
                new.__dict__[k] = copy.deepcopy(v, memo)
        return new

    def __getstate__(self) -> dict[str, Any]:
        skip = ("_encoder", "_renderer", "game", "_flat", "_compact")
        d = {k: v for k, v in self.__dict__.items() if k not in skip}
        d["_game_options"] = self.game.options.to_dict()
        # the data as it was given (a user's folder by its path), else a shipped version by its name
        version = self.game.scenario.version
        d["_game_data"] = self._data if self._data is not None or version not in DATA_VERSIONS else version
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        opts = d.pop("_game_options")
        version = d.pop("_game_data", None)
        st = d.get("_state")
        game = st.game if st is not None else make_game(opts["setup"], opts, version)
        self.__dict__.update(d)
        self.game = game
        self._encoder = encoder_for(game)
        self._flat = flat_layout(game)
        self._compact = compact_encoder_for(game) if self.observation_format == "compact" else None
        self._renderer = None


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped in PettingZoo's ``OrderEnforcingWrapper`` (reset before step, ...).

    Not ``AssertOutOfBoundsWrapper``: the core already rejects any action outside
    ``Discrete(1607)`` or not legal with a clear :class:`IllegalActionError` (an ``assert``
    would vanish under ``python -O``), and the wrapper cost ~10 µs a step. Not
    ``TerminateIllegalWrapper`` either: the env itself ends the game on an illegal action
    (``illegal_action="penalty"``, the default) with a zero-sum -1/+1 and the reason in ``info``.
    """
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def parallel_env(**kwargs: Any) -> Any:
    """Turn-based parallel view (PettingZoo ``turn_based_aec_to_parallel``): every step
    takes a dict of actions, of which only the acting agent's is used."""
    return turn_based_aec_to_parallel(raw_env(**kwargs))
