"""One side of France Fights On against a fixed opponent, as a gymnasium ``Env``.

``FFOSingleAgentEnv(side="french", opponent=...)``, the suite's one-side env
(:class:`~ffo_env.envs.suite_single_agent.SuiteSingleAgentEnv`, shared with Springtime for Hitler) over
France Fights On's adapter (:class:`~ffo_env.ffo.adapter.FFOAdapter`):

- observation: ``Dict(planes, globals, units)`` of the learner's side (the same
  arrays as the AEC env's ``"observation"``, :mod:`ffo_env.ffo.encoding.observation`);
  suitable for stable-baselines3 ``MultiInputPolicy``; with ``observation_format="flat"``
  one 1-D float32 ``Box`` (layout: :mod:`ffo_env.ffo.encoding.flat`) for MLPs and stock scripts; with
  ``observation_format="compact"`` a 1-D float32 ``Box`` of 4,490 floats
  (:mod:`ffo_env.ffo.encoding.compact`), for stock MLP scripts that must run fast;
- action: ``Discrete(1607)`` (index ranges in :mod:`ffo_env.ffo.env`);
  :meth:`action_masks` gives the legal actions for sb3-contrib ``MaskablePPO``
  (also through ``SubprocVecEnv``: it is a plain method);
- opponent: an object with ``act_state(state) -> int`` (preferred, fast), or with
  ``act(observation, action_mask) -> int``, or a plain callable ``f(state) -> int``;
  ``None`` plays uniformly at random from the env's seeded generator.
  ``opponent_sampler(rng) -> opponent`` (optional) picks the opponent at every
  reset (an opponent pool); ``reset(options={"opponent": o})`` forces one;
  ``reset(options={"state": s})`` starts from a position: a core ``State`` of the same game (copied) or a
  saved-state dict (``State.to_dict()``, checked by the core), instead of a new game;
  ``reset(options={"game_seed": n})`` plays core seed ``n``;
- reward: the learner's: +1 / -1 at the end (also when the opponent's move ends
  the game), plus VP shaping with ``reward="shaped"`` (sign from the learner's side; it follows
  :func:`~ffo_env.ffo.adapter.shaped_vp`, which charges an over-stack to the move that makes it);
  ``reward="potential"``: shaping on :func:`~ffo_env.ffo.adapter.projected_vp` (the final VP this
  position would give) whose potential is 0 at the end, so every episode's rewards sum to its +1 / -1;
- ``info``: ``action_mask`` (int8, the learner's legal actions: the mask for scripts that read it from
  ``info``), ``vp``, ``turn``, ``winner`` (``None`` until the end), ``opponent`` (its ``name``), and at the end
  ``episode_stats`` = {``learner_steps``, ``opponent_steps``, ``vp``, ``winner``, ``turns``}
  (not ``episode``: stable-baselines3 reserves that key for its ``Monitor``);
- illegal actions (PettingZoo classic convention, ``illegal_action="penalty"``, the default): the
  learner loses, the episode ends with reward ``penalty`` (-1) and ``info["illegal_action"]`` /
  ``info["reason"]``; the core state is not changed. ``illegal_action="raise"`` raises
  :class:`~ffo_env.ffo.core.actions.IllegalActionError` instead (for debugging).
- ``game_state`` is the core :class:`~ffo_env.ffo.core.state.State` (``state`` is the same, kept for old code).

Registered with gymnasium as ``ffo_env/French-v0``, ``ffo_env/German-v0`` and the flat
``ffo_env/French-flat-v0``, ``ffo_env/German-flat-v0`` and the compact ``ffo_env/French-compact-v0``,
``ffo_env/German-compact-v0`` (:mod:`ffo_env.envs.registration`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from ffo_env.envs.adapter import EnvOptions
from ffo_env.envs.suite_single_agent import SuiteSingleAgentEnv
from ffo_env.ffo.adapter import make_adapter
from ffo_env.ffo.core.state import State
from ffo_env.ffo.env import RENDER_MODES

__all__ = ["FFOSingleAgentEnv"]


class FFOSingleAgentEnv(SuiteSingleAgentEnv):
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
        options = EnvOptions(reward, shaping_scale, max_steps, illegal_action, render_mode, RENDER_MODES)
        adapter = make_adapter(setup, rules, data, observation_format, view, render_scale)
        super().__init__(adapter, options, side, opponent, opponent_sampler, penalty)
        self.encoder = adapter.encoder
        self.observation_format = observation_format
        self._flat = adapter.flat
        self._compact = adapter.compact
        self.observation_space = adapter.observation_space
        self.omniscient = adapter.omniscient
        self.render_scale = render_scale
        # (state, history length, dice state, observation) of the last observation returned (_obs_unchanged)
        self._last_obs: tuple[State, int, int, np.ndarray] | None = None
        self._obs_buf: np.ndarray | None = (
            None if self._compact is None else np.empty(self._compact.layout.size, dtype=np.float32)
        )

    @property
    def state(self) -> State | None:
        """The core state (old name of :attr:`game_state`; None before the first reset)."""
        state: State | None = self._state
        return state

    @state.setter
    def state(self, value: State | None) -> None:
        self._state = value

    def _obs(self) -> Any:
        s: State = self._state
        if self._compact is not None:
            # encoded into a private buffer, kept for _obs_unchanged; the caller gets a copy (it may write
            # into it), so each step allocates one vector, not two
            buf = self._compact.encode(s, self.learner, self.omniscient, out=self._obs_buf)
            self._last_obs = (s, len(s.history), s.dice.state, buf)
            return buf.copy()
        arrays = self.encoder.encode(s, self.learner, self.omniscient)
        if self.observation_format == "flat":
            return self._flat.flatten(arrays)
        return arrays

    def _obs_unchanged(self) -> Any:
        """The observation after an illegal action. The core left the state as it was (illegal actions never
        change it), so with the compact format it is a copy of the last one returned when nothing has played
        since (same state object, history and dice); otherwise it is encoded again. Stock scripts without
        masks (the compact format's users) make many illegal actions, and encoding is most of such a step."""
        s: State = self._state
        last = self._last_obs
        if last is None or last[0] is not s or last[1] != len(s.history) or last[2] != s.dice.state:
            return self._obs()
        return last[3].copy()
