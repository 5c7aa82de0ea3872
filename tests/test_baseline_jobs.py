"""The baseline driver's job list is the floor issue 40 sets for the shipped baselines: every task of the suite
that counts gets the reference rows and at least three learners, 5 seeds on a short (endgame) task and 3
on a full-game or self-play task."""

from __future__ import annotations

from pathlib import Path

from benchmarks.protocol.baselines import LEARNERS, REFERENCES, folder_of, jobs
from benchmarks.protocol.tasks import TASKS


def test_every_counting_task_has_the_floor_of_baselines() -> None:
    listed: dict[tuple[str, str], int] = {}
    for task_id, algo_name, seeds in jobs():
        listed[(task_id, algo_name)] = seeds
    assert len(LEARNERS) >= 3
    for task in TASKS.values():
        if not task.counts:
            continue
        floor = 5 if task.kind == "endgame" else 3
        for algo in (*REFERENCES, *LEARNERS):
            assert listed.get((task.id, algo), 0) >= floor, (task.id, algo)


def test_jobs_are_listed_once_and_write_apart() -> None:
    pairs = [(t, a) for t, a, _ in jobs()]
    assert len(pairs) == len(set(pairs))
    folders = {folder_of(Path("out"), t, a) for t, a in pairs}
    assert len(folders) == len(pairs)
