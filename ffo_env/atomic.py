"""Atomic file writes: a reader (or a resumed run) sees the old file or the new one, never a torn one.

The data goes to a temporary file in the same directory, is flushed and fsynced, then renamed over the
target (``os.replace`` is atomic on POSIX and Windows); the directory is fsynced so that the rename
survives a crash. A kill at any moment leaves at worst a stray ``.<name>.tmp-*`` file.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write_bytes", "atomic_write_text", "check_writable", "new_unique_dir"]


def _refusal(cls: type[OSError], code: int | None, path: Path, why: str) -> OSError:
    err = cls(f"cannot write {path}: {why}")  # one argument: no "[Errno n]" in the message a user reads
    err.errno = code
    return err


def _cannot_write(path: Path, e: OSError) -> OSError:
    # the same OSError subclass and errno, naming the file asked for rather than the temporary file beside it
    return _refusal(type(e), e.errno, path, e.strerror or str(e))


def _make_parent(path: Path) -> None:
    for folder in path.parents:  # the nearest existing ancestor must be a folder (mkdir says "File exists")
        if folder.exists():
            if not folder.is_dir():
                raise _refusal(NotADirectoryError, errno.ENOTDIR, path, f"{folder} is a file, not a folder")
            break
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _cannot_write(path, e) from e


def _temp_beside(path: Path) -> tuple[int, str]:
    """A new temporary file in ``path``'s folder (made if missing): its descriptor and name."""
    _make_parent(path)
    try:
        return tempfile.mkstemp(prefix=f".{path.name}.tmp-", dir=path.parent)
    except OSError as e:
        raise _cannot_write(path, e) from e


def check_writable(path: str | Path) -> None:
    """Raise a clear ``OSError`` now if ``path`` could not be written later (its folder is created if
    missing): for a command that would otherwise play a whole game before failing to save it."""
    path = Path(path)
    if path.is_dir():
        raise _refusal(IsADirectoryError, errno.EISDIR, path, "it is a folder")
    fd, tmp = _temp_beside(path)
    os.close(fd)
    os.unlink(tmp)


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    path = Path(path)
    fd, tmp = _temp_beside(path)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; a written file gets the usual permissions
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(e, OSError):
            raise _cannot_write(path, e) from e
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
