"""A benchmark task: what a learner plays, against whom, from where, and how it is scored (the dataclass every
game's task list is made of; the lists are gathered by :mod:`benchmarks.protocol.tasks`).

``Task.definition()`` is ``asdict(task)`` and is hashed into the task's fingerprint: the fields stay as they are
(a new one is left out of the definition while it holds its default, as ``eval_states`` is).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

EVAL_SEED_BASE = 20_000  # evaluation game i uses seed EVAL_SEED_BASE + i (training never draws these)
TASK_KINDS = ("full", "endgame", "selfplay")
SOLVED_NOTE = "solved by an untrained policy (see the docs): listed for reference, not a benchmark task"
# the task names every game of the suite has: each side against each bot of the other, and self-play
STANDARD_NAMES = (
    *(f"{side}-vs-{bot}" for side in ("french", "german") for bot in ("random", "heuristic", "expert")),
    "selfplay-ladder",
)


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
        """The game of the suite the task is played in (the id's first part, a name of the registry)."""
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
        from benchmarks.protocol.games import bench_of

        return bench_of(self.game).SUPERSEDED.get(self.id)

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
        """The state set training episodes start from (endgame tasks), in its game's ``DATA_DIR``."""
        return None if self.states is None else _data_dir(self.game) / self.states

    def eval_state_path(self) -> Path | None:
        """The state set evaluation games start from (endgame tasks)."""
        return _data_dir(self.game) / self.eval_states if self.eval_states is not None else self.state_path()


def _data_dir(game: str) -> Path:
    from benchmarks.protocol.games import bench_of

    return Path(bench_of(game).DATA_DIR)


def version_bump(
    game: str, names: Iterable[str], old: int, new: int, why: str
) -> tuple[dict[str, str], dict[str, str]]:
    """The ``SUPERSEDED`` and ``RETIRED`` maps of a game whose tasks ``names`` all moved from version ``old`` to
    ``new`` because this installation can no longer play ``old`` (``why``: what changed)."""
    superseded = {f"{game}/{n}/v{old}": f"{game}/{n}/v{new}" for n in names}
    return superseded, dict.fromkeys(superseded, why)
