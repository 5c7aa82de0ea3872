"""One side of France Fights On against a fixed opponent, as a gymnasium ``Env``.

``FFOSingleAgentEnv(side="french", opponent=...)``:

- observation: ``Dict(planes, globals, units)`` of the learner's side (the same
  arrays as the AEC env's ``"observation"``, :mod:`ffo_env.encoding.observation`);
  suitable for stable-baselines3 ``MultiInputPolicy``; with ``observation_format="flat"``
  one 1-D float32 ``Box`` (layout: :mod:`ffo_env.envs.flat`) for MLPs and stock scripts; with
  ``observation_format="compact"`` a 1-D float32 ``Box`` of 4,490 floats
  (:mod:`ffo_env.encoding.compact`), for stock MLP scripts that must run fast;
- action: ``Discrete(1607)`` (index ranges in :mod:`ffo_env.envs.aec`);
  :meth:`action_masks` gives the legal actions for sb3-contrib ``MaskablePPO``
  (also through ``SubprocVecEnv``: it is a plain method);
- opponent: an object with ``act_state(state) -> int`` (preferred, fast), or with
  ``act(observation, action_mask) -> int``, or a plain callable ``f(state) -> int``;
  ``None`` plays uniformly at random from the env's seeded generator.
  ``opponent_sampler(rng) -> opponent`` (optional) picks the opponent at every
  reset (an opponent pool); ``reset(options={"opponent": o})`` forces one;
  ``reset(options={"state": s})`` starts from a position: a core ``State`` of the same game (copied) or a
  saved-state dict (``State.to_dict()``, checked by the core), instead of a new game;
- reward: the learner's: +1 / -1 at the end (also when the opponent's move ends
  the game), plus VP shaping with ``reward="shaped"`` (sign from the learner's side; it follows
  :func:`~ffo_env.envs.aec.shaped_vp`, which charges an over-stack to the move that makes it);
- ``info``: ``action_mask`` (int8, the learner's legal actions: the mask for scripts that read it from
  ``info``), ``vp``, ``turn``, ``winner`` (``None`` until the end), ``opponent`` (its ``name``), and at the end
  ``episode_stats`` = {``learner_steps``, ``opponent_steps``, ``vp``, ``winner``, ``turns``}
  (not ``episode``: stable-baselines3 reserves that key for its ``Monitor``);
- illegal actions (PettingZoo classic convention, ``illegal_action="penalty"``, the default): the
  learner loses, the episode ends with reward ``penalty`` (-1) and ``info["illegal_action"]`` /
  ``info["reason"]``; the core state is not changed. ``illegal_action="raise"`` raises
  :class:`~ffo_env.core.actions.IllegalActionError` instead (for debugging).
- ``game_state`` is the core :class:`~ffo_env.core.state.State` (``state`` is the same, kept for old code).

Registered with gymnasium as ``ffo_env/French-v0``, ``ffo_env/German-v0`` and the flat
``ffo_env/French-flat-v0``, ``ffo_env/German-flat-v0`` and the compact ``ffo_env/French-compact-v0``,
``ffo_env/German-compact-v0`` (:mod:`ffo_env.envs.registration`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from ffo_env.core.state import State
from ffo_env.encoding.compact import compact_encoder_for
from ffo_env.encoding.observation import encoder_for
from ffo_env.envs.aec import (
    AGENTS,
    ILLEGAL_ACTION_MODES,
    OBSERVATION_FORMATS,
    RENDER_MODES,
    REWARDS,
    VIEWS,
    apply_or_reason,
    make_game,
    shaped_vp,
)
from ffo_env.envs.flat import flat_layout
from ffo_env.envs.render import Renderer
from ffo_env.envs.spaces import action_space, compact_space, observation_dict_space

__all__ = ["FFOSingleAgentEnv"]


class FFOSingleAgentEnv(gym.Env):
    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        side: str = "french",
        opponent: Any = None,
        opponent_sampler: Callable[[np.random.Generator], Any] | None = None,
        setup: str = "random",
        reward: str = "win",
        rules: dict[str, Any] | None = None,
        max_steps: int | None = None,
        view: str = "player",
        render_mode: str | None = None,
        shaping_scale: float = 0.02,
        illegal_action: str = "penalty",
        penalty: float = -1.0,
        render_scale: float = 0.35,
        observation_format: str = "dict",
        data: str | os.PathLike[str] | None = None,
    ) -> None:
        if side not in AGENTS:
            raise ValueError(f"side must be one of {AGENTS}, got {side!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        if view not in VIEWS:
            raise ValueError(f"view must be one of {VIEWS}, got {view!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        if observation_format not in OBSERVATION_FORMATS:
            raise ValueError(
                f"observation_format must be one of {OBSERVATION_FORMATS}, got {observation_format!r}"
            )
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES} or None, got {render_mode!r}")
        self.side = side
        self.learner = AGENTS.index(side)
        self.game = make_game(setup, rules, data)
        self.encoder = encoder_for(self.game)
        self.observation_format = observation_format
        self._flat = flat_layout(self.game)
        self._compact = compact_encoder_for(self.game) if observation_format == "compact" else None
        self.observation_space = (
            self._flat.space()
            if observation_format == "flat"
            else compact_space(self.game)
            if self._compact is not None
            else observation_dict_space(self.game)
        )
        self.action_space = action_space(self.game)
        self.fixed_opponent = opponent
        self.opponent_sampler = opponent_sampler
        self.opponent: Any = opponent
        self.reward_mode = reward
        self.shaping_scale = float(shaping_scale)
        self.max_steps = max_steps
        self.omniscient = view == "omniscient"
        self.illegal_action = illegal_action
        self.penalty = float(penalty)
        self.render_mode = render_mode
        self.render_scale = render_scale
        self._renderer: Renderer | None = None
        self.game_state: State | None = None
        self._over = False  # ended on an illegal action (the core state is not terminal then)
        self._stats: dict[str, int] = {}
        # (state, history length, dice state, observation) of the last observation returned (_obs_unchanged)
        self._last_obs: tuple[State, int, int, np.ndarray] | None = None

    @property
    def state(self) -> State | None:
        """The core state (old name of :attr:`game_state`)."""
        return self.game_state

    @state.setter
    def state(self, value: State | None) -> None:
        self.game_state = value

    # ------------------------------------------------------------------ api

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        self._over = False
        options = options or {}
        if "opponent" in options:
            self.opponent = options["opponent"]
        elif self.opponent_sampler is not None:
            self.opponent = self.opponent_sampler(self.np_random)
        else:
            self.opponent = self.fixed_opponent
        if self.opponent is not None and hasattr(self.opponent, "reset"):
            self.opponent.reset(int(self.np_random.integers(0, 2**31 - 1)))
        self._stats = {"learner_steps": 0, "opponent_steps": 0}
        if options.get("state") is not None:
            # a given position (e.g. a benchmark's saved state): the opponent moves until the learner decides
            self.state = self._start_state(options["state"])
            self._shaping = 0.0
            self._play_opponent()
            if self.state.is_terminal():
                raise ValueError("options['state']: the game ends before the learner decides")
            return self._obs(), self._info()
        for _ in range(100):
            self.state = self.game.new_initial_state(int(self.np_random.integers(0, 2**31 - 1)))
            self._shaping = 0.0
            self._play_opponent()
            if not self.state.is_terminal():
                break
        else:  # pragma: no cover - the opponent ends every game before the learner moves
            raise RuntimeError("the opponent ended 100 games in a row before the learner could move")
        return self._obs(), self._info()

    def _start_state(self, start: Any) -> State:
        """``reset(options={"state": ...})``: a core State of this env's game (copied), or a saved-state dict
        (``State.to_dict``), which the core checks (one ``StateError`` naming the key if it is damaged)."""
        if isinstance(start, State):
            if (
                start.game.options != self.game.options
                or start.game.scenario.version != self.game.scenario.version
            ):
                raise ValueError(
                    f"options['state'] belongs to another game (rules {start.game.options}, data "
                    f"{start.game.scenario.version}); this env plays rules {self.game.options}, data "
                    f"{self.game.scenario.version}"
                )
            return start.clone()
        if isinstance(start, dict):
            return State.from_dict(self.game, start)
        raise TypeError(
            f"options['state'] must be a core State or a saved-state dict, got {type(start).__name__}"
        )

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        s = self.state
        if s is None:
            raise RuntimeError("call reset() before step()")
        if s.is_terminal() or self._over:
            raise RuntimeError("the episode is over; call reset()")
        shaped = self.reward_mode == "shaped"
        vp0 = shaped_vp(s) if shaped else 0
        reason = apply_or_reason(s, action, self.side, self.illegal_action)
        if reason is not None:
            self._over = True
            info = self._info()
            info["illegal_action"] = action
            info["reason"] = reason
            info["winner"] = AGENTS[1 - self.learner]
            info["episode_stats"] = {**self._episode(s), "winner": AGENTS[1 - self.learner]}
            return self._obs_unchanged(), self.penalty, True, False, info
        self._stats["learner_steps"] += 1
        self._play_opponent()
        reward = 0.0
        if shaped:
            d = self.shaping_scale * (shaped_vp(s) - vp0)
            reward += d if self.learner == 0 else -d
        terminated = s.is_terminal()
        if terminated:
            reward += s.returns()[self.learner]
        truncated = (
            not terminated and self.max_steps is not None and self._stats["learner_steps"] >= self.max_steps
        )
        info = self._info()
        if terminated or truncated:
            info["episode_stats"] = self._episode(s)
        return self._obs(), float(reward), terminated, bool(truncated), info

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions (sb3-contrib ``MaskablePPO``)."""
        s = self.state
        m = np.zeros(self.encoder.n_actions, dtype=bool)
        if s is not None and not self._over and not s.is_terminal() and int(s.player) == self.learner:
            m[s.legal_actions()] = True
        return m

    def render(self) -> Any:
        if self.render_mode is None or self.state is None:
            return None
        if self._renderer is None:
            self._renderer = Renderer(self.game, self.render_scale)
        return self._renderer.render(self.state, self.render_mode)

    # ------------------------------------------------------------------ internals

    def _play_opponent(self) -> None:
        """Opponent decisions until the learner decides or the game ends (with
        ``reward="shaped"`` the VP change of these moves counts in this step's reward)."""
        s = self.state
        assert s is not None
        opp = self.opponent
        while not s.is_terminal() and int(s.player) != self.learner:
            if opp is None:
                legal = s.legal_actions()
                a = legal[int(self.np_random.integers(len(legal)))]
            elif hasattr(opp, "act_state"):
                a = opp.act_state(s)
            elif hasattr(opp, "act"):
                side = int(s.player)
                a = opp.act(self.encoder.encode(s, side, self.omniscient), self.encoder.mask(s))
            elif callable(opp):
                a = opp(s)
            else:
                raise TypeError(f"opponent {opp!r} has neither act_state nor act and is not callable")
            s.apply_action(int(a))
            self._stats["opponent_steps"] += 1

    def _obs(self) -> Any:
        s = self.state
        assert s is not None
        if self._compact is not None:
            obs = self._compact.encode(s, self.learner, self.omniscient)
            # kept (a private copy: the caller may write into the one returned) for _obs_unchanged
            self._last_obs = (s, len(s.history), s.dice.state, obs.copy())
            return obs
        arrays = self.encoder.encode(s, self.learner, self.omniscient)
        if self.observation_format == "flat":
            return self._flat.flatten(arrays)
        return arrays

    def _obs_unchanged(self) -> Any:
        """The observation after an illegal action. The core left the state as it was (illegal actions never
        change it), so with the compact format it is a copy of the last one returned when nothing has played
        since (same state object, history and dice); otherwise it is encoded again. Stock scripts without
        masks (the compact format's users) make many illegal actions, and encoding is most of such a step."""
        s = self.state
        assert s is not None
        last = self._last_obs
        if last is None or last[0] is not s or last[1] != len(s.history) or last[2] != s.dice.state:
            return self._obs()
        return last[3].copy()

    def _info(self) -> dict[str, Any]:
        s = self.state
        assert s is not None
        return {
            "vp": s.vp,
            "turn": s.turn,
            "winner": None if s.winner is None else AGENTS[int(s.winner)],
            "opponent": self._opponent_name(),
            "action_mask": self.action_masks().astype(np.int8),
        }

    def _opponent_name(self) -> str:
        opp = self.opponent
        if opp is None:
            return "random"
        return str(getattr(opp, "name", type(opp).__name__))

    def _episode(self, s: State) -> dict[str, Any]:
        return {
            **self._stats,
            "vp": s.vp,
            "turns": s.turn,
            "winner": None if s.winner is None else AGENTS[int(s.winner)],
        }
