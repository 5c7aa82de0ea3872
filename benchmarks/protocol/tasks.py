"""The benchmark's tasks: what a learner plays, against whom, from where, and how it is scored.

Every task has a versioned id, ``<game>/<name>/v<N>``: the game of the suite (``ffo``, France Fights On;
``springtime``, Springtime for Hitler, :mod:`benchmarks.protocol.springtime`), the task, its version. The
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
  ``expert`` bots, from versioned sets of saved states (:mod:`benchmarks.protocol.states`), as one side
  against that side's opponent ``expert``: ~100 learner decisions a game, so a curve moves in minutes.
  Version 2 trains from 398 positions and evaluates on 32 others, which training never starts from;
  version 1, which trained and evaluated on the same 32 (its score could reward fitting them: the
  2026-11-26 notebook of issue 39, Variants 6-7), is superseded (:data:`SUPERSEDED`);
- ``selfplay``: the learner trains both sides against each other and is rated (Elo) against the frozen
  reference ladder (:mod:`benchmarks.protocol.ladder_ref`).

Springtime for Hitler has ``full`` tasks: the whole campaign (standard rules) as one side against the other
side's ``random``, ``heuristic`` or ``expert`` bot, and a ``selfplay`` task rated against its own game's frozen
ladder (:data:`benchmarks.protocol.ladder_ref.SPRINGTIME_LADDER`). A task's fingerprint covers its own game's
engine, data, observation and bots.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from benchmarks.protocol.states import DATA_DIR, file_sha256

EVAL_SEED_BASE = 20_000  # evaluation game i uses seed EVAL_SEED_BASE + i (training never draws these)
FINGERPRINTS = DATA_DIR / "fingerprints.json"
TASK_KINDS = ("full", "endgame", "selfplay")


class TaskError(ValueError):
    """An unknown task or version, or a task this installation can no longer run as it was defined."""


@dataclass(frozen=True)
class Task:
    id: str
    kind: str  # one of TASK_KINDS
    side: str | None  # the learner's side (None: both, self-play)
    opponent: str | None  # the fixed opponent's agent name (training and evaluation)
    eval_games: int  # evaluation games per evaluation point (self-play: per reference and seat)
    short_budget: int  # learner decisions of the short track
    long_budget: int  # learner decisions of the long track
    description: str
    states: str | None = None  # state-set file in data/ that training episodes start from (endgame tasks)
    references: tuple[str, ...] = ()  # self-play: the reference agents of the frozen ladder
    counts: bool = True  # False: solved by an untrained policy, listed for reference only
    note: str = ""
    strongest: str = "expert"  # the bot whose score is the normalised score's 1
    # state-set file in data/ that evaluation games start from; None: ``states`` (version 1 endgames)
    eval_states: str | None = None

    @property
    def game(self) -> str:
        """The game of the suite the task is played in (the id's first part: ``ffo`` or ``springtime``)."""
        return self.id.split("/")[0]

    @property
    def name(self) -> str:
        return self.id.split("/")[1]

    @property
    def version(self) -> int:
        return int(self.id.rsplit("/v", 1)[1])

    def definition(self) -> dict[str, Any]:
        d = asdict(self)
        if d["eval_states"] is None:  # a field added after the first versions: their fingerprints stay
            del d["eval_states"]
        return d

    @property
    def superseded_by(self) -> str | None:
        """The task that replaces this one, if any: its results are kept and reported, but it no longer counts
        as a benchmark task."""
        return SUPERSEDED.get(self.id)

    @property
    def counted(self) -> bool:
        """Whether the task is one of the benchmark's tasks (not solved before training, not superseded)."""
        return self.counts and self.superseded_by is None

    def sides(self) -> tuple[str, ...]:
        return ("french", "german") if self.side is None else (self.side,)

    def bots(self) -> list[str]:
        """Every bot the task's scores depend on."""
        names = {self.strongest, "random"} | set(self.references)
        if self.opponent:
            names.add(self.opponent)
        return sorted(names)

    def state_path(self) -> Path | None:
        """The state set training episodes start from (endgame tasks)."""
        return None if self.states is None else DATA_DIR / self.states

    def eval_state_path(self) -> Path | None:
        """The state set evaluation games start from (endgame tasks)."""
        return DATA_DIR / self.eval_states if self.eval_states is not None else self.state_path()


_ENDGAME = "endgame-t13-v1.json.gz"  # seeds 0-31: version 1's training and evaluation, version 2's evaluation
_ENDGAME_TRAIN = "endgame-t13-train-v2.json.gz"  # seeds 2000-2399: version 2's training starts
SUPERSEDED = {
    "ffo/french-endgame/v1": "ffo/french-endgame/v2",
    "ffo/german-endgame/v1": "ffo/german-endgame/v2",
}
# Springtime for Hitler's rules changed with engine springtime-core-2 (issue 61: an Event window opens whenever
# a marker is held, P10; a BEF eliminated in combat is rebuilt per rule 12.3.2 / S64): its tasks are version 2,
# and version 1, played on springtime-core-1, can no longer be run here (its results stay, superseded)
_SFH_NAMES = (
    "french-vs-random",
    "french-vs-heuristic",
    "french-vs-expert",
    "german-vs-random",
    "german-vs-heuristic",
    "german-vs-expert",
    "selfplay-ladder",
)
SUPERSEDED.update({f"springtime/{n}/v1": f"springtime/{n}/v2" for n in _SFH_NAMES})
RETIRED = {
    f"springtime/{n}/v1": "it was played on springtime-core-1, whose rules issue 61 changed (springtime-core-2)"
    for n in _SFH_NAMES
}
# Springtime for Hitler: a game is ~350-700 decisions (both sides), so the tracks are shorter than FFO's
_SFH_SHORT, _SFH_LONG, _SFH_EVAL = 50_000, 1_000_000, 20
# measured with `ffo benchmark run --algo random/untrained` (docs/guide/benchmark_protocol.md): the random
# French beats the random German in every game, so France against random is solved before training
_SFH_SOLVED = {"french-vs-random"}
_SOLVED_NOTE = "solved by an untrained policy (see the docs): listed for reference, not a benchmark task"


def _endgame_tasks() -> list[Task]:
    """Versions 1 (superseded) and 2 of both sides' endgame tasks."""
    out = []
    for version in (1, 2):
        for side, who, other in (("french", "France", "German"), ("german", "Germany", "French")):
            games = "32 expert-vs-expert games" if version == 1 else "expert-vs-expert games"
            description = f"{who} plays the last 3 turns (13-15) of {games} against the {other} expert"
            if version == 2:
                description += ": trains from 398 positions, evaluated on 32 held-out ones"
            out.append(
                Task(
                    f"ffo/{side}-endgame/v{version}",
                    "endgame",
                    side,
                    "expert",
                    32,
                    20_000,
                    200_000,
                    description,
                    states=_ENDGAME if version == 1 else _ENDGAME_TRAIN,
                    eval_states=None if version == 1 else _ENDGAME,
                )
            )
    return out


def _springtime_tasks() -> list[Task]:
    """Versions 1 (superseded and retired: :data:`RETIRED`) and 2 of Springtime for Hitler's tasks."""
    return [t for version in (1, 2) for t in _springtime_version(version)]


def _springtime_version(version: int) -> list[Task]:
    names = {"french": "France (the Allied player)", "german": "Germany (the Axis player)"}
    out = []
    for side, other in (("french", "german"), ("german", "french")):
        for opp in ("random", "heuristic", "expert"):
            name = f"{side}-vs-{opp}"
            solved = name in _SFH_SOLVED
            out.append(
                Task(
                    f"springtime/{name}/v{version}",
                    "full",
                    side,
                    opp,
                    _SFH_EVAL,
                    _SFH_SHORT,
                    _SFH_LONG,
                    f"Springtime for Hitler: {names[side]} plays the whole campaign against the {opp} "
                    f"{other.capitalize()}",
                    counts=not solved,
                    note=_SOLVED_NOTE if solved else "",
                )
            )
    out.append(
        Task(
            f"springtime/selfplay-ladder/v{version}",
            "selfplay",
            None,
            None,
            10,
            2 * _SFH_SHORT,  # both sides together: each side gets a one-side task's short budget
            2 * _SFH_LONG,
            "Springtime for Hitler: both sides learn against each other; rated (Elo) against the game's frozen "
            "reference ladder (random, heuristic, expert on each side)",
            references=("random", "heuristic", "expert"),
        )
    )
    return out


TASKS: dict[str, Task] = {
    t.id: t
    for t in [
        *_endgame_tasks(),
        Task(
            "ffo/french-vs-random/v1",
            "full",
            "french",
            "random",
            20,
            100_000,
            2_000_000,
            "France plays the whole game against the random German",
            counts=False,
            note="solved by an untrained policy (see the docs): listed for reference, not a benchmark task",
        ),
        Task(
            "ffo/french-vs-heuristic/v1",
            "full",
            "french",
            "heuristic",
            20,
            100_000,
            2_000_000,
            "France plays the whole game against the German heuristic",
        ),
        Task(
            "ffo/french-vs-expert/v1",
            "full",
            "french",
            "expert",
            20,
            100_000,
            2_000_000,
            "France plays the whole game against the German expert",
        ),
        Task(
            "ffo/german-vs-random/v1",
            "full",
            "german",
            "random",
            20,
            100_000,
            2_000_000,
            "Germany plays the whole game against the random French",
        ),
        Task(
            "ffo/german-vs-heuristic/v1",
            "full",
            "german",
            "heuristic",
            20,
            100_000,
            2_000_000,
            "Germany plays the whole game against the French heuristic",
        ),
        Task(
            "ffo/german-vs-expert/v1",
            "full",
            "german",
            "expert",
            20,
            100_000,
            2_000_000,
            "Germany plays the whole game against the French expert",
        ),
        Task(
            "ffo/selfplay-ladder/v1",
            "selfplay",
            None,
            None,
            10,
            100_000,
            2_000_000,
            "Both sides learn against each other; rated (Elo) against the frozen reference ladder "
            "(random, heuristic, expert on each side)",
            references=("random", "heuristic", "expert"),
        ),
        *_springtime_tasks(),
    ]
}


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


def _data_hash() -> dict[str, str]:
    from ffo_env.ffo.core.datasets import data_dir
    from ffo_env.ffo.env import make_game

    folder = data_dir(None)
    h = hashlib.sha256()
    for p in sorted(folder.iterdir()):
        if p.is_file():
            h.update(p.name.encode() + b"\0" + p.read_bytes())
    return {"version": make_game("random").scenario.version, "sha256": h.hexdigest()[:16]}


@lru_cache(maxsize=32)
def bot_probe(name: str, probe_decisions: int = 300) -> str:
    """A hash of ``name``'s decisions on both sides over the first ``probe_decisions`` decisions of a fixed
    game (seed 0, random setup), the bot playing both sides: any change to the bot's play there changes it."""
    from agents import make_agent
    from ffo_env.ffo.env import make_game

    state = make_game("random").new_initial_state(0)
    bots = {side: make_agent(name, side, seed=1) for side in ("french", "german")}
    h = hashlib.sha256()
    for _ in range(probe_decisions):
        if state.is_terminal():
            break
        a = int(bots[state.current_agent].act_state(state))
        h.update(a.to_bytes(2, "little"))
        state.apply_action(a)
    return h.hexdigest()[:16]


def fingerprint_inputs(task: Task) -> dict[str, Any]:
    if task.game == "springtime":
        from benchmarks.protocol import springtime

        return springtime.fingerprint_inputs(task)
    from agents.ffo.policy import spec_hash
    from ffo_env.ffo.core.version import ENGINE_VERSION

    path = task.state_path()
    inputs = {
        "engine": ENGINE_VERSION,
        "data": _data_hash(),
        "observation": spec_hash(),
        "task": task.definition(),
        "states": None if path is None else file_sha256(path),
        "bots": {name: bot_probe(name) for name in task.bots()},
    }
    if task.eval_states is not None:  # only then: version 1's fingerprints stay as frozen
        inputs["eval_states"] = file_sha256(DATA_DIR / task.eval_states)
    return inputs


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
            "(benchmarks/protocol/tasks.py) and refreeze (python -m benchmarks.protocol.freeze)"
        )
    return fp
