"""The observation encoder: a France Fights On state as the tensors of :mod:`ffo_env.encoding.layout`.

``encode(state, viewer)`` returns a dict of three numpy arrays (planes, globals, units) for one viewing
side, under the fog of war of rule 3.6 (R2, R3); the layout, its conventions and every index are
specified in :mod:`ffo_env.encoding.layout`, whose names this module re-exports.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np

from ffo_env.core import hexgrid as hg
from ffo_env.core.game import Game
from ffo_env.core.mapdata import ColoredRow, Terrain
from ffo_env.core.scenario import GROUPS, MAX_CF, UNIT_TYPES, Side
from ffo_env.core.state import DEAD, ON_MAP, RESERVE, Decision, Phase, State
from ffo_env.encoding.layout import (
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
_TARGET_DECISIONS = (Decision.ATTACK_TARGET, Decision.AIR_TARGET)


class _Shared:
    """Viewer-independent data derived from a state's unit lists and stacks (see ``_sync``)."""

    __slots__ = (
        "version", "loc", "status", "flags", "on", "reduced", "cf", "cells", "hexes", "tops", "is_top",
        "stack_german", "dyn", "in_reserve_ready", "unit_globals", "size_at", "french_left",
    )  # fmt: skip


class _View:
    """Private buffers of one (viewer, omniscient) view and the keys they were built from."""

    __slots__ = (
        "version",
        "rev",
        "eg",
        "pkey",
        "dkey",
        "planes",
        "units",
        "visible",
        "french_cities",
        "counted",
        "limit",
    )

    def __init__(self, enc: ObservationEncoder) -> None:
        self.version = -1
        self.rev: set[int] | None = None
        self.eg: bytes | None = None
        self.pkey: tuple[Any, ...] | None = None
        self.dkey: tuple[Any, ...] | None = None
        self.french_cities = 0.0
        self.counted = np.zeros(N_CELLS + 1, dtype=np.int64)  # own units counted for stacking, per cell
        self.limit = 1
        self.planes = enc.template_s.copy()
        self.units = enc.unit_template.copy()
        self.visible = np.ones(enc.n_units, dtype=bool)


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
        self.group_lists = [idx.tolist() for idx in self.group_idx]
        self.city = np.append(np.asarray(md.is_city, dtype=bool), False)
        self.city_hexes = np.flatnonzero(np.asarray(md.is_city, dtype=bool))
        self.counted = ~np.array(game.unit_free_stacking, dtype=bool)  # rule 6.3, R8
        tb = sc.tables
        self.stack_limits = (tb.stack_limit, tb.setup_stack_limit)  # indexed by "setting up"
        self.unit_base = self.layout.unit_base
        self.special_base = self.layout.special_base

    # ------------------------------------------------------------------ encode
    #
    # Speed (the arrays are bit-identical to the frozen reference, tests/test_encoding_reference.py
    # and tests/test_encoding_golden.py): consecutive decisions change little, so the work is cached
    # in three layers, each keyed on the *content* it was computed from (never on object identity,
    # so clones, other games and states edited in place are safe):
    #
    # 1. shared (_sync): everything derived from the per-unit lists and the stacks, for both viewers;
    #    recomputed when one of those changed (about half of the decisions);
    # 2. per view (viewer, omniscient): the own/enemy planes, the public hex planes and the unit table
    #    without the per-decision columns, in private buffers; recomputed when the shared data, the
    #    viewer's revealed hexes or (French) ``ever_german`` changed;
    # 3. per call: a copy of the view's buffers plus the battle and decision-context entries, and the
    #    globals. Returned arrays are always fresh copies: later calls never mutate them.

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
            la = np.asarray(legal, dtype=np.int64)
            hx = la[la < self.unit_base]
            if hx.size:
                planes[_P_LEGAL_HEX, FLAT[hx]] = 1
            ctx_u = state.decision_unit()
            if ctx_u >= 0:
                c = cells[ctx_u]
                if c < N_CELLS:
                    planes[_P_CTX_UNIT, c] = 1
                if hx.size and self.counted[ctx_u] and self._own[viewer][ctx_u]:
                    # rule 6.5, R9: the unit would join a hex already full without it
                    hc = FLAT[hx]
                    full = view.counted[hc] - (hc == c) >= view.limit
                    planes[_P_DEST_OVERSTACKS, hc[full]] = 1
            if (
                viewer == 1
                and d in _TARGET_DECISIONS
                and hx.size
                and t_now < self.last_turn
                and view.french_cities > 0
            ):
                # rule 4.1, 4.3, R21: wiping out this stack ends the game with French cities counted
                ends = [h for h in hx.tolist() if state.destroying_ends_game(h)]
                if ends:
                    planes[_P_TARGET_ENDS_GAME, FLAT[np.asarray(ends, dtype=np.int64)]] = 1
            if d == Decision.MOVE_DEST:
                dests = state.move_destinations()
                if dests:
                    n = len(dests)
                    dh = FLAT[np.fromiter(dests.keys(), dtype=np.int64, count=n)]
                    rs = dests.values()
                    planes[_P_DEST_MP, dh] = np.fromiter(
                        (r.mp + 1 for r in rs), dtype=np.int64, count=n
                    ).clip(0, 255)
                    planes[_P_DEST_VP, dh] = np.fromiter((r.vp for r in rs), dtype=np.int64, count=n).clip(
                        0, 255
                    )
                if ctx_u >= 0 and sh.loc[ctx_u] >= 0 and bool(np.any(hx == sh.loc[ctx_u])):
                    planes[_P_DEST_MP, cells[ctx_u]] = 1  # staying: 0 MP
            ua = la[(la >= self.unit_base) & (la < self.special_base)] - self.unit_base

        # ---- globals (built as a Python list: ~40 scalar writes are cheaper there)
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
        g[_G_FRENCH_CITIES] = view.french_cities
        gv = np.array(g, dtype=np.float32)
        np.clip(gv, GLOBAL_LOW, GLOBAL_HIGH, out=gv)

        # ---- unit table: the view's table, then the markers, the battle and the decision context
        T = view.units.copy()
        visible = view.visible
        if state.scare_unit >= 0:
            T[state.scare_unit, _F_SCARE] = 1
        ru = state.replacement_unit
        if ru >= 0 and visible[ru]:
            T[ru, _F_REPLACEMENT] = 1
        if b is not None:
            if b["attackers"]:
                T[b["attackers"], _F_BATTLE_ATTACKER] = 1
            dd = np.asarray(b["defenders"], dtype=np.int64)
            if dd.size:
                T[dd[visible[dd]], _F_BATTLE_DEFENDER] = 1
        if ua is not None:
            if ctx_u >= 0:
                T[ctx_u, _F_CTX_UNIT] = 1
            if ua.size:
                T[ua, _F_LEGAL] = 1
        return {"planes": planes.reshape(N_PLANES, *GRID_SHAPE), "globals": gv, "units": T}

    def _sync(self, state: State) -> _Shared:
        """The viewer-independent unit and stack data of ``state`` (cached; see the comment above)."""
        lists = (
            state.loc,
            state.status,
            state.steps,
            state.moved,
            state.attacked,
            state.no_attack,
            state.immobile,
            state.must_leave,
            state.entry_ready,
        )
        seen = self._lists
        arr = self._arr
        changed = False
        for i, lst in enumerate(lists):
            if seen[i] != lst:
                arr[i] = lst
                seen[i] = list(lst)
                changed = True
        stacks = state.stacks
        if stacks != self._stacks:
            self._stacks = {h: list(st) for h, st in stacks.items()}
            changed = True
        if changed or self._shared is None:
            self._shared = self._derive_shared()
        return self._shared

    def _derive_shared(self) -> _Shared:
        sh = _Shared()
        self._version += 1
        sh.version = self._version
        arr = self._arr
        U = self.n_units
        loc = arr[0].copy()
        status = arr[1].copy()
        steps = arr[2]
        flags = arr[3:8].astype(bool)
        on = status == ON_MAP
        full = steps >= self.max_steps
        reduced = on & ~full
        cf = np.where(full, self.cf_full, self.cf_reduced)
        cf[~on & (status != RESERVE)] = 0
        sh.loc, sh.status, sh.flags, sh.on, sh.reduced, sh.cf = loc, status, flags, on, reduced, cf
        sh.cells = _FLAT_S[loc]
        # stacks (rule 3.6, R3): hex, top unit (the last placed), size, German?
        stacks = self._stacks
        n = len(stacks)
        vals = list(stacks.values())
        hexes = np.fromiter(stacks.keys(), dtype=np.int64, count=n)
        tops = np.fromiter((st[-1] for st in vals), dtype=np.int64, count=n)
        sizes = np.fromiter((len(st) for st in vals), dtype=np.int64, count=n)
        is_top = np.zeros(U, dtype=bool)
        if n:
            is_top[tops] = True
        sh.hexes, sh.tops, sh.is_top = hexes, tops, is_top
        sh.stack_german = self.german[tops] if n else np.zeros(0, dtype=bool)
        # unit-table columns [cf .. immobile] with full information; a view masks the hidden units
        dyn = np.zeros((_N_FULL, U), dtype=np.float32)
        dyn[0] = cf * (1.0 / MAX_CF)
        dyn[1] = reduced
        hx_loc = np.where(on, loc, 0)
        dyn[2] = np.where(on, _X_NORM[hx_loc], 0)
        dyn[3] = np.where(on, _Y_NORM[hx_loc], 0)
        dyn[4] = on & is_top
        size_at = np.zeros(hg.N_HEX + 1, dtype=np.int64)
        if n:
            size_at[hexes] = sizes
            dyn[5] = np.where(on, np.minimum(size_at[loc], 8), 0) * 0.125
        sh.size_at = size_at
        # rule 4.1, R21: the game ends when no Anglo-French ground unit is on the map or in reserve
        sh.french_left = int(np.count_nonzero(~self.german & (on | (status == RESERVE))))
        dyn[6:10] = flags[0:4] & on
        sh.dyn = dyn
        sh.in_reserve_ready = (arr[8] != 0) & (status == RESERVE)
        # globals: unit counts by (category, status): French, German main, 18, 4, K
        sc = (
            np.bincount(self.category * 4 + status, minlength=20).reshape(5, 4) * self.category_inv[:, None]
        ).tolist()
        ready = self._lists[8]
        st_list = self._lists[1]
        ug = [*sc[0][1:4], *sc[1][1:3]]
        for c, members in ((2, self.group_lists[0]), (3, self.group_lists[1]), (4, self.group_lists[2])):
            waiting = sum(1 for u in members if ready[u] and st_list[u] == RESERVE)
            row = sc[c]
            ug += [row[ON_MAP], row[RESERVE], row[DEAD], float(waiting * self.category_inv[c])]
        sh.unit_globals = ug
        return sh

    def _view(self, state: State, sh: _Shared, viewer: int, omniscient: bool) -> _View:
        """The cached planes and unit table of one (viewer, omniscient) view, brought up to date."""
        key = (viewer, omniscient)
        view = self._views.get(key)
        if view is None:
            view = self._views[key] = _View(self)
        rev = state.revealed[viewer]
        eg = state.ever_german
        if (
            view.version != sh.version
            or (not omniscient and rev != view.rev)
            or (viewer == 0 and eg != view.eg)
        ):
            self._fill_view(state, sh, view, viewer, omniscient)
            view.version = sh.version
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
            tuple(done) if done else (),
            int(cells[state.scare_unit]) if state.scare_unit >= 0 else -1,
            int(cells[state.replacement_unit]) if state.replacement_unit >= 0 else -1,
        )
        if pkey != view.pkey:
            view.pkey = pkey
            planes = view.planes
            planes[_P_PUBLIC0:_P_PUBLIC1] = 0
            planes[_P_GERMAN_CONTROL, FLAT] = np.frombuffer(pkey[0], dtype=np.uint8)
            planes[_P_EVER_GERMAN, FLAT] = np.frombuffer(pkey[1], dtype=np.uint8)
            if refugees:
                rh = np.fromiter(refugees.keys(), dtype=np.int64, count=len(refugees))
                rf = np.fromiter(refugees.values(), dtype=bool, count=len(refugees))
                planes[_P_REFUGEE, FLAT[rh]] = 1
                planes[_P_REFUGEE_FLIPPED, FLAT[rh]] = rf
            if done:
                planes[_P_ATTACKED_HEX, FLAT[np.asarray(done, dtype=np.int64)]] = 1
            if pkey[4] >= 0:
                planes[_P_SCARE_HEX, pkey[4]] = 1
            if pkey[5] >= 0:
                planes[_P_REPLACEMENT_HEX, pkey[5]] = 1
        limit = self.stack_limits[state.phase in (Phase.SETUP_FRENCH, Phase.SETUP_GERMAN)]  # rule 6.3, R8
        dkey = (sh.version, pkey[0], limit)
        if dkey != view.dkey:
            view.dkey = dkey
            self._fill_stacking(sh, view, viewer, pkey[0], limit)
        return view

    def _fill_stacking(self, sh: _Shared, view: _View, viewer: int, control: bytes, limit: int) -> None:
        """The own stacking planes (rule 6.3, 6.5, R8, R9) and the French share of the cities."""
        planes = view.planes
        counted = np.bincount(
            sh.cells[np.flatnonzero(self._own[viewer] & sh.on & self.counted)], minlength=N_CELLS + 1
        )
        planes[_P_STACK_FULL] = counted >= limit
        planes[_P_OVERSTACKED] = counted > limit
        view.counted = counted
        view.limit = limit
        cities = self.city_hexes[np.frombuffer(control, dtype=np.uint8)[self.city_hexes] == 0]
        view.french_cities = len(cities) / max(1, len(self.city_hexes))

    def _fill_view(self, state: State, sh: _Shared, view: _View, viewer: int, omniscient: bool) -> None:
        """Own and enemy planes and the unit table of one view (fog of war, rule 3.6, R3)."""
        loc, on, cf, reduced, flags, cells = sh.loc, sh.on, sh.cf, sh.reduced, sh.flags, sh.cells
        own = self._own[viewer]
        rev_hex = np.zeros(hg.N_HEX + 1, dtype=bool)
        if omniscient:
            rev_hex[:-1] = True
        else:
            rev = state.revealed[viewer]
            if rev:
                rev_hex[np.fromiter(rev, dtype=np.int64, count=len(rev))] = True
        rev_unit = rev_hex[loc]
        visible = own | ~on | sh.is_top | rev_unit
        own_on = own & on
        supplied = self._supplied(state, viewer, loc, own_on)
        planes = view.planes
        nb = N_CELLS + 1
        # ---- own units: one bincount for the count, class and flag planes
        oi = np.flatnonzero(own_on)
        oc = cells[oi]
        planes[_P_UNITS0:_P_UNITS1] = 0
        planes[_P_OWN_CF] = np.bincount(oc, weights=cf[oi], minlength=nb)
        # rows: count, 6 classes, reduced, moved, attacked, no_attack, immobile, supplied, must_leave
        member = np.zeros((oi.size, _N_OWN_ROWS), dtype=bool)
        member[:, 0] = True
        member[np.arange(oi.size), 1 + self.cls[oi]] = True
        member[:, 7] = reduced[oi]
        member[:, 8:12] = flags[0:4, oi].T
        member[:, 12] = supplied[oi]
        member[:, 13] = flags[4, oi]
        ridx = (_OWN_POS[None, :] * nb + oc[:, None])[member]
        planes[_OWN_ROWS] = np.bincount(ridx, minlength=_N_OWN_ROWS * nb).reshape(_N_OWN_ROWS, nb)
        # ---- enemy stacks (rule 3.6, R3)
        ei = np.flatnonzero(~own & on)
        planes[_P_ENEMY_COUNT] = np.bincount(cells[ei], minlength=nb)
        if len(sh.tops):
            esel = sh.stack_german if viewer == 0 else ~sh.stack_german
            et = sh.tops[esel]
            ehx = sh.hexes[esel]
            eh = FLAT[ehx]
            planes[_P_ENEMY_TOP_CLASS + self.cls[et], eh] = 1
            planes[_P_ENEMY_TOP_CF, eh] = cf[et]
            planes[_P_ENEMY_TOP_REDUCED, eh] = reduced[et]
            planes[_P_ENEMY_TOP_MOVED, eh] = flags[0, et]
            planes[_P_ENEMY_TOP_ATTACKED, eh] = flags[1, et]
            planes[_P_ENEMY_REVEALED, eh[rev_hex[ehx]]] = 1
            ri = ei[rev_unit[ei]]
            if ri.size:
                planes[_P_ENEMY_REVEALED_CF] = np.bincount(cells[ri], weights=cf[ri], minlength=nb)
        # ---- unit table without the per-decision columns
        T = view.units
        T[:, _F_OWN] = own
        T[:, _F_VISIBLE] = visible
        T[:, _F_STATUS : _F_STATUS + 4] = self.status_eye[sh.status]
        T[:, _DYN0 : _DYN0 + _N_FULL] = sh.dyn.T
        T[~visible, _DYN0] = 0
        T[~(visible & on), _DYN0 + 1 : _DYN0 + _N_FULL] = 0
        T[:, _F_SUPPLIED] = supplied
        T[:, _F_MUST_LEAVE] = flags[4] & own_on
        T[:, _F_SCARE : _F_SCARE + 4] = 0
        T[:, _F_IN_RESERVE_READY] = sh.in_reserve_ready
        T[:, _F_CTX_UNIT : _F_LEGAL + 1] = 0
        view.visible = visible

    def _unit_arrays(self, state: State) -> np.ndarray:
        """``(9, U)`` int64 rows: loc, status, steps, moved, attacked, no_attack, immobile, must_leave,
        entry_ready, for ``state`` (a private buffer: derive, never keep it)."""
        self._sync(state)
        return self._arr

    def _supplied(self, state: State, viewer: int, loc: np.ndarray, own_on: np.ndarray) -> np.ndarray:
        """Supply (rules 7.1-7.8, R10) of the viewer's units on the map, as judged by the core now.

        Fast path: one supply mask per (side, west group) from the core's cache instead of
        one ``is_supplied`` call per unit; ``tests/test_encoding.py`` checks both agree.
        """
        out = np.zeros(self.n_units, dtype=bool)
        if not own_on.any():
            return out
        supply_mask = getattr(state, "_supply_mask", None)
        if supply_mask is None:  # pragma: no cover - core without the cached mask
            for u in np.flatnonzero(own_on).tolist():
                out[u] = state.is_supplied(u)
            return out
        if viewer == 0:
            m = np.zeros(hg.N_HEX + 1, dtype=bool)
            m[: hg.N_HEX] = np.frombuffer(supply_mask(0, False), dtype=np.uint8)
            m[: hg.N_HEX] |= self.city[: hg.N_HEX] & (np.frombuffer(state.ever_german, dtype=np.uint8) == 0)
            return m[loc] & own_on
        for west in (False, True):
            sel = own_on & (self.west == west)
            if sel.any():
                m = np.append(np.frombuffer(supply_mask(1, west), dtype=np.uint8).astype(bool), False)
                out |= m[loc] & sel
        return out

    def mask(self, state: State, legal: list[int] | None = None) -> np.ndarray:
        """int8 action mask of the current decision (all zeros at the end of the game)."""
        m = np.zeros(self.n_actions, dtype=np.int8)
        if not state.is_terminal():
            m[state.legal_actions() if legal is None else legal] = 1
        return m


# A bounded LRU, not a WeakKeyDictionary: an encoder keeps its game alive (it reads it on every
# encode), so weak keys were never released and every env created kept ~0.4 MiB for good.
_ENCODERS: OrderedDict[int, tuple[Game, ObservationEncoder]] = OrderedDict()
_MAX_ENCODERS = 8


def encoder_for(game: Game) -> ObservationEncoder:
    """The (cached) encoder of ``game``: static planes are computed once per game (the last few games)."""
    hit = _ENCODERS.get(id(game))
    if hit is not None and hit[0] is game:
        _ENCODERS.move_to_end(id(game))
        return hit[1]
    enc = ObservationEncoder(game)
    _ENCODERS[id(game)] = (game, enc)  # the game is held, so its id cannot be reused while cached
    while len(_ENCODERS) > _MAX_ENCODERS:
        _ENCODERS.popitem(last=False)
    return enc


def encode(state: State, viewer: int | Side, omniscient: bool = False) -> dict[str, np.ndarray]:
    """Observation arrays of ``state`` for ``viewer`` (see the module docstring)."""
    return encoder_for(state.game).encode(state, int(viewer), omniscient)


def legal_mask(state: State) -> np.ndarray:
    """int8 mask over the whole action space of the current decision's legal actions."""
    return encoder_for(state.game).mask(state)
