"""Observation encoding of *France, 1940*: what one side sees, as a structured ``Dict`` and as two vectors.

Fog of war: everything is computed from the core's view of the viewer
(:func:`ffo_env.france1940.core.visibility.view`), which leaves out the seed and the dice generator and, with
``RulesOptions.hidden_obac`` (P3), masks the other side's Order of Battle column, the arrival schedule of its
units not yet on the map and the recorded draw of its column. The few facts the encoder asks the core
beyond the view are public board facts (Zones of Control, whether a fortified hex is active, the stacks in a
hex): they follow from the units on the map, which both players see. With ``hidden_obac`` the consequences of
a column on the board stay visible, as on a real table: the units it put on the map, and a Maginot line
that is clear terrain in the Allied columns C and E (F44; the German's legal moves show it anyway).
States that differ only in hidden facts give equal observations (``tests/france1940/test_encoding.py``).

**The structured observation** (``observation_format="dict"``):
``{"planes": Box(0, 1, (P, 40, 32)), "units": Box(0, 1, (192, F)), "globals": Box(0, 1, (G,))}``, float32.

- ``planes[p, c - 1, r - 1]`` is plane ``p`` at the hex of column ``c`` (from the east), row ``r`` (from the
  north), i.e. hex ``n = 32 (c - 1) + r``: a plane is the vector over hexes 1..1280 reshaped to (40, 32),
  so ``planes[p].reshape(-1)[n - 1]`` is hex ``n``, and hex action ``HEX - 1 + n``
  (:mod:`ffo_env.france1940.core.actions`) is cell ``n - 1``. Planes: ``PLANES`` (static terrain, rivers by hexside, fortifications, countries and
  supply edges; then each side's stacks, Zones of Control and air missions; the combat; the legal hexes).
- ``units[u]`` is unit ``u`` of the roster (``Game.units``), which is also action ``UNIT + u``; rows past the
  roster (``MAX_UNITS`` = 192 in all) are zero. Columns: ``UNIT_FEATURES``.
- ``globals``: ``GLOBAL_FEATURES`` (turn track, phase, decision, the viewer, VP, the Orders of Battle each
  side sees, neutrality, the rules options, the current combat, the legal non-hex non-unit actions).

Legal actions appear only in the observation of the side to act (the ``legal_*`` features), as the mask
does. Every value lies in [0, 1] (counts and strengths are scaled and clipped, see the constants).

``flat`` (``observation_format="flat"``): the three blocks concatenated in the order planes, units, globals,
each in C order: ``FLAT_SIZE`` floats. ``compact`` (``observation_format="compact"``): the globals, the
unit columns that change during a game (``COMPACT_UNIT_FEATURES``) and the planes that change
(``COMPACT_PLANES``) at the playable hexes only (``playable_hexes()``, hex order): ``compact_size()``
floats, a selection of the structured observation (so it hides what that hides).
:func:`observation_spec` and :func:`spec_hash` name the layout a policy was trained on.
"""

from __future__ import annotations

import hashlib
import json
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from ffo_env.france1940.core import actions as A
from ffo_env.france1940.core.data import ALLIED, CRT_RESULTS, DATA_VERSION, GERMAN, SYMBOLS
from ffo_env.france1940.core.flow import PHASES as CORE_PHASES
from ffo_env.france1940.core.hexgrid import COLUMNS, N_HEXES, NEIGHBOURS, ROWS, col_row
from ffo_env.france1940.core.options import ALLIED_COLUMNS, GERMAN_COLUMNS
from ffo_env.france1940.core.state import MAP
from ffo_env.france1940.core.visibility import UNKNOWN, view

if TYPE_CHECKING:
    from ffo_env.france1940.core.game import Game
    from ffo_env.france1940.core.state import State

__all__ = [
    "COMPACT_PLANES",
    "COMPACT_UNIT_FEATURES",
    "DECISIONS",
    "FLAT_SIZE",
    "GLOBAL_FEATURES",
    "PLANES",
    "SHAPES",
    "UNIT_FEATURES",
    "compact_from_dict",
    "compact_size",
    "encode",
    "encode_compact",
    "encode_flat",
    "flatten",
    "observation_spec",
    "playable_hexes",
    "spec_hash",
]

ENCODING_VERSION = 1
N_UNITS = A.MAX_UNITS  # unit rows: one per unit action, whichever the roster's length
# scales that keep every feature in [0, 1]
_STACK = 3.0  # stacking weight: one corps-equivalent (F13)
_STRENGTH = 30.0  # the summed strength of a full hex (three 10s)
_UNIT_STRENGTH = 10.0  # the largest printed factor of the counters
_COUNT = 4.0  # aircraft elements of one side over one hex
_VP = 60.0
_MP = 12.0
_OWED = 30.0
_TURNS = 12.0

_RIVER_DIRS = ("n", "s", "wn", "ws", "en", "es")  # hexsides: north, south, west-north, ... (C§1.2)
_COUNTRIES = ("F", "B", "N", "L", "G")
_SIDE_PLANES = ("weight", "attack", "defence", "mech", "out_of_supply", "moved", "gse", "zoc")
_MISSIONS = ("cap", "int", "cs", "sup")  # an Aircraft Element's mission (State.ac_mission)
PLANES: tuple[str, ...] = (
    "playable",
    "clear",
    "forest",
    "swamp",
    "flooded",
    "sea",
    "city",
    "town",
    "paris",
    *(f"river_{d}" for d in _RIVER_DIRS),
    "maginot",
    "belgian_fort",
    "fort_front",  # a hex from which an attack hits a fortified neighbour's front (C§3.2)
    *(f"country_{c}" for c in _COUNTRIES),
    "german_edge",
    "allied_edge",
    "mild_winter",
    "bomber_base",
    # dynamic
    "fort_active",
    "fort_destroyed",
    *(f"allied_{p}" for p in _SIDE_PLANES),
    *(f"german_{p}" for p in _SIDE_PLANES),
    *(f"allied_air_{m}" for m in _MISSIONS),
    *(f"german_air_{m}" for m in _MISSIONS),
    "attacked_hex",  # attacked this Combat Phase
    "combat_target",  # a target hex of the attack being made
    "combat_attacker",  # a hex holding an attacker of the attack being made
    "counter_hex",  # a hex chosen for the counter-attack (F27)
    "mover_hex",  # the hex of the unit moving now
    "legal_hex",  # hex action legal now (the side to act only)
)
N_STATIC_PLANES = PLANES.index("fort_active")
COMPACT_PLANES = ("legal_hex", "combat_target", "counter_hex", "allied_zoc", "german_zoc")

_NATIONS = ("FR", "GB", "BE", "NL", "DE")
_STATUS = ("out", "map", "elim", "exited", "removed")  # State.status codes 0..4
UNIT_FEATURES: tuple[str, ...] = (
    "present",  # a counter of the roster (rows past it are zero)
    "german",
    *(f"nation_{n}" for n in _NATIONS),
    *(f"symbol_{s}" for s in SYMBOLS),
    "corps",
    "attack",
    "defence",
    "ma",
    "mech",
    # dynamic
    *(f"status_{s}" for s in _STATUS),
    "in_game",  # its side's column uses it (hidden for the other side's units not yet on the map, P3)
    "arrives",  # game-turn of arrival / 12 (0 at start; hidden as in_game)
    "col",  # (column) / 40 on the map, else 0
    "row",  # (row) / 32 on the map, else 0
    "supplied",  # in supply when last judged (F18)
    "moved",
    "attacked",
    "restricted",  # grounded on game-turn 1 (F11)
    *(f"air_{m}" for m in _MISSIONS),
    "air_col",  # where its Aircraft Element flies
    "air_row",
    "mover",  # the unit moving now
    "decision_unit",  # the unit the pending decision is about (placement, retreat, reinforcement, ...)
    "combat_attacker",
    "combat_support",
    "combat_designated",
    "legal",  # its unit action is legal now (the side to act only)
)
N_STATIC_UNIT = UNIT_FEATURES.index("status_out")
COMPACT_UNIT_FEATURES: tuple[str, ...] = UNIT_FEATURES[N_STATIC_UNIT:]

PHASES = ("setup", *CORE_PHASES, "over")
DECISIONS: tuple[str, ...] = (
    "place",
    "restrict",
    "reinforce",
    "move",
    "step",
    "react",
    "remove_french",
    "attack",
    "attackers",
    "support",
    "designate",
    "lose",
    "retreat",
    "ca_targets",
    "bef_renew",
    "bef_fort_out",
    "rebase",
    "bef_ca",
    "bef_move1",
    "bef_move2",
    "airborne_remove",
    "drop",
    "assault_ac",
    "airland",
    "intercept",
    "intercept_hex",
    "airsup",
    "airsup_target",
    "cap_allot",
    "mission",
    "mission_kind",
    "mission_hex",
)
_OPTION_FLAGS = (
    "optional_airborne",
    "optional_variable_victory",
    "optional_mild_winter",
    "bef_variant",
    "bef_bomber_command",
    "hidden_obac",
)
_SPECIAL = ((A.DONE, "done"), (A.YES, "yes"), (A.EXIT, "exit"), (A.CAP, "cap"), (A.INTERDICT, "interdict"))
GLOBAL_FEATURES: tuple[str, ...] = (
    "turn",
    "last_turn",
    "phasing_allied",
    "phasing_german",
    *(f"phase_{p}" for p in PHASES),
    *(f"decision_{d}" for d in DECISIONS),
    "viewer_allied",
    "viewer_german",
    "to_act",  # the viewer decides now
    "actor_allied",
    "actor_german",
    "vp_allied",
    "vp_german",
    "mp_left",  # the moving unit's Movement Points left
    "owed",  # French defence still to remove for German exits (F16)
    "belgian_area",  # the Belgian fortified area still works (F8)
    *(f"invaded_{c}" for c in ("B", "N", "L")),
    *(f"option_{o}" for o in _OPTION_FLAGS),
    *(f"allied_obac_{c}" for c in ALLIED_COLUMNS),
    "allied_obac_unknown",
    *(f"german_obac_{c}" for c in GERMAN_COLUMNS),
    "german_obac_unknown",
    "combat",  # an attack is being made
    "combat_targets",
    "combat_attackers",
    "combat_supports",
    "combat_designated",
    *(f"combat_result_{r}" for r in CRT_RESULTS),  # the result of the attack being made, once rolled
    "combat_die",  # its modified die, (die + 1) / 10
    "air_unit",  # an aircraft is being sent (air steps)
    *(f"legal_{n}" for _a, n in _SPECIAL),
)

SHAPES: dict[str, tuple[int, ...]] = {
    "planes": (len(PLANES), COLUMNS, ROWS),
    "units": (N_UNITS, len(UNIT_FEATURES)),
    "globals": (len(GLOBAL_FEATURES),),
}
FLAT_BLOCKS = ("planes", "units", "globals")
FLAT_SIZE = sum(int(np.prod(SHAPES[b])) for b in FLAT_BLOCKS)

_P = {p: i for i, p in enumerate(PLANES)}
_U = {f: i for i, f in enumerate(UNIT_FEATURES)}
_G = {f: i for i, f in enumerate(GLOBAL_FEATURES)}
_COMPACT_PLANE_INDEX = [_P[p] for p in COMPACT_PLANES]


# column / 40 and row / 32 of each hex (index 0: off the map, 0)
_HEX_COL = np.array([0.0] + [col_row(h)[0] / COLUMNS for h in range(1, N_HEXES + 1)], dtype=np.float32)
_HEX_ROW = np.array([0.0] + [col_row(h)[1] / ROWS for h in range(1, N_HEXES + 1)], dtype=np.float32)


def _direction(a: int, b: int) -> int:
    """The hexside of ``a`` that ``b`` lies across, an index of ``_RIVER_DIRS``."""
    ca, ra = col_row(a)
    cb, rb = col_row(b)
    if cb == ca:
        return 0 if rb < ra else 1
    north = rb == ra - 1 if ca % 2 == 1 else rb == ra
    west = cb > ca  # columns count from the east
    return (2 if west else 4) + (0 if north else 1)


class _Static:
    """What the encoder needs of a game's data, built once per game (the map and counters never change)."""

    def __init__(self, game: Game) -> None:
        d = game.data
        n = N_HEXES
        planes = np.zeros((N_STATIC_PLANES, n), dtype=np.float32)
        for h in range(1, n + 1):
            i = h - 1
            terrain = d.terrain[h]
            planes[_P["playable"], i] = d.playable(h)
            for name, code in (
                ("clear", "."),
                ("forest", "f"),
                ("swamp", "s"),
                ("flooded", "w"),
                ("sea", "~"),
            ):
                planes[_P[name], i] = terrain == code
            for c in d.countries[h]:
                if c in _COUNTRIES:
                    planes[_P[f"country_{c}"], i] = 1.0
            for m in NEIGHBOURS[h]:
                if d.is_river(h, m):
                    planes[_P[f"river_{_RIVER_DIRS[_direction(h, m)]}"], i] = 1.0
        for h, (kind, _name) in d.cities.items():
            planes[_P["city" if kind == "C" else "town"], h - 1] = 1.0
        for key, hexes in (
            ("paris", d.paris),
            ("german_edge", d.german_edge),
            ("allied_edge", d.allied_south_edge + d.allied_west_edge),
            ("mild_winter", tuple(d.mild_winter)),
            ("bomber_base", (d.bomber_base,)),
        ):
            for h in hexes:
                planes[_P[key], h - 1] = 1.0
        for h, f in d.fortified.items():
            planes[_P["maginot" if f.kind == "maginot" else "belgian_fort"], h - 1] = 1.0
            for m in f.front:
                planes[_P["fort_front"], m - 1] = 1.0
        self.planes = planes
        self.forts = tuple(sorted(d.fortified))
        self.fort_index = np.array(self.forts, dtype=np.int64) - 1
        self.playable = np.flatnonzero(planes[_P["playable"]] > 0)
        units = np.zeros((N_UNITS, N_STATIC_UNIT), dtype=np.float32)
        for spec in game.units:
            t = spec.type
            row = units[spec.index]
            row[_U["present"]] = 1.0
            row[_U["german"]] = spec.side == GERMAN
            row[_U[f"nation_{t.nation}"]] = 1.0
            row[_U[f"symbol_{t.symbol}"]] = 1.0
            row[_U["corps"]] = t.size == "corps"
            row[_U["attack"]] = min(t.attack / _UNIT_STRENGTH, 1.0)
            row[_U["defence"]] = min(t.defence / _UNIT_STRENGTH, 1.0)
            row[_U["ma"]] = min(t.ma / _UNIT_STRENGTH, 1.0)
            row[_U["mech"]] = t.mech
        self.units = units
        n_units = len(game.units)
        self.n_units = n_units
        self.side = np.array([spec.side for spec in game.units], dtype=np.int64)
        self.weight = np.array([spec.type.weight for spec in game.units], dtype=np.float32)
        self.attack = np.array([spec.type.attack for spec in game.units], dtype=np.float32)
        self.defence = np.array([spec.type.defence for spec in game.units], dtype=np.float32)
        self.mech = np.array([spec.type.mech for spec in game.units], dtype=np.float32)
        self.gse = np.array([spec.is_gse for spec in game.units], dtype=np.float32)


_STATIC: weakref.WeakKeyDictionary[Game, _Static] = weakref.WeakKeyDictionary()


def _static(game: Game) -> _Static:
    st = _STATIC.get(game)
    if st is None:
        st = _STATIC[game] = _Static(game)
    return st


def playable_hexes(game: Game) -> np.ndarray:
    """The hex indices (hex number - 1) the compact vector keeps, in hex order (947 on the shipped map)."""
    return _static(game).playable


def compact_size(game: Game) -> int:
    return (
        len(GLOBAL_FEATURES)
        + N_UNITS * len(COMPACT_UNIT_FEATURES)
        + len(COMPACT_PLANES) * len(playable_hexes(game))
    )


# the state's fields the encoder reads, through the view (not the history, log and rolls that grow with the game)
_READ = (
    "ac_hex",
    "ac_mission",
    "air",
    "arrive",
    "attacked",
    "attacked_hexes",
    "belgian_area",
    "cmb",
    "columns",
    "decision",
    "fort_destroyed",
    "hex",
    "invaded",
    "moved",
    "mover",
    "mp_left",
    "owed",
    "phase",
    "phasing",
    "player",
    "queue",
    "restricted",
    "status",
    "supply",
    "turn",
    "vp",
)


def encode(state: State, side: int, legal: list[int] | None = None) -> dict[str, np.ndarray]:
    """The structured observation of ``side`` (0 Allied = ``french``, 1 ``german``); ``legal``: the legal
    actions when ``side`` is to act (None otherwise: no ``legal_*`` feature is set)."""
    v = view(state, side, _READ)  # the fog: nothing below reads a field the view leaves out or masks
    g = state.game
    st = _static(g)
    n = st.n_units
    planes = np.empty((len(PLANES), N_HEXES), dtype=np.float32)
    planes[:N_STATIC_PLANES] = st.planes
    planes[N_STATIC_PLANES:] = 0.0
    units = np.zeros((N_UNITS, len(UNIT_FEATURES)), dtype=np.float32)
    units[:, :N_STATIC_UNIT] = st.units
    glob = np.zeros(len(GLOBAL_FEATURES), dtype=np.float32)

    status = np.fromiter(v["status"], np.int64, n)
    hexes = np.fromiter(v["hex"], np.int64, n)
    on_map = status == MAP
    # public board facts asked of the core (they follow from the units on the map)
    destroyed = set(v["fort_destroyed"])
    planes[_P["fort_active"], st.fort_index] = [state.fort_active(h) for h in st.forts]
    planes[_P["fort_destroyed"], st.fort_index] = [h in destroyed for h in st.forts]

    supply = np.fromiter(v["supply"], bool, n)
    moved = np.fromiter(v["moved"], bool, n)
    # each side's stacks: one count per feature over the cells (side, hex) of the units on the map
    cell = st.side[on_map] * N_HEXES + hexes[on_map] - 1
    for feature, values, scale in (
        ("weight", st.weight[on_map], _STACK),
        ("attack", st.attack[on_map], _STRENGTH),
        ("defence", st.defence[on_map], _STRENGTH),
        ("mech", st.mech[on_map], _STACK),
        ("out_of_supply", (~supply[on_map]).astype(np.float32), _STACK),
        ("moved", moved[on_map].astype(np.float32), _STACK),
        ("gse", st.gse[on_map], _STACK),
    ):
        both = np.bincount(cell, values / scale, 2 * N_HEXES)
        planes[_P["allied_" + feature]] = both[:N_HEXES]
        planes[_P["german_" + feature]] = both[N_HEXES:]
    for side_id, prefix in ((ALLIED, "allied_"), (GERMAN, "german_")):
        zoc = state.zoc_hexes(side_id)
        planes[_P[prefix + "zoc"], np.fromiter(zoc, np.int64, len(zoc)) - 1] = 1.0
    mission = v["ac_mission"]
    ac_hex = v["ac_hex"]
    flying = [u for u in range(n) if mission[u]]
    for u in flying:
        if ac_hex[u] > 0:
            prefix = "allied_air_" if st.side[u] == ALLIED else "german_air_"
            planes[_P[prefix + mission[u]], ac_hex[u] - 1] += 1.0 / _COUNT
    dyn = planes[N_STATIC_PLANES:]
    np.minimum(dyn, 1.0, out=dyn)
    for h in v["attacked_hexes"]:
        planes[_P["attacked_hex"], h - 1] = 1.0
    cmb = v["cmb"] or {}
    for h in cmb.get("targets", []):
        planes[_P["combat_target"], h - 1] = 1.0
    for h in cmb.get("ca_hexes", []):
        planes[_P["counter_hex"], h - 1] = 1.0
    for u in cmb.get("attackers", []):
        if status[u] == MAP:
            planes[_P["combat_attacker"], hexes[u] - 1] = 1.0
    mover = int(v["mover"])
    if mover >= 0 and status[mover] == MAP:
        planes[_P["mover_hex"], hexes[mover] - 1] = 1.0

    # the units
    rows = units[:n]
    rows[np.arange(n), _U["status_out"] + status] = 1.0
    # -1: its column does not use it; UNKNOWN: hidden from this viewer (P3)
    arrive_v = v["arrive"]
    if UNKNOWN in arrive_v:
        arrive_v = [-1 if a == UNKNOWN else a for a in arrive_v]
    arrive = np.fromiter(arrive_v, np.int64, n)
    known = arrive >= 0
    rows[:, _U["in_game"]] = known
    rows[:, _U["arrives"]] = np.where(known, np.minimum(arrive / _TURNS, 1.0), 0.0)  # 98: F58's bombers
    where = np.where(on_map, hexes, 0)
    rows[:, _U["col"]] = _HEX_COL[where]
    rows[:, _U["row"]] = _HEX_ROW[where]
    rows[:, _U["supplied"]] = supply & on_map
    rows[:, _U["moved"]] = moved
    rows[:, _U["attacked"]] = np.fromiter(v["attacked"], bool, n)
    rows[:, _U["restricted"]] = np.fromiter(v["restricted"], bool, n)
    for u in flying:
        rows[u, _U[f"air_{mission[u]}"]] = 1.0
        rows[u, _U["air_col"]] = _HEX_COL[ac_hex[u]]
        rows[u, _U["air_row"]] = _HEX_ROW[ac_hex[u]]
    if mover >= 0:
        rows[mover, _U["mover"]] = 1.0
    q = v["queue"][0] if v["queue"] else {}
    if isinstance(q.get("unit"), int) and q["unit"] >= 0:
        rows[q["unit"], _U["decision_unit"]] = 1.0
    air_unit = v["air"].get("ac", -1) if isinstance(v["air"], dict) else -1
    if isinstance(air_unit, int) and air_unit >= 0:
        rows[air_unit, _U["decision_unit"]] = 1.0
    for key, feature in (
        ("attackers", "combat_attacker"),
        ("supports", "combat_support"),
        ("designated", "combat_designated"),
    ):
        for u in cmb.get(key, []):
            rows[u, _U[feature]] = 1.0

    # the globals
    opts = g.options
    glob[_G["turn"]] = v["turn"] / _TURNS
    glob[_G["last_turn"]] = g.last_turn / _TURNS
    glob[_G["phasing_allied" if v["phasing"] == ALLIED else "phasing_german"]] = 1.0
    if v["phase"] in PHASES:
        glob[_G["phase_" + v["phase"]]] = 1.0
    if v["decision"] in DECISIONS:
        glob[_G["decision_" + v["decision"]]] = 1.0
    glob[_G["viewer_allied" if side == ALLIED else "viewer_german"]] = 1.0
    player = int(v["player"])
    glob[_G["to_act"]] = player == side and v["phase"] != "over"
    if player in (ALLIED, GERMAN):
        glob[_G["actor_allied" if player == ALLIED else "actor_german"]] = 1.0
    glob[_G["vp_allied"]] = min(v["vp"][ALLIED] / _VP, 1.0)
    glob[_G["vp_german"]] = min(v["vp"][GERMAN] / _VP, 1.0)
    glob[_G["mp_left"]] = min(max(v["mp_left"], 0) / _MP, 1.0) if mover >= 0 else 0.0
    glob[_G["owed"]] = min(max(v["owed"], 0) / _OWED, 1.0)
    glob[_G["belgian_area"]] = bool(v["belgian_area"])
    for c in v["invaded"]:
        if f"invaded_{c}" in _G:
            glob[_G[f"invaded_{c}"]] = 1.0
    for o in _OPTION_FLAGS:
        glob[_G[f"option_{o}"]] = bool(getattr(opts, o))
    for prefix, col in (("allied_obac_", v["columns"][ALLIED]), ("german_obac_", v["columns"][GERMAN])):
        glob[_G[prefix + (col if col != UNKNOWN else "unknown")]] = 1.0
    if cmb:
        glob[_G["combat"]] = 1.0
        for key in ("targets", "attackers", "supports", "designated"):
            glob[_G[f"combat_{key}"]] = min(len(cmb.get(key, [])) / 6.0, 1.0)
        res = cmb.get("result")
        if res in CRT_RESULTS:
            glob[_G[f"combat_result_{res}"]] = 1.0
            glob[_G["combat_die"]] = min(
                max(int(cmb.get("die", 0)) + int(cmb.get("mod", 0)) + 1, 0) / 10.0, 1.0
            )
    glob[_G["air_unit"]] = isinstance(air_unit, int) and air_unit >= 0

    if legal is not None and player == side:
        la = np.asarray(legal, dtype=np.int64)
        hx = la[(la >= A.HEX) & (la < A.UNIT)] - A.HEX
        planes[_P["legal_hex"], hx] = 1.0
        un = la[la >= A.UNIT] - A.UNIT
        units[un, _U["legal"]] = 1.0
        for a, name in _SPECIAL:
            glob[_G[f"legal_{name}"]] = a in legal
    return {
        "planes": planes.reshape(SHAPES["planes"]),
        "units": units,
        "globals": glob,
    }


def flatten(obs: dict[str, np.ndarray]) -> np.ndarray:
    """The flat vector of a structured observation (planes, units, globals; C order)."""
    return np.concatenate([obs[b].reshape(-1) for b in FLAT_BLOCKS])


def encode_flat(state: State, side: int, legal: list[int] | None = None) -> np.ndarray:
    return flatten(encode(state, side, legal))


def compact_from_dict(game: Game, obs: dict[str, np.ndarray]) -> np.ndarray:
    """The compact vector of a structured observation: globals, the dynamic unit columns, the dynamic planes
    at the playable hexes."""
    planes = obs["planes"].reshape(len(PLANES), N_HEXES)[_COMPACT_PLANE_INDEX][:, playable_hexes(game)]
    return np.concatenate([obs["globals"], obs["units"][:, N_STATIC_UNIT:].reshape(-1), planes.reshape(-1)])


def encode_compact(state: State, side: int, legal: list[int] | None = None) -> np.ndarray:
    return compact_from_dict(state.game, encode(state, side, legal))


def observation_spec() -> dict[str, Any]:
    """The layout a policy was trained on: blocks, feature names, sizes, the data version."""
    return {
        "game": "france1940",
        "encoding_version": ENCODING_VERSION,
        "data_version": DATA_VERSION,
        "shapes": {k: list(v) for k, v in SHAPES.items()},
        "planes": list(PLANES),
        "unit_features": list(UNIT_FEATURES),
        "global_features": list(GLOBAL_FEATURES),
        "flat_blocks": list(FLAT_BLOCKS),
        "compact_planes": list(COMPACT_PLANES),
        "compact_unit_features": list(COMPACT_UNIT_FEATURES),
        "n_actions": A.N_ACTIONS,
    }


def spec_hash(spec: dict[str, Any] | None = None) -> str:
    text = json.dumps(spec if spec is not None else observation_spec(), sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
