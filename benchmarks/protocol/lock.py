"""Locks that keep two processes off one benchmark job or run folder.

Two processes training one seed of a run interleave their checkpoints and progress (one removes the
checkpoint the other's progress names), so a lock held by a live process is refused, never waited for.

A lock is an advisory ``flock`` on a file holding the owner's process id (for the message that names it): the
kernel drops it when its process ends however it ends, so a killed run leaves nothing to clean up, and no
process id is trusted to mean a live owner. Where ``fcntl`` is missing (Windows) the file is created
exclusively instead, and one whose process is gone, or whose id now belongs to a later process, is stale and
taken over.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

RUN_LOCK = ".run.lock"  # in a run folder (benchmarks/results/.gitignore keeps it local)


class LockedError(OSError):
    """The folder is in use by another live process (an OSError: the command line reports it as bad input)."""


@dataclass
class Lock:
    """A lock this process holds (``fd`` keeps the ``flock``; -1 for an exclusively created file)."""

    path: Path
    fd: int = -1
    held: bool = True


def _start_time(pid: int) -> str | None:
    """The start time of process ``pid`` in clock ticks since boot (``/proc/PID/stat`` field 22), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may hold spaces: count the fields after its last ')'
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else None


def _stamp() -> bytes:
    pid = os.getpid()
    return f"{pid} {_start_time(pid) or '-'}\n".encode()


def _stamp_in(path: Path) -> tuple[int | None, str]:
    """The process id (None if unreadable) and start time (``-`` if none) the lock file names."""
    try:
        parts = path.read_text().split()
        pid = int(parts[0])
    except (OSError, ValueError, IndexError):
        return None, "-"
    return (pid if pid > 0 else None), (parts[1] if len(parts) > 1 else "-")


def _alive(path: Path) -> int | None:
    """Without ``flock``: the live process the file names, or None (none, gone, or its id reused)."""
    pid, started = _stamp_in(path)  # one read: the file may be removed or rewritten meanwhile
    if pid is None:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # alive, another user's
    now = _start_time(pid)
    if started != "-" and now is not None and now != started:
        return None
    return pid


def holder(path: Path) -> int | None:
    """The process id of the live holder of the lock at ``path``, or None if nobody holds it (or, held, it
    names no process)."""
    if fcntl is None:
        return _alive(path)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return _stamp_in(path)[0]
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def claim(path: Path) -> Lock | None:
    """Take the lock at ``path`` for this process, or None if a live process holds it (this one included: a
    run is not entered twice)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if fcntl is None:
        return _claim_exclusive(path)
    while True:
        fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        try:
            current = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            current = False
        if current:
            os.ftruncate(fd, 0)
            os.write(fd, _stamp())
            return Lock(path, fd)
        # its holder released it (and removed the file) between our open and our flock: lock the new file
        os.close(fd)


def _claim_exclusive(path: Path) -> Lock | None:
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            if _alive(path) is not None:
                return None
            path.unlink(missing_ok=True)
            continue
        try:
            os.write(fd, _stamp())
        finally:
            os.close(fd)
        return Lock(path)
    return None


def release(lock: Lock) -> None:
    """Give the lock up and remove its file (removed first, so that nobody locks a file about to go)."""
    if not lock.held:
        return
    lock.held = False
    if lock.fd < 0:
        if _stamp_in(lock.path)[0] == os.getpid():
            lock.path.unlink(missing_ok=True)
        return
    try:
        if os.stat(lock.path).st_ino == os.fstat(lock.fd).st_ino:
            lock.path.unlink()
    except FileNotFoundError:
        pass
    finally:
        os.close(lock.fd)
        lock.fd = -1


@contextmanager
def holding_run(folder: Path) -> Iterator[None]:
    """Hold ``folder``'s run lock for the ``with`` block; :class:`LockedError` if another process runs it."""
    path = folder / RUN_LOCK
    lock = claim(path)
    if lock is None:
        pid = holder(path)
        who = f"process {pid}" if pid is not None else "another process"
        raise LockedError(
            f"{folder} is being run by {who} (lock {path}); two processes on one run would corrupt its "
            f"checkpoints. Wait for it to end or stop it, then resume (nothing was changed)"
        )
    try:
        yield
    finally:
        release(lock)
