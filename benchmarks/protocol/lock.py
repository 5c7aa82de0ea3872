"""Locks that keep two processes off one benchmark job or run folder.

A lock is a file created exclusively, holding the process id of its owner and, where ``/proc`` gives it, the
process's start time: a lock whose process is gone, or whose id now belongs to a later process, is stale and
is taken over. Two processes training one seed of a run interleave their checkpoints and progress (one
removes the checkpoint the other's progress names), so a live lock is refused, never waited for.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

RUN_LOCK = ".run.lock"  # in a run folder (benchmarks/results/.gitignore keeps it local)


class LockedError(OSError):
    """The folder is in use by another live process (an OSError: the command line reports it as bad input)."""


def _start_time(pid: int) -> str | None:
    """The start time of process ``pid`` in clock ticks since boot (``/proc/PID/stat`` field 22), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may hold spaces: count the fields after its last ')'
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else None


def _stamp() -> str:
    pid = os.getpid()
    return f"{pid} {_start_time(pid) or '-'}"


def holder(lock: Path) -> int | None:
    """The id of the live process that holds ``lock``, or None (no lock, or a stale one)."""
    try:
        parts = lock.read_text().split()
        pid = int(parts[0])
    except (OSError, ValueError, IndexError):
        return None
    if pid <= 0:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # alive, another user's
    started = parts[1] if len(parts) > 1 else "-"
    now = _start_time(pid)
    if started != "-" and now is not None and now != started:
        return None  # the id was reused by a later process
    return pid


def claim(lock: Path) -> bool:
    """Take ``lock`` for this process; False if a live process holds it. A stale lock is taken over. A lock
    this process already holds is not claimed a second time (False)."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            if holder(lock) is not None:
                return False
            lock.unlink(missing_ok=True)
            continue
        try:
            os.write(fd, _stamp().encode())
        finally:
            os.close(fd)
        return True
    return False


def release(lock: Path) -> None:
    """Remove ``lock`` if this process holds it (a lock taken over by another process is left alone)."""
    try:
        mine = lock.read_text().split()[:1] == [str(os.getpid())]
    except OSError:
        return
    if mine:
        lock.unlink(missing_ok=True)


@contextmanager
def holding_run(folder: Path) -> Iterator[None]:
    """Hold ``folder``'s run lock for the ``with`` block; :class:`LockedError` if another process runs it."""
    lock = folder / RUN_LOCK
    if not claim(lock):
        pid = holder(lock)
        who = f"process {pid}" if pid is not None else "another process"
        raise LockedError(
            f"{folder} is being run by {who} (lock {lock}); two processes on one run would corrupt its "
            f"checkpoints. Wait for it to end or stop it, then resume (nothing was changed)"
        )
    try:
        yield
    finally:
        release(lock)
