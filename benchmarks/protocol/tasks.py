"""The benchmark's tasks: what a learner plays, against whom, from where, and how it is scored.

Every task has a versioned id, ``<game>/<name>/v<N>``: the game of the suite (``ffo``, France Fights On;
``springtime``, Springtime for Hitler), the task, its version. Each game's tasks are listed by its own
benchmark package, ``benchmarks.<package>.TASKS`` (:mod:`benchmarks.ffo`, :mod:`benchmarks.springtime`;
:mod:`benchmarks.protocol.games`), and gathered here; a game with no such package has no tasks yet. The
version is bumped whenever what the task measures changes: the rules (engine version), the game data, the
observation layout, the opponents' play or the start states. So that a changed installation cannot silently run an old version, each task has a
*fingerprint* (:func:`fingerprint`): a hash of the engine version, the data files, the observation spec,
the task's definition, its start-state file and the behaviour of every bot it uses (each bot plays a fixed
probe position and its decisions are hashed, which catches a changed bot config or bot code). The
fingerprints of the current versions are frozen in ``data/fingerprints.json``; ``ffo benchmark run``
refuses a task whose fingerprint no longer matches (bump the version and refreeze), and every result
records the fingerprint it ran on, so results of different versions are never pooled.

Three kinds of task:

- ``full``: the whole game (random setup, R2) as one side against one fixed opponent;
- ``endgame``: the last three turns (from the first position of turn 13) of games between the two
  ``expert`` bots, from versioned sets of saved states (:mod:`benchmarks.ffo.states`), as one side
  against that side's opponent ``expert``: ~100 learner decisions a game, so a curve moves in minutes.
  Version 2 trains from 398 positions and evaluates on 32 others, which training never starts from;
  version 1, which trained and evaluated on the same 32 (its score could reward fitting them: the
  2026-11-26 notebook of issue 39, Variants 6-7), is superseded (:data:`SUPERSEDED`);
- ``selfplay``: the learner trains both sides against each other and is rated (Elo) against the frozen
  reference ladder (:mod:`benchmarks.protocol.ladder_ref`).

Springtime for Hitler has ``full`` tasks: the whole campaign (standard rules) as one side against the other
side's ``random``, ``heuristic`` or ``expert`` bot, and a ``selfplay`` task rated against its own game's frozen
ladder (:data:`benchmarks.springtime.LADDER`). A task's fingerprint covers its own game's
engine, data, observation and bots.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from benchmarks.protocol.games import bench_games, bench_of
from benchmarks.protocol.task import EVAL_SEED_BASE, TASK_KINDS, Task

__all__ = [
    "EVAL_SEED_BASE",
    "FINGERPRINTS",
    "RETIRED",
    "SUPERSEDED",
    "TASKS",
    "TASK_KINDS",
    "Task",
    "TaskError",
    "bot_probe",
    "check_current",
    "fingerprint",
    "fingerprint_inputs",
    "frozen_fingerprints",
    "get_task",
]

FINGERPRINTS = Path(__file__).resolve().parent / "data" / "fingerprints.json"


class TaskError(ValueError):
    """An unknown task or version, or a task this installation can no longer run as it was defined."""


def _gather() -> tuple[dict[str, Task], dict[str, str], dict[str, str]]:
    """Every game's tasks, superseded and retired versions, in the registry's order of the games."""
    tasks: dict[str, Task] = {}
    superseded: dict[str, str] = {}
    retired: dict[str, str] = {}
    for game in bench_games():
        part = bench_of(game)
        for t in part.TASKS:
            if t.game != game or t.id in tasks:
                raise TaskError(f"benchmarks.{game}: task {t.id!r} is not {game}'s or is listed twice")
            tasks[t.id] = t
        superseded.update(part.SUPERSEDED)
        retired.update(part.RETIRED)
    return tasks, superseded, retired


TASKS, SUPERSEDED, RETIRED = _gather()


def get_task(task_id: str) -> Task:
    """The task ``task_id`` (``<game>/<name>/v<N>``); a TaskError names the known ids or versions."""
    task = TASKS.get(task_id)
    if task is not None:
        return task
    base = task_id.rsplit("/v", 1)[0]
    versions = sorted(t.id for t in TASKS.values() if t.id.rsplit("/v", 1)[0] == base)
    if versions:
        raise TaskError(
            f"unknown version of task {base!r}: {task_id!r}; this installation has {', '.join(versions)}"
        )
    raise TaskError(f"unknown task {task_id!r}; expected one of {', '.join(TASKS)} ('ffo benchmark tasks')")


# ------------------------------------------------------------------ fingerprint


@lru_cache(maxsize=64)
def bot_probe(name: str, probe_decisions: int = 300, game: str | None = None) -> str:
    """A hash of ``name``'s decisions over the first ``probe_decisions`` decisions of a fixed game of ``game``
    (its benchmark part's ``probe_state()``: seed 0), the bot playing both sides (each side's bot seeded 1): any
    change to the bot's play there changes it."""
    from agents import make_agent
    from ffo_env.games import DEFAULT_GAME, SIDES

    game = game or DEFAULT_GAME
    state = bench_of(game).probe_state()
    bots = {side: make_agent(name, side, seed=1, game=game) for side in SIDES}
    h = hashlib.sha256()
    for _ in range(probe_decisions):
        if state.is_terminal():
            break
        a = int(bots[SIDES[state.current_player]].act_state(state))
        h.update(a.to_bytes(2, "little"))
        state.apply_action(a)
    return h.hexdigest()[:16]


def fingerprint_inputs(task: Task) -> dict[str, Any]:
    """What the fingerprint of ``task`` hashes (its game's benchmark part says)."""
    return bench_of(task.game).fingerprint_inputs(task)


def fingerprint(task: Task) -> str:
    text = json.dumps(fingerprint_inputs(task), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def frozen_fingerprints() -> dict[str, str]:
    try:
        doc = json.loads(FINGERPRINTS.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise TaskError(f"{FINGERPRINTS}: cannot read the frozen task fingerprints ({e})") from e
    if not isinstance(doc, dict):
        raise TaskError(f"{FINGERPRINTS}: expected a mapping of task id to fingerprint")
    return {str(k): str(v) for k, v in doc.items()}


def check_current(task: Task) -> str:
    """The task's fingerprint, after checking it is the one its version was frozen with."""
    if task.id in RETIRED:
        raise TaskError(
            f"task {task.id} is retired: {RETIRED[task.id]}; its results are kept, superseded by "
            f"{task.superseded_by}, which this installation runs"
        )
    fp = fingerprint(task)
    frozen = frozen_fingerprints().get(task.id)
    if frozen is None:
        raise TaskError(f"task {task.id} has no frozen fingerprint in {FINGERPRINTS}")
    if fp != frozen:
        raise TaskError(
            f"task {task.id} was frozen with fingerprint {frozen}, this installation computes {fp}: the rules, "
            "data, observation, opponents or start states changed since; bump the task's version "
            "(benchmarks/<game>/__init__.py) and refreeze (python -m benchmarks.protocol.freeze)"
        )
    return fp
