"""What ``ffo bench`` (the speed benchmarks) asks of a game, found by the registry (issue 62 step 8).

The speed modules (:mod:`benchmarks.env_speed`, :mod:`~benchmarks.profiling`, :mod:`~benchmarks.report`,
:mod:`~benchmarks.traced_memory`, :mod:`~benchmarks.env_memory`, :mod:`~benchmarks.null_env`,
:mod:`~benchmarks.vector_env_speed`, :mod:`~benchmarks.bot_speed_ab`) name no game: they measure the
registry's default game (:data:`ffo_env.games.DEFAULT_GAME`, the reference every other game's figures are
compared with) and every other game through :func:`ffo_env.games.game_info`. What a game's speed figures need
beyond the registry is an optional module ``benchmarks.<package>.speed``:

- ``CORE_OPTIONS``: the rules options of the games its core is timed on (default: none, the game's defaults);
- ``raw_env()``: its unwrapped AEC env, for the ``aec_raw`` figure of the default game;
- ``PROFILE_TARGETS``: ``(label, module, owner attribute path or None, function)`` rows that ``ffo bench
  --profile`` times per AEC step (nested rows are part of their parents'), and ``PROFILE_TOP_LEVEL``, the
  labels of those that nest in no other.

A new game adds nothing here: its core, AEC env and ``-flat-v0`` Gymnasium id are timed from its registry
entry.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from functools import cache
from typing import Any

from ffo_env.games import DEFAULT_GAME, game_info

__all__ = [
    "core_options",
    "gym_id",
    "make_aec_env",
    "profile_targets",
    "profile_top_level",
    "raw_env_maker",
    "register_gym_ids",
    "speed_part",
]


@cache
def speed_part(game: str) -> Any | None:
    """The module ``benchmarks.<package>.speed`` of ``game``, or None if the game has none."""
    name = f"benchmarks.{game_info(game).package_name}.speed"
    try:
        found = importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # no benchmarks.<package> at all
        found = False
    return importlib.import_module(name) if found else None


def core_options(game: str) -> dict[str, Any]:
    """The rules options the speed figures play ``game``'s core with."""
    return dict(getattr(speed_part(game), "CORE_OPTIONS", {}))


def make_aec_env(game: str = DEFAULT_GAME) -> Callable[[], Any]:
    """A maker of ``game``'s AEC env with its default options (``game_info(game).aec_env()``)."""

    def make() -> Any:
        return game_info(game).aec_env()

    return make


def raw_env_maker(game: str = DEFAULT_GAME) -> Callable[[], Any] | None:
    """A maker of ``game``'s unwrapped AEC env, if its speed part gives one."""
    maker: Callable[[], Any] | None = getattr(speed_part(game), "raw_env", None)
    return maker


def profile_targets(game: str = DEFAULT_GAME) -> tuple[tuple[str, str, str | None, str], ...]:
    """What ``ffo bench --profile`` times per AEC step of ``game`` (none: only the whole step)."""
    return tuple(getattr(speed_part(game), "PROFILE_TARGETS", ()))


def profile_top_level(game: str = DEFAULT_GAME) -> tuple[str, ...]:
    """The labels of :func:`profile_targets` that nest in no other (the AEC step minus them is ``other``)."""
    return tuple(getattr(speed_part(game), "PROFILE_TOP_LEVEL", ()))


def gym_id(game: str, fmt: str, side: str = "french") -> str:
    """``game``'s registered Gymnasium id of ``side`` with the ``fmt`` observation (``flat``, ``compact``)."""
    ids = [i for i in game_info(game).gym_ids.get(side, ()) if i.endswith(f"-{fmt}-v0")]
    if not ids:
        raise ValueError(f"game {game!r} registers no {side} -{fmt}-v0 Gymnasium id")
    return ids[0]


def register_gym_ids() -> None:
    """Register every game's Gymnasium ids (what ``import ffo_env`` does)."""
    from ffo_env.envs.registration import register_envs

    register_envs()
