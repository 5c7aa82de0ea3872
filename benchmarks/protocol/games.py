"""Each game's part of the benchmark, found by the game's package name (issue 62: one benchmark path).

The protocol's modules are written once for every game of the suite. What differs between the games lives in
the game's own package ``benchmarks.<package>`` (``<package>`` is :attr:`ffo_env.games.GameInfo.package`), which
offers what :class:`GameBenchmark` lists. A game without such a package has no benchmark tasks; adding one adds
its tasks to ``ffo benchmark tasks`` without editing a module of ``benchmarks/protocol/``. This module names no
game: it imports a game's part by the registry's package name.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, Protocol


class GameBenchmark(Protocol):
    """What ``benchmarks.<package>`` offers (module attributes and functions)."""

    GAME: str  # the game's registry name (the first part of its task ids)
    TASKS: list[Any]  # its tasks (benchmarks.protocol.tasks.Task), every version
    SUPERSEDED: Mapping[str, str]  # task id -> the task that replaces it
    RETIRED: Mapping[str, str]  # task id -> why this installation cannot run it any more
    RESULTS: str  # its results' folder under benchmarks/results/ ("": the top, France Fights On's as shipped)
    LADDER: Mapping[str, tuple[float, float]]  # the frozen reference ladder of its self-play task
    FIGURE: str  # the key of the figure an evaluation row averages besides the result ("mean_vp", ...)
    FEATURES: frozenset[str]  # what it offers the learners that need more than the shared contract
    DATA_DIR: Path  # where its tasks' state-set files are (Task.states names a file there)

    def fingerprint_inputs(self, task: Any) -> dict[str, Any]: ...

    def probe_state(self) -> Any: ...

    def eval_start(self, task: Any, i: int) -> Any: ...

    def make_env(
        self, task: Any, side: str, opponent: Any, observation_format: str, seed: int, reward: str = "win"
    ) -> Any: ...

    def encode_vector(self, state: Any, side: str) -> Any: ...

    def winner(self, state: Any) -> str | None: ...

    def final_figure(self, state: Any) -> int: ...

    def observation_in(self, observation: str) -> str: ...

    def hyperparameters(self, algo: str) -> dict[str, Any]: ...

    def sb3_part(self) -> Any: ...  # the SB3 learners' network part (benchmarks.protocol.algo_sb3.SB3Part)

    def check_vector(self) -> None: ...  # refuses a learner of the flat vector where the game cannot give it

    def baseline_jobs(self) -> list[tuple[str, str, int]]: ...  # the shipped baselines' jobs

    # optional: ``graded_score(task, state, side) -> float | None``, a finished game's score in [0, 1] on a task
    # the game grades more finely than win/loss (None: win/loss); benchmarks.protocol.evaluate asks it


def _package(game: str) -> str:
    from ffo_env.games import game_info

    return game_info(game).package_name


@cache
def bench_of(game: str) -> GameBenchmark:
    """The benchmark part of ``game`` (``benchmarks.<package>``); a ValueError if the game has none."""
    name = f"benchmarks.{_package(game)}"
    if importlib.util.find_spec(name) is None:
        raise ValueError(f"the game {game!r} has no benchmark tasks yet (no {name} package)")
    module: Any = importlib.import_module(name)
    return module


def bench_games() -> list[str]:
    """The games of the registry that have a benchmark part, in the registry's order."""
    from ffo_env.games import GAMES

    return [g for g in GAMES if importlib.util.find_spec(f"benchmarks.{_package(g)}") is not None]


def games_offering(feature: str) -> tuple[str, ...]:
    """The games whose benchmark part offers ``feature`` (e.g. ``shaped_reward``)."""
    return tuple(g for g in bench_games() if feature in bench_of(g).FEATURES)


def results_folder(root: Path, game: str) -> Path:
    """Where ``game``'s results live under ``root`` (``benchmarks/results``)."""
    sub = bench_of(game).RESULTS
    return root / sub if sub else root
