"""The baseline driver's job list is the floor issue 40 sets for the shipped baselines: every task of the suite
that counts gets the reference rows and at least three learners, 5 seeds on a short (endgame) task and 3
on a full-game or self-play task."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.protocol.baselines import LEARNERS, REFERENCES, folder_of, jobs
from benchmarks.protocol.tasks import TASKS


def test_every_counting_task_has_the_floor_of_baselines() -> None:
    listed: dict[tuple[str, str], int] = {}
    for task_id, algo_name, seeds in jobs():
        listed[(task_id, algo_name)] = seeds
    assert len(LEARNERS) >= 3
    for task in TASKS.values():
        if not task.counted:
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
        folder = bl.folder_of(tmp_path, task, algo)
        p = folder / f"seed-{k}" / "progress.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps({"complete": True, "rows": [{"wall_seconds": wall}]}), encoding="utf-8")
        (folder / "plan.json").write_text(json.dumps({"seeds": [0, 1]}), encoding="utf-8")

    finish("ffo/french-endgame/v1", "maskable_ppo", 0, 100.0)
    finish("ffo/german-endgame/v1", "maskable_ppo", 1, 300.0)
    # 2 maskable_ppo endgame runs left at the mean of 100 and 300 s; the DAgger run has nothing to go by
    assert bl.estimate_left(tmp_path, listed) == (3, 400.0, 1)
    assert bl.estimate_left(tmp_path, listed[:1]) == (1, 200.0, 0)
    assert bl.seed_walls(tmp_path, *listed[1][:2]) == {0: None, 1: 300.0}


def _plan(folder: Path, seeds: list[int], complete: list[int], wall: float = 10.0) -> None:
    import json

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plan.json").write_text(json.dumps({"seeds": seeds}), encoding="utf-8")
    for k in seeds:
        p = folder / f"seed-{k}" / "progress.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        rows = [{"wall_seconds": wall}]
        p.write_text(json.dumps({"complete": k in complete, "rows": rows}), encoding="utf-8")


def test_a_job_run_by_hand_with_fewer_seeds_is_completed_in_a_sibling_folder(tmp_path: Path) -> None:
    import benchmarks.protocol.baselines as bl

    task, algo = "springtime/selfplay-ladder/v2", "expert"
    main = bl.folder_of(tmp_path, task, algo)
    head = ["benchmark", "run", "--task", task, "--algo", algo, "--track", "short"]
    assert bl.state_of(tmp_path, task, algo, 3) == "not started"
    assert bl.next_run(tmp_path, task, algo, 3) == [*head, "--seeds", "3", "--out", str(main)]
    _plan(main, [0], complete=[])  # started by hand with one seed, not finished: resumed first
    assert bl.next_run(tmp_path, task, algo, 3) == ["benchmark", "run", "--resume", str(main)]
    _plan(main, [0], complete=[0])
    assert bl.state_of(tmp_path, task, algo, 3) == "1/3 seeds complete"
    sibling = main.parent / "expert-seeds1-2"
    assert bl.next_run(tmp_path, task, algo, 3) == [
        *head,
        "--seeds",
        "2",
        "--first-seed",
        "1",
        "--out",
        str(sibling),
    ]
    _plan(sibling, [1, 2], complete=[1])
    assert bl.next_run(tmp_path, task, algo, 3) == ["benchmark", "run", "--resume", str(sibling)]
    assert bl.state_of(tmp_path, task, algo, 3) == "2/3 seeds complete"
    _plan(sibling, [1, 2], complete=[1, 2])
    assert bl.next_run(tmp_path, task, algo, 3) is None
    assert bl.state_of(tmp_path, task, algo, 3) == "complete"
    assert bl.estimate_left(tmp_path, [(task, algo, 3)])[0] == 0
    # another algorithm's sibling is not this job's
    _plan(main.parent / "expert_x-seeds1-2", [1, 2], complete=[1, 2])
    assert bl.parts_of(tmp_path, task, algo) == [main, sibling]


def test_list_prices_what_is_left_and_says_when_nothing_is(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    import benchmarks.protocol.baselines as bl

    task, algo = "ffo/german-endgame/v2", "random"
    monkeypatch.setattr(bl, "jobs", lambda: [(task, algo, 2)])
    _plan(bl.folder_of(tmp_path, task, algo), [0, 1], complete=[0], wall=1800.0)
    assert bl.run_cli(["--list", "--out", str(tmp_path)]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head.startswith("1 seed runs left: ~0.5 core-hours"), head
    _plan(bl.folder_of(tmp_path, task, algo), [0, 1], complete=[0, 1])
    assert bl.run_cli(["--list", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "every seed run of the 1 jobs listed is complete", out
    assert out[1].split() == [task, algo, "2", "seeds:", "complete"]


@pytest.mark.parametrize("tool", ["baselines", "freeze"])
def test_a_reader_that_goes_away_gets_no_traceback(tmp_path: Path, tool: str) -> None:
    """``--list | head``, ``freeze | head``: the pipe is closed before the tool prints its first line."""
    import subprocess
    import sys

    args = ["--list", "--out", str(tmp_path)] if tool == "baselines" else []
    proc = subprocess.Popen(
        [sys.executable, "-m", f"benchmarks.protocol.{tool}", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1, err  # as Python's docs advise for a broken pipe, and ffo does
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_a_damaged_run_file_is_one_error_naming_it(tmp_path: Path, capsys: Any) -> None:
    import benchmarks.protocol.baselines as bl

    task, algo = bl.jobs()[0][:2]
    main = bl.folder_of(tmp_path, task, algo)
    main.mkdir(parents=True)
    plan = main / "plan.json"
    for text in ('{"seeds": [0, 1', '{"algorithm": "random"}', "[0, 1]"):
        plan.write_text(text, encoding="utf-8")
        assert bl.run_cli(["--list", "--out", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and str(plan) in err and "damaged" in err and err.count("\n") == 1
        assert plan.read_text(encoding="utf-8") == text  # nothing rewritten
    plan.write_text('{"seeds": [0]}', encoding="utf-8")
    progress = main / "seed-0" / "progress.json"
    progress.parent.mkdir()
    progress.write_text('{"complete": tr', encoding="utf-8")
    assert bl.run_cli(["--list", "--out", str(tmp_path)]) == 2
    assert str(progress) in capsys.readouterr().err


@pytest.mark.parametrize("how", ["ctrl-c in the job", "sigterm"])
def test_an_interrupted_driver_stops_and_removes_its_lock(tmp_path: Path, monkeypatch: Any, how: str) -> None:
    """Ctrl-C (the job's command ends with 130) or a ``kill`` stops the driver: it does not go on to the
    next job, and the job's lock does not outlive it."""
    import os
    import signal
    import time

    import benchmarks.protocol.baselines as bl
    import ffo_env.cli

    listed = [("ffo/french-endgame/v1", "random", 5), ("ffo/german-endgame/v1", "random", 5)]
    monkeypatch.setattr(bl, "jobs", lambda: listed)
    calls: list[list[str]] = []

    def job(argv: list[str]) -> int:
        calls.append(argv)
        assert (bl.folder_of(tmp_path, *listed[0][:2]).parent / ".random.lock").exists()
        if how == "sigterm":
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(10)  # the signal arrives long before this ends
        return bl.INTERRUPTED

    monkeypatch.setattr(ffo_env.cli, "main", job)
    before = signal.getsignal(signal.SIGTERM)
    assert bl.run_cli(["--out", str(tmp_path)]) == bl.INTERRUPTED
    assert len(calls) == 1
    assert not list(tmp_path.rglob(".*.lock"))
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_superseded_tasks_finished_runs_price_its_successors(tmp_path: Path, monkeypatch: Any) -> None:
    """``ffo/german-endgame/v2 maskable_ppo_pretrained`` is priced by the v1 runs of that learner, which are
    not the driver's jobs any more."""
    import benchmarks.protocol.baselines as bl

    listed = [("ffo/german-endgame/v2", "maskable_ppo_pretrained", 2)]
    monkeypatch.setattr(bl, "jobs", lambda: listed)
    assert bl.estimate_left(tmp_path, listed) == (2, 0.0, 2)
    folder = bl.folder_of(tmp_path, "ffo/french-endgame/v1", "maskable_ppo_pretrained")
    _plan(folder, [0, 1], complete=[0, 1], wall=500.0)
    assert bl.estimate_left(tmp_path, listed) == (2, 1000.0, 0)
