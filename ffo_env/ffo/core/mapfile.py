"""Read and write the hand-editable map file (``ffo_env/ffo/data/map.csv``).

Format (UTF-8, one hex per line; blank lines and lines starting with ``#`` are
comments)::

    version,reconstruction-v1
    hex,terrain,city,port,row,river,blocked
    5625,clear,Dijon,,,,
    1625,clear,Cannes,port,,,
    4312,rough,,,,E SW,

- ``hex``: the four-digit hex id ``XXYY``; every hex of the grid exactly once.
- ``terrain``: clear, rough, marsh, mountain, sea or neutral.
- ``city``: city name or empty; ``port``: ``port`` or empty (a port must be a city).
- ``row``: red, green, yellow or empty; must match the positions fixed by
  rule 5.5 (green = column 60, red = column 59, yellow = row 00 of columns 29..58).
- ``river`` / ``blocked``: space-separated hexside directions E NE NW W SW SE.
  Both hexes of a hexside must list it (symmetry is checked).

The version line says which data set this is (:data:`MAP_VERSION` for the
shipped reconstruction). Any problem raises :class:`DataError` naming the
file, the line, the column and what was expected.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from ffo_env.atomic import atomic_write_text
from ffo_env.core.errors import DataError
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.datasets import data_dir
from ffo_env.ffo.core.mapdata import ColoredRow, MapData, Terrain

MAP_VERSION = "reconstruction-v1"
"""Data version written by :func:`save_map` by default (components.md: data carries a version)."""

COLUMNS = ("hex", "terrain", "city", "port", "row", "river", "blocked")
TERRAIN_NAMES = {t: t.name.lower() for t in Terrain}
ROW_NAMES = {
    ColoredRow.NONE: "",
    ColoredRow.RED: "red",
    ColoredRow.GREEN: "green",
    ColoredRow.YELLOW: "yellow",
}
_TERRAIN_BY_NAME = {v: k for k, v in TERRAIN_NAMES.items()}
_ROW_BY_NAME = {v: k for k, v in ROW_NAMES.items()}
_DIR_BY_NAME = {name: d for d, name in enumerate(hg.DIRECTIONS)}

# the header every map.csv carries: its text is part of the data files (their bytes are hashed), so it keeps
# the paths the files were first written with (issue 62 moved them under ffo_env/ffo/)
HEADER_COMMENT = """\
# France Fights On - map of southern France, June 1940 (data version {version}).
# Built by tools/build_map.py from ffo_env/data/geography.yaml (python tools/build_map.py),
# but this file is the game's data: it may be edited by hand (re-running the builder
# overwrites hand edits). Checked on load by ffo_env/core/mapfile.py.
# One line per hex. terrain: clear rough marsh mountain sea neutral. port: 'port' or empty.
# row: red (column 59), green (column 60), yellow (row 00 of columns 29..58) or empty.
# river / blocked: hexside directions E NE NW W SW SE, space-separated, listed on both hexes.
# A city hex keeps its underlying terrain here; the rules give it city effects (components.md §2).
"""


def default_map_path() -> Path:
    """Path of the ``map.csv`` of the data this process plays (``$FFO_DATA`` or the default version).

    Found next to this module rather than via importlib.resources because
    ``ffo_env/ffo/data`` is a plain data directory (no ``__init__.py``).
    """
    return data_dir() / "map.csv"


def expected_row(index: int) -> ColoredRow:
    """Colored row of a hex as fixed by rule 5.5 / components.md §1."""
    x, y = int(hg.HEX_X[index]), int(hg.HEX_Y[index])
    if x == 60:
        return ColoredRow.GREEN
    if x == 59:
        return ColoredRow.RED
    if y == 0 and 29 <= x <= 58:
        return ColoredRow.YELLOW
    return ColoredRow.NONE


def expected_rows() -> np.ndarray:
    return np.array([expected_row(i) for i in range(hg.N_HEX)], dtype=np.int8)


def _dirs_text(flags: np.ndarray) -> str:
    return " ".join(hg.DIRECTIONS[d] for d in range(hg.N_DIR) if flags[d])


def dumps_map(mapdata: MapData, version: str = MAP_VERSION) -> str:
    """The map file text of ``mapdata`` (what :func:`save_map` writes)."""
    buf = io.StringIO()
    buf.write(HEADER_COMMENT.format(version=version))
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(("version", version))
    w.writerow(COLUMNS)
    for i in range(hg.N_HEX):
        w.writerow(
            (
                hg.hex_name(i),
                TERRAIN_NAMES[Terrain(int(mapdata.terrain[i]))],
                mapdata.city[i],
                "port" if mapdata.port[i] else "",
                ROW_NAMES[ColoredRow(int(mapdata.row[i]))],
                _dirs_text(mapdata.river[i]),
                _dirs_text(mapdata.blocked[i]),
            )
        )
    return buf.getvalue()


def save_map(mapdata: MapData, path: str | Path, version: str = MAP_VERSION) -> None:
    """Write ``mapdata`` as a map file; :func:`load_map` reads it back identically."""
    atomic_write_text(path, dumps_map(mapdata, version))  # a crash mid-write never leaves half a map file


def read_map(path: str | Path | None = None) -> tuple[MapData, str]:
    """Load and validate a map file (default: the played data's ``map.csv``) and the version it declares,
    in one parse."""
    return _parse(Path(path) if path is not None else default_map_path())


def map_version(path: str | Path | None = None) -> str:
    """The data version declared by a map file (validating the whole file)."""
    return read_map(path)[1]


def load_map(path: str | Path | None = None) -> MapData:
    """Load and validate a map file (default: the played data's ``map.csv``)."""
    return read_map(path)[0]


def loads_map(text: str, source: str = "<string>") -> MapData:
    """Parse map file text; ``source`` names it in error messages."""
    return _parse_text(text, source)[0]


def _parse(path: Path) -> tuple[MapData, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise DataError(f"{path}: cannot read map file ({e.strerror or e})") from e
    except UnicodeDecodeError as e:
        raise DataError(f"{path}: not UTF-8 text ({e})") from e
    return _parse_text(text, str(path))


def _parse_dirs(text: str, where: str, column: str) -> np.ndarray:
    flags = np.zeros(hg.N_DIR, dtype=bool)
    for tok in text.split():
        d = _DIR_BY_NAME.get(tok.upper())
        if d is None:
            raise DataError(
                f"{where}, column {column}: direction {tok!r} is not one of {' '.join(hg.DIRECTIONS)}"
            )
        flags[d] = True
    return flags


def _parse_text(text: str, src: str) -> tuple[MapData, str]:
    terrain = np.zeros(hg.N_HEX, dtype=np.int8)
    city = [""] * hg.N_HEX
    port = np.zeros(hg.N_HEX, dtype=bool)
    row = np.zeros(hg.N_HEX, dtype=np.int8)
    river = np.zeros((hg.N_HEX, hg.N_DIR), dtype=bool)
    blocked = np.zeros((hg.N_HEX, hg.N_DIR), dtype=bool)
    line_of = np.zeros(hg.N_HEX, dtype=np.int64)  # 0 = hex not seen yet
    version: str | None = None
    header_seen = False
    last_line = 0
    terrain_list = ", ".join(TERRAIN_NAMES.values())

    for lineno, raw in enumerate(text.splitlines(), start=1):
        last_line = lineno
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        where = f"{src} line {lineno}"
        fields = [f.strip() for f in next(csv.reader([raw]))]
        if version is None:
            if len(fields) != 2 or fields[0] != "version" or not fields[1]:
                raise DataError(
                    f"{where}: expected the version line 'version,<name>' "
                    f"(e.g. 'version,{MAP_VERSION}') before the hexes"
                )
            version = fields[1]
            continue
        if not header_seen:
            if tuple(fields) != COLUMNS:
                raise DataError(f"{where}: expected the header line '{','.join(COLUMNS)}'")
            header_seen = True
            continue
        if len(fields) != len(COLUMNS):
            raise DataError(
                f"{where}: expected {len(COLUMNS)} comma-separated fields "
                f"({','.join(COLUMNS)}), found {len(fields)}"
            )
        hid, ter, cname, prt, rw, riv, blk = fields
        try:
            i = hg.hex_index(hid)
        except ValueError as e:
            raise DataError(f"{where}, column hex: {e}") from None
        if line_of[i]:
            raise DataError(f"{where}, column hex: hex {hid} appears twice (first on line {line_of[i]})")
        line_of[i] = lineno
        t = _TERRAIN_BY_NAME.get(ter.lower())
        if t is None:
            raise DataError(f"{where}, column terrain: terrain {ter!r} is not one of {terrain_list}")
        terrain[i] = t
        city[i] = cname
        if prt.lower() not in ("", "port"):
            raise DataError(f"{where}, column port: expected 'port' or empty, found {prt!r}")
        port[i] = prt.lower() == "port"
        r = _ROW_BY_NAME.get(rw.lower())
        if r is None:
            raise DataError(f"{where}, column row: {rw!r} is not one of red, green, yellow or empty")
        row[i] = r
        river[i] = _parse_dirs(riv, where, "river")
        blocked[i] = _parse_dirs(blk, where, "blocked")

    if version is None:
        raise DataError(f"{src} line {last_line}: no version line 'version,<name>' found")
    if not header_seen:
        raise DataError(f"{src} line {last_line}: no header line '{','.join(COLUMNS)}' found")
    missing = [hg.hex_name(int(i)) for i in np.flatnonzero(line_of == 0)]
    if missing:
        shown = ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else "")
        raise DataError(
            f"{src} line {last_line} (end of file): {len(missing)} hexes missing, "
            f"every hex must appear once: {shown}"
        )

    _check(src, line_of, terrain, city, port, row, river, blocked)
    md = MapData(
        terrain=terrain, city=tuple(city), port=port, row=row, river=river, blocked=blocked, source=src
    )
    bad_ports = [i for i in md.port_hexes() if not md.coastal[i]]
    if bad_ports:
        i = bad_ports[0]
        raise DataError(
            f"{src} line {line_of[i]}, column port: port {city[i]} in hex {hg.hex_name(i)} "
            f"is not coastal (no adjacent sea hex)"
        )
    return md, version


def _check(
    src: str,
    line_of: np.ndarray,
    terrain: np.ndarray,
    city: list[str],
    port: np.ndarray,
    row: np.ndarray,
    river: np.ndarray,
    blocked: np.ndarray,
) -> None:
    """Cross-hex consistency checks; each error names the line(s) involved."""

    def at(i: int, column: str) -> str:
        return f"{src} line {line_of[i]}, column {column}"

    want_row = expected_rows()
    for i in range(hg.N_HEX):
        name = hg.hex_name(i)
        if row[i] != want_row[i]:
            want = ROW_NAMES[ColoredRow(int(want_row[i]))] or "empty"
            raise DataError(
                f"{at(i, 'row')}: hex {name} must have row {want} (rule 5.5 fixes the "
                f"colored rows: green 60xx, red 59xx, yellow 2900-5800)"
            )
        if row[i] != ColoredRow.NONE:
            if terrain[i] != Terrain.CLEAR:
                raise DataError(f"{at(i, 'terrain')}: colored row hex {name} must be clear (rule 5.5)")
            if city[i]:
                raise DataError(f"{at(i, 'city')}: colored row hex {name} may not hold a city (R4)")
        if port[i] and not city[i]:
            raise DataError(f"{at(i, 'port')}: hex {name} is a port but has no city name")
        if city[i] and terrain[i] in (Terrain.SEA, Terrain.NEUTRAL):
            raise DataError(
                f"{at(i, 'terrain')}: city {city[i]} in hex {name} must be on land, "
                f"not {TERRAIN_NAMES[Terrain(int(terrain[i]))]}"
            )
        for column, flags in (("river", river), ("blocked", blocked)):
            for d in np.flatnonzero(flags[i]):
                j = int(hg.NEIGHBORS[i, d])
                dname = hg.DIRECTIONS[d]
                if j < 0:
                    raise DataError(
                        f"{at(i, column)}: hex {name} has a {column} hexside {dname} "
                        f"toward off-map (no hex there)"
                    )
                back = (d + 3) % 6
                if not flags[j, back]:
                    raise DataError(
                        f"{at(i, column)}: hex {name} lists {column} {dname} but hex "
                        f"{hg.hex_name(j)} (line {line_of[j]}) does not list "
                        f"{hg.DIRECTIONS[back]}; both sides must agree"
                    )
                if column == "river":
                    if row[i] != ColoredRow.NONE or row[j] != ColoredRow.NONE:
                        k = i if row[i] != ColoredRow.NONE else j
                        raise DataError(
                            f"{at(i, column)}: river {dname} of hex {name} borders colored "
                            f"row hex {hg.hex_name(k)}, which is riverless (rule 5.5)"
                        )
                    if city[i] or city[j]:
                        k = i if city[i] else j
                        raise DataError(
                            f"{at(i, column)}: river {dname} of hex {name} borders city "
                            f"hex {hg.hex_name(k)} ({city[k]}); cities have no river "
                            f"hexsides (rule 11.5, R14)"
                        )
    seen: dict[str, int] = {}
    for i in np.argsort(line_of):
        c = city[int(i)]
        if not c:
            continue
        if c in seen:
            raise DataError(
                f"{at(int(i), 'city')}: city name {c!r} already used by hex "
                f"{hg.hex_name(seen[c])} (line {line_of[seen[c]]}); names must be unique"
            )
        seen[c] = int(i)
