"""Observation encoding of Springtime for Hitler: one flat float32 vector per viewer.

Computed only from the core's redacted view (S59, :mod:`ffo_env.springtime.core.visibility`): the encoder
never reads a hidden field, so the other side's held, drawn or discarded Event markers cannot leak into an
observation. :func:`encode` asks the core for the entries it reads (``ENCODED_KEYS``, through
``visible_fields``) rather than the whole copied view of ``State.visible_to``, whose logs grow with the game;
``encode_view(game, state.visible_to(side))`` gives the same vector (a test compares the two). Every value
lies in ``[0, 1]`` (counts and Combat Values are scaled, see the feature lists below).

Blocks, in order (``LAYOUT``; ``block_slices()`` gives each block's slice; a test checks this table
against the code):

==========  =====  ==========================================================================
block       size   content
==========  =====  ==========================================================================
areas       720    36 locations x 20 ``AREA_FEATURES``
units       525    35 units x 15 ``UNIT_FEATURES``
tracks      25     ``TRACK_FEATURES``: turn, impulse box, phase, Morale, RPs, Advantage, flags
events      33     markers on the Turn Track (9), on the Impulse Track (9), own held marker
                   (10: none, 1..9), opponent holds one (1), container count (1), own draws
                   this game (1), the viewer's side (2: allied, axis)
decision    48     the current decision (32, one-hot over ``DECISIONS``), asked side is the
                   viewer (1), impulse mode (4: pass regroup redeploy assault), Army Groups of
                   the impulse (11, ``ALL_AGS`` order)
==========  =====  ==========================================================================

Total ``OBS_SIZE`` = 1351. Units of the opponent during a secret free setup (18.2, S59 (e)) have
``loc``/``status`` -1 in the view: they show as "not yet in play" and in no area.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from ffo_env.springtime.core.actions import ALL_AGS, N_LOC, N_UNIT
from ffo_env.springtime.core.data import ALLIED, AXIS
from ffo_env.springtime.core.state import DECISIONS, ELIM, GONE, MAP, OFF
from ffo_env.springtime.core.visibility import visible_fields

if TYPE_CHECKING:
    from ffo_env.springtime.core.game import Game
    from ffo_env.springtime.core.state import State

__all__ = [
    "AREA_FEATURES",
    "ENCODED_KEYS",
    "LAYOUT",
    "OBS_SIZE",
    "UNIT_FEATURES",
    "block_slices",
    "encode",
    "encode_view",
]

_SIDE_FEATURES = ("units", "armor", "cv", "reduced", "oos", "leaders")
AREA_FEATURES = (
    "axis_control",
    *(f"allied_{f}" for f in _SIDE_FEATURES),
    *(f"axis_{f}" for f in _SIDE_FEATURES),
    "tem",
    "port",
    "maginot",
    "paris",
    "east",
    "supply_zone",
    "combat_here",
)
UNIT_FEATURES = (
    "axis",
    "armor",
    "status_off",
    "status_map",
    "status_elim",
    "status_gone",
    "reduced",
    "oos",
    "cv",
    "leader",  # Combat Rating of its Leader (own or Kleist) / 3
    "moving",  # the unit moving now (imp moving)
    "moved_or_attacked",  # in imp moved or attacked
    "in_combat",  # a participant or a lead unit of the current combat
    "retreating",  # the unit being retreated
    "loc",  # (location index + 1) / 36, 0 off the map
)
PHASES = ("setup", "political", "maneuver", "refit", "end", "over")
TRACK_FEATURES = (
    "turn",
    "box",
    *(f"phase_{p}" for p in PHASES),
    "morale",
    "morale_at_political",
    "allied_rp",
    "axis_rp",
    "advantage_allied",
    "advantage_axis",
    "adv_used",
    "active_axis",
    "open_city",
    "italy_at_war",
    "cc_flag",
    "german_air_full",
    "allied_air_full",
    "billotte",
    "refugees_pending",
    "refugees_active",
    "air_used",
)
N_EVENTS = 9
N_EVENTS_BLOCK = 3 * N_EVENTS + 1 + 1 + 1 + 1 + 2
MODES = ("pass", "regroup", "redeploy", "assault")
LAYOUT: tuple[tuple[str, int], ...] = (
    ("areas", N_LOC * len(AREA_FEATURES)),
    ("units", N_UNIT * len(UNIT_FEATURES)),
    ("tracks", len(TRACK_FEATURES)),
    ("events", N_EVENTS_BLOCK),
    ("decision", len(DECISIONS) + 1 + len(MODES) + len(ALL_AGS)),
)
OBS_SIZE = sum(n for _, n in LAYOUT)

_AF = {f: i for i, f in enumerate(AREA_FEATURES)}
_UF = {f: i for i, f in enumerate(UNIT_FEATURES)}
_TF = {f: i for i, f in enumerate(TRACK_FEATURES)}
_DEC = {d: i for i, d in enumerate(DECISIONS)}
# scales that keep every feature in [0, 1] (a stack holds at most a few units; Morale runs 0..50ish)
_CV, _COUNT, _MORALE, _RP = 10.0, 6.0, 60.0, 30.0


_FLAGS = ("open_city", "italy_at_war", "cc_flag", "german_air_full", "allied_air_full", "billotte")
# the entries of a view that encode_view reads (a view without one of them is a KeyError there)
ENCODED_KEYS = (
    "viewer",
    "imp",
    "cmb",
    "ret",
    "control",
    "kleist_unit",
    "status",
    "loc",
    "reduced",
    "oos",
    "flipped",
    "turn",
    "box",
    "phase",
    "morale",
    "morale_at_political",
    "rp",
    "advantage",
    "adv_used_by",
    *_FLAGS,
    "refugees",
    "air_used",
    "turn_track",
    "impulse_track",
    "held",
    "container",
    "draws",
    "decision",
    "player",
)


def block_slices() -> dict[str, slice]:
    out, at = {}, 0
    for name, n in LAYOUT:
        out[name] = slice(at, at + n)
        at += n
    return out


_SL = block_slices()


def encode(state: State, side: int) -> np.ndarray:
    """The observation of ``side`` (0 Allied / ``french``, 1 Axis / ``german``) of ``state``."""
    return encode_view(state.game, visible_fields(state, side, ENCODED_KEYS))


def _c(x: float) -> float:
    return min(max(x, 0.0), 1.0)


class _Static:
    """What the encoder needs of a game's data, as arrays built once per game (the map and the counters
    never change during a game)."""

    def __init__(self, game: Game) -> None:
        d = game.data
        self.area = np.zeros((N_LOC, len(AREA_FEATURES)), dtype=np.float32)
        for i, loc in enumerate(d.locations):
            self.area[i, _AF["tem"]] = _c(loc.tem / 3.0)
            for name in ("port", "maginot", "paris", "east", "supply_zone"):
                self.area[i, _AF[name]] = getattr(loc, name)
        self.unit = np.zeros((N_UNIT, len(UNIT_FEATURES)), dtype=np.float32)
        self.unit[:, _UF["axis"]] = [spec.side == AXIS for spec in d.units]
        self.unit[:, _UF["armor"]] = [spec.armor for spec in d.units]
        self.axis = np.array([spec.side == AXIS for spec in d.units])
        self.armor = np.array([float(spec.armor) for spec in d.units])
        self.cv_full = np.array([float(spec.cv_full) for spec in d.units])
        self.cv_reduced = np.array([float(spec.cv_reduced) for spec in d.units])
        self.leader_of = np.array(game.leader_of, dtype=np.int64)
        self.kleist = game.kleist
        # a Leader's Combat Rating by [leader, flipped]; index -1 (no Leader) rates 0
        self.rating = np.zeros((len(d.leaders) + 1, 2))
        for ld in d.leaders:
            self.rating[ld.index] = (ld.front, ld.flipped)


_STATIC: weakref.WeakKeyDictionary[Game, _Static] = weakref.WeakKeyDictionary()


def _static(game: Game) -> _Static:
    st = _STATIC.get(game)
    if st is None:
        st = _STATIC[game] = _Static(game)
    return st


def encode_view(game: Game, v: dict[str, Any]) -> np.ndarray:
    """Encode a redacted view (the dict of ``visible_to``, or its ``ENCODED_KEYS`` entries); reads nothing
    else of the position."""
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    sl = _SL
    d = game.data
    g = _static(game)
    side = int(v["viewer"])
    imp = v["imp"] or {}
    cmb = v["cmb"] or {}
    ret = v["ret"] or {}

    area = obs[sl["areas"]].reshape(N_LOC, len(AREA_FEATURES))
    unit = obs[sl["units"]].reshape(N_UNIT, len(UNIT_FEATURES))
    area[:] = g.area
    area[:, _AF["axis_control"]] = np.asarray(v["control"]) == AXIS
    if cmb.get("loc", -1) >= 0:
        area[cmb["loc"], _AF["combat_here"]] = 1.0

    st = np.asarray(v["status"], dtype=np.int64)
    where = np.asarray(v["loc"], dtype=np.int64)
    red = np.asarray(v["reduced"], dtype=bool)
    oos = np.asarray(v["oos"], dtype=bool)
    cv = np.where(red, g.cv_reduced, g.cv_full)
    lead = g.leader_of.copy()
    kleist_unit = v["kleist_unit"]
    if 0 <= kleist_unit < N_UNIT and g.kleist >= 0:  # S9, S10: Kleist leads the unit he joined
        lead[kleist_unit] = g.kleist
    flipped = np.asarray([*v["flipped"], False], dtype=np.int64)  # the last row: no Leader
    rating = g.rating[lead, flipped[lead]]

    unit[:] = g.unit
    unit[:, _UF["status_off"]] = (st == OFF) | (st == -1)  # -1: hidden by a secret free setup (S59 (e))
    unit[:, _UF["status_map"]] = st == MAP
    unit[:, _UF["status_elim"]] = st == ELIM
    unit[:, _UF["status_gone"]] = st == GONE
    unit[:, _UF["reduced"]] = red
    unit[:, _UF["oos"]] = oos
    unit[:, _UF["cv"]] = np.clip(cv / _CV, 0.0, 1.0)
    unit[:, _UF["leader"]] = np.clip(rating / 3.0, 0.0, 1.0)
    if imp.get("moving", -1) >= 0:
        unit[imp["moving"], _UF["moving"]] = 1.0
    moved = set(imp.get("moved", [])) | set(imp.get("attacked", []))
    unit[sorted(moved), _UF["moved_or_attacked"]] = 1.0
    in_combat = set(cmb.get("parts", [])) | {cmb.get("lead_att", -1), cmb.get("lead_def", -1)}
    unit[sorted(u for u in in_combat if u >= 0), _UF["in_combat"]] = 1.0
    if ret.get("unit", -1) >= 0:
        unit[ret["unit"], _UF["retreating"]] = 1.0
    on_map = (st == MAP) & (where >= 0)
    unit[on_map, _UF["loc"]] = (where[on_map] + 1) / N_LOC
    # each side's stacks, summed unit by unit in unit order (np.add.at, float32: the sums are exact
    # the same as adding one unit at a time)
    for is_axis, prefix in ((False, "allied_"), (True, "axis_")):
        mine = on_map & (g.axis == is_axis)
        at = where[mine]
        for feature, values in (
            ("units", np.full(len(at), 1.0 / _COUNT)),
            ("armor", g.armor[mine] / _COUNT),
            ("cv", cv[mine] / (_CV * _COUNT)),
            ("reduced", red[mine] / _COUNT),
            ("oos", oos[mine] / _COUNT),
            ("leaders", (rating[mine] > 0) / _COUNT),
        ):
            np.add.at(area[:, _AF[prefix + feature]], at, values.astype(np.float32))
    np.clip(area, 0.0, 1.0, out=area)

    t = obs[sl["tracks"]]
    tables = d.tables
    t[_TF["turn"]] = _c(v["turn"] / float(tables["turns"]))
    t[_TF["box"]] = _c(v["box"] / float(tables["impulse_boxes"]))
    if v["phase"] in PHASES:
        t[_TF["phase_" + v["phase"]]] = 1.0
    t[_TF["morale"]] = _c(v["morale"] / _MORALE)
    t[_TF["morale_at_political"]] = _c(v["morale_at_political"] / _MORALE)
    t[_TF["allied_rp"]] = _c(v["rp"][ALLIED] / _RP)
    t[_TF["axis_rp"]] = _c(v["rp"][AXIS] / _RP)
    t[_TF["advantage_allied"]] = v["advantage"] == ALLIED
    t[_TF["advantage_axis"]] = v["advantage"] == AXIS
    t[_TF["adv_used"]] = v["adv_used_by"] >= 0
    t[_TF["active_axis"]] = v["box"] % 2 == 0  # rule 6.2: even boxes are Axis impulses
    for flag in _FLAGS:
        t[_TF[flag]] = bool(v[flag])
    t[_TF["refugees_pending"]] = v["refugees"] == "pending"
    t[_TF["refugees_active"]] = v["refugees"] == "active"
    t[_TF["air_used"]] = _c(len(v["air_used"]) / 4.0)

    e = obs[sl["events"]]
    for n in v["turn_track"]:
        e[n - 1] = 1.0
    for n in v["impulse_track"]:
        e[N_EVENTS + n - 1] = 1.0
    own = int(v["held"][side])  # the view holds only the viewer's own marker (S59)
    e[2 * N_EVENTS + (own if own > 0 else 0)] = 1.0
    e[3 * N_EVENTS + 1] = v["held"][1 - side] != 0
    e[3 * N_EVENTS + 2] = _c(int(v["container"]) / N_EVENTS)
    e[3 * N_EVENTS + 3] = _c(v["draws"][side] / 10.0)
    e[3 * N_EVENTS + 4 + side] = 1.0

    dec = obs[sl["decision"]]
    if v["decision"] in _DEC:
        dec[_DEC[v["decision"]]] = 1.0
    at = len(DECISIONS)
    dec[at] = v["player"] == side and v["phase"] != "over"
    if imp.get("mode") in MODES:
        dec[at + 1 + MODES.index(imp["mode"])] = 1.0
    base = at + 1 + len(MODES)
    for ag in imp.get("assault", []):
        if ag in ALL_AGS:
            dec[base + ALL_AGS.index(ag)] = 1.0
    return obs
