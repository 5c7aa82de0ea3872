"""Atomic file writes: a reader (or a resumed run) sees the old file or the new one, never a torn one.

The data goes to a temporary file in the same directory, is flushed and fsynced, then renamed over the
target (``os.replace`` is atomic on POSIX and Windows); the directory is fsynced so that the rename
survives a crash. A kill at any moment leaves at worst a stray ``.<name>.tmp-*`` file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write_bytes", "atomic_write_text", "new_unique_dir"]


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.tmp-", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; a written file gets the usual permissions
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:
        dfd = os.open(path.parent, os.O_RDONLY)
    except OSError:  # some platforms cannot open a directory; the rename is still atomic
        return
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def new_unique_dir(parent: str | Path, stem: str) -> Path:
    """Create and return ``parent/stem``, or ``stem-2``, ``stem-3``, ... if taken: two runs started in the same
    second (or a run and a leftover) never share a folder. ``mkdir`` is the atomic claim."""
    parent = Path(parent)
    parent.mkdir(parents=True, exist_ok=True)
    for i in range(1, 10_000):
        d = parent / (stem if i == 1 else f"{stem}-{i}")
        try:
            d.mkdir()
        except FileExistsError:
            continue
        return d
    raise ValueError(f"{parent}: 10,000 folders named {stem}*; choose another output folder")
