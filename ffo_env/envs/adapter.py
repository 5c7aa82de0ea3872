"""What the suite's shared environments ask of a game: :class:`GameAdapter`, and the action checks.

The PettingZoo AEC env (:class:`~ffo_env.envs.suite_aec.SuiteAECEnv`), its turn-based parallel view and
the one-side Gymnasium env (:class:`~ffo_env.envs.suite_single_agent.SuiteSingleAgentEnv`) are written once
for every game of the suite (issue 41). Everything else they need of a state is the suite's
:class:`~ffo_env.games.GameState` protocol (``legal_actions``, ``apply_action``, ``current_agent``,
``current_player``, ``is_terminal``, ``returns``, ``clone``); what differs between games is an adapter,
one per environment (a game with its options), built by the game's own package and reached through
:meth:`ffo_env.games.GameInfo.env_adapter`:

==========================  ===================================================================
``game``                    the core's immutable ``Game`` (shared by every env with the same options)
``n_actions``               the size of ``Discrete(n)`` and of the action mask
``illegal_error``           the core's ``IllegalActionError`` (``illegal_action="raise"`` raises it)
``observation_space``       the space of an agent's ``"observation"`` in the AEC env
``new_state(seed)``         a new game from a core seed
``start_state(start)``      ``reset(options={"state": start})``: a checked copy of a state of this
                            game, or a saved-state dict read by the core (errors name what is wrong)
``encode(s, side, legal)``  the observation of ``side`` (0 ``french``, 1 ``german``); ``legal`` is
                            the acting side's legal actions, or None when ``side`` is not to act
``opponent_observation``    what an opponent object's ``act(observation, action_mask)`` is given
``potential(s)``            the French-perspective shaping potential of ``reward="shaped"``, from
                            the core (the env takes its differences; it re-derives no rule)
``projected_score(s)``      optional: the French-perspective final score this position would give
                            if the game ended now, the potential of the single-agent env's
                            ``reward="potential"`` (a game without one refuses that reward)
``winner(s)``               ``"french"``, ``"german"`` or None
``facts(s)``                the game's fields of ``info`` (beside ``winner`` and ``steps``)
``episode_facts(s)``        the game's fields of the single-agent env's ``info["episode_stats"]``
``make_renderer()``         an object with ``render(state, mode)``
==========================  ===================================================================

An adapter is immutable in use: deep copies of an env share it, and it pickles as its options (the
game's own code rebuilds it, :meth:`GameAdapter.for_game` rebinds it to an unpickled state's game).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

__all__ = ["AGENTS", "GameAdapter", "apply_or_reason", "as_action", "check_choice", "EnvOptions"]

AGENTS = ("french", "german")  # the agents of every game of the suite (issue 41), side 0 and side 1
ILLEGAL_ACTION_MODES = ("penalty", "raise")
REWARDS = ("win", "shaped", "potential")  # "potential": the single-agent env only (SuiteSingleAgentEnv)


class GameAdapter(ABC):
    """One game with its options, as the shared environments see it (see the module docstring)."""

    game: Any
    n_actions: int
    illegal_error: type[Exception]
    observation_space: spaces.Space

    @abstractmethod
    def new_state(self, seed: int) -> Any: ...

    @abstractmethod
    def start_state(self, start: object) -> Any: ...

    @abstractmethod
    def encode(self, state: Any, side: int, legal: list[int] | None) -> Any: ...

    @abstractmethod
    def opponent_observation(self, state: Any, side: int) -> Any: ...

    @abstractmethod
    def potential(self, state: Any) -> float: ...

    def projected_score(self, state: Any) -> float:
        """The French-perspective score ``state`` would end the game with (``reward="potential"``)."""
        raise NotImplementedError(f"{type(self).__name__} has no projected score")

    def has_projected_score(self) -> bool:
        return type(self).projected_score is not GameAdapter.projected_score

    @abstractmethod
    def winner(self, state: Any) -> str | None: ...

    @abstractmethod
    def facts(self, state: Any) -> dict[str, Any]: ...

    @abstractmethod
    def episode_facts(self, state: Any) -> dict[str, Any]: ...

    @abstractmethod
    def make_renderer(self) -> Any: ...

    def for_game(self, game: Any) -> GameAdapter:
        """This adapter for ``game`` (an equal game: an unpickled state brings its own copy)."""
        return self


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")


@dataclass(frozen=True)
class EnvOptions:
    """The options every env of the suite takes (each game's env gives them its own defaults), checked
    here: one ``ValueError`` naming the first bad one. ``render_modes``: the modes the game can render."""

    reward: str = "win"
    shaping_scale: float = 1.0
    max_steps: int | None = None
    illegal_action: str = "penalty"
    render_mode: str | None = None
    render_modes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_choice("reward", self.reward, REWARDS)
        check_choice("illegal_action", self.illegal_action, ILLEGAL_ACTION_MODES)
        if self.render_mode is not None and self.render_mode not in self.render_modes:
            raise ValueError(
                f"render_mode must be one of {self.render_modes} or None, got {self.render_mode!r}"
            )
        if self.max_steps is not None and self.max_steps <= 0:
            raise ValueError(f"max_steps must be positive or None, got {self.max_steps!r}")


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


def apply_or_reason(
    state: Any, action: Any, who: str, mode: str, n_actions: int, error: type[Exception]
) -> str | None:
    """Apply ``action`` if it is a legal action number and return None; otherwise the state is unchanged
    (the core checks before it changes anything) and either ``error`` (the core's ``IllegalActionError``)
    is raised (``mode="raise"``) or the reason is returned (the env then ends the game: PettingZoo's
    classic convention). One definition for every env of every game."""
    try:
        state.apply_action(as_action(action, n_actions))
    except (TypeError, ValueError) as e:  # both games' IllegalActionError is a ValueError
        if mode == "raise":
            if isinstance(e, error):
                raise
            raise error(f"{who} at {state.decision_string()}: {e}") from e
        return str(e)
    return None
