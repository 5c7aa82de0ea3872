"""Counters, tables and setup rules as typed, immutable objects, loaded from YAML.

The files of a data version (``ffo_env/ffo/data/<version>/``: ``map.csv``,
``units.yaml``, ``tables.yaml``, ``setup_fixed.yaml``) are the source of truth
(components.md §3-§5); nothing here hard-codes a figure of the game. Every
loader validates what it reads and raises :class:`DataError` naming the file,
the key and what was expected.

Which data a process plays: :func:`default_scenario` reads the ``FFO_DATA``
environment variable (a shipped version name or a folder; the CLI's ``--data``
sets it, so worker processes inherit it) and otherwise plays
:data:`DEFAULT_DATA`. Code that wants a specific version passes
``Game(scenario=scenario_for("reconstruction-v1"))``.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ffo_env.core.errors import DataError
from ffo_env.ffo.core.datasets import DATA_FILES, DATA_ROOT, DATA_VERSIONS, DEFAULT_DATA, data_dir
from ffo_env.ffo.core.mapdata import ColoredRow, MapData
from ffo_env.ffo.core.setup_rules import check_fixed_setup
from ffo_env.ffo.core.sides import SIDE_NAMES
from ffo_env.ffo.core.sides import Side as Side  # re-exported: the scenario data names the sides

DATA_DIR = DATA_ROOT / DEFAULT_DATA
DATA_VERSION = DEFAULT_DATA


UNIT_TYPES = (
    "infantry",
    "colonial",
    "adhoc",
    "fortress",
    "mountain",
    "armor",
    "motorized",
    "cavalry",
    "panzer",
    "naval_garrison",
)
MECHANIZED_TYPES = frozenset({"armor", "motorized", "cavalry", "panzer"})
STATIC_TYPES = frozenset({"naval_garrison"})
SETUP_KINDS = ("red", "fortress", "port", "green", "reinforcement")
GROUPS = ("main", "18", "4", "K")
WEST_GROUPS = frozenset({"4", "K"})  # rules 7.7, 9.5


@dataclass(frozen=True)
class UnitSpec:
    """One counter (components.md §5). ``index`` is its position in the scenario's unit list."""

    index: int
    id: str
    name: str
    side: Side
    nationality: str
    type: str
    size: str
    cf_full: int
    cf_reduced: int  # equal to cf_full for one-step units
    steps: int
    setup: str
    group: str = ""
    port: str = ""
    free_stacking: bool = False

    @property
    def mechanized(self) -> bool:
        return self.type in MECHANIZED_TYPES  # rule 2.6, R19 (the 51st is "motorized")

    @property
    def static(self) -> bool:
        return self.type in STATIC_TYPES

    @property
    def west(self) -> bool:
        return self.group in WEST_GROUPS

    @property
    def is_panzer(self) -> bool:
        return self.type == "panzer"

    @property
    def is_british_51(self) -> bool:
        return self.nationality == "british"


@dataclass(frozen=True)
class Crt:
    columns: tuple[tuple[int, int], ...]
    results: tuple[tuple[str, ...], ...]  # results[die - 1][column]

    def column_of(self, differential: int) -> int:
        """Column index for a raw differential, clamped to the table (rule 13.18)."""
        for i, (lo, hi) in enumerate(self.columns):
            if lo <= differential <= hi:
                return i
        return 0 if differential < self.columns[0][0] else len(self.columns) - 1

    def result(self, column: int, die: int) -> str:
        return self.results[die - 1][column]

    def column_label(self, column: int) -> str:
        lo, hi = self.columns[column]
        if column == 0:
            return f"<={hi:+d}"
        if column == len(self.columns) - 1:
            return f">={lo:+d}"
        return f"{lo:+d}" if lo == hi else f"{lo:+d}/{hi:+d}"


@dataclass(frozen=True)
class SupportDice:
    dice: int
    divisor: int


@dataclass(frozen=True)
class EntrySchedule:
    group: str
    row: ColoredRow
    schedule: tuple[tuple[int, int], ...]  # (first turn, max roll) sorted

    @property
    def first_turn(self) -> int:
        return self.schedule[0][0]

    def max_roll(self, turn: int) -> int:
        """Highest die roll that brings a corps in on ``turn`` (0 before the first turn; R34)."""
        best = 0
        for t, m in self.schedule:
            if turn >= t:
                best = m
        return best


@dataclass(frozen=True)
class Tables:
    source: str
    last_turn: int
    victory_vp: int
    movement_factor: Mapping[str, int]
    setup_stack_limit: int
    stack_limit: int
    rail_success_max: int
    rail_first_turn: int
    evacuation_first_turn: int
    replacement_first_turn: int
    scare_first_turn: int
    scare_first_max: int
    scare_later_max: int
    refugee_first_turn: int
    refugee_max: int
    move_cost: Mapping[str, int]
    river_move_extra: int
    refugee_move_extra: int
    defence_shift: Mapping[str, int]
    river_shift: int
    city_die_divisor: int
    crt: Crt
    shifts: Mapping[str, int]
    support: Mapping[str, SupportDice]
    vp: Mapping[str, int]
    entry: Mapping[str, EntrySchedule]


@dataclass(frozen=True, eq=False)
class Scenario:
    """Everything the rules need that is data: map, counters, tables, fixed setup."""

    map: MapData
    units: tuple[UnitSpec, ...]
    tables: Tables
    fixed_setup: Mapping[str, int] = field(default_factory=dict)
    version: str = DATA_VERSION

    def unit(self, unit_id: str) -> UnitSpec:
        for u in self.units:
            if u.id == unit_id:
                return u
        raise KeyError(f"no unit {unit_id!r} in the scenario")

    def unit_index(self, unit_id: str) -> int:
        return self.unit(unit_id).index


# ---------------------------------------------------------------------------
# validation helpers


# the highest movement factor or terrain cost a data file may give (rule 11.1; the board is ~60 hexes wide)
MAX_MOVEMENT = 30
# the highest printed combat factor a data file may give: observations scale CFs by 1/MAX_CF into [0, 1]
MAX_CF = 16
_UNIT_KEYS = (
    "id",
    "name",
    "side",
    "nationality",
    "type",
    "size",
    "cf",
    "setup",
    "group",
    "port",
    "free_stacking",
)
_GAME_KEYS = (
    "last_turn",
    "victory_vp",
    "movement_factor",
    "setup_stack_limit",
    "stack_limit",
    "rail_success_max",
    "rail_first_turn",
    "evacuation_first_turn",
    "replacement_first_turn",
    "panzer_scare",
    "refugees",
)
_SUPPORT_KEYS = (
    "stuka_defence",
    "stuka_attack",
    "naval_attack_coastal",
    "naval_attack_inland",
    "naval_defence_coastal",
    "naval_defence_inland",
)


class _Reader:
    """Typed access to parsed YAML that names the file and key in every error."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, expected: str, got: Any = None) -> DataError:
        tail = "" if got is None else f", got {got!r}"
        return DataError(f"{self.source}: {where}: expected {expected}{tail}")

    def mapping(self, obj: Any, where: str) -> Mapping[str, Any]:
        if not isinstance(obj, Mapping):
            raise self.fail(where, "a mapping (key: value)", obj)
        return obj

    def key(self, obj: Mapping[str, Any], key: str, where: str) -> Any:
        if key not in obj:
            raise self.fail(f"{where}.{key}" if where else key, "this key to be present")
        return obj[key]

    def integer(self, obj: Any, where: str, lo: int | None = None, hi: int | None = None) -> int:
        if isinstance(obj, bool) or not isinstance(obj, int):
            raise self.fail(where, "an integer", obj)
        if (lo is not None and obj < lo) or (hi is not None and obj > hi):
            raise self.fail(where, f"an integer in [{lo}, {hi}]", obj)
        return obj

    def choice(self, obj: Any, where: str, options: tuple[str, ...] | frozenset[str]) -> str:
        if not isinstance(obj, str) or obj not in options:
            raise self.fail(where, f"one of {', '.join(sorted(options))}", obj)
        return obj

    def known(self, obj: Mapping[str, Any], where: str, keys: tuple[str, ...] | frozenset[str]) -> None:
        """Refuse a key the loader would ignore (a misspelling), naming the nearest valid one."""
        for k in obj:
            if k not in keys:
                near = difflib.get_close_matches(str(k), [str(x) for x in keys], n=1)
                hint = f"; did you mean {near[0]!r}?" if near else f"; valid keys: {', '.join(sorted(keys))}"
                raise DataError(f"{self.source}: {where + '.' if where else ''}{k}: unknown key{hint}")

    def int_map(
        self, obj: Any, where: str, keys: tuple[str, ...], lo: int | None = None, hi: int | None = None
    ) -> dict[str, int]:
        m = self.mapping(obj, where)
        self.known(m, where, keys)
        out: dict[str, int] = {}
        for k in keys:
            out[k] = self.integer(self.key(m, k, where), f"{where}.{k}", lo, hi)
        return out


def _read_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise DataError(f"{path}: cannot read: {e}") from e
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise DataError(f"{path}: not valid YAML: {e}") from e


def _check_version(r: _Reader, doc: Mapping[str, Any]) -> str:
    v = r.key(doc, "version", "")
    if not isinstance(v, str):
        raise r.fail("version", "a string such as 'reconstruction-v1'", v)
    return v


def load_units(path: Path | None = None) -> tuple[UnitSpec, ...]:
    """Load and validate the counter mix (components.md §5)."""
    return _read_units(path)[0]


def _read_units(path: Path | None) -> tuple[tuple[UnitSpec, ...], str]:
    """The counter mix and the version its file declares."""
    path = path or data_dir() / "units.yaml"
    r = _Reader(str(path))
    doc = r.mapping(_read_yaml(path), "document")
    version = _check_version(r, doc)
    r.known(doc, "", ("version", "units"))
    raw = r.key(doc, "units", "")
    if not isinstance(raw, list) or not raw:
        raise r.fail("units", "a non-empty list of units", raw)
    units: list[UnitSpec] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        where = f"units[{i}]"
        m = r.mapping(item, where)
        r.known(m, where, _UNIT_KEYS)
        uid = r.key(m, "id", where)
        if not isinstance(uid, str) or not uid:
            raise r.fail(f"{where}.id", "a non-empty string", uid)
        where = f"units[{i}] ({uid})"
        if uid in seen:
            raise r.fail(f"{where}.id", "a unique unit id (duplicate)", uid)
        seen.add(uid)
        side = r.choice(r.key(m, "side", where), f"{where}.side", SIDE_NAMES)
        typ = r.choice(r.key(m, "type", where), f"{where}.type", UNIT_TYPES)
        cf = r.key(m, "cf", where)
        if not isinstance(cf, list) or len(cf) not in (1, 2):
            raise r.fail(f"{where}.cf", "[full, reduced] or [cf]", cf)
        cfs = [r.integer(c, f"{where}.cf", 0, MAX_CF) for c in cf]
        if len(cfs) == 2 and cfs[1] > cfs[0]:
            raise r.fail(f"{where}.cf", "reduced factor <= full factor", cf)
        setup = r.choice(r.key(m, "setup", where), f"{where}.setup", SETUP_KINDS)
        group = ""
        if side == "german":
            group = r.choice(str(r.key(m, "group", where)), f"{where}.group", GROUPS)
            if (group == "main") != (setup == "green"):
                raise r.fail(f"{where}.setup", "green for main-force units, reinforcement for 18/4/K", setup)
        elif "group" in m:
            raise r.fail(f"{where}.group", "no group for an Anglo-French unit", m["group"])
        port = m.get("port", "")
        if (typ == "naval_garrison") != bool(port) or (port and setup != "port"):
            raise r.fail(f"{where}.port", "a port name exactly for naval garrisons (setup: port)", port)
        nationality = r.choice(
            m.get("nationality", side), f"{where}.nationality", ("french", "british", "german")
        )
        free = m.get("free_stacking", False)
        if not isinstance(free, bool):
            raise r.fail(f"{where}.free_stacking", "true or false", free)
        units.append(
            UnitSpec(
                index=i,
                id=uid,
                name=str(m.get("name", uid)),
                side=Side.FRENCH if side == "french" else Side.GERMAN,
                nationality=nationality,
                type=typ,
                size=str(m.get("size", "")),
                cf_full=cfs[0],
                cf_reduced=cfs[-1],
                steps=len(cfs),
                setup=setup,
                group=group,
                port=str(port),
                free_stacking=free,
            )
        )
    return tuple(units), version


def load_tables(path: Path | None = None) -> Tables:
    """Load and validate the TEC, CRT, VP awards and entry tables (components.md §3-§4)."""
    return _read_tables(path)[0]


def _read_tables(path: Path | None) -> tuple[Tables, str]:
    """The tables and the version their file declares."""
    path = path or data_dir() / "tables.yaml"
    r = _Reader(str(path))
    doc = r.mapping(_read_yaml(path), "document")
    version = _check_version(r, doc)
    r.known(doc, "", ("version", "game", "tec", "crt", "shifts", "support", "vp", "entry"))
    game = r.mapping(r.key(doc, "game", ""), "game")
    r.known(game, "game", _GAME_KEYS)
    # a factor of 0 or less leaves units unable to move; above MAX_MOVEMENT the reach search would
    # explore the whole map many times over (rule 11.1)
    mf = r.int_map(
        r.key(game, "movement_factor", "game"),
        "game.movement_factor",
        ("mechanized", "non_mechanized", "static"),
        0,
        MAX_MOVEMENT,
    )
    scare = r.int_map(
        r.key(game, "panzer_scare", "game"), "game.panzer_scare", ("first_turn", "first_max", "later_max")
    )
    refugees = r.int_map(r.key(game, "refugees", "game"), "game.refugees", ("first_turn", "max_markers"))

    def gi(key: str, lo: int = 0, hi: int = 999) -> int:
        return r.integer(r.key(game, key, "game"), f"game.{key}", lo, hi)

    tec = r.mapping(r.key(doc, "tec", ""), "tec")
    r.known(
        tec,
        "tec",
        (
            "move_cost",
            "defence_shift",
            "river_move_extra",
            "refugee_move_extra",
            "river_shift",
            "city_die_divisor",
        ),
    )
    # rule 11.1: entering a hex always costs at least one movement point
    move_cost = r.int_map(
        r.key(tec, "move_cost", "tec"),
        "tec.move_cost",
        ("clear", "rough", "marsh", "mountain", "city"),
        1,
        MAX_MOVEMENT,
    )
    defence_shift = r.int_map(
        r.key(tec, "defence_shift", "tec"), "tec.defence_shift", ("clear", "rough", "marsh", "mountain")
    )

    crt_doc = r.mapping(r.key(doc, "crt", ""), "crt")
    r.known(crt_doc, "crt", ("columns", "results"))
    cols_raw = r.key(crt_doc, "columns", "crt")
    if not isinstance(cols_raw, list) or len(cols_raw) < 2:
        raise r.fail("crt.columns", "a list of [low, high] differential ranges", cols_raw)
    columns: list[tuple[int, int]] = []
    for i, c in enumerate(cols_raw):
        if not isinstance(c, list) or len(c) != 2:
            raise r.fail(f"crt.columns[{i}]", "[low, high]", c)
        lo = r.integer(c[0], f"crt.columns[{i}][0]")
        hi = r.integer(c[1], f"crt.columns[{i}][1]")
        if hi < lo or (columns and lo != columns[-1][1] + 1):
            raise r.fail(f"crt.columns[{i}]", "contiguous ascending ranges", c)
        columns.append((lo, hi))
    res_doc: Mapping[Any, Any] = r.mapping(
        r.key(crt_doc, "results", "crt"), "crt.results"
    )  # YAML keys: int or str
    results: list[tuple[str, ...]] = []
    for die in range(1, 7):
        row = res_doc.get(die, res_doc.get(str(die)))
        if not isinstance(row, list) or len(row) != len(columns):
            raise r.fail(f"crt.results.{die}", f"a list of {len(columns)} results", row)
        results.append(tuple(r.choice(x, f"crt.results.{die}", ("AE", "AS", "BB", "DR", "DE")) for x in row))

    shifts = r.int_map(
        r.key(doc, "shifts", ""),
        "shifts",
        ("attacker_oos", "defender_oos", "concentric", "concentric_german_mech", "concentric_surrender"),
    )
    sup_doc = r.mapping(r.key(doc, "support", ""), "support")
    r.known(sup_doc, "support", _SUPPORT_KEYS)
    support: dict[str, SupportDice] = {}
    for k in _SUPPORT_KEYS:
        d = r.int_map(r.key(sup_doc, k, "support"), f"support.{k}", ("dice", "divisor"))
        if d["dice"] < 1 or d["divisor"] < 1:
            raise r.fail(f"support.{k}", "dice >= 1 and divisor >= 1", d)
        support[k] = SupportDice(d["dice"], d["divisor"])
    vp = r.int_map(
        r.key(doc, "vp", ""),
        "vp",
        (
            "german_infantry_reduced",
            "german_mech_reduced",
            "german_infantry_eliminated",
            "german_mech_eliminated",
            "german_mountain_division_eliminated",
            "british_51_advance",
            "evacuated_step_mechanized",
            "evacuated_step_non_mechanized",
            "evacuated_step_static",
            "city_at_end",
            "refugee_overrun",
        ),
    )
    entry_doc = r.mapping(r.key(doc, "entry", ""), "entry")
    r.known(entry_doc, "entry", ("18", "4", "K"))
    entry: dict[str, EntrySchedule] = {}
    for g in ("18", "4", "K"):
        e = r.mapping(r.key(entry_doc, g, "entry"), f"entry.{g}")
        r.known(e, f"entry.{g}", ("row", "schedule"))
        row = r.choice(r.key(e, "row", f"entry.{g}"), f"entry.{g}.row", ("green", "yellow"))
        sched = r.mapping(r.key(e, "schedule", f"entry.{g}"), f"entry.{g}.schedule")
        pairs = sorted(
            (r.integer(t, f"entry.{g}.schedule key", 1, 99), r.integer(m, f"entry.{g}.schedule.{t}", 1, 6))
            for t, m in sched.items()
        )
        if not pairs:
            raise r.fail(f"entry.{g}.schedule", "at least one turn: max roll pair")
        entry[g] = EntrySchedule(g, ColoredRow.GREEN if row == "green" else ColoredRow.YELLOW, tuple(pairs))

    tables = Tables(
        source=str(path),
        last_turn=gi("last_turn", 1, 99),
        victory_vp=gi("victory_vp", -999, 999),
        movement_factor=mf,
        setup_stack_limit=gi("setup_stack_limit", 1, 9),
        stack_limit=gi("stack_limit", 1, 9),
        rail_success_max=gi("rail_success_max", 0, 6),
        rail_first_turn=gi("rail_first_turn", 1, 99),
        evacuation_first_turn=gi("evacuation_first_turn", 1, 99),
        replacement_first_turn=gi("replacement_first_turn", 1, 99),
        scare_first_turn=scare["first_turn"],
        scare_first_max=scare["first_max"],
        scare_later_max=scare["later_max"],
        refugee_first_turn=refugees["first_turn"],
        refugee_max=refugees["max_markers"],
        move_cost=move_cost,
        river_move_extra=r.integer(r.key(tec, "river_move_extra", "tec"), "tec.river_move_extra", 0, 9),
        refugee_move_extra=r.integer(r.key(tec, "refugee_move_extra", "tec"), "tec.refugee_move_extra", 0, 9),
        defence_shift=defence_shift,
        river_shift=r.integer(r.key(tec, "river_shift", "tec"), "tec.river_shift", -9, 9),
        city_die_divisor=r.integer(r.key(tec, "city_die_divisor", "tec"), "tec.city_die_divisor", 1, 6),
        crt=Crt(tuple(columns), tuple(results)),
        shifts=shifts,
        support=support,
        vp=vp,
        entry=entry,
    )
    return tables, version


def load_fixed_setup(
    units: tuple[UnitSpec, ...], mapdata: MapData, path: Path | None = None
) -> dict[str, int]:
    """The documented default deployment (R2 ``setup="fixed"``): unit id -> hex index."""
    return _read_fixed_setup(units, mapdata, path)[0]


def _read_fixed_setup(
    units: tuple[UnitSpec, ...], mapdata: MapData, path: Path | None
) -> tuple[dict[str, int], str]:
    """The fixed deployment and the version its file declares."""
    from ffo_env.ffo.core import hexgrid as hg

    path = path or data_dir() / "setup_fixed.yaml"
    r = _Reader(str(path))
    doc = r.mapping(_read_yaml(path), "document")
    version = _check_version(r, doc)
    r.known(doc, "", ("version", "placement"))
    place = r.mapping(r.key(doc, "placement", ""), "placement")
    ids = {u.id: u for u in units}
    out: dict[str, int] = {}
    for uid, hx in place.items():
        if uid not in ids:
            raise r.fail(f"placement.{uid}", "a unit id from units.yaml", uid)
        if ids[uid].setup in ("reinforcement", "port"):  # rule 3.3, rule 9: placed by the engine, never here
            raise r.fail(
                f"placement.{uid}", f"only units that start on the map; {uid} is a {ids[uid].setup} unit", hx
            )
        try:
            out[uid] = hg.hex_index(str(hx).zfill(4) if isinstance(hx, int) else str(hx))
        except ValueError as e:
            raise r.fail(f"placement.{uid}", "a hex id XXYY on the map", hx) from e
    missing = [u.id for u in units if u.setup not in ("reinforcement", "port") and u.id not in out]
    if missing:
        raise r.fail("placement", "a hex for every unit that starts on the map", f"missing {missing}")
    return out, version


def load_scenario(data_dir_or_version: str | os.PathLike[str] | None = None) -> Scenario:
    """Load map, counters, tables and fixed setup of a data version (a shipped name or a folder).

    The scenario's version is the one its files declare; all four must declare the same one, so a
    record, policy or result names exactly the data it was made with (rule 2.13 data, R37).
    """
    from ffo_env.ffo.core.mapfile import read_map

    d = data_dir(data_dir_or_version)
    mapdata, map_v = read_map(d / "map.csv")
    units, units_v = _read_units(d / "units.yaml")
    tables, tables_v = _read_tables(d / "tables.yaml")
    fixed, fixed_v = _read_fixed_setup(units, mapdata, d / "setup_fixed.yaml")
    versions = dict(zip(DATA_FILES, (map_v, units_v, tables_v, fixed_v), strict=True))
    if len(set(versions.values())) != 1:
        listed = ", ".join(f"{k} {v!r}" for k, v in versions.items())
        raise DataError(
            f"game data folder {d}: its files declare different versions ({listed}); make them agree"
        )
    for u in units:
        if u.port:
            try:
                h = mapdata.hex_of_city(u.port)
            except KeyError as e:
                raise DataError(
                    f"{d / 'units.yaml'}: unit {u.id}.port: expected a city of {d / 'map.csv'}, got {u.port!r}"
                ) from e
            if not mapdata.port[h]:
                raise DataError(
                    f"{d / 'units.yaml'}: unit {u.id}.port: {u.port} is not a port in {d / 'map.csv'}"
                )
    scenario = Scenario(map=mapdata, units=units, tables=tables, fixed_setup=fixed, version=map_v)
    check_fixed_setup(scenario, d / "setup_fixed.yaml")  # rules 3.3, 3.4, 6.2
    return scenario


_LOADED: dict[str, Scenario] = {}


def scenario_for(data: str | os.PathLike[str] | None = None) -> Scenario:
    """A data version's scenario, loaded once per process (a shipped name, a folder, or None for the default)."""
    key = str(data_dir(data).resolve())
    if key not in _LOADED:
        _LOADED[key] = load_scenario(key)
    return _LOADED[key]


def scenario_named(version: str) -> Scenario:
    """The scenario a record, state or policy names by its data version: that shipped version if it is one,
    else the default scenario (whose version check then names both versions)."""
    return scenario_for(version) if version in DATA_VERSIONS else default_scenario()


def default_scenario() -> Scenario:
    """The scenario of :func:`data_choice` (``$FFO_DATA`` or :data:`DEFAULT_DATA`), loaded once per process."""
    return scenario_for(None)
