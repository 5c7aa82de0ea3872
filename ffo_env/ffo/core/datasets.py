"""Where the game data lives and which version a process plays.

A data version is a folder of :data:`DATA_FILES` (components.md: everything that is not a rule is data).
The shipped versions sit under ``ffo_env/ffo/data/<version>/``; a user who owns the printed game copies one,
edits it and passes the folder instead of a name. ``$FFO_DATA`` (set by the CLI's ``--data``, inherited by
worker processes) picks the version when none is named; otherwise :data:`DEFAULT_DATA` is played.
"""

from __future__ import annotations

import os
from pathlib import Path

from ffo_env.core.errors import DataError

__all__ = ["DATA_ENV", "DATA_FILES", "DATA_ROOT", "DATA_VERSIONS", "DEFAULT_DATA", "data_choice", "data_dir"]

DATA_ROOT = Path(__file__).resolve().parent.parent / "data"
DATA_VERSIONS = ("reconstruction-v1", "reconstruction-v2", "reconstruction-v3")
"""The shipped data versions, oldest first; each is a folder of :data:`DATA_ROOT`."""
DEFAULT_DATA = "reconstruction-v3"
"""The version played unless ``$FFO_DATA`` or ``--data`` chooses another: the balanced one (``docs/guide/game_data.md``)."""
DATA_ENV = "FFO_DATA"
DATA_FILES = ("map.csv", "units.yaml", "tables.yaml", "setup_fixed.yaml")


def data_choice() -> str:
    """The data this process plays when none is named: ``$FFO_DATA`` or :data:`DEFAULT_DATA`."""
    return os.environ.get(DATA_ENV, "").strip() or DEFAULT_DATA


def data_dir(data: str | os.PathLike[str] | None = None) -> Path:
    """The folder of a data version: a shipped version's name, a folder, or None for :func:`data_choice`."""
    choice = data_choice() if data is None else data
    if isinstance(choice, str) and choice in DATA_VERSIONS:
        return DATA_ROOT / choice
    d = Path(choice)
    if not d.is_dir():
        raise DataError(
            f"game data {str(choice)!r}: neither a shipped data version ({', '.join(DATA_VERSIONS)}) "
            f"nor a folder holding {', '.join(DATA_FILES)}"
        )
    missing = [f for f in DATA_FILES if not (d / f).is_file()]
    if missing:
        raise DataError(
            f"game data folder {d}: missing {', '.join(missing)} (a data version is a folder of "
            f"{', '.join(DATA_FILES)})"
        )
    return d
