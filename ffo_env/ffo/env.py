"""France Fights On (World at War #39) as a PettingZoo AEC environment: ``france_fights_on_v0``.

A thin translation layer over the rules core (:mod:`ffo_env.ffo.core`): the core owns
legality, dice and the turn sequence; :mod:`ffo_env.ffo.encoding` owns the tensors; the
PettingZoo contract is the suite's, shared with Springtime for Hitler
(:class:`~ffo_env.envs.suite_aec.SuiteAECEnv`); what is France Fights On's is its
adapter (:class:`~ffo_env.ffo.adapter.FFOAdapter`) and the options below.

==================  ==========================================================
Import              ``from ffo_env import env`` (wrapped) or ``raw_env``;
                    ``parallel_env`` (turn-based parallel view)
Agents              ``["french", "german"]`` (the decider of every decision is
                    named by the core: retreats, step losses, over-stack
                    removals and defensive support are made by the owning or
                    opposing side even in the other side's phase)
Action space        ``Discrete(1607)``: ``0..1529`` a hex (internal index,
                    :mod:`ffo_env.ffo.core.hexgrid`), ``1530..1591`` a unit (its
                    index in the scenario), ``1592..1597`` PASS, MOVE_FIRST,
                    FIGHT_FIRST, STUKA, NAVAL_FRENCH, NAVAL_BRITISH,
                    ``1598..1606`` lower the differential by 0..8 columns
Observation         ``{"observation": Dict(planes, globals, units),
                    "action_mask": Box(0, 1, (1607,), int8)}``; layout in
                    :mod:`ffo_env.ffo.encoding.observation`. With
                    ``observation_format="flat"`` the ``"observation"`` is one
                    1-D float32 ``Box`` (layout and offset lookup:
                    :mod:`ffo_env.ffo.encoding.flat`), the mask beside it as before;
                    ``observation_format="compact"``: a 1-D float32 ``Box`` of
                    4,490 floats (:mod:`ffo_env.ffo.encoding.compact`)
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
                    :class:`~ffo_env.ffo.core.actions.IllegalActionError` instead
                    (for debugging), the state unchanged
Truncation          after ``max_steps`` decisions (default: none)
==================  ==========================================================

Options: ``setup`` (``"random"`` default, ``"fixed"``, ``"decide"``: R2),
``rules`` (a dict of other :class:`~ffo_env.ffo.core.game.RulesOptions` fields),
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

import os
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ffo_env.envs import adapter as _shared
from ffo_env.envs.adapter import ILLEGAL_ACTION_MODES as ILLEGAL_ACTION_MODES
from ffo_env.envs.adapter import REWARDS as REWARDS
from ffo_env.envs.adapter import EnvOptions
from ffo_env.envs.suite_aec import SuiteAECEnv, parallel, wrapped
from ffo_env.ffo.adapter import OBSERVATION_FORMATS as OBSERVATION_FORMATS
from ffo_env.ffo.adapter import VIEWS as VIEWS
from ffo_env.ffo.adapter import FFOAdapter, make_adapter, make_game
from ffo_env.ffo.adapter import shaped_vp as shaped_vp  # kept here for old imports
from ffo_env.ffo.core.actions import IllegalActionError
from ffo_env.ffo.core.game import Game
from ffo_env.ffo.core.sides import SIDE_NAMES
from ffo_env.ffo.core.state import State
from ffo_env.ffo.encoding.compact import CompactEncoder
from ffo_env.ffo.encoding.flat import FlatLayout
from ffo_env.ffo.encoding.observation import ObservationEncoder

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
RENDER_MODES = ("ansi", "rgb_array", "human")


def as_action(action: Any, n_actions: int) -> int:
    """``action`` as an action number, or a ``TypeError``/``ValueError`` saying what is wrong with it
    (:func:`ffo_env.envs.adapter.as_action`)."""
    return _shared.as_action(action, n_actions)


def apply_or_reason(state: State, action: Any, who: str, mode: str) -> str | None:
    """Apply ``action`` if it is a legal action number and return None; otherwise the state is unchanged and
    either :class:`IllegalActionError` is raised (``mode="raise"``) or the reason is returned
    (:func:`ffo_env.envs.adapter.apply_or_reason`)."""
    return _shared.apply_or_reason(
        state, action, who, mode, state.game.num_distinct_actions, IllegalActionError
    )


class raw_env(SuiteAECEnv):  # noqa: N801 - PettingZoo naming convention
    """The unwrapped AEC environment (see the module docstring)."""

    adapter: FFOAdapter
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
        options = EnvOptions(reward, shaping_scale, max_steps, illegal_action, render_mode, RENDER_MODES)
        super().__init__(
            make_adapter(setup, rules, data, observation_format, view, render_scale, game), options
        )
        self.view = view
        self.omniscient = view == "omniscient"
        self.render_scale = render_scale
        self.observation_format = observation_format
        self.state_space: spaces.Space = (
            self.adapter.observation_space if self.adapter.compact is not None else self.adapter.flat.space()
        )

    @property
    def game_state(self) -> State:
        """The core game state (read it, clone it; change it only through ``step``)."""
        state: State = super().game_state
        return state

    @property
    def _encoder(self) -> ObservationEncoder:
        return self.adapter.encoder

    @property
    def _flat(self) -> FlatLayout:
        return self.adapter.flat

    @property
    def _compact(self) -> CompactEncoder | None:
        return self.adapter.compact

    def state(self) -> np.ndarray:
        """The global state for centralised critics: the omniscient observation from the French side,
        flat (``state_space``; layout :mod:`ffo_env.ffo.encoding.flat`), or compact with ``observation_format=
        "compact"``. Not for acting agents."""
        a = self.adapter
        if a.compact is not None:
            return a.compact.encode(self.game_state, 0, True)
        return a.flat.flatten(a.encoder.encode(self.game_state, 0, True))


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped in PettingZoo's ``OrderEnforcingWrapper`` (reset before step, ...).

    Not ``AssertOutOfBoundsWrapper``: the core already rejects any action outside
    ``Discrete(1607)`` or not legal with a clear :class:`IllegalActionError` (an ``assert``
    would vanish under ``python -O``), and the wrapper cost ~10 µs a step. Not
    ``TerminateIllegalWrapper`` either: the env itself ends the game on an illegal action
    (``illegal_action="penalty"``, the default) with a zero-sum -1/+1 and the reason in ``info``.
    """
    return wrapped(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> Any:
    """Turn-based parallel view (PettingZoo ``turn_based_aec_to_parallel``): every step
    takes a dict of actions, of which only the acting agent's is used."""
    return parallel(raw_env(**kwargs))
