"""Exception types shared by the ffo_env packages."""

from __future__ import annotations


class DataError(ValueError):
    """A game data file (map, units, tables ...) is malformed.

    The message names the file, the line (and column or key) and what was
    expected, so that a user editing the data by hand can fix it without
    reading Python.
    """
