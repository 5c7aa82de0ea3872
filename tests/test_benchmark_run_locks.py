"""One process per benchmark run (``benchmarks/protocol/lock.py``), and a run stopped at any write keeps the
checkpoint its progress names.

Two processes on one seed interleave their checkpoints: one removes the ``point-<j>/`` the other's
``progress.json`` resumes from. ``ffo benchmark run`` therefore holds a lock on its folder and refuses a
folder a live process holds; a lock its process left behind is taken over.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from benchmarks.protocol import lock as locks
from benchmarks.protocol import run as runner
from benchmarks.protocol.algos import ALGOS, AlgoSpec, Context, Learner
from benchmarks.protocol.lock import RUN_LOCK, LockedError, claim, holder, holding_run, release
from ffo_env.atomic import atomic_write_text
from ffo_env.cli import main

TASK = "springtime/german-vs-random/v2"  # its evaluation games take milliseconds
ROOT = Path(__file__).resolve().parents[1]


MODES = ["flock", "exclusive"]  # exclusive: where fcntl is missing (Windows)
HOLD = """
import sys, time
from pathlib import Path
from benchmarks.protocol import lock
if sys.argv[2] == "exclusive":
    lock.fcntl = None
print("held" if lock.claim(Path(sys.argv[1])) else "refused", flush=True)
time.sleep(120)
"""


@pytest.fixture(params=MODES)
def mode(request: Any, monkeypatch: Any) -> str:
    if request.param == "exclusive":
        monkeypatch.setattr(locks, "fcntl", None)
    return str(request.param)


@contextmanager
def held_elsewhere(path: Path, mode: str) -> Iterator[int]:
    """The lock at ``path`` held by another live process; yields its id."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path), mode], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


def _ended_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(done.stdout)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------------------------------- the lock itself


def test_a_lock_names_its_live_holder_and_is_refused_to_a_second_claim(tmp_path: Path, mode: str) -> None:
    path = tmp_path / "sub" / ".x.lock"
    lock = claim(path)
    assert lock is not None
    assert holder(path) == os.getpid()
    assert claim(path) is None  # not even to its own process: a run is not entered twice
    release(lock)
    assert not path.exists() and holder(path) is None
    release(lock)  # twice: nothing more
    again = claim(path)
    assert again is not None
    release(again)


def test_a_lock_held_by_another_live_process_is_refused_and_kept(tmp_path: Path, mode: str) -> None:
    path = tmp_path / ".x.lock"
    with held_elsewhere(path, mode) as pid:
        assert holder(path) == pid
        assert claim(path) is None
        assert path.read_text().split()[0] == str(pid)
    if mode == "flock":  # the kernel drops the lock of a killed process
        assert holder(path) is None and claim(path) is not None


def test_a_lock_file_of_a_process_that_ended_is_taken_over(tmp_path: Path, mode: str) -> None:
    path = tmp_path / ".x.lock"
    path.write_text(f"{_ended_pid()} 1")
    assert holder(path) is None
    assert claim(path) is not None and holder(path) == os.getpid()


@pytest.mark.skipif(locks._start_time(os.getpid()) is None, reason="no /proc to read a start time from")
def test_without_flock_a_lock_whose_process_id_was_reused_by_a_later_process_is_taken_over(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr(locks, "fcntl", None)
    path = tmp_path / ".x.lock"
    started = int(locks._start_time(os.getppid()) or 0)
    path.write_text(f"{os.getppid()} {started - 1}")  # the id's earlier owner started before it
    assert holder(path) is None
    assert claim(path) is not None


@pytest.mark.parametrize("text", ["", "garbage", "-5 1", "0"])
def test_an_unreadable_lock_file_nobody_holds_is_taken_over(tmp_path: Path, mode: str, text: str) -> None:
    path = tmp_path / ".x.lock"
    path.write_text(text)
    assert holder(path) is None and claim(path) is not None


def test_with_flock_a_live_process_id_in_a_file_nobody_locks_is_not_a_holder(tmp_path: Path) -> None:
    """What the earlier driver's lock files held: an id, which may now be anybody's."""
    path = tmp_path / ".x.lock"
    path.write_text(str(os.getppid()))
    assert holder(path) is None and claim(path) is not None


# ---------------------------------------------------------------------------------- ffo benchmark run's lock


def _run_args(out: Path) -> list[str]:
    return ["benchmark", "run", "--task", TASK, "--algo", "random", "--seeds", "1", "--eval-games", "1"] + [
        "--no-progress",
        "--out",
        str(out),
    ]


def test_a_run_folder_held_by_a_live_process_is_refused_on_resume_and_nothing_changes(
    tmp_path: Path, capsys: Any
) -> None:
    folder = tmp_path / "run"
    assert main(_run_args(folder)) == 0
    assert not (folder / RUN_LOCK).exists()  # released when the run ends
    (folder / "seed-0" / "progress.json").unlink()  # so that a resume would have work to do
    with held_elsewhere(folder / RUN_LOCK, "flock") as pid:
        before = _snapshot(folder)
        capsys.readouterr()
        assert main(["benchmark", "run", "--resume", str(folder), "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert _snapshot(folder) == before
    assert err.startswith("error: ") and err.count("\n") == 1
    assert str(folder) in err and f"process {pid}" in err and "nothing was changed" in err


def test_a_new_run_into_a_folder_held_by_a_live_process_is_refused(tmp_path: Path, capsys: Any) -> None:
    folder = tmp_path / "run"
    with held_elsewhere(folder / RUN_LOCK, "flock") as pid:
        assert main(_run_args(folder)) == 2
        assert f"process {pid}" in capsys.readouterr().err
        assert [p.name for p in folder.iterdir()] == [RUN_LOCK]


def test_a_run_lock_left_by_a_killed_run_does_not_stop_its_resume_or_a_new_run(tmp_path: Path) -> None:
    stale = f"{_ended_pid()} 1"
    new = tmp_path / "new"
    new.mkdir()
    (new / RUN_LOCK).write_text(stale)
    assert main(_run_args(new)) == 0  # a folder holding only a lock file counts as empty
    (new / "seed-0" / "progress.json").unlink()
    (new / RUN_LOCK).write_text(stale)
    assert main(["benchmark", "run", "--resume", str(new), "--no-progress"]) == 0
    assert not (new / RUN_LOCK).exists()


def test_a_run_that_fails_releases_its_lock(tmp_path: Path, monkeypatch: Any) -> None:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("a damaged file")

    monkeypatch.setattr(runner, "execute", fail)
    folder = tmp_path / "run"
    assert main(_run_args(folder)) == 2
    assert not (folder / RUN_LOCK).exists()


def test_holding_run_twice_in_one_process_is_refused(tmp_path: Path, mode: str) -> None:
    with holding_run(tmp_path), pytest.raises(LockedError, match=str(os.getpid())):
        with holding_run(tmp_path):
            pass
    assert not (tmp_path / RUN_LOCK).exists()


# ------------------------------------------------------ a run stopped at any write resumes from what it names


class _Stop(BaseException):
    """A kill at one write (BaseException: nothing in the run catches it, as nothing survives a SIGKILL)."""


class _Writes:
    """Counts the writes of a run (checkpoint files, progress and result files, checkpoint removals) and
    stops it at the ``stop_at``-th."""

    def __init__(self, stop_at: int | None) -> None:
        self.n = 0
        self.stop_at = stop_at

    def __call__(self) -> None:
        self.n += 1
        if self.n == self.stop_at:
            raise _Stop


class _CountingLearner(Learner):
    """Learns nothing (plays at random); its checkpoint is two files written one after the other, as the
    SB3 checkpoint's weights and manifest are."""

    writes: _Writes

    def __init__(self, ctx: Context) -> None:
        from agents import make_agent

        super().__init__(ctx)
        self._agent = make_agent("random", ctx.side, seed=ctx.seed, game=ctx.task.game)
        self.used = 0

    @property
    def decisions(self) -> int:
        return self.used

    def learn(self, until: int, segment: int) -> None:
        self.used = max(self.used, until)

    def agent(self) -> Any:
        return self._agent

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.writes()
        atomic_write_text(folder / "weights.json", json.dumps({"used": self.used}))
        self.writes()
        atomic_write_text(folder / "manifest.json", json.dumps({"used": self.used}))

    def load(self, folder: Path) -> None:
        weights = json.loads((folder / "weights.json").read_text())
        manifest = json.loads((folder / "manifest.json").read_text())
        assert weights == manifest, f"{folder}: a checkpoint half written"
        self.used = int(manifest["used"])


def _stopping_run(folder: Path, writes: _Writes, monkeypatch: Any) -> dict[str, Any]:
    """A new 2-seed, 3-point run of the counting learner, whose writes ``writes`` counts from its plan on."""
    import shutil as real_shutil

    _CountingLearner.writes = writes

    def write_text(path: Path, text: str) -> None:
        writes()
        atomic_write_text(path, text)

    class Shutil:
        @staticmethod
        def rmtree(path: Path, ignore_errors: bool = False) -> None:
            writes()
            real_shutil.rmtree(path, ignore_errors=ignore_errors)

    plan = runner.make_plan(TASK, "counting", 300, None, 2, 0, 3, 1, ["test"])
    runner.start(plan, folder)
    monkeypatch.setattr(runner, "atomic_write_text", write_text)
    monkeypatch.setattr(runner, "shutil", Shutil)
    return plan


def _rows(folder: Path) -> list[tuple[int, int, float]]:
    doc = json.loads((folder / "results.json").read_text())
    out = []
    for seed, run in sorted(doc["ffo_env"][TASK]["counting"].items()):
        steps = sorted((k for k in run if k.startswith("step_")), key=lambda k: int(k[5:]))
        out += [(int(seed[5:]), run[k]["step_count"], run[k]["score"][0]) for k in steps]
    return out


def test_a_run_stopped_at_any_write_keeps_the_checkpoint_its_progress_resumes_from(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Stopped at each of its writes in turn: every seed with N evaluated points has ``point-(N-1)/`` whole,
    and resuming gives the uninterrupted run's points."""
    monkeypatch.setitem(
        ALGOS, "counting", AlgoSpec("counting", "test learner", True, "flat", _CountingLearner)
    )
    writes = _Writes(None)
    straight = tmp_path / "straight"
    with monkeypatch.context() as m:
        plan = _stopping_run(straight, writes, m)
        runner.execute(straight, plan, progress_bar=False)
    total = writes.n
    assert total >= 2 * 3 * 4  # per point: 2 checkpoint files, progress, results (and removals)
    for k in range(1, total + 1):
        folder = tmp_path / f"stop-{k}"
        writes = _Writes(k)
        with monkeypatch.context() as m:
            plan = _stopping_run(folder, writes, m)
            with pytest.raises(_Stop):
                runner.execute(folder, plan, progress_bar=False)
        for seed in plan["seeds"]:
            progress = folder / f"seed-{seed}" / "progress.json"
            rows = len(json.loads(progress.read_text())["rows"]) if progress.exists() else 0
            if rows:
                point = folder / f"seed-{seed}" / f"point-{rows - 1}"
                assert (point / "manifest.json").exists(), f"stopped at write {k}: {point} is gone"
                task = runner.get_task(TASK)
                _CountingLearner(Context(task, str(task.side), 0, 0, folder, lambda r: None)).load(point)
        writes.stop_at = None
        runner.execute(folder, runner.check_resumable(folder), progress_bar=False)
        assert _rows(folder) == _rows(straight), f"stopped at write {k}"
        for seed in plan["seeds"]:  # resumed from its checkpoint, not run again from point 0
            assert not json.loads((folder / f"seed-{seed}" / "progress.json").read_text()).get("restarted")
