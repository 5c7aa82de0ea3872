"""The game's data (C§2-C§7): locations, boundaries, units, Leaders, tables, Event markers, scenarios.

Everything is read from ``ffo_env/springtime/data/*.yaml`` (or another folder holding the same files) and
validated on load: a :class:`DataError` names the file, the key and what was expected, so that a user
editing the reconstruction by hand can fix it without reading Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ffo_env.core.errors import DataError

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
DATA_VERSION = "sfh-reconstruction-v1"
FILES = ("map.yaml", "units.yaml", "tables.yaml", "scenarios.yaml")

ALLIED = 0  # the French agent commands the Allies (issue 41)
AXIS = 1  # the German agent commands the Axis
SIDE_NAMES = ("allied", "axis")
AGENTS = ("french", "german")
COUNTRIES = ("DE", "NL", "BE", "FR", "IT")
NATIONS = {"FR": ALLIED, "GB": ALLIED, "BE": ALLIED, "NL": ALLIED, "DE": AXIS, "IT": AXIS}
ALLIED_AGS = ("1", "2", "3", "4", "Be", "N")  # rule 4.3.3
AXIS_AGS = ("A", "B", "C", "K", "W")
SIDE_AGS = (ALLIED_AGS, AXIS_AGS)
RESERVE = "R"
BOUNDARY_TYPES = ("O", "R", "M")
FLAGS = ("P", "M", "Paris", "East", "Sup")
WINDOWS = ("I", "E", "T1")
EVENT_SIDES = ("allied", "axis", "either")


@dataclass(frozen=True)
class Location:
    index: int
    id: str
    name: str
    country: str
    tem: int
    axis_start: bool
    zone: bool
    port: bool
    maginot: bool
    paris: bool
    east: bool
    supply_zone: bool


@dataclass(frozen=True)
class UnitSpec:
    index: int
    id: str
    name: str
    nation: str
    armor: bool
    size: str
    ag: str
    cv_full: int
    cv_reduced: int
    mf: int

    @property
    def side(self) -> int:
        return NATIONS[self.nation]

    @property
    def french(self) -> bool:
        return self.nation == "FR"


@dataclass(frozen=True)
class LeaderSpec:
    index: int
    id: str
    name: str
    unit: str  # unit id, or "KLEIST" (S9)
    front: int
    flipped: int


@dataclass(frozen=True)
class EventSpec:
    number: int
    name: str
    side: str
    asterisk: bool
    windows: tuple[str, ...]

    def usable_by(self, side: int) -> bool:
        return self.side == "either" or self.side == SIDE_NAMES[side]


@dataclass(frozen=True)
class ScenarioSpec:
    name: str
    turn: int
    impulse: int
    morale: int
    rp: tuple[int, int]
    advantage: int
    axis_control: tuple[int, ...]
    german_air_full: bool
    events_played: tuple[int, ...]
    units: tuple[tuple[int, int, bool], ...]  # (unit, location, reduced)
    eliminated: tuple[int, ...]
    removed: tuple[int, ...]


@dataclass(frozen=True)
class Data:
    locations: tuple[Location, ...]
    adjacency: tuple[tuple[tuple[int, str], ...], ...]  # per location: (neighbour, boundary type)
    units: tuple[UnitSpec, ...]
    leaders: tuple[LeaderSpec, ...]
    events: tuple[EventSpec, ...]
    tables: dict[str, Any]
    scenarios: dict[str, ScenarioSpec]

    def loc_index(self, loc_id: str) -> int:
        for loc in self.locations:
            if loc.id == loc_id:
                return loc.index
        raise KeyError(loc_id)

    def unit_index(self, unit_id: str) -> int:
        for u in self.units:
            if u.id == unit_id:
                return u.index
        raise KeyError(unit_id)

    def event(self, number: int) -> EventSpec:
        return self.events[number - 1]


def _fail(file: str, key: str, expected: str, found: object) -> DataError:
    return DataError(f"{file}: {key}: expected {expected}, found {found!r}")


def _read(folder: Path, name: str) -> dict[str, Any]:
    path = folder / name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise DataError(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise DataError(f"{path}: not valid YAML: {e}") from None
    if not isinstance(doc, dict):
        raise _fail(name, "(top level)", "a mapping", type(doc).__name__)
    if doc.get("version") != DATA_VERSION:
        raise _fail(name, "version", repr(DATA_VERSION), doc.get("version"))
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


def _section(file: str, doc: dict[str, Any], key: str) -> dict[Any, Any]:
    v = doc.get(key)
    if not isinstance(v, dict) or not v:
        raise _fail(file, key, "a non-empty mapping", v)
    return v


def _locations(doc: dict[str, Any]) -> tuple[Location, ...]:
    f = "map.yaml"
    out = []
    for i, (lid, row) in enumerate(_section(f, doc, "locations").items()):
        key = f"locations.{lid}"
        if not isinstance(lid, str):
            raise _fail(f, key, "a quoted location id", lid)
        if not (isinstance(row, list) and len(row) == 5):
            raise _fail(f, key, "[country, TEM, control A|X, [flags], name]", row)
        country, tem, ctrl, flags, name = row
        if country not in COUNTRIES:
            raise _fail(f, key + " country", f"one of {COUNTRIES}", country)
        _int(f, key + " TEM", tem, 1, 4)  # rule 3.1.2
        if ctrl not in ("A", "X"):
            raise _fail(f, key + " control", "A or X", ctrl)
        if not isinstance(flags, list) or any(x not in FLAGS for x in flags):
            raise _fail(f, key + " flags", f"a list of {FLAGS}", flags)
        if not isinstance(name, str):
            raise _fail(f, key + " name", "a string", name)
        out.append(
            Location(
                i,
                lid,
                name,
                country,
                tem,
                ctrl == "X",
                lid.isalpha(),
                "P" in flags,
                "M" in flags,
                "Paris" in flags,
                "East" in flags,
                "Sup" in flags,
            )
        )
    ids = [x.id for x in out]
    want = [str(i) for i in range(1, 31)] + list("ABCDEF")
    if ids != want:
        raise _fail(f, "locations", "Areas 1-30 then Zones A-F in order (rule 3.1, S3)", ids)
    return tuple(out)


def _adjacency(doc: dict[str, Any], locs: tuple[Location, ...]) -> tuple[tuple[tuple[int, str], ...], ...]:
    f = "map.yaml"
    text = doc.get("adjacency")
    if not isinstance(text, str):
        raise _fail(f, "adjacency", "a block of 'a b type' lines", text)
    idx = {x.id: x.index for x in locs}
    nbrs: list[dict[int, str]] = [{} for _ in locs]
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#")[0].strip()
        if not line:
            continue
        parts = line.split()
        key = f"adjacency line {n}"
        if len(parts) != 3 or parts[0] not in idx or parts[1] not in idx or parts[2] not in BOUNDARY_TYPES:
            raise _fail(f, key, "'a b O|R|M' with known location ids", line)
        a, b = idx[parts[0]], idx[parts[1]]
        if a == b or b in nbrs[a]:
            raise _fail(f, key, "a new adjacency of two distinct locations (S5: one type each)", line)
        nbrs[a][b] = parts[2]
        nbrs[b][a] = parts[2]
    return tuple(tuple(sorted(d.items())) for d in nbrs)


def _units(doc: dict[str, Any]) -> tuple[tuple[UnitSpec, ...], tuple[LeaderSpec, ...]]:
    f = "units.yaml"
    units = []
    for i, (uid, row) in enumerate(_section(f, doc, "units").items()):
        key = f"units.{uid}"
        if not (isinstance(row, list) and len(row) == 8):
            raise _fail(f, key, "[name, nationality, type, size, AG, CV full, CV reduced, MF]", row)
        name, nat, typ, size, ag, full, red, mf = row
        if nat not in NATIONS:
            raise _fail(f, key + " nationality", f"one of {sorted(NATIONS)}", nat)
        if typ not in ("inf", "armor"):
            raise _fail(f, key + " type", "inf or armor", typ)
        ags = SIDE_AGS[NATIONS[nat]] + (RESERVE,)
        if ag not in ags:
            raise _fail(f, key + " Army Group", f"one of {ags}", ag)
        _int(f, key + " CV full", full, 1, 20)
        _int(f, key + " CV reduced", red, 0, full)
        _int(f, key + " MF", mf, 1, 9)
        units.append(UnitSpec(i, str(uid), str(name), nat, typ == "armor", str(size), ag, full, red, mf))
    uids = {u.id for u in units}
    leaders = []
    for i, (lid, row) in enumerate(_section(f, doc, "leaders").items()):
        key = f"leaders.{lid}"
        if not (isinstance(row, list) and len(row) == 4):
            raise _fail(f, key, "[name, unit, rating front, rating flipped]", row)
        name, unit, front, flipped = row
        if unit != "KLEIST" and unit not in uids:
            raise _fail(f, key + " unit", "a unit id of units: or KLEIST", unit)
        _int(f, key + " rating", front, 0, 5)
        _int(f, key + " flipped rating", flipped, 0, 5)
        leaders.append(LeaderSpec(i, str(lid), str(name), str(unit), front, flipped))
    led = [x.unit for x in leaders]
    if len(set(led)) != len(led):
        raise _fail(f, "leaders", "at most one Leader per unit (S10)", led)
    return tuple(units), tuple(leaders)


def _events(doc: dict[str, Any]) -> tuple[EventSpec, ...]:
    f = "tables.yaml"
    out = []
    for n, (num, row) in enumerate(sorted(_section(f, doc, "events").items()), 1):
        key = f"events.{num}"
        if num != n:
            raise _fail(f, "events", "markers numbered 1..9 (S13)", num)
        if not (isinstance(row, list) and len(row) == 4):
            raise _fail(f, key, "[name, side, asterisk, windows]", row)
        name, side, star, windows = row
        if side not in EVENT_SIDES:
            raise _fail(f, key + " side", f"one of {EVENT_SIDES}", side)
        if type(star) is not bool:
            raise _fail(f, key + " asterisk", "true or false", star)
        if not isinstance(windows, list) or any(w not in WINDOWS for w in windows):
            raise _fail(f, key + " windows", f"a list of {WINDOWS}", windows)
        out.append(EventSpec(n, str(name), side, star, tuple(windows)))
    if len(out) != 9:
        raise _fail(f, "events", "nine Event markers (5.1.7)", len(out))
    return tuple(out)


_TABLE_INTS = {
    "impulse_boxes": (2, 20),
    "turns": (1, 20),
    "stacking_limit": (1, 20),
    "improved_logistics_rp": (0, 20),
    "armistice_morale": (-50, 50),
    "command_confidence_morale": (-50, 100),
    "italy_morale": (-50, 100),
}
_TABLE_MAPS = {
    "attack": ("extra_unit", "out_of_supply"),
    "defense": ("extra_unit", "river", "maginot", "mixed", "out_of_supply"),
    "results": ("success_attacker_loss_dr", "overrun_attacker_loss_dr"),
    "refit_costs": (
        "flip_inf",
        "flip_armor",
        "rebuild_inf_reduced",
        "rebuild_inf_full",
        "rebuild_armor_reduced",
        "rebuild_armor_full",
    ),
    "morale": (
        "paris_lost",
        "paris_lost_open_city",
        "paris_regained",
        "area_lost",
        "area_regained",
        "zone_lost",
        "zone_regained",
        "french_unit_eliminated",
        "bef_eliminated",
        "belgian_army_leaves",
        "dutch_army_eliminated",
        "german_unit_eliminated",
        "airlanding_eliminated",
        "italian_unit_eliminated",
        "allied_attack_success",
        "axis_overrun_french_lead",
        "cabinet_shuffle",
        "billotte_killed",
    ),
    "surrender": ("surrender_max", "reduce_at", "fortress_drm"),
}


def _tables(doc: dict[str, Any]) -> dict[str, Any]:
    f = "tables.yaml"
    out: dict[str, Any] = {}
    for k, (lo, hi) in _TABLE_INTS.items():
        out[k] = _int(f, k, doc.get(k), lo, hi)
    for k, keys in _TABLE_MAPS.items():
        sec = _section(f, doc, k)
        missing = [x for x in keys if x not in sec]
        if missing:
            raise _fail(f, k, f"keys {list(keys)}", f"missing {missing}")
        lo = 1 if k == "refit_costs" else -50  # a free refit would never end the Refit Phase
        out[k] = {x: _int(f, f"{k}.{x}", sec[x], lo, 50) for x in keys}
    air = _section(f, doc, "air")
    out["air"] = {}
    for nat in ("DE", "FR", "GB"):
        row = air.get(nat)
        if not (isinstance(row, list) and len(row) == 3):
            raise _fail(f, f"air.{nat}", "[count, full, reduced]", row)
        out["air"][nat] = tuple(_int(f, f"air.{nat}", v, 0, 20) for v in row)
    return out


def _scenario(
    name: str, row: object, locs: tuple[Location, ...], units: tuple[UnitSpec, ...]
) -> ScenarioSpec:
    f = "scenarios.yaml"
    if not isinstance(row, dict):
        raise _fail(f, name, "a mapping", row)
    lidx = {x.id: x.index for x in locs}
    uidx = {u.id: u.index for u in units}
    rp = row.get("rp")
    if not isinstance(rp, dict):
        raise _fail(f, name + ".rp", "{allied: n, axis: n}", rp)
    adv = row.get("advantage")
    if adv not in SIDE_NAMES:
        raise _fail(f, name + ".advantage", "allied or axis", adv)
    ctrl = row.get("axis_control")
    if not isinstance(ctrl, list) or any(c not in lidx for c in ctrl):
        raise _fail(f, name + ".axis_control", "a list of location ids", ctrl)
    placed = []
    us = row.get("units")
    if not isinstance(us, dict):
        raise _fail(f, name + ".units", "a mapping unit -> location", us)
    for uid, where in us.items():
        key = f"{name}.units.{uid}"
        if uid not in uidx:
            raise _fail(f, key, "a unit id of units.yaml", uid)
        w = str(where)
        red = w.endswith("(r)")
        w = w.removesuffix("(r)")
        if w not in lidx:
            raise _fail(f, key, "a location id, optionally followed by (r)", where)
        placed.append((uidx[uid], lidx[w], red))
    lists = []
    for k in ("eliminated", "removed"):
        v = row.get(k)
        if not isinstance(v, list) or any(x not in uidx for x in v):
            raise _fail(f, f"{name}.{k}", "a list of unit ids", v)
        lists.append(tuple(uidx[x] for x in v))
    played = row.get("events_played")
    if not isinstance(played, list) or any(type(x) is not int or not 1 <= x <= 9 for x in played):
        raise _fail(f, name + ".events_played", "a list of marker numbers 1..9", played)
    if type(row.get("german_air_full")) is not bool:
        raise _fail(f, name + ".german_air_full", "true or false", row.get("german_air_full"))
    return ScenarioSpec(
        name=name,
        turn=_int(f, name + ".turn", row.get("turn"), 1, 7),
        impulse=_int(f, name + ".impulse", row.get("impulse"), 1, 10),
        morale=_int(f, name + ".morale", row.get("morale"), -100, 200),
        rp=(_int(f, name + ".rp.allied", rp.get("allied"), 0), _int(f, name + ".rp.axis", rp.get("axis"), 0)),
        advantage=SIDE_NAMES.index(adv),
        axis_control=tuple(lidx[c] for c in ctrl),
        german_air_full=bool(row["german_air_full"]),
        events_played=tuple(played),
        units=tuple(placed),
        eliminated=lists[0],
        removed=lists[1],
    )


def load_data(folder: str | Path | None = None) -> Data:
    """Read and validate the four data files of ``folder`` (default: the package's own data)."""
    base = Path(folder) if folder is not None else DATA_DIR
    docs = {name: _read(base, name) for name in FILES}
    locs = _locations(docs["map.yaml"])
    adj = _adjacency(docs["map.yaml"], locs)
    units, leaders = _units(docs["units.yaml"])
    events = _events(docs["tables.yaml"])
    tables = _tables(docs["tables.yaml"])
    scen_doc = docs["scenarios.yaml"]
    scenarios = {}
    for name in ("campaign", "plan_red"):
        scenarios[name] = _scenario(name, scen_doc.get(name), locs, units)
    data = Data(locs, adj, units, leaders, events, tables, scenarios)
    _check(data)
    return data


def _check(d: Data) -> None:
    """Cross-file checks (C§8)."""
    limit = d.tables["stacking_limit"]
    for sc in d.scenarios.values():
        count: dict[tuple[int, int], int] = {}
        seen: set[int] = set()
        for u, loc, _red in sc.units:
            side = d.units[u].side
            if u in seen:
                raise _fail("scenarios.yaml", f"{sc.name}.units", "each unit once", d.units[u].id)
            seen.add(u)
            if not d.locations[loc].zone:
                count[(loc, side)] = count.get((loc, side), 0) + 1
                if count[(loc, side)] > limit:
                    raise _fail(
                        "scenarios.yaml",
                        f"{sc.name}.units",
                        f"at most {limit} units a side per Area (7.1)",
                        d.locations[loc].id,
                    )
        both = seen & (set(sc.eliminated) | set(sc.removed))
        if both:
            raise _fail("scenarios.yaml", sc.name, "a unit placed or out of play, not both", sorted(both))


_CACHE: dict[str, Data] = {}


def default_data() -> Data:
    """The package's data, loaded once."""
    hit = _CACHE.get("default")
    if hit is None:
        hit = _CACHE["default"] = load_data()
    return hit
