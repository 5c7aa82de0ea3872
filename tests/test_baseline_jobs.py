"""The baseline driver's job list is the floor issue 40 sets for the shipped baselines: every task of the suite
that counts gets the reference rows and at least three learners, 5 seeds on a short (endgame) task and 3
on a full-game or self-play task."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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


def test_the_time_left_is_priced_by_finished_runs_of_the_same_kind(tmp_path: Path, monkeypatch: Any) -> None:
    import json

    import benchmarks.protocol.baselines as bl

    listed = [
        ("ffo/french-endgame/v1", "maskable_ppo", 2),
        ("ffo/german-endgame/v1", "maskable_ppo", 2),
        ("ffo/german-endgame/v1", "dagger_expert", 1),
    ]
    monkeypatch.setattr(bl, "jobs", lambda: listed)

    def finish(task: str, algo: str, k: int, wall: float) -> None:
        p = bl.folder_of(tmp_path, task, algo) / f"seed-{k}" / "progress.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps({"complete": True, "rows": [{"wall_seconds": wall}]}), encoding="utf-8")

    finish("ffo/french-endgame/v1", "maskable_ppo", 0, 100.0)
    finish("ffo/german-endgame/v1", "maskable_ppo", 1, 300.0)
    # 2 maskable_ppo endgame runs left at the mean of 100 and 300 s; the DAgger run has nothing to go by
    assert bl.estimate_left(tmp_path, listed) == (3, 400.0, 1)
    assert bl.estimate_left(tmp_path, listed[:1]) == (1, 200.0, 0)
    assert bl.seed_walls(bl.folder_of(tmp_path, *listed[1][:2]), 2) == [None, 300.0]


def test_a_reader_that_goes_away_gets_no_traceback(tmp_path: Path) -> None:
    """``--list | head``: the pipe is closed before the driver prints its first line."""
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.protocol.baselines", "--list", "--out", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1, err  # as Python's docs advise for a broken pipe, and ffo does
    assert "Traceback" not in err and "BrokenPipe" not in err
