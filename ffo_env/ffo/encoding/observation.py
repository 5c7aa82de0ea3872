"""The observation encoder: a France Fights On state as the tensors of :mod:`ffo_env.ffo.encoding.layout`.

``encode(state, viewer)`` returns a dict of three numpy arrays (planes, globals, units) for one viewing
side, under the fog of war of rule 3.6 (R2, R3); the layout, its conventions and every index are
specified in :mod:`ffo_env.ffo.encoding.layout`, whose names this module re-exports.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from operator import attrgetter, itemgetter
from typing import Any, Generic, TypeVar

import numpy as np

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.game import Game
from ffo_env.ffo.core.mapdata import ColoredRow, Terrain
from ffo_env.ffo.core.scenario import GROUPS, MAX_CF, UNIT_TYPES, Side
from ffo_env.ffo.core.state import DEAD, ON_MAP, RESERVE, Decision, Phase, State
from ffo_env.ffo.encoding.layout import (
    CLASS_OF_TYPE,
    CRT_RESULTS,
    GLOBAL_GROUPS,
    GLOBAL_HIGH,
    GLOBAL_INDEX,
    GLOBAL_LOW,
    GRID_SHAPE,
    N_CELLS,
    N_COLS,
    N_COLUMNS,
    N_DECISIONS,
    N_GLOBALS,
    N_PHASES,
    N_PLANES,
    N_ROWS,
    N_TURN_ONEHOT,
    N_UNIT_FEATURES,
    PLANE_GROUPS,
    PLANE_HIGH,
    PLANE_INDEX,
    UNIT_CLASSES,
    UNIT_FEATURE_INDEX,
    UNIT_GROUPS,
    ObservationSpec,
    expand_names,
)

__all__ = [
    "CRT_RESULTS",
    "GLOBAL_GROUPS",
    "GLOBAL_HIGH",
    "GLOBAL_INDEX",
    "GLOBAL_LOW",
    "GRID_SHAPE",
    "N_CELLS",
    "N_COLS",
    "N_COLUMNS",
    "N_DECISIONS",
    "N_GLOBALS",
    "N_PHASES",
    "N_PLANES",
    "N_ROWS",
    "N_TURN_ONEHOT",
    "N_UNIT_FEATURES",
    "PLANE_GROUPS",
    "PLANE_HIGH",
    "PLANE_INDEX",
    "UNIT_CLASSES",
    "UNIT_FEATURE_INDEX",
    "UNIT_GROUPS",
    "ObservationEncoder",
    "ObservationSpec",
    "encode",
    "encoder_for",
    "expand_names",
    "legal_mask",
]

_G_TURN, _G_TURN1, _G_PHASE, _G_DECISION = (
    GLOBAL_INDEX["turn"],
    GLOBAL_INDEX["turn_onehot"],
    GLOBAL_INDEX["phase"],
    GLOBAL_INDEX["decision"],
)
_DYN0 = UNIT_FEATURE_INDEX["cf"]  # unit features [cf .. legal] are dynamic and contiguous
_N_DYN = N_UNIT_FEATURES - _DYN0
_DYNAMIC_COLUMN = {name: off - _DYN0 for name, off in UNIT_FEATURE_INDEX.items() if off >= _DYN0}

_OWN_ROWS = np.array(
    [
        PLANE_INDEX["own_count"],
        *range(PLANE_INDEX["own_class"], PLANE_INDEX["own_class"] + 6),
        PLANE_INDEX["own_reduced"],
        PLANE_INDEX["own_moved"],
        PLANE_INDEX["own_attacked"],
        PLANE_INDEX["own_no_attack"],
        PLANE_INDEX["own_immobile"],
        PLANE_INDEX["own_supplied"],
        PLANE_INDEX["own_must_leave"],
    ],
    dtype=np.int64,
)
_N_OWN_ROWS = len(_OWN_ROWS)
_OWN_POS = np.arange(_N_OWN_ROWS, dtype=np.int64)

# hex index -> flat cell of the (60, 26) grid
FLAT = (hg.HEX_X.astype(np.int64) - 1) * N_ROWS + hg.HEX_Y.astype(np.int64)
FLAT.setflags(write=False)
# FLAT with a sentinel for loc == -1 (off map): cell N_CELLS of a one-longer buffer
_FLAT_S = np.append(FLAT, N_CELLS)

# plane, global and unit-feature indices used on the hot path (module constants: no dict lookups)
_P_PUBLIC0, _P_PUBLIC1 = (
    PLANE_INDEX["german_control"],
    PLANE_INDEX["own_count"],
)  # rows rebuilt with the public hex state
_P_UNITS0, _P_UNITS1 = (
    PLANE_INDEX["own_count"],
    PLANE_INDEX["battle_target"],
)  # rows rebuilt with the units of a view
_P_GERMAN_CONTROL, _P_EVER_GERMAN = PLANE_INDEX["german_control"], PLANE_INDEX["ever_german"]
_P_REFUGEE, _P_REFUGEE_FLIPPED, _P_ATTACKED_HEX = (
    PLANE_INDEX["refugee"],
    PLANE_INDEX["refugee_flipped"],
    PLANE_INDEX["attacked_hex"],
)
_P_SCARE_HEX, _P_REPLACEMENT_HEX = PLANE_INDEX["scare_hex"], PLANE_INDEX["replacement_hex"]
_P_OWN_CF, _P_ENEMY_COUNT = PLANE_INDEX["own_cf"], PLANE_INDEX["enemy_count"]
_P_ENEMY_TOP_CLASS, _P_ENEMY_TOP_CF = PLANE_INDEX["enemy_top_class"], PLANE_INDEX["enemy_top_cf"]
_P_ENEMY_TOP_REDUCED, _P_ENEMY_TOP_MOVED = PLANE_INDEX["enemy_top_reduced"], PLANE_INDEX["enemy_top_moved"]
_P_ENEMY_TOP_ATTACKED, _P_ENEMY_REVEALED = PLANE_INDEX["enemy_top_attacked"], PLANE_INDEX["enemy_revealed"]
_P_ENEMY_REVEALED_CF = PLANE_INDEX["enemy_revealed_cf"]
_P_BATTLE_TARGET, _P_BATTLE_ATTACKERS = PLANE_INDEX["battle_target"], PLANE_INDEX["battle_attackers"]
_P_CTX_UNIT, _P_DEST_MP, _P_DEST_VP, _P_LEGAL_HEX = (
    PLANE_INDEX["ctx_unit"],
    PLANE_INDEX["dest_mp"],
    PLANE_INDEX["dest_vp"],
    PLANE_INDEX["legal_hex"],
)
_P_STACK_FULL, _P_OVERSTACKED, _P_DEST_OVERSTACKS = (
    PLANE_INDEX["own_stack_full"],
    PLANE_INDEX["own_overstacked"],
    PLANE_INDEX["dest_overstacks"],
)
_P_TARGET_ENDS_GAME = PLANE_INDEX["target_ends_game"]
assert [_P_GERMAN_CONTROL, _P_EVER_GERMAN, _P_REFUGEE, _P_REFUGEE_FLIPPED, _P_ATTACKED_HEX] == list(
    range(_P_PUBLIC0, _P_PUBLIC0 + 5)
) and [_P_SCARE_HEX, _P_REPLACEMENT_HEX] == [_P_PUBLIC1 - 2, _P_PUBLIC1 - 1]  # what _view rewrites
_G_FRENCH_CITIES = GLOBAL_INDEX["french_cities"]
_G_VIEWER_GERMAN, _G_TO_ACT, _G_ACTOR_GERMAN, _G_VP = (
    GLOBAL_INDEX["viewer_german"],
    GLOBAL_INDEX["to_act"],
    GLOBAL_INDEX["actor_german"],
    GLOBAL_INDEX["vp"],
)
_G_STUKA, _G_NAVAL, _G_MOVE_FIRST = (
    GLOBAL_INDEX["stuka_available"],
    GLOBAL_INDEX["naval_available"],
    GLOBAL_INDEX["german_move_first"],
)
_G_SCARE, _G_REPLACEMENT = GLOBAL_INDEX["scare"], GLOBAL_INDEX["replacement"]
_G_UNITS0, _G_UNITS1 = (
    GLOBAL_INDEX["french_units"],
    GLOBAL_INDEX["entry"] + 12,
)  # french_units, german_main, entry: contiguous
_G_LAST_DICE, _G_MP, _G_REFUGEES_LEFT = (
    GLOBAL_INDEX["last_dice"],
    GLOBAL_INDEX["mp"],
    GLOBAL_INDEX["refugees_left"],
)
_G_BATTLE, _G_BATTLE_AIR, _G_BATTLE_VIEWER_ATTACKS = (
    GLOBAL_INDEX["battle"],
    GLOBAL_INDEX["battle_air"],
    GLOBAL_INDEX["battle_viewer_attacks"],
)
_G_BATTLE_CF, _G_BATTLE_DIFFERENTIAL = GLOBAL_INDEX["battle_cf"], GLOBAL_INDEX["battle_differential"]
_G_BATTLE_COLUMN, _G_BATTLE_SHIFT = GLOBAL_INDEX["battle_column"], GLOBAL_INDEX["battle_shift"]
_G_BATTLE_SUPPORT, _G_BATTLE_OOS = GLOBAL_INDEX["battle_support"], GLOBAL_INDEX["battle_oos"]
_G_LAST_RESULT, _G_LEGAL_COUNT, _G_STEP_FRACTION = (
    GLOBAL_INDEX["last_result"],
    GLOBAL_INDEX["legal_count"],
    GLOBAL_INDEX["step_fraction"],
)
assert (GLOBAL_INDEX["german_main"], GLOBAL_INDEX["entry"]) == (
    GLOBAL_INDEX["french_units"] + 3,
    GLOBAL_INDEX["french_units"] + 5,
)
_F_OWN, _F_VISIBLE, _F_STATUS = (
    UNIT_FEATURE_INDEX["own"],
    UNIT_FEATURE_INDEX["visible"],
    UNIT_FEATURE_INDEX["status"],
)
_F_SUPPLIED, _F_MUST_LEAVE, _F_SCARE, _F_REPLACEMENT = (
    UNIT_FEATURE_INDEX["supplied"],
    UNIT_FEATURE_INDEX["must_leave"],
    UNIT_FEATURE_INDEX["scare"],
    UNIT_FEATURE_INDEX["replacement"],
)
_F_BATTLE_ATTACKER, _F_BATTLE_DEFENDER = (
    UNIT_FEATURE_INDEX["battle_attacker"],
    UNIT_FEATURE_INDEX["battle_defender"],
)
_F_IN_RESERVE_READY, _F_CTX_UNIT, _F_LEGAL = (
    UNIT_FEATURE_INDEX["in_reserve_ready"],
    UNIT_FEATURE_INDEX["ctx_unit"],
    UNIT_FEATURE_INDEX["legal"],
)
_N_FULL = (
    UNIT_FEATURE_INDEX["supplied"] - UNIT_FEATURE_INDEX["cf"]
)  # unit features cf .. immobile: full information, masked per view
assert [n for n, _s, _m in UNIT_GROUPS[10:22]] == [
    "cf", "reduced", "x", "y", "on_top", "stack_size", "moved", "attacked", "no_attack", "immobile",
    "supplied", "must_leave",
]  # fmt: skip
assert (
    UNIT_FEATURE_INDEX["replacement"],
    UNIT_FEATURE_INDEX["battle_attacker"],
    UNIT_FEATURE_INDEX["battle_defender"],
) == (_F_SCARE + 1, _F_SCARE + 2, _F_SCARE + 3)
assert UNIT_FEATURE_INDEX["legal"] == UNIT_FEATURE_INDEX["ctx_unit"] + 1
# unit x, y features per hex, exactly as column / 60 and (row + 1) / 26 were computed (float64, then float32)
_X_NORM = (hg.HEX_X * (1.0 / 60.0)).astype(np.float32)
_Y_NORM = ((hg.HEX_Y + 1) * (1.0 / 26.0)).astype(np.float32)
# Both, per hex, then a row of zeros at index N_HEX (a unit off the map) and the hexes again, so that a
# negative index reads what _X_NORM[loc] read: indexed by _Shared.hex_on, one gather instead of two wheres
_XY_NORM = np.stack([_X_NORM, _Y_NORM], axis=1)
_XY_S = np.concatenate([_XY_NORM, np.zeros((1, 2), dtype=np.float32), _XY_NORM])
_TARGET_DECISIONS = (Decision.ATTACK_TARGET, Decision.AIR_TARGET)
_GET_MP, _GET_VP, _LAST = attrgetter("mp"), attrgetter("vp"), itemgetter(-1)

# Columns of _Shared.w, one int64 row of plane values per unit: the own planes own_count .. own_must_leave
# in their order (contiguous rows: one slice write per view), then whether the unit counts for stacking
# (rule 6.3, R8), which feeds the stacking planes. An enemy stack's top takes the columns of the enemy-top
# planes (_W_ENEMY_TOP).
_P_OWN0 = PLANE_INDEX["own_count"]
_W_COLUMN = {
    name: PLANE_INDEX["own_" + name] - _P_OWN0 for name in ("cf", "class", "reduced", "moved", "supplied")
}
_W_CF, _W_CLASS, _W_REDUCED, _W_MOVED, _W_SUPPLIED = _W_COLUMN.values()
_W_MUST_LEAVE = PLANE_INDEX["own_must_leave"] - _P_OWN0
_N_W_OWN = _W_MUST_LEAVE + 1
_W_STACKING = _N_W_OWN
_N_W = _N_W_OWN + 1
_W_COL = np.arange(_N_W, dtype=np.int64)
# moved, attacked, no_attack, immobile (the state's lists, in order), supplied, must_leave
assert [PLANE_INDEX["own_" + k] - _P_OWN0 for k in ("attacked", "no_attack", "immobile")] == [
    _W_MOVED + 1,
    _W_MOVED + 2,
    _W_MOVED + 3,
]
assert (_W_SUPPLIED, _W_MUST_LEAVE, _W_REDUCED) == (_W_MOVED + 4, _W_MOVED + 5, _W_CLASS + 6)
_P_ENEMY_TOP0 = PLANE_INDEX["enemy_top_class"]
_W_ENEMY_TOP = np.array([*range(_W_CLASS, _W_CLASS + 6), _W_CF, _W_REDUCED, _W_MOVED, _W_MOVED + 1])
_N_ENEMY_TOP = len(_W_ENEMY_TOP)
assert [_P_ENEMY_TOP0 + 6 + i for i in range(4)] == [
    PLANE_INDEX["enemy_top_" + k] for k in ("cf", "reduced", "moved", "attacked")
]
# the own and enemy planes are exactly the rows _fill_view clears and rebuilds
assert (_P_OWN0, _P_OWN0 + _N_W_OWN, _P_ENEMY_TOP0 - 1) == (_P_UNITS0, _P_ENEMY_COUNT, _P_ENEMY_COUNT)
assert (_P_ENEMY_TOP0 + _N_ENEMY_TOP, _P_ENEMY_REVEALED_CF + 1) == (_P_ENEMY_REVEALED, _P_UNITS1)
assert _P_OVERSTACKED == _P_STACK_FULL + 1
# bits of the per-unit lists read by _sync (loc, status, steps, moved, attacked, no_attack, immobile,
# must_leave, entry_ready): what _derive_shared recomputes when they change
_ROWS_ALL = (1 << 9) - 1
_ROW_LOC = 1 << 0
_ROWS_STATUS = (1 << 1) | (1 << 2) | (1 << 8)  # status, steps, entry_ready
_ROWS_FLAGS = sum(1 << i for i in range(3, 8))  # moved .. must_leave
_N_ENEMY_ROWS = 5  # loc .. attacked: what the enemy planes read of the enemy units
_ARANGE = np.arange(N_CELLS + 1, dtype=np.int64)


class _Shared:
    """Viewer-independent data derived from a state's unit lists and stacks (see ``_sync``)."""

    __slots__ = (
        "version", "arr", "loc", "status", "on", "cf", "cells", "hex_on", "hexes", "tops", "is_top",
        "stack_german", "hideable", "size_at", "dyn", "w", "status_onehot", "must_leave_on",
        "in_reserve_ready", "present", "french_left", "unit_globals",
    )  # fmt: skip
    version: int
    arr: np.ndarray  # (9, U) int64: the lists _sync read (never written once derived)
    loc: np.ndarray
    status: np.ndarray
    on: np.ndarray
    cf: np.ndarray
    cells: np.ndarray  # grid cell per unit, N_CELLS off the map
    hex_on: np.ndarray  # hex per unit on the map, else N_HEX
    hexes: np.ndarray  # per stack: hex, top unit, German?
    tops: np.ndarray
    is_top: np.ndarray
    stack_german: np.ndarray
    hideable: np.ndarray  # on the map under another unit
    size_at: np.ndarray  # stack size per hex (N_HEX + 1, the last 0)
    dyn: np.ndarray  # (U, _N_FULL) float32 unit-table columns cf .. immobile, full information
    w: np.ndarray  # (U, _N_W) int64 plane values per unit (see _W_COLUMN)
    status_onehot: np.ndarray
    must_leave_on: np.ndarray
    in_reserve_ready: np.ndarray
    present: tuple[tuple[bool, bool], tuple[bool, bool]]  # per viewer, see _supplied
    french_left: int
    unit_globals: list[float]


class _View:
    """Private buffers of one (viewer, omniscient) view and the keys they were built from."""

    __slots__ = (
        "version",
        "rev",
        "eg",
        "pkey",
        "enemy_key",
        "planes",
        "units",
        "visible",
        "french_cities",
        "limit",
    )

    def __init__(self, enc: ObservationEncoder, viewer: int) -> None:
        self.version = -1
        self.rev: set[int] | None = None
        self.eg: bytes | None = None
        self.pkey: tuple[Any, ...] | None = None
        self.enemy_key: tuple[bytes, ...] | None = None  # what the enemy planes were built from
        self.french_cities = 0.0
        self.limit = 1  # the stacking limit the planes were built for
        self.planes = enc.template_s.copy()
        # the columns a view never changes: the template's, ``own`` (fixed by the viewer) and the
        # per-decision ones, which encode writes into its copy only
        self.units = enc.unit_template.copy()
        self.units[:, _F_OWN] = enc._own[viewer]
        self.visible = np.ones(enc.n_units, dtype=bool)


def mark_units(T: np.ndarray, state: State, visible: np.ndarray, columns: tuple[int, int, int, int]) -> None:
    """Set the unit table's marker columns (``scare``, ``replacement``, ``battle attacker``, ``battle
    defender``, in that order in ``columns``) as a side with ``visible`` units sees them: the scared unit
    and the attackers are always known, the replacement and the defenders only when visible. One place for
    the structured and the compact encoders."""
    scare, replacement, attacker, defender = columns
    if state.scare_unit >= 0:
        T[state.scare_unit, scare] = 1
    ru = state.replacement_unit
    if ru >= 0 and visible[ru]:
        T[ru, replacement] = 1
    b = state.battle
    if b is not None:
        if b["attackers"]:
            T[b["attackers"], attacker] = 1
        dd = np.asarray(b["defenders"], dtype=np.int64)
        if dd.size:
            T[dd[visible[dd]], defender] = 1


class ObservationEncoder:
    """Encoder for one :class:`Game`: static planes and unit tables are built once here.

    Use :func:`encoder_for` (cached per game) rather than constructing it per state.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        sc = game.scenario
        md = sc.map
        mt = game.tables
        units = sc.units
        self.n_units = len(units)
        self.spec = ObservationSpec(n_units=self.n_units)
        self.n_actions = game.num_distinct_actions
        self.layout = game.layout
        self.last_turn = sc.tables.last_turn
        self.victory_vp = sc.tables.victory_vp
        # ---- static planes
        tpl = np.zeros((N_PLANES, N_CELLS), dtype=np.uint8)
        tpl[PLANE_INDEX["off_map"]] = 1
        tpl[PLANE_INDEX["off_map"], FLAT] = 0
        for k, t in enumerate(
            (Terrain.CLEAR, Terrain.ROUGH, Terrain.MARSH, Terrain.MOUNTAIN, Terrain.SEA, Terrain.NEUTRAL)
        ):
            tpl[PLANE_INDEX["terrain"] + k, FLAT] = md.terrain == t
        river = np.array(mt.river_side, dtype=bool)
        blocked = np.array(mt.blocked_side, dtype=bool) & (hg.NEIGHBORS >= 0)
        for d in range(6):
            tpl[PLANE_INDEX["river"] + d, FLAT] = river[:, d]
            tpl[PLANE_INDEX["blocked"] + d, FLAT] = blocked[:, d]
        tpl[PLANE_INDEX["city"], FLAT] = md.is_city
        tpl[PLANE_INDEX["port"], FLAT] = md.port
        tpl[PLANE_INDEX["coastal"], FLAT] = md.coastal
        tpl[PLANE_INDEX["inland1"], FLAT] = md.inland1
        for k, r in enumerate((ColoredRow.RED, ColoredRow.GREEN, ColoredRow.YELLOW)):
            tpl[PLANE_INDEX["row"] + k, FLAT] = md.row == r
        tpl.setflags(write=False)
        self.template = tpl
        self.template_s = np.zeros((N_PLANES, N_CELLS + 1), dtype=np.uint8)
        self.template_s[:, :N_CELLS] = tpl
        self.template_s.setflags(write=False)
        # last seen copies of the state's per-unit lists and their array rows (see _unit_arrays)
        self._lists: list[list[Any] | None] = [None] * 9
        self._arr = np.zeros((9, len(sc.units)), dtype=np.int64)
        self._stacks: dict[int, list[int]] | None = None
        self._shared: _Shared | None = None
        self._version = 0
        self._views: dict[tuple[int, bool], _View] = {}
        # ---- static unit facts
        U = self.n_units
        self.german = np.array([u.side == Side.GERMAN for u in units], dtype=bool)
        self.cls = np.array([CLASS_OF_TYPE[u.type] for u in units], dtype=np.int64)
        self.cf_full = np.array([u.cf_full for u in units], dtype=np.int64)
        self.cf_reduced = np.array([u.cf_reduced for u in units], dtype=np.int64)
        self.max_steps = np.array([u.steps for u in units], dtype=np.int64)
        tab = np.zeros((U, N_UNIT_FEATURES), dtype=np.float32)
        tab[:, UNIT_FEATURE_INDEX["german"]] = self.german
        for u in units:
            tab[u.index, UNIT_FEATURE_INDEX["type"] + UNIT_TYPES.index(u.type)] = 1
            if u.side == Side.GERMAN and u.group in GROUPS:
                tab[u.index, UNIT_FEATURE_INDEX["group"] + GROUPS.index(u.group)] = 1
        tab[:, UNIT_FEATURE_INDEX["cf_full"]] = self.cf_full / MAX_CF  # in [0, 1]: the loader caps CFs
        tab[:, UNIT_FEATURE_INDEX["cf_reduced"]] = self.cf_reduced / MAX_CF
        tab[:, UNIT_FEATURE_INDEX["two_step"]] = self.max_steps == 2
        tab[:, UNIT_FEATURE_INDEX["free_stacking"]] = [u.free_stacking for u in units]
        tab.setflags(write=False)
        self.unit_template = tab
        self.status_eye = np.eye(4, dtype=np.float32)
        self._own = (~self.german, self.german)  # own units of viewer 0, 1
        self.french_idx = np.flatnonzero(~self.german)
        self.main_idx = np.array(
            [u.index for u in units if u.side == Side.GERMAN and u.group == "main"], dtype=np.int64
        )
        self.group_idx = [
            np.array([u.index for u in units if u.group == g], dtype=np.int64) for g in ("18", "4", "K")
        ]
        cat = {"main": 1, "18": 2, "4": 3, "K": 4}
        self.category = np.array(
            [0 if u.side == Side.FRENCH else cat[u.group] for u in units], dtype=np.int64
        )
        per = np.bincount(self.category, minlength=5).astype(np.float64)
        self.category_inv = np.where(per > 0, 1.0 / np.maximum(per, 1), 0.0)
        self.west = np.array([u.west for u in units], dtype=bool)
        self.city_hexes = np.flatnonzero(np.asarray(md.is_city, dtype=bool))
        self.counted = ~np.array(game.unit_free_stacking, dtype=bool)  # rule 6.3, R8
        tb = sc.tables
        self.stack_limits = (tb.stack_limit, tb.setup_stack_limit)  # indexed by "setting up"
        self.unit_base = self.layout.unit_base
        self.special_base = self.layout.special_base
        # ---- per-unit constants of the hot path (_derive_shared, _fill_view, _supplied)
        self.french = ~self.german
        w = np.zeros((U, _N_W), dtype=np.int64)
        w[np.arange(U), _W_CLASS + self.cls] = 1
        w[:, 0] = 1  # own_count
        w[:, _W_STACKING] = self.counted
        w.setflags(write=False)
        self.w_template = w
        self.category4 = self.category * 4
        # the groups whose waiting reinforcements are counted (by membership, as the globals define them)
        wait = {"18": 2, "4": 3, "K": 4}
        self.wait_category = np.array([wait.get(u.group, 0) for u in units], dtype=np.int64)
        self._east = ~self.west
        self._side_units = (self.french_idx, np.flatnonzero(self.german))
        self._west_row = self.west.astype(np.int64)
        self.city_u8 = np.asarray(md.is_city, dtype=np.uint8)
        # supply masks (French; German east, west) with a 0 for loc == -1
        self._mbuf = np.zeros((2, hg.N_HEX + 1), dtype=np.uint8)
        self._eg_seen: bytes | None = None  # ever_german that _city_supplied was computed from
        self._city_supplied = np.zeros(hg.N_HEX, dtype=bool)
        self._german_east = self.german & self._east
        self._german_west = self.german & self.west
        self._slot = np.zeros(N_CELLS + 1, dtype=np.int64)  # scratch of _fill_view (cell -> a unit's slot)

    # ------------------------------------------------------------------ encode
    #
    # Speed (the arrays are bit-identical to the frozen reference, tests/test_encoding_reference.py
    # and tests/test_encoding_golden.py): consecutive decisions change little, so the work is cached
    # in three layers, each keyed on the *content* it was computed from (never on object identity,
    # so clones, other games and states edited in place are safe):
    #
    # 1. shared (_sync): everything derived from the per-unit lists and the stacks, for both viewers;
    #    recomputed when one of those changed (about half of the decisions), and then only the parts
    #    that read what changed (a move touches loc, moved and the stacks, not status or steps);
    # 2. per view (viewer, omniscient): the own/enemy/stacking planes, the public hex planes and the
    #    unit table without the per-decision columns, in private buffers; recomputed when the shared
    #    data, the stacking limit, the viewer's revealed hexes or (French) ``ever_german`` changed. The
    #    enemy planes are kept while the enemy units and stacks are unchanged (the viewer moved its
    #    own), the public planes are rewritten part by part;
    # 3. per call: a copy of the view's buffers plus the battle and decision-context entries, and the
    #    globals. Returned arrays are always fresh copies: later calls never mutate them.
    #
    # Most of the cost is the fixed overhead of each numpy call on these small arrays (62 units, a few
    # dozen stacks), so the code prefers fewer, fused calls (one gather from a per-unit matrix of plane
    # values, _Shared.w) to many small ones, and lookups over where().

    def encode(
        self, state: State, viewer: int, omniscient: bool = False, legal: list[int] | None = None
    ) -> dict[str, np.ndarray]:
        """The observation of ``state`` for side ``viewer`` (0 French, 1 German).

        ``legal`` may pass ``state.legal_actions()`` when the caller already has it.
        """
        viewer = int(viewer)
        terminal = state.is_terminal()
        to_act = (not terminal) and int(state.player) == viewer
        if to_act and legal is None:
            legal = state.legal_actions()
        sh = self._sync(state)
        view = self._view(state, sh, viewer, bool(omniscient))
        cells = sh.cells
        b = state.battle

        # ---- planes: the view's buffer, then the battle (public) and the decision context (decider only)
        planes = view.planes[:, :N_CELLS].copy()
        if b is not None:
            planes[_P_BATTLE_TARGET, FLAT[b["target"]]] = 1
            att = b["attackers"]
            if att:
                planes[_P_BATTLE_ATTACKERS] = np.bincount(
                    cells[np.asarray(att, dtype=np.int64)], minlength=N_CELLS + 1
                )[:N_CELLS]
        d = state.decision
        t_now = state.turn
        ctx_u = -1
        ua = None
        if to_act:
            assert legal is not None
            la = np.asarray(legal, dtype=np.int64)
            # most decisions are all hex or all unit actions: then the split needs no array pass
            top = max(legal, default=-1)
            hx = la if top < self.unit_base else la[la < self.unit_base]
            if hx.size:
                planes[_P_LEGAL_HEX, FLAT[hx]] = 1
            ctx_u = state.decision_unit()
            if ctx_u >= 0:
                c = cells[ctx_u]
                if c < N_CELLS:
                    planes[_P_CTX_UNIT, c] = 1
                if hx.size and self.counted[ctx_u] and self._own[viewer][ctx_u]:
                    # rule 6.5, R9: the unit would join a hex already full without it
                    # (counted - 1 >= limit where it stands is the over-stacked plane, the full one elsewhere)
                    hc = FLAT[hx]
                    full = planes[_P_STACK_FULL + (hc == c), hc]
                    planes[_P_DEST_OVERSTACKS, hc[full.view(bool)]] = 1
            if (
                viewer == 1
                and d in _TARGET_DECISIONS
                and hx.size
                and t_now < self.last_turn
                and view.french_cities > 0
            ):
                # rule 4.1, 4.3, R21: wiping out this stack ends the game with French cities counted. The
                # core decides; only stacks at least as large as the French units left can (its own test)
                big = hx[sh.size_at[hx] >= sh.french_left]
                ends = [h for h in big.tolist() if state.destroying_ends_game(h)]
                if ends:
                    planes[_P_TARGET_ENDS_GAME, FLAT[np.asarray(ends, dtype=np.int64)]] = 1
            if d == Decision.MOVE_DEST:
                dests = state.move_destinations()
                if dests:
                    n = len(dests)
                    dh = FLAT[np.fromiter(dests.keys(), dtype=np.int64, count=n)]
                    rs = dests.values()
                    # map() with attrgetter: no Python frame per destination (there are often a hundred)
                    mp1 = np.fromiter(map(_GET_MP, rs), dtype=np.int64, count=n)
                    mp1 += 1
                    planes[_P_DEST_MP, dh] = np.minimum(np.maximum(mp1, 0, out=mp1), 255, out=mp1)
                    vp = np.fromiter(map(_GET_VP, rs), dtype=np.int64, count=n)
                    planes[_P_DEST_VP, dh] = np.minimum(np.maximum(vp, 0, out=vp), 255, out=vp)
                if ctx_u >= 0 and sh.loc[ctx_u] >= 0 and (hx == sh.loc[ctx_u]).any():
                    planes[_P_DEST_MP, cells[ctx_u]] = 1  # staying: 0 MP
            if top >= self.unit_base:
                ua = la[(la >= self.unit_base) & (la < self.special_base)] - self.unit_base

        gv = self._globals(state, sh, viewer, to_act, terminal, legal, view.french_cities)

        # ---- unit table: the view's table, then the markers, the battle and the decision context
        T = view.units.copy()
        visible = view.visible
        mark_units(T, state, visible, (_F_SCARE, _F_REPLACEMENT, _F_BATTLE_ATTACKER, _F_BATTLE_DEFENDER))
        if ctx_u >= 0:  # (to act)
            T[ctx_u, _F_CTX_UNIT] = 1
        if ua is not None and ua.size:
            T[ua, _F_LEGAL] = 1
        return {"planes": planes.reshape(N_PLANES, *GRID_SHAPE), "globals": gv, "units": T}

    def _globals(
        self,
        state: State,
        sh: _Shared,
        viewer: int,
        to_act: bool,
        terminal: bool,
        legal: list[int] | None,
        french_cities: float,
    ) -> np.ndarray:
        """The globals of ``state`` for ``viewer`` (float32, clipped to the layout's bounds); shared by the
        structured observation and the compact encoder, which copies them unchanged. Built as a Python
        list: ~40 scalar writes are cheaper there."""
        d = state.decision
        b = state.battle
        g = [0.0] * N_GLOBALS
        t = state.turn
        g[_G_TURN] = t / self.last_turn
        g[_G_TURN1 + min(max(t, 1), N_TURN_ONEHOT) - 1] = 1.0
        g[_G_PHASE + int(state.phase)] = 1.0
        di = int(d)
        if di < N_DECISIONS:
            g[_G_DECISION + di] = 1.0
        g[_G_VIEWER_GERMAN] = float(viewer)
        g[_G_TO_ACT] = float(to_act)
        g[_G_ACTOR_GERMAN] = float(int(state.player) == 1 and not terminal)
        g[_G_VP] = min(GLOBAL_HIGH, max(GLOBAL_LOW, state.vp / self.victory_vp))
        g[_G_STUKA] = float(not state.stuka_used)
        naval = state.naval_used
        g[_G_NAVAL] = float(not naval[0])
        g[_G_NAVAL + 1] = float(not naval[1])
        g[_G_MOVE_FIRST] = float(state.german_move_first)
        g[_G_SCARE] = float(state.scare_unit >= 0)
        g[_G_SCARE + 1] = float(state.scare_ever)
        g[_G_REPLACEMENT] = float(state.replacement_unit >= 0)
        g[_G_UNITS0:_G_UNITS1] = sh.unit_globals
        ld = state.last_dice
        if ld:
            rec = ld[::-1][:8]
            g[_G_LAST_DICE : _G_LAST_DICE + len(rec)] = [v / 6.0 for v in rec]
        mp = state.moving_mp() if to_act else None
        if mp is not None:
            g[_G_MP] = mp / 6.0
        g[_G_REFUGEES_LEFT] = state.refugees_left() / 6.0
        if b is not None:
            g[_G_BATTLE] = 1.0
            g[_G_BATTLE_AIR] = float(bool(b.get("air")))
            g[_G_BATTLE_VIEWER_ATTACKS] = float(b["attacker"] == viewer)
            if "att_cf" in b:
                g[_G_BATTLE_CF] = b["att_cf"] / 20.0
                g[_G_BATTLE_CF + 1] = b["def_cf"] / 20.0
                g[_G_BATTLE_DIFFERENTIAL] = b["differential"] / 10.0
                g[_G_BATTLE_COLUMN + min(N_COLUMNS - 1, int(b["column"]))] = 1.0
                g[_G_BATTLE_SHIFT] = sum(b["shifts"].values()) / 4.0
            g[_G_BATTLE_SUPPORT] = b.get("att_support", 0) / 10.0
            g[_G_BATTLE_SUPPORT + 1] = b.get("def_support", 0) / 10.0
            g[_G_BATTLE_OOS] = float(bool(b.get("att_oos")))
            g[_G_BATTLE_OOS + 1] = float(bool(b.get("def_oos")))
        last_result = state.last_battle_result()
        if last_result in CRT_RESULTS:
            g[_G_LAST_RESULT + CRT_RESULTS.index(last_result)] = 1.0
        if to_act and legal is not None:
            g[_G_LEGAL_COUNT] = len(legal) / 100.0
        g[_G_STEP_FRACTION] = min(1.0, len(state.history) / 4000.0)
        g[_G_FRENCH_CITIES] = french_cities
        gv = np.array(g, dtype=np.float32)
        # np.clip's Python wrapper costs more than the two ufuncs it calls: max then min, as clip does
        np.maximum(gv, GLOBAL_LOW, out=gv)
        np.minimum(gv, GLOBAL_HIGH, out=gv)
        return gv

    def _sync(self, state: State) -> _Shared:
        """The viewer-independent unit and stack data of ``state`` (cached; see the comment above)."""
        lists: list[list[Any]] = [
            state.loc,
            state.status,
            state.steps,
            state.moved,
            state.attacked,
            state.no_attack,
            state.immobile,
            state.must_leave,
            state.entry_ready,
        ]
        seen = self._lists
        rows = 0  # bit i: list i changed
        if lists != seen:  # one comparison in C for the usual case, nothing changed
            arr = self._arr.copy()  # not in place: the last _Shared keeps views of the old buffer
            for i, lst in enumerate(lists):
                if seen[i] != lst:
                    arr[i] = lst
                    seen[i] = list(lst)
                    rows |= 1 << i
            self._arr = arr
        stacks = state.stacks
        stacks_changed = stacks != self._stacks
        if stacks_changed:
            # (a comprehension copies the lists in half the time of dict(zip(stacks, map(list, ...))))
            self._stacks = {h: st[:] for h, st in stacks.items()}
        if rows or stacks_changed or self._shared is None:
            self._shared = self._derive_shared(rows, stacks_changed)
        return self._shared

    def _derive_shared(self, rows: int = _ROWS_ALL, stacks_changed: bool = True) -> _Shared:
        """The shared data of ``self._arr`` and ``self._stacks``, of which ``rows`` (bits of the lists, as
        in ``_sync``) and the stacks (``stacks_changed``) changed since the last derive.

        Most decisions move or mark a unit and leave status, steps and entry_ready alone: then what
        depends only on those is taken over from the last _Shared (whose arrays are never written once
        published; ``dyn`` and ``w`` are copied before a partial update).
        """
        prev = self._shared
        sh = _Shared()
        self._version += 1
        sh.version = self._version
        arr = self._arr  # never written in place (see _sync): the arrays below may be views of it
        U = self.n_units
        sh.arr = arr
        sh.loc = loc = arr[0]
        sh.status = status = arr[1]
        if prev is None or rows & _ROWS_STATUS:
            rows, stacks_changed = _ROWS_ALL, True  # everything depends on the status (on the map?)
            on = status == ON_MAP
            in_reserve = status == RESERVE
            alive = on | in_reserve
            full = arr[2] >= self.max_steps
            reduced = on > full  # on and not at full strength
            cf = np.where(full, self.cf_full, self.cf_reduced)
            cf *= alive  # dead and evacuated units: 0
            sh.on, sh.cf = on, cf
            # unit-table columns [cf .. immobile] with full information (unit-major, as in the table);
            # zero off the map except cf, so a view only zeroes the rows of the units it cannot see
            dyn = np.empty((U, _N_FULL), dtype=np.float32)
            dyn[:, 0] = cf * (1.0 / MAX_CF)
            dyn[:, 1] = reduced
            # plane values per unit (see _W_CF): own planes and enemy tops
            w = self.w_template.copy()
            w[:, _W_CF] = cf
            w[:, _W_REDUCED] = reduced
            sh.status_onehot = self.status_eye[status]
            # supply groups with a unit on the map, per viewer (see _supplied)
            sh.present = (
                (bool((on & self.french).any()), False),
                (bool((on & self._german_east).any()), bool((on & self._german_west).any())),
            )
            # rule 4.1, R21: the game ends when no Anglo-French ground unit is on the map or in reserve
            sh.french_left = int(np.count_nonzero(alive & self.french))
            sh.in_reserve_ready = ready = (arr[8] != 0) & in_reserve
            # globals: unit counts by (category, status): French, German main, 18, 4, K
            inv = self.category_inv
            sc = (np.bincount(self.category4 + status, minlength=20).reshape(5, 4) * inv[:, None]).tolist()
            waiting = (np.bincount(self.wait_category[ready], minlength=5) * inv).tolist()
            ug = [*sc[0][1:4], *sc[1][1:3]]
            for c in (2, 3, 4):
                row = sc[c]
                ug += [row[ON_MAP], row[RESERVE], row[DEAD], waiting[c]]
            sh.unit_globals = ug
        else:
            on = sh.on = prev.on
            sh.cf = prev.cf
            sh.status_onehot = prev.status_onehot
            sh.present = prev.present
            sh.french_left = prev.french_left
            sh.in_reserve_ready = prev.in_reserve_ready
            sh.unit_globals = prev.unit_globals
            dyn = prev.dyn.copy()
            w = prev.w
        if rows & _ROW_LOC:
            sh.cells = _FLAT_S[loc]
            sh.hex_on = hex_on = np.where(on, loc, hg.N_HEX)  # the hex of a unit on the map, else N_HEX
            dyn[:, 2:4] = _XY_S[hex_on]
        else:
            assert prev is not None  # (no previous derive: every row counts as changed)
            sh.cells, sh.hex_on = prev.cells, prev.hex_on
        if stacks_changed:
            # stacks (rule 3.6, R3): hex, top unit (the last placed), size, German?
            stacks = self._stacks
            assert stacks is not None  # set by _sync
            n = len(stacks)
            vals = list(stacks.values())
            hexes = np.fromiter(stacks, dtype=np.int64, count=n)
            tops = np.fromiter(map(_LAST, vals), dtype=np.int64, count=n)
            is_top = np.zeros(U, dtype=bool)
            is_top[tops] = True
            sh.hexes, sh.tops, sh.is_top = hexes, tops, is_top
            sh.stack_german = self.german[tops]
            sh.hideable = on > is_top  # on the map under another unit: hidden from the enemy unless revealed
            size_at = np.zeros(hg.N_HEX + 1, dtype=np.int64)
            size_at[hexes] = np.fromiter(map(len, vals), dtype=np.int64, count=n)
            sh.size_at = size_at
            dyn[:, 4] = on & is_top
        else:
            assert prev is not None
            sh.hexes, sh.tops, sh.is_top = prev.hexes, prev.tops, prev.is_top
            sh.stack_german, sh.hideable, sh.size_at = prev.stack_german, prev.hideable, prev.size_at
        if stacks_changed or rows & _ROW_LOC:
            dyn[:, 5] = np.minimum(sh.size_at[sh.hex_on], 8) * 0.125  # size_at[N_HEX] is 0
        if rows & _ROWS_FLAGS:
            flags = arr[3:8] != 0  # moved, attacked, no_attack, immobile, must_leave
            dyn[:, 6:10] = (flags[0:4] & on).T
            sh.must_leave_on = flags[4] & on
            if prev is not None and w is prev.w:
                w = w.copy()
            w[:, _W_MOVED : _W_MOVED + 4] = flags[0:4].T
            w[:, _W_MUST_LEAVE] = flags[4]
        else:
            assert prev is not None
            sh.must_leave_on = prev.must_leave_on
        sh.dyn = dyn
        sh.w = w
        return sh

    def _view(self, state: State, sh: _Shared, viewer: int, omniscient: bool) -> _View:
        """The cached planes and unit table of one (viewer, omniscient) view, brought up to date."""
        key = (viewer, omniscient)
        view = self._views.get(key)
        if view is None:
            view = self._views[key] = _View(self, viewer)
        rev = state.revealed[viewer]
        eg = state.ever_german
        limit = self.stack_limits[state.phase in (Phase.SETUP_FRENCH, Phase.SETUP_GERMAN)]  # rule 6.3, R8
        if (
            view.version != sh.version
            or view.limit != limit
            or (not omniscient and rev != view.rev)
            or (viewer == 0 and eg != view.eg)
        ):
            self._fill_view(state, sh, view, viewer, omniscient, limit)
            view.version = sh.version
            view.limit = limit
            view.rev = set(rev)
            view.eg = bytes(eg)
        # public hex planes (rule 3.7, 7.8, 10.1, R23 and the markers)
        cells = sh.cells
        done = state.attacked_hexes()
        refugees = state.refugees
        pkey = (
            bytes(state.control),
            bytes(eg),
            tuple(refugees.items()),
            done,
            int(cells[state.scare_unit]) if state.scare_unit >= 0 else -1,
            int(cells[state.replacement_unit]) if state.replacement_unit >= 0 else -1,
        )
        old = view.pkey
        if pkey != old:
            # only the parts that changed (control often changes alone); cells off the map stay 0
            view.pkey = pkey
            if old is None:
                old = (None,) * len(pkey)
            planes = view.planes
            if pkey[0] != old[0]:
                control = np.frombuffer(pkey[0], dtype=np.uint8)
                planes[_P_GERMAN_CONTROL, FLAT] = control
                view.french_cities = self.french_cities(control)
            if pkey[1] != old[1]:
                planes[_P_EVER_GERMAN, FLAT] = np.frombuffer(pkey[1], dtype=np.uint8)
            if pkey[2] != old[2]:
                planes[_P_REFUGEE : _P_REFUGEE_FLIPPED + 1] = 0
                if refugees:
                    rh = np.fromiter(refugees.keys(), dtype=np.int64, count=len(refugees))
                    rf = np.fromiter(refugees.values(), dtype=bool, count=len(refugees))
                    planes[_P_REFUGEE, FLAT[rh]] = 1
                    planes[_P_REFUGEE_FLIPPED, FLAT[rh]] = rf
            if pkey[3] != old[3]:
                planes[_P_ATTACKED_HEX] = 0
                if done:
                    planes[_P_ATTACKED_HEX, FLAT[np.asarray(done, dtype=np.int64)]] = 1
            if pkey[4] != old[4]:
                planes[_P_SCARE_HEX] = 0
                if pkey[4] >= 0:
                    planes[_P_SCARE_HEX, pkey[4]] = 1
            if pkey[5] != old[5]:
                planes[_P_REPLACEMENT_HEX] = 0
                if pkey[5] >= 0:
                    planes[_P_REPLACEMENT_HEX, pkey[5]] = 1
        return view

    def _fill_view(
        self, state: State, sh: _Shared, view: _View, viewer: int, omniscient: bool, limit: int
    ) -> None:
        """Own and enemy planes, the own stacking planes (rule 6.3, 6.5, R8, R9) and the unit table of
        one view (fog of war, rule 3.6, R3)."""
        loc, on, cf, cells = sh.loc, sh.on, sh.cf, sh.cells
        own = self._own[viewer]
        enemy = self._own[1 - viewer]
        rev_hex, rev_unit, visible = self._visibility(state, sh, viewer, omniscient)
        own_on = own & on
        supplied = self._supplied(state, viewer, loc, own_on, sh.present[viewer])
        planes = view.planes
        planes[_P_OWN0 : _P_OWN0 + _N_W_OWN] = 0
        planes[_P_STACK_FULL : _P_OVERSTACKED + 1] = 0
        # ---- own units: the sums of their plane values per cell, over compact slots (a bincount over
        # every cell would allocate and convert sixteen full rows)
        oi = own_on.nonzero()[0]
        if oi.size:
            oc = cells[oi]
            slot = self._slot
            slot[oc] = _ARANGE[: oi.size]  # units sharing a cell share one slot (whichever was written)
            sid = slot[oc]
            wv = sh.w[oi]
            wv[:, _W_SUPPLIED] = supplied[oi]
            if (sid == _ARANGE[: oi.size]).all():
                per_unit = wv  # one unit per cell (the usual stacking limit is 1): nothing to sum
            else:
                sums = np.bincount((sid[:, None] * _N_W + _W_COL).ravel(), weights=wv.ravel())
                per_unit = sums.reshape(-1, _N_W)[sid]  # the sums of each unit's cell
            planes[_P_OWN0 : _P_OWN0 + _N_W_OWN, oc] = per_unit[:, :_N_W_OWN].T
            counted = per_unit[:, _W_STACKING]
            planes[_P_STACK_FULL, oc] = counted >= limit
            planes[_P_OVERSTACKED, oc] = counted > limit
        # (the loader keeps stacking limits >= 1, so a cell without own units is never full)
        # ---- enemy stacks (rule 3.6, R3). Unchanged in most refills (the viewer moved its own units), so
        # kept unless what they are made of changed: the enemy units' loc, status, steps, moved and
        # attacked, the enemy stacks' hexes and tops, the revealed hexes
        esel = sh.stack_german if viewer == 0 else ~sh.stack_german
        et = sh.tops[esel]
        ehx = sh.hexes[esel]
        ekey = (sh.arr[:_N_ENEMY_ROWS, self._side_units[1 - viewer]].tobytes(), et.tobytes(), ehx.tobytes())
        if ekey != view.enemy_key or not (omniscient or state.revealed[viewer] == view.rev):
            view.enemy_key = ekey
            planes[_P_ENEMY_COUNT:_P_UNITS1] = 0
            ei = (enemy & on).nonzero()[0]
            ec = cells[ei]
            planes[_P_ENEMY_COUNT] = np.bincount(ec, minlength=N_CELLS + 1)
            if len(sh.tops):
                eh = FLAT[ehx]
                planes[_P_ENEMY_TOP0 : _P_ENEMY_TOP0 + _N_ENEMY_TOP, eh] = sh.w[et][:, _W_ENEMY_TOP].T
                planes[_P_ENEMY_REVEALED, eh[rev_hex[ehx]]] = 1
                rsel = rev_unit[ei]
                if rsel.any():
                    ri = ei[rsel]
                    planes[_P_ENEMY_REVEALED_CF] = np.bincount(
                        ec[rsel], weights=cf[ri], minlength=N_CELLS + 1
                    )
        # ---- unit table without the per-decision columns (own and the static ones: see _View)
        T = view.units
        T[:, _F_VISIBLE] = visible
        T[:, _F_STATUS : _F_STATUS + 4] = sh.status_onehot
        T[:, _DYN0 : _DYN0 + _N_FULL] = np.where(visible[:, None], sh.dyn, 0)
        T[:, _F_SUPPLIED] = supplied
        T[:, _F_MUST_LEAVE] = sh.must_leave_on & own
        T[:, _F_IN_RESERVE_READY] = sh.in_reserve_ready
        view.visible = visible

    def french_cities(self, control: np.ndarray) -> float:
        """The French share of the cities (rule 4.3) under ``control`` (uint8 per hex), a global."""
        french = np.count_nonzero(control[self.city_hexes] == 0)
        return int(french) / max(1, len(self.city_hexes))

    def _visibility(
        self, state: State, sh: _Shared, viewer: int, omniscient: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Fog of war (rule 3.6, R3) for ``viewer``: the hexes revealed to it (bool, ``N_HEX + 1``, the last
        entry False for units off the map), whether each unit stands in one, and whether each unit is
        visible (own, off the map, on top of its stack or revealed). The one definition, for the structured
        observation and the compact encoder."""
        rev_hex = np.zeros(hg.N_HEX + 1, dtype=bool)
        if omniscient:
            rev_hex[:-1] = True
        else:
            rev = state.revealed[viewer]
            if rev:
                rev_hex[np.fromiter(rev, dtype=np.int64, count=len(rev))] = True
        rev_unit = rev_hex[sh.loc]
        visible = rev_unit >= (sh.hideable & self._own[1 - viewer])
        return rev_hex, rev_unit, visible

    def _unit_arrays(self, state: State) -> np.ndarray:
        """``(9, U)`` int64 rows: loc, status, steps, moved, attacked, no_attack, immobile, must_leave,
        entry_ready, for ``state`` (a private buffer: derive, never keep it)."""
        self._sync(state)
        return self._arr

    def _supplied(
        self,
        state: State,
        viewer: int,
        loc: np.ndarray,
        own_on: np.ndarray,
        present: tuple[bool, bool] | None = None,
    ) -> np.ndarray:
        """Supply (rules 7.1-7.8, R10) of the viewer's units on the map, as judged by the core now.

        Fast path: one supply mask per (side, west group) from the core's cache instead of
        one ``is_supplied`` call per unit; ``tests/test_encoding.py`` checks both agree.
        ``present``: whether ``own_on`` has a unit of each supply group (French: all, -; German:
        east, west), when the caller knows (it changes with the status only).
        """
        if present is None:
            if viewer == 0:
                present = (bool(own_on.any()), False)
            else:
                present = (bool((own_on & self._east).any()), bool((own_on & self.west).any()))
        if not (present[0] or present[1]):
            return np.zeros(self.n_units, dtype=bool)
        supply_mask = getattr(state, "_supply_mask", None)
        if supply_mask is None:  # pragma: no cover - core without the cached mask
            out = np.zeros(self.n_units, dtype=bool)
            for u in np.flatnonzero(own_on).tolist():
                out[u] = state.is_supplied(u)
            return out
        m = self._mbuf  # the masks plus a 0 for loc == -1
        if viewer == 0:
            eg = state.ever_german
            if eg != self._eg_seen:
                # rule 7.8: a French unit in a city never German is supplied (city > ever_german: city, not ever)
                self._eg_seen = bytes(eg)
                self._city_supplied = self.city_u8 > np.frombuffer(self._eg_seen, dtype=np.uint8)
            traced = np.frombuffer(supply_mask(0, False), dtype=np.uint8)
            np.bitwise_or(traced, self._city_supplied, out=m[0, : hg.N_HEX])
            return (m[0][loc] != 0) & own_on
        # the German east and west groups trace to different edges (rule 7.7, 9.5): row 0 east, 1 west; a
        # mask is asked for only if a unit of the group is on the map (a stale row is never read)
        if present[0]:
            m[0, : hg.N_HEX] = np.frombuffer(supply_mask(1, False), dtype=np.uint8)
        if present[1]:
            m[1, : hg.N_HEX] = np.frombuffer(supply_mask(1, True), dtype=np.uint8)
        return (m[self._west_row, loc] != 0) & own_on

    def mask(self, state: State, legal: list[int] | None = None) -> np.ndarray:
        """int8 action mask of the current decision (all zeros at the end of the game)."""
        m = np.zeros(self.n_actions, dtype=np.int8)
        if not state.is_terminal():
            m[state.legal_actions() if legal is None else legal] = 1
        return m


T = TypeVar("T")


class PerGameCache(Generic[T]):
    """One object built per ``Game`` (an encoder and its static planes), for the last few games.

    A bounded LRU, not a WeakKeyDictionary: an encoder keeps its game alive (it reads it on every
    encode), so weak keys were never released and every env created kept ~0.4 MiB for good.
    """

    def __init__(self, build: Callable[[Game], T], size: int = 8) -> None:
        self._build = build
        self._size = size
        self._items: OrderedDict[int, tuple[Game, T]] = OrderedDict()

    def get(self, game: Game) -> T:
        hit = self._items.get(id(game))
        if hit is not None and hit[0] is game:
            self._items.move_to_end(id(game))
            return hit[1]
        item = self._build(game)
        self._items[id(game)] = (game, item)  # the game is held, so its id cannot be reused while cached
        while len(self._items) > self._size:
            self._items.popitem(last=False)
        return item


_ENCODERS: PerGameCache[ObservationEncoder] = PerGameCache(ObservationEncoder)


def encoder_for(game: Game) -> ObservationEncoder:
    """The (cached) encoder of ``game``: static planes are computed once per game (the last few games)."""
    return _ENCODERS.get(game)


def encode(state: State, viewer: int | Side, omniscient: bool = False) -> dict[str, np.ndarray]:
    """Observation arrays of ``state`` for ``viewer`` (see the module docstring)."""
    return encoder_for(state.game).encode(state, int(viewer), omniscient)


def legal_mask(state: State) -> np.ndarray:
    """int8 mask over the whole action space of the current decision's legal actions."""
    return encoder_for(state.game).mask(state)
