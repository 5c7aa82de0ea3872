"""France Fights On, one side, with the candidate-slot action layout (:mod:`ffo_env.ffo.encoding.slots`):
:class:`FFOSlotEnv`, the ``action_layout="slots"`` of the compact ids (issue 60).

The same game, opponent, rewards, ``info`` and illegal-action convention as
:class:`~ffo_env.ffo.single_agent.FFOSingleAgentEnv`; only the spaces differ:

- action: ``Discrete(slot_count + n_specials)`` (23 for the shipped data and the default 8 slots): slot ``k``
  or special ``j``;
  :meth:`action_masks` gives the filled slots and the legal specials (the core's legality);
- a slot holding a group narrows the decision to the group's members: the game does not move, the reward
  is 0 and ``info["narrowed"]`` is the depth (``episode_stats["learner_steps"]`` counts game decisions only);
- ``slot_order``: ``"core"`` (the core's action order), ``"board"`` or ``"overstack_last"`` (sorted by
  public board features, :meth:`~ffo_env.ffo.encoding.slots.SlotEncoder.board_order`) or ``"shuffled"`` (a
  new random order at every decision, from a generator seeded by the game's seed);
- ``slot_count``: the number of slots ``K`` (default 8; 64 is the layout of sessions 40-42); fewer slots
  mean fewer weights per feature for a stock MLP and more narrowing steps;
- :meth:`core_action` maps a slot action to the core action it plays (None for a group);
- observation: the 1-D float32 ``Box`` of :class:`~ffo_env.ffo.encoding.slots.SlotEncoder`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from ffo_env.ffo.encoding.slots import (
    N_SLOTS,
    SLOT_ORDERS,
    SlotCandidates,
    SlotEncoder,
    check_slot_count,
    slot_encoder_for,
)
from ffo_env.ffo.single_agent import FFOSingleAgentEnv

__all__ = ["FFOSlotEnv"]

_SHUFFLE_STREAM = 0x5107  # the second word of the shuffled order's seed: a stream apart from the dice


class FFOSlotEnv(FFOSingleAgentEnv):
    """:class:`FFOSingleAgentEnv` with the slot layout (keyword arguments as there)."""

    def __init__(self, slot_order: str = "core", slot_count: int = N_SLOTS, **kwargs: Any) -> None:
        if slot_order not in SLOT_ORDERS:
            raise ValueError(f"slot_order must be one of {SLOT_ORDERS}, got {slot_order!r}")
        self.slot_order = slot_order
        check_slot_count(slot_count)
        if kwargs.get("observation_format", "compact") != "compact":
            raise ValueError(
                "action_layout='slots' has its own observation (observation_format='compact'), got "
                f"observation_format={kwargs['observation_format']!r}"
            )
        kwargs["observation_format"] = "compact"
        super().__init__(**kwargs)
        self.slots: SlotEncoder = slot_encoder_for(self.adapter.game, slot_count)
        self.slot_count = self.slots.n_slots
        self.action_layout = "slots"
        self.action_space = spaces.Discrete(self.slots.n_actions)
        self.observation_space = spaces.Box(
            low=self.slots.low, high=self.slots.high, shape=(self.slots.size,), dtype=np.float32
        )
        self._cands: SlotCandidates | None = None
        self._narrowed: np.ndarray | None = None
        self._depth = 0
        self._order_rng: np.random.Generator | None = None

    # ------------------------------------------------------------------ slots

    def _candidates(self) -> SlotCandidates | None:
        s = self._state
        if s is None or self._over or s.is_terminal() or s.current_player != self.learner:
            return None
        if self._cands is None:
            if self.slot_order == "shuffled" and self._order_rng is None:
                # seeded by the game's own seed and nothing drawn from the env's generator, whose draws (the
                # opponent's seed, a random opponent's moves) then stay those of the other orders
                self._order_rng = np.random.default_rng([s.seed, _SHUFFLE_STREAM])
            self._cands = self.slots.candidates(s, self._narrowed, self.slot_order, self._order_rng)
        return self._cands

    def core_action(self, action: int) -> int | None:
        """The core action slot action ``action`` plays now; None if it narrows (a group) or is not legal."""
        cands = self._candidates()
        return None if cands is None else self.slots.resolve(cands, int(action))[0]

    def action_masks(self) -> np.ndarray:
        return self.slots.action_mask(self._candidates())

    def _new_decision(self) -> None:
        self._cands, self._narrowed, self._depth = None, None, 0

    # ------------------------------------------------------------------ api

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        self._new_decision()
        self._order_rng = None  # seeded at the game's first listing (_candidates)
        obs, info = super().reset(seed=seed, options=options)
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        cands = self._candidates()
        a = (
            int(action)
            if np.ndim(action) == 0 and np.issubdtype(np.asarray(action).dtype, np.integer)
            else -1
        )
        core, group = (None, None) if cands is None else self.slots.resolve(cands, a)
        if group is not None:
            # a group: narrow the decision to its members (the game does not move)
            self._narrowed = group
            self._cands = None
            self._depth += 1
            info = self._info()
            info["narrowed"] = self._depth
            return self._obs(), 0.0, False, False, info
        # an empty slot or an illegal special: -1, which the core refuses (the penalty convention applies)
        obs, reward, terminated, truncated, info = super().step(-1 if core is None else core)
        if "illegal_action" in info:
            info["illegal_action"] = action
        return obs, reward, terminated, truncated, info

    def _play_opponent(self) -> None:
        super()._play_opponent()
        self._new_decision()

    def _info(self) -> dict[str, Any]:
        info = super()._info()
        info["action_mask"] = self.action_masks().astype(np.int8)
        return info

    def _obs(self) -> Any:
        s = self._state
        cands = self._candidates()
        if cands is None:
            cands = SlotCandidates([], np.zeros(0, dtype=np.int64))
        return self.slots.encode(s, self.learner, cands, self._depth, self.omniscient)

    def _obs_unchanged(self) -> Any:
        return self._obs()
