"""The game's data (C§1-C§12): map, counter types, Orders of Battle, tables; read and validated on load.

Everything is read from a data version's folder ``ffo_env/france1940/data/<version>/*.yaml`` (or another
folder holding the same files) and checked: a :class:`~ffo_env.core.errors.DataError` names the file, the key
and what was expected, so that a user replacing the reconstruction by the printed game's values can fix a
typo without reading Python.

Data versions (the way France Fights On keeps its own, :mod:`ffo_env.ffo.core.datasets`): every shipped
version is a folder of :data:`DATA_ROOT` named after it, kept byte for byte once released, and every file in
it carries that version; a game plays the version its ``RulesOptions.data_version`` names (``$FFO_F40_DATA``,
set by the command line's ``--data``, picks it when none is named; else :data:`DEFAULT_DATA`). Records and
saved states carry the version and replay / load under it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from ffo_env.core.errors import DataError
from ffo_env.france1940.core.hexgrid import COLUMNS, N_HEXES, ROWS, adjacent, hex_number

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
DATA_ROOT = Path(__file__).resolve().parents[1] / "data"
DATA_VERSIONS = ("f40-reconstruction-v1", "f40-reconstruction-v2", "f40-reconstruction-v3")
"""The shipped data versions, oldest first; each is a folder of :data:`DATA_ROOT`."""
DEFAULT_DATA = "f40-reconstruction-v3"  # P20 (P18 before session 48)
"""The version played unless ``RulesOptions.data_version`` or ``$FFO_F40_DATA`` names another: v3 since
session 48 (P20: between the German ``expert`` and the Allied ``expert`` its CRT lands the historical pair
inside 40-60 % German wins, docs/france1940/bots.md); v2 was the default of sessions 42-47 (P18) and v1 before.
Every version stays selectable byte for byte; what was written under one replays under it."""
FIRST_DATA = "f40-reconstruction-v1"  # P19
"""The version of what was written before data versions existed (session 40): a saved state without a
``data`` field, a record or state whose options have no ``data_version`` (a record's ``data`` names v1)."""
DATA_ENV = "FFO_F40_DATA"
DATA_VERSION = DEFAULT_DATA  # the default version's name (before data versions, the only one)
DATA_DIR = DATA_ROOT / DEFAULT_DATA
FILES = ("map.yaml", "units.yaml", "obac.yaml", "tables.yaml")

ALLIED = 0  # the French agent commands the Allied player (suite convention)
GERMAN = 1
AGENTS = ("french", "german")
NATIONS = {"FR": ALLIED, "GB": ALLIED, "BE": ALLIED, "NL": ALLIED, "DE": GERMAN}
COUNTRY_LETTERS = "FBNLG"
TERRAIN_CODES = ".fswx~"
PLAYABLE_TERRAIN = ".fs"  # clear, forest, swamp; w flooded, ~ sea, x outside are prohibited (C§5, F4)
SYMBOLS = (
    "infantry",
    "armor",
    "mech_inf",
    "armored_cav",
    "cavalry",
    "artillery",
    "gse",
    "paratroop",
    "air_landing",
    "bomber",
    "bomber_base",
)
SIZES = ("corps", "small")
CRT_COLUMNS = ("1-3", "1-2", "1-1", "2-1", "3-1", "4-1", "5-1", "6-1")
CRT_RESULTS = ("AR", "BR", "DR", "DX", "CA", "1CA", "2CA")
CRT_ROWS = tuple(range(-1, 9))


@dataclass(frozen=True)
class Fortified:
    """A fortified hex (C§3.2): Maginot or Belgian, with the neighbour sets that decide front and rear."""

    hex: int
    name: str
    kind: str  # "maginot" | "belgian"
    front: frozenset[int]
    rear: frozenset[int]
    line: frozenset[int]


@dataclass(frozen=True)
class UnitType:
    """A counter type (C§8.2)."""

    id: str
    nation: str
    printed: str
    attack: int
    defence: int
    ma: int
    symbol: str
    mech: bool
    size: str

    @property
    def side(self) -> int:
        return NATIONS[self.nation]

    @property
    def weight(self) -> int:
        """Stacking weight toward one corps-equivalent (F13): corps 3, smaller 1, paratroops 0."""
        if self.symbol == "paratroop":
            return 0
        return 3 if self.size == "corps" else 1


@dataclass(frozen=True)
class Obac:
    """One side's Order of Battle Alternatives Chart (C§9): columns, starting units, reinforcements."""

    columns: tuple[str, ...]
    start: dict[str, tuple[int, ...]]  # unit type -> count per column
    reinforcements: tuple[tuple[int, str, tuple[int, ...]], ...]  # (turn, type, counts); turn 0 = F45 row

    def column(self, name: str) -> int:
        if name not in self.columns:
            raise ValueError(f"unknown Order of Battle Alternative {name!r}; known: {list(self.columns)}")
        return self.columns.index(name)


@dataclass(frozen=True)
class Data:
    """Everything the rules read; hex-indexed tuples have length 1281 (index 0 unused)."""

    terrain: tuple[str, ...]  # per hex: a code of TERRAIN_CODES
    country: tuple[str, ...]  # per hex: F B N L G, a border digit, or "-"
    countries: tuple[frozenset[str], ...]  # per hex: the one or two countries it belongs to (F5)
    border_codes: dict[str, tuple[str, str]]
    cities: dict[int, tuple[str, str]]  # hex -> (class C|T, name)
    rivers: frozenset[frozenset[int]]  # river hexsides as {a, b}
    river_names: dict[str, tuple[tuple[int, int], ...]]
    fortified: dict[int, Fortified]
    paris: tuple[int, ...]
    german_edge: tuple[int, ...]
    allied_south_edge: tuple[int, ...]
    allied_west_edge: tuple[int, ...]
    bomber_base: int
    setup_areas: dict[str, frozenset[str]]  # nation -> country codes
    mild_winter: frozenset[int]
    types: dict[str, UnitType]
    allied_obac: Obac
    german_obac: Obac
    allied_interdiction: frozenset[str]
    maginot_clear: frozenset[str]
    german_no_interdiction: frozenset[str]
    airborne: dict[str, int]
    bomber_command: dict[str, int]
    tables: dict[str, Any]
    version: str = DATA_VERSION  # the data version every file of the folder carries

    def playable(self, n: int) -> bool:
        return self.terrain[n] in PLAYABLE_TERRAIN

    def is_river(self, a: int, b: int) -> bool:
        return frozenset((a, b)) in self.rivers

    def crt(self, column: int, die: int) -> str:
        """The CRT result at column index ``column`` (0 = 1-3 … 7 = 6-1) for modified die ``die``."""
        row = min(8, max(-1, die))
        res: str = self.tables["crt"]["columns"][CRT_COLUMNS[column]][row + 1]
        return res


def _fail(file: str, key: str, expected: str, found: object) -> DataError:
    return DataError(f"{file}: {key}: expected {expected}, found {found!r}")


def unknown_version(version: object) -> DataError:
    """The one error for a data version the engine does not ship: it names the version and the known ones."""
    return DataError(
        f"unknown France 1940 game data version {version!r}; known versions: {', '.join(DATA_VERSIONS)}"
    )


def data_choice() -> str:
    """The data version a game plays when none is named: ``$FFO_F40_DATA`` or :data:`DEFAULT_DATA`."""
    return os.environ.get(DATA_ENV, "").strip() or DEFAULT_DATA


def data_dir(version: str) -> Path:
    """The folder of the shipped data version ``version`` (DataError naming it and the known ones)."""
    if version not in DATA_VERSIONS:
        raise unknown_version(version)
    return DATA_ROOT / version


def _read(folder: Path, name: str) -> dict[str, Any]:
    path = folder / name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise DataError(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        doc = yaml.load(text, Loader=_Loader)  # a safe loader: no tags, no code (C version when built)
    except yaml.YAMLError as e:
        raise DataError(f"{path}: not valid YAML: {e}") from None
    if not isinstance(doc, dict):
        raise _fail(name, "(top level)", "a mapping", type(doc).__name__)
    if doc.get("version") not in DATA_VERSIONS:
        raise _fail(
            name, "version", f"a data version of the engine ({', '.join(DATA_VERSIONS)})", doc.get("version")
        )
    return doc


def _int(file: str, key: str, v: object, lo: int | None = None, hi: int | None = None) -> int:
    if type(v) is not int or (lo is not None and v < lo) or (hi is not None and v > hi):
        rng = (
            f" in [{lo}, {hi}]"
            if lo is not None and hi is not None
            else (f" >= {lo}" if lo is not None else "")
        )
        raise _fail(file, key, f"an integer{rng}", v)
    return v


def _hex(file: str, key: str, v: object) -> int:
    return _int(file, key, v, 1, N_HEXES)


def _hexes(file: str, key: str, v: object) -> tuple[int, ...]:
    if not isinstance(v, list):
        raise _fail(file, key, "a list of hex numbers", v)
    return tuple(_hex(file, f"{key}[{i}]", x) for i, x in enumerate(v))


def _get(file: str, doc: dict[str, Any], key: str, kind: type, what: str) -> Any:
    v = doc.get(key)
    if not isinstance(v, kind) or (isinstance(v, (dict, list)) and not v):
        raise _fail(file, key, what, v)
    return v


def _columns(file: str, doc: dict[str, Any], key: str, alphabet: str) -> tuple[str, ...]:
    block = _get(file, doc, key, dict, f"a mapping c01..c{COLUMNS} of {ROWS}-character strings")
    out = [""] * (N_HEXES + 1)
    for c in range(1, COLUMNS + 1):
        ck = f"c{c:02d}"
        s = block.get(ck)
        if not isinstance(s, str) or len(s) != ROWS:
            raise _fail(file, f"{key}.{ck}", f"a string of {ROWS} characters", s)
        for r, ch in enumerate(s, 1):
            if ch not in alphabet:
                raise _fail(file, f"{key}.{ck} row {r}", f"one of {alphabet!r}", ch)
            out[hex_number(c, r)] = ch
    extra = set(block) - {f"c{c:02d}" for c in range(1, COLUMNS + 1)}
    if extra:
        raise _fail(file, key, f"only the keys c01..c{COLUMNS}", sorted(extra))
    return tuple(out)


def _map(doc: dict[str, Any]) -> dict[str, Any]:
    f = "map.yaml"
    grid = doc.get("grid")
    if grid != {"columns": COLUMNS, "rows": ROWS}:
        raise _fail(f, "grid", f"{{columns: {COLUMNS}, rows: {ROWS}}} (the engine's grid, C§1.1)", grid)
    terrain = _columns(f, doc, "terrain", TERRAIN_CODES)
    country = _columns(f, doc, "countries", COUNTRY_LETTERS + "12345678-")
    bc = _get(f, doc, "border_codes", dict, "a mapping digit -> [country, country]")
    border_codes: dict[str, tuple[str, str]] = {}
    for k, v in bc.items():
        if not (isinstance(k, str) and k in "12345678" and len(k) == 1):
            raise _fail(f, f"border_codes.{k}", "a digit 1..8", k)
        if not (isinstance(v, list) and len(v) == 2 and all(x in COUNTRY_LETTERS for x in v)):
            raise _fail(f, f"border_codes.{k}", f"two countries of {COUNTRY_LETTERS!r}", v)
        border_codes[k] = (v[0], v[1])
    countries: list[frozenset[str]] = [frozenset()]
    for n in range(1, N_HEXES + 1):
        code, t = country[n], terrain[n]
        if (code == "-") != (t in "~x"):  # C§2.2: "-" exactly on the sea and outside hexes
            raise _fail(f, f"countries hex {n}", "'-' exactly where the terrain is ~ or x", f"{code} on {t}")
        if code in border_codes:
            countries.append(frozenset(border_codes[code]))
        elif code in "12345678":
            raise _fail(f, f"countries hex {n}", "a border digit listed under border_codes", code)
        else:
            countries.append(frozenset() if code == "-" else frozenset(code))
    cities: dict[int, tuple[str, str]] = {}
    for k, v in _get(f, doc, "cities", dict, "a mapping hex -> [C|T, name]").items():
        h = _hex(f, f"cities.{k}", k)
        if not (isinstance(v, list) and len(v) == 2 and v[0] in ("C", "T") and isinstance(v[1], str)):
            raise _fail(f, f"cities.{k}", "[C|T, name]", v)
        if terrain[h] not in PLAYABLE_TERRAIN:
            raise _fail(f, f"cities.{k}", "a playable land hex", terrain[h])
        cities[h] = (v[0], v[1])
    rivers: set[frozenset[int]] = set()
    river_names: dict[str, tuple[tuple[int, int], ...]] = {}
    for name, sides in _get(f, doc, "rivers", dict, 'a mapping river -> ["a-b", ...]').items():
        if not isinstance(sides, list):
            raise _fail(f, f"rivers.{name}", "a list of hexsides a-b", sides)
        pairs = []
        for i, s in enumerate(sides):
            key = f"rivers.{name}[{i}]"
            parts = s.split("-") if isinstance(s, str) else []
            if len(parts) != 2 or not all(p.isdigit() for p in parts):
                raise _fail(f, key, "a hexside 'a-b'", s)
            a, b = _hex(f, key, int(parts[0])), _hex(f, key, int(parts[1]))
            if not adjacent(a, b):
                raise _fail(f, key, "two adjacent hexes", s)
            if terrain[a] not in PLAYABLE_TERRAIN or terrain[b] not in PLAYABLE_TERRAIN:
                raise _fail(f, key, "a hexside between playable land hexes (C§4.2)", s)
            side = frozenset((a, b))
            if side in rivers:
                raise _fail(f, key, "a hexside listed once", s)
            rivers.add(side)
            pairs.append((min(a, b), max(a, b)))
        river_names[str(name)] = tuple(pairs)
    fort = _get(f, doc, "fortified", dict, "a mapping with maginot and belgian lists")
    fortified: dict[int, Fortified] = {}
    for kind in ("maginot", "belgian"):
        rows = fort.get(kind)
        if not isinstance(rows, list) or not rows:
            raise _fail(f, f"fortified.{kind}", "a non-empty list", rows)
        for i, row in enumerate(rows):
            key = f"fortified.{kind}[{i}]"
            if not isinstance(row, dict) or set(row) != {"hex", "name", "front", "rear", "line"}:
                raise _fail(f, key, "{hex, name, front, rear, line}", row)
            h = _hex(f, key + ".hex", row["hex"])
            sets = []
            for part in ("front", "rear", "line"):
                hs = _hexes(f, f"{key}.{part}", row[part]) if row[part] else ()
                for x in hs:
                    if not adjacent(h, x):
                        raise _fail(f, f"{key}.{part}", f"neighbours of {h}", x)
                sets.append(frozenset(hs))
            if h in fortified:
                raise _fail(f, key, "a hex listed once", h)
            fortified[h] = Fortified(h, str(row["name"]), kind, sets[0], sets[1], sets[2])
    paris = _hexes(f, "paris", _get(f, doc, "paris", list, "a list of hexes"))
    setup = _get(f, doc, "setup_areas", dict, "a mapping nation -> country codes")
    setup_areas: dict[str, frozenset[str]] = {}
    for nat in NATIONS:
        codes = setup.get(nat)
        if not isinstance(codes, list) or not all(
            isinstance(x, str) and x in COUNTRY_LETTERS + "12345678" for x in codes
        ):
            raise _fail(f, f"setup_areas.{nat}", "a list of country codes", codes)
        setup_areas[nat] = frozenset(codes)
    mw = _hexes(f, "mild_winter_france", _get(f, doc, "mild_winter_france", list, "a list of hexes"))
    mild = frozenset(mw) | frozenset(n for n in range(1, N_HEXES + 1) if country[n] == "1")  # C§3.5
    return {
        "terrain": terrain,
        "country": country,
        "countries": tuple(countries),
        "border_codes": border_codes,
        "cities": cities,
        "rivers": frozenset(rivers),
        "river_names": river_names,
        "fortified": fortified,
        "paris": paris,
        "german_edge": _hexes(f, "german_edge", doc.get("german_edge")),
        "allied_south_edge": _hexes(f, "allied_south_edge", doc.get("allied_south_edge")),
        "allied_west_edge": _hexes(f, "allied_west_edge", doc.get("allied_west_edge")),
        "bomber_base": _hex(f, "bomber_base", doc.get("bomber_base")),
        "setup_areas": setup_areas,
        "mild_winter": mild,
    }


def _types(doc: dict[str, Any]) -> dict[str, UnitType]:
    f = "units.yaml"
    out: dict[str, UnitType] = {}
    for tid, row in _get(f, doc, "types", dict, "a mapping type -> [...]").items():
        key = f"types.{tid}"
        if not (isinstance(row, list) and len(row) == 8):
            raise _fail(f, key, "[nation, printed, attack, defence, MA, symbol, mechanized, size]", row)
        nat, printed, att, dfn, ma, sym, mech, size = row
        if nat not in NATIONS:
            raise _fail(f, key + " nation", f"one of {sorted(NATIONS)}", nat)
        if not isinstance(printed, str):
            raise _fail(f, key + " printed", "a string", printed)
        if sym not in SYMBOLS:
            raise _fail(f, key + " symbol", f"one of {SYMBOLS}", sym)
        if type(mech) is not bool:
            raise _fail(f, key + " mechanized", "true or false", mech)
        if size not in SIZES:
            raise _fail(f, key + " size", f"one of {SIZES}", size)
        out[str(tid)] = UnitType(
            str(tid),
            nat,
            printed,
            _int(f, key + " attack", att, 0, 99),
            _int(f, key + " defence", dfn, 0, 99),
            _int(f, key + " MA", ma, 0, 99),
            sym,
            mech,
            size,
        )
    return out


def _obac(doc: dict[str, Any], side: str, types: dict[str, UnitType]) -> tuple[Obac, dict[str, Any]]:
    f = "obac.yaml"
    block = _get(f, doc, side, dict, "a mapping")
    cols = block.get("columns")
    if not isinstance(cols, list) or not cols or not all(isinstance(c, str) for c in cols):
        raise _fail(f, f"{side}.columns", "a list of column names", cols)
    ncol = len(cols)
    nat_side = ALLIED if side == "allied" else GERMAN

    def counts(key: str, v: object) -> tuple[int, ...]:
        if not isinstance(v, list) or len(v) != ncol:
            raise _fail(f, key, f"{ncol} counts (one per column)", v)
        return tuple(_int(f, f"{key}[{i}]", x, 0, 99) for i, x in enumerate(v))

    def typ(key: str, t: object) -> str:
        if not isinstance(t, str) or t not in types or types[t].side != nat_side:
            raise _fail(f, key, f"a {side} unit type of units.yaml", t)
        return t

    start = {
        typ(f"{side}.start.{t}", t): counts(f"{side}.start.{t}", v)
        for t, v in _get(f, block, "start", dict, "a mapping type -> counts").items()
    }
    reinf = []
    for i, row in enumerate(_get(f, block, "reinforcements", list, "a list of [turn, type, counts]")):
        key = f"{side}.reinforcements[{i}]"
        if not (isinstance(row, list) and len(row) == 3):
            raise _fail(f, key, "[turn, type, counts]", row)
        turn = 0 if row[0] == "gt1_second_row" and side == "german" else _int(f, key + " turn", row[0], 1, 12)
        reinf.append((turn, typ(key + " type", row[1]), counts(key + " counts", row[2])))
    totals = block.get("totals")
    if totals is not None:  # the chart's own totals rows (C§9) guard against a mistyped cell
        if not isinstance(totals, dict):
            raise _fail(f, f"{side}.totals", "{start: [...], reinforcements: [...]}", totals)
        st = counts(f"{side}.totals.start", totals.get("start"))
        rf = counts(f"{side}.totals.reinforcements", totals.get("reinforcements"))
        for i in range(ncol):
            s_sum = sum(v[i] for v in start.values())
            r_sum = sum(r[2][i] for r in reinf)
            if s_sum != st[i] or r_sum != rf[i]:
                raise _fail(
                    f,
                    f"{side}.totals column {cols[i]}",
                    f"start {st[i]} and reinforcements {rf[i]} (the chart's totals)",
                    f"start {s_sum}, reinforcements {r_sum}",
                )
    return Obac(tuple(cols), start, tuple(reinf)), block


def _letter_cols(f: str, block: dict[str, Any], key: str, cols: tuple[str, ...]) -> frozenset[str]:
    v = block.get(key, [])
    if not isinstance(v, list) or any(x not in cols for x in v):
        raise _fail(f, key, f"a list of columns of {list(cols)}", v)
    return frozenset(v)


def _tables(doc: dict[str, Any]) -> dict[str, Any]:
    f = "tables.yaml"
    crt = _get(f, doc, "crt", dict, "a mapping {rows, columns}")
    if crt.get("rows") != list(CRT_ROWS):
        raise _fail(f, "crt.rows", f"{list(CRT_ROWS)}", crt.get("rows"))
    cols = crt.get("columns")
    if not isinstance(cols, dict) or list(cols) != list(CRT_COLUMNS):
        raise _fail(f, "crt.columns", f"the columns {list(CRT_COLUMNS)} in order", cols)
    for c, v in cols.items():
        if not isinstance(v, list) or len(v) != len(CRT_ROWS):
            raise _fail(f, f"crt.columns.{c}", f"{len(CRT_ROWS)} results (rows -1..8)", v)
        for i, x in enumerate(v):
            if str(x) not in CRT_RESULTS:
                raise _fail(f, f"crt.columns.{c} row {i - 1}", f"one of {CRT_RESULTS}", x)
        cols[c] = [str(x) for x in v]
    air = _get(f, doc, "air_superiority", dict, "a mapping {columns, destroy_at_most}")
    at_most = air.get("destroy_at_most")
    if not isinstance(air.get("columns"), list) or not isinstance(at_most, list):
        raise _fail(f, "air_superiority", "{columns: [...], destroy_at_most: [...]}", air)
    if len(at_most) != len(air["columns"]):
        raise _fail(f, "air_superiority.destroy_at_most", "one entry per column", at_most)
    for i, x in enumerate(at_most):
        _int(f, f"air_superiority.destroy_at_most[{i}]", x, 0, 6)
    tec = _get(f, doc, "tec", dict, "a mapping")
    for k in ("river_die", "zoc_enter", "zoc_leave", "zoc_both", "close_support", "mild_winter_mp"):
        _int(f, f"tec.{k}", tec.get(k), -9, 9)
    for k in ("fort_front", "fort_rear"):
        _int(f, f"tec.{k}", tec.get(k), 0, 99)
    for t in ("clear", "forest", "swamp"):
        row = tec.get(t)
        if not isinstance(row, dict) or set(row) != {"mp", "mp_mech", "die"}:
            raise _fail(f, f"tec.{t}", "{mp, mp_mech, die}", row)
        for k in ("mp", "mp_mech"):
            _int(f, f"tec.{t}.{k}", row[k], 1, 9)
        _int(f, f"tec.{t}.die", row["die"], -9, 0)
    turns = _get(f, doc, "turns", dict, "a mapping game-turn -> dates")
    std = _int(f, "standard_turns", doc.get("standard_turns"), 1, 99)
    bef = _int(f, "bef_turns", doc.get("bef_turns"), 1, 99)
    for gt in range(1, max(std, bef) + 1):
        if not isinstance(turns.get(gt), str):
            raise _fail(f, f"turns.{gt}", "the dates of that game-turn", turns.get(gt))
    vic = _get(f, doc, "victory", dict, "a mapping")
    for k in ("vp_unit", "vp_british", "vp_air", "vp_paris", "german_min_vp", "german_min_ratio"):
        _int(f, f"victory.{k}", vic.get(k), 0, 999)
    for k in ("bef_armor_vp_per_factor", "bef_mech_inf_vp_per_factor"):
        _int(f, f"victory.{k}", vic.get(k), 0, 99)
    var = vic.get("variable")
    if not isinstance(var, list) or not var:
        raise _fail(f, "victory.variable", "a list of [name, ratio, strict, min VP]", var)
    for i, row in enumerate(var):
        ok = isinstance(row, list) and len(row) == 4 and isinstance(row[0], str) and type(row[2]) is bool
        if not ok:
            raise _fail(f, f"victory.variable[{i}]", "[name, ratio, strict, min VP]", row)
        _int(f, f"victory.variable[{i}] ratio", row[1], 0, 99)
        _int(f, f"victory.variable[{i}] min VP", row[3], 0, 999)
    rng = _get(f, doc, "ranges", dict, "a mapping")
    for k in ("air_de", "air_allied", "paratroop", "artillery", "bomber"):
        _int(f, f"ranges.{k}", rng.get(k), 1, 99)
    return {
        "crt": crt,
        "air_superiority": air,
        "tec": tec,
        "turns": turns,
        "standard_turns": std,
        "bef_turns": bef,
        "victory": vic,
        "ranges": rng,
    }


def load_data(folder: str | Path = DATA_DIR) -> Data:
    """Read and validate the four data files of ``folder``; raises DataError naming file and key. Every file
    carries the same data version, and a shipped version's folder carries its own name."""
    folder = Path(folder)
    docs = {name: _read(folder, name) for name in FILES}
    version = str(docs[FILES[0]]["version"])
    for name in FILES[1:]:
        if docs[name]["version"] != version:
            raise _fail(
                name,
                "version",
                f"{version!r} as in {FILES[0]} (one data version a folder)",
                docs[name]["version"],
            )
    if folder.parent.resolve() == DATA_ROOT and folder.name in DATA_VERSIONS and folder.name != version:
        raise _fail(FILES[0], "version", repr(folder.name), version)
    m = _map(docs["map.yaml"])
    types = _types(docs["units.yaml"])
    allied, ab = _obac(docs["obac.yaml"], "allied", types)
    german, gb = _obac(docs["obac.yaml"], "german", types)
    airborne = gb.get("airborne")
    if not isinstance(airborne, dict) or set(airborne) != {"DE-PARA", "DE-ALND", "remove_weight"}:
        raise _fail("obac.yaml", "german.airborne", "{DE-PARA, DE-ALND, remove_weight}", airborne)
    for k, v in airborne.items():
        _int("obac.yaml", f"german.airborne.{k}", v, 0, 99)
    bc = ab.get("bomber_command")
    if not isinstance(bc, dict) or set(bc) != {"GB-BC", "GB-BCB", "base", "rebase_from_turn"}:
        raise _fail("obac.yaml", "allied.bomber_command", "{GB-BC, GB-BCB, base, rebase_from_turn}", bc)
    _int("obac.yaml", "allied.bomber_command.GB-BC", bc["GB-BC"], 0, 9)
    _int("obac.yaml", "allied.bomber_command.GB-BCB", bc["GB-BCB"], 0, 1)
    _hex("obac.yaml", "allied.bomber_command.base", bc["base"])
    _int("obac.yaml", "allied.bomber_command.rebase_from_turn", bc["rebase_from_turn"], 1, 12)
    return Data(
        types=types,
        allied_obac=allied,
        german_obac=german,
        allied_interdiction=_letter_cols("obac.yaml", ab, "interdiction", allied.columns),
        maginot_clear=_letter_cols("obac.yaml", ab, "maginot_clear", allied.columns),
        german_no_interdiction=_letter_cols("obac.yaml", gb, "no_interdiction", german.columns),
        airborne=dict(airborne),
        bomber_command=dict(bc),
        tables=_tables(docs["tables.yaml"]),
        version=version,
        **m,
    )


@lru_cache(maxsize=len(DATA_VERSIONS))
def data_for(version: str) -> Data:
    """The shipped data version ``version``, loaded once (DataError naming it and the known ones)."""
    return load_data(data_dir(version))


def default_data() -> Data:
    """The data a game plays when none is named (:func:`data_choice`), loaded once."""
    return data_for(data_choice())
