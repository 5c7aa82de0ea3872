"""One side of any game of the suite against a fixed opponent, as a Gymnasium ``Env``:
:class:`SuiteSingleAgentEnv`.

A game's env (``ffo_env.ffo.single_agent.FFOSingleAgentEnv``,
``ffo_env.springtime.env.SpringtimeSingleAgentEnv``) is a thin subclass that builds its
:class:`~ffo_env.envs.adapter.GameAdapter` and says what the learner observes (:meth:`_obs`, the
``observation_space``). The contract is the same for all:

- action: ``Discrete(n_actions)``; :meth:`action_masks` gives the learner's legal actions (sb3-contrib
  ``MaskablePPO``, also through ``SubprocVecEnv``: it is a plain method), all zeros once the episode is over;
- opponent: an object with ``act_state(state) -> int`` (preferred, fast), or with
  ``act(observation, action_mask) -> int`` (``adapter.opponent_observation``), or a plain callable
  ``f(state) -> int``; ``None`` plays uniformly at random from the env's seeded generator.
  ``opponent_sampler(rng) -> opponent`` (optional) picks the opponent at every reset (an opponent pool);
  ``reset(options={"opponent": o})`` forces one. An opponent with ``reset(seed)`` is reset with a seed
  drawn from the env's generator at every episode;
- ``reset(seed)`` seeds the generator that draws the core seed of each game; ``options={"game_seed": n}``
  uses ``n``; ``options={"state": s}`` starts from a position (a state of this game, copied, or a
  saved-state dict, checked by the core). The opponent then moves until the learner decides;
- reward: the learner's +1 / -1 at the end (also when the opponent's move ends the game); with
  ``reward="shaped"`` plus ``shaping_scale`` x (P' - P), P = ``adapter.potential`` (French perspective) before
  the learner's decision and after the opponent's answers, with the learner's sign (minus for the German).
  An episode's total is then its +/-1 plus the scale x (final P - P at the learner's first decision).
  ``reward="potential"`` (a game whose adapter has ``projected_score``): potential-based shaping (Ng, Harada
  & Russell 1999) F = Phi(s') - Phi(s) with Phi = ``shaping_scale`` x (the projected score - its value at the
  learner's first decision), the learner's sign, and Phi = 0 at the end of the episode (game over or an
  illegal action): the last step gives back what the shaping gave, so every episode's rewards sum to its
  +/-1 exactly, as with ``reward="win"``, while each decision is credited at once with the change of the
  projected score that it and the opponent's answers cause. A truncated episode keeps its shaping;
- ``info``: the game's facts (``adapter.facts``), ``winner`` (``None`` until the end), ``opponent`` (its
  ``name``), ``action_mask`` (int8, the learner's legal actions), and at the end ``episode_stats`` =
  {``learner_steps``, ``opponent_steps``, the game's ``episode_facts``, ``winner``} (not ``episode``:
  stable-baselines3 reserves that key for its ``Monitor``);
- illegal actions (PettingZoo classic, ``illegal_action="penalty"``, the default): the learner loses, the
  episode ends with reward ``penalty`` (-1), ``info["illegal_action"]``, ``info["reason"]`` and
  ``info["winner"]`` the opponent; the core state is not changed. ``illegal_action="raise"`` raises the
  core's ``IllegalActionError`` instead (for debugging). A step after the end is a ``RuntimeError``;
- truncation after ``max_steps`` learner decisions (default: none).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ffo_env.envs.adapter import AGENTS, EnvOptions, GameAdapter, apply_or_reason, check_choice

__all__ = ["NoLearnerDecision", "SuiteSingleAgentEnv"]


class NoLearnerDecision(ValueError):
    """The start ``reset`` was given (a saved state, a game seed) ends before the learner has a decision."""


class SuiteSingleAgentEnv(gym.Env):
    """One side against an opponent over ``adapter`` (see the module docstring). Subclasses set
    ``observation_space`` and define :meth:`_obs`; ``mask_dtype`` is the dtype of :meth:`action_masks`."""

    metadata: dict[str, Any] = {"render_modes": []}
    mask_dtype: Any = bool

    def __init__(
        self,
        adapter: GameAdapter,
        options: EnvOptions,
        side: str = "french",
        opponent: Any = None,
        opponent_sampler: Callable[[np.random.Generator], Any] | None = None,
        penalty: float = -1.0,
    ) -> None:
        check_choice("side", side, AGENTS)
        self.adapter = adapter
        self.learner = AGENTS.index(side)
        self.side: Any = side
        self.action_space = spaces.Discrete(adapter.n_actions)
        self.fixed_opponent = opponent
        self.opponent_sampler = opponent_sampler
        self.opponent: Any = opponent
        if options.reward == "potential" and not adapter.has_projected_score():
            raise ValueError(
                f"reward='potential' needs a projected score, which {type(adapter).__name__} has not"
            )
        self.reward_mode = options.reward
        self.shaping_scale = float(options.shaping_scale)
        # reward="potential": the projected score at the learner's first decision and at its last decision
        self._score0 = 0.0
        self._score = 0.0
        self.max_steps = options.max_steps
        self.illegal_action = options.illegal_action
        self.penalty = float(penalty)
        self.render_mode = options.render_mode
        self._renderer: Any = None
        self._state: Any = None
        self._over = False  # ended on an illegal action (the core state is not terminal then)
        self._stats: dict[str, int] = {}

    @property
    def game(self) -> Any:
        """The core's immutable ``Game``."""
        return self.adapter.game

    @property
    def game_state(self) -> Any:
        """The core state (read or clone it; change it only through ``step``)."""
        return self._game_state()

    @game_state.setter
    def game_state(self, value: Any) -> None:
        self._state = value

    def _game_state(self) -> Any:
        if self._state is None:
            raise RuntimeError("call reset() before reading the game state")
        return self._state

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
            self._state = self.adapter.start_state(options["state"])
            self._play_opponent()
            if self._state.is_terminal():
                raise NoLearnerDecision("options['state']: the game ends before the learner decides")
            self._start_potential()
            return self._obs(), self._info()
        gs = options.get("game_seed")
        for _ in range(100):
            self._state = self.adapter.new_state(
                int(gs) if gs is not None else int(self.np_random.integers(0, 2**31 - 1))
            )
            self._play_opponent()
            if not self._state.is_terminal():
                break
            if gs is not None:
                raise NoLearnerDecision(
                    f"options['game_seed']={gs}: the game ends before the learner decides"
                )
        else:  # pragma: no cover - the opponent ends every game before the learner moves
            raise RuntimeError("the opponent ended 100 games in a row before the learner could move")
        self._start_potential()
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        s = self._state
        if s is None:
            raise RuntimeError("call reset() before step()")
        if s.is_terminal() or self._over:
            raise RuntimeError("the episode is over; call reset()")
        adapter = self.adapter
        shaped = self.reward_mode == "shaped"
        p0 = adapter.potential(s) if shaped else 0.0
        who = AGENTS[self.learner]
        reason = apply_or_reason(
            s, action, who, self.illegal_action, adapter.n_actions, adapter.illegal_error
        )
        if reason is not None:
            self._over = True
            other = AGENTS[1 - self.learner]
            info = self._info()
            info["illegal_action"] = action
            info["reason"] = reason
            info["winner"] = other
            info["episode_stats"] = {**self._episode(s), "winner": other}
            return self._obs_unchanged(), self.penalty + self._potential_step(s, True), True, False, info
        self._stats["learner_steps"] += 1
        self._play_opponent()
        reward = 0.0
        if shaped:
            d = self.shaping_scale * (adapter.potential(s) - p0)
            reward += d if self.learner == 0 else -d
        terminated = s.is_terminal()
        if self.reward_mode == "potential":
            reward += self._potential_step(s, terminated)
        if terminated:
            reward += s.returns()[self.learner]
        truncated = (
            not terminated and self.max_steps is not None and self._stats["learner_steps"] >= self.max_steps
        )
        info = self._info()
        if terminated or truncated:
            info["episode_stats"] = self._episode(s)
        return self._obs(), float(reward), terminated, bool(truncated), info

    def _start_potential(self) -> None:
        if self.reward_mode == "potential":
            self._score0 = self._score = float(self.adapter.projected_score(self._state))

    def _potential_step(self, s: Any, over: bool) -> float:
        """``reward="potential"``: Phi(s') - Phi(s) for the learner, Phi = the scale x (projected score -
        its start value) with the learner's sign, and Phi = 0 once the episode is over (so an episode's
        shaping sums to 0). 0 with the other rewards."""
        if self.reward_mode != "potential":
            return 0.0
        new = self._score0 if over else float(self.adapter.projected_score(s))
        d = self.shaping_scale * (new - self._score)
        self._score = new
        return d if self.learner == 0 else 0.0 - d  # 0.0 - d: never a negative zero

    def action_masks(self) -> np.ndarray:
        """Mask of the learner's legal actions (sb3-contrib ``MaskablePPO``), dtype ``mask_dtype``."""
        return self._mask(self.mask_dtype)

    def _mask(self, dtype: Any) -> np.ndarray:
        """The learner's legal actions as a fresh array of ``dtype`` (``info["action_mask"]`` is int8: built
        as such, not converted from the bool mask, as it is made at every step)."""
        s = self._state
        m = np.zeros(self.adapter.n_actions, dtype=dtype)
        if s is not None and not self._over and not s.is_terminal() and s.current_player == self.learner:
            m[s.legal_actions()] = 1
        return m

    def render(self) -> Any:
        if self.render_mode is None or self._state is None:
            return None
        if self._renderer is None:
            self._renderer = self.adapter.make_renderer()
        return self._renderer.render(self._state, self.render_mode)

    # ------------------------------------------------------------------ internals

    def _obs(self) -> Any:
        """The learner's observation (the game's env says what it is)."""
        raise NotImplementedError

    def _obs_unchanged(self) -> Any:
        """The observation after an illegal action (the core state is as it was): encoded again unless the
        game's env keeps the last one."""
        return self._obs()

    def _play_opponent(self) -> None:
        """Opponent decisions until the learner decides or the game ends (with ``reward="shaped"`` the
        potential change of these moves counts in this step's reward)."""
        s = self._state
        opp = self.opponent
        learner = self.learner
        while not s.is_terminal() and s.current_player != learner:
            if opp is None:
                legal = s.legal_actions()
                a = legal[int(self.np_random.integers(len(legal)))]
            elif hasattr(opp, "act_state"):
                a = opp.act_state(s)
            elif hasattr(opp, "act"):
                side = s.current_player
                mask = np.zeros(self.adapter.n_actions, dtype=np.int8)
                mask[s.legal_actions()] = 1
                a = opp.act(self.adapter.opponent_observation(s, side), mask)
            elif callable(opp):
                a = opp(s)
            else:
                raise TypeError(f"opponent {opp!r} has neither act_state nor act and is not callable")
            s.apply_action(int(a))
            self._stats["opponent_steps"] += 1

    def _info(self) -> dict[str, Any]:
        s = self._state
        return {
            **self.adapter.facts(s),
            "winner": self.adapter.winner(s),
            "opponent": self._opponent_name(),
            "action_mask": self._mask(np.int8),
        }

    def _opponent_name(self) -> str:
        opp = self.opponent
        if opp is None:
            return "random"
        return str(getattr(opp, "name", type(opp).__name__))

    def _episode(self, s: Any) -> dict[str, Any]:
        return {**self._stats, **self.adapter.episode_facts(s), "winner": self.adapter.winner(s)}
