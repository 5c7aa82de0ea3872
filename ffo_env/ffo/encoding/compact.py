"""The compact observation (``observation_format="compact"``): a short 1-D float32 vector for stock tools.

The flat observation (:mod:`ffo_env.ffo.encoding.flat`) is 113,611 floats, most of them map planes that never
change (terrain, rivers) or hold a handful of non-zero cells; an MLP's first layer on it alone holds
~7 M weights, so stock scripts (CleanRL's ``ppo.py``, SB3's ``MlpPolicy``) crawl. The compact vector keeps
what changes and what the current decision needs, in 4,490 floats for the shipped data.

It is defined as the structured observation of :mod:`ffo_env.ffo.encoding.observation` (after its fog of war:
rule 3.6, R2, R3) compacted (:meth:`CompactEncoder.encode_reference`), so it shows nothing the structured
observation hides. :meth:`CompactEncoder.encode` builds the same bytes without the 110,760-entry structured
observation, from the structured encoder's own per-unit data, fog of war, supply and globals (the same
code; ``tests/test_compact_direct.py`` compares the two). ``omniscient=True`` lifts the fog as there.

Blocks, in order (``tests/test_compact_observation.py`` checks these tables against the code: names,
offsets, sizes; the offsets and sizes are those of the shipped data, where ``U`` = 62 units, ``L`` =
1,071 land hexes, ``C`` = 20 cities and ``K`` = 78 coarse cells; other data may differ)

Blocks ``(4490,)`` float32
--------------------------
=======  ==============  =====  ================================================================
offset   block           size   what it holds
=======  ==============  =====  ================================================================
0        globals         123    the encoder's globals, unchanged (turn, phase, decision one-hot,
                                VP, markers, battle, dice, ...: ``GLOBAL_GROUPS`` of layout.py)
123      units           1488   ``U x 24``: per unit (row ``u`` is unit ``u`` of the scenario), the
                                encoder's unit columns that change during a game (table below)
1611     legal_hex       1071   land hex ``k`` (``land_hexes[k]``, which is also its action id) is a
                                legal action now (decider only)
2682     hex_flag        1071   that legal hex over-stacks the decision's unit (``dest_overstacks``,
                                rule 6.5, R9) or is a German target holding every French unit left
                                (``target_ends_game``, rule 4.1, R21); never both in one decision
3753     legal_special   15     special action ``special_base + k`` is legal now (PASS, MOVE_FIRST,
                                FIGHT_FIRST, STUKA, NAVAL_FRENCH, NAVAL_BRITISH, LOWER_0..8)
3768     city_german     20     city ``k`` (``city_hexes[k]``, hex order) is German-controlled (4.3)
3788     board           702    ``9 x K``: the board pooled into cells of 4 x 4 hexes (columns
                                ``4i+1 .. 4i+4``, rows ``4j .. 4j+3``), only cells with land, plane
                                by plane (table below)
=======  ==============  =====  ================================================================

The unit columns left out (``own``, ``german``, ``type``, ``group``, ``cf_full``, ``cf_reduced``,
``two_step``, ``free_stacking``) never change for a given row and viewer, so they carry nothing an MLP
could use. The decision's unit is the unit row with ``ctx_unit`` = 1 and the legal unit actions are
the rows with ``legal`` = 1, so ``legal_hex``, ``units[:, legal]`` and ``legal_special`` together are
the action mask. Left out of the decision context: ``dest_mp`` (the MP spent to reach each destination:
mostly a matter of distance; the moving unit's MP are in the globals) and ``dest_vp`` (refugee VP lost on the way: 46 of the 1,741 destination
choices of six random games had one); the structured observation has both.

Unit columns ``(24,)``
----------------------
=======  ==================  ==========================================================
index    name                meaning (the encoder's unit feature of the same name)
=======  ==================  ==========================================================
0        visible             identity, hex and strength are known to the viewer
1-4      status[4]           reserve, on map, dead, evacuated (public)
5        cf                  current CF / 16 (if visible)
6        reduced             the unit is reduced (if visible)
7        x                   column / 60 (if visible and on map)
8        y                   (row + 1) / 26 (if visible and on map)
9        on_top              top unit of its stack (if visible)
10       stack_size          units in its hex / 8 (if visible)
11       moved               moved this movement phase (if visible)
12       attacked            attacked this combat phase (if visible)
13       no_attack           may not attack this turn (if visible)
14       immobile            immobile (if visible)
15       supplied            in supply now (own units only)
16       must_leave          must leave the green/red rows (own units only)
17       scare               carries the panzer scare marker (public)
18       replacement         carries the replacement marker (if visible)
19       battle_attacker     attacks in the current battle
20       battle_defender     defends in the current battle (if visible)
21       in_reserve_ready    German reinforcement rolled in, waiting for a hex
22       ctx_unit            the unit the decision is about (decider only)
23       legal               its unit action is legal now (decider only)
=======  ==================  ==========================================================

Board planes ``(9,)``, each ``K`` cells
---------------------------------------
=======  ==================  =====  ==================================================================
index    name                scale  per coarse cell (from the encoder's plane of the same meaning)
=======  ==================  =====  ==================================================================
0        german_control      share  share of its land hexes controlled by the German (rule 3.7)
1        ever_german         share  share of its land hexes a German unit has entered (7.8, R20)
2        refugee             1      refugee markers in it (rule 10.1)
3        refugee_flipped     1      refugee markers overrun this phase (rule 10.4)
4        attacked_hex        1      hexes already attacked this combat phase (R23)
5        own_units           8      own units in it / 8
6        own_cf              32     their summed current CF / 32
7        enemy_units         8      enemy units in it / 8 (stack heights are public, rule 3.6)
8        enemy_cf            32     CF of the enemy the viewer sees / 32: the top unit's, or the
                                    whole stack's once revealed (R3): ``max(enemy_top_cf,
                                    enemy_revealed_cf)`` per hex
=======  ==================  =====  ==================================================================

:func:`describe` names the feature at any offset (``describe(layout, 1611)`` -> ``"legal_hex: hex 1419
(action 350)"``, the first land hex); :meth:`CompactLayout.unflatten` splits a vector into its blocks. Bounds (the env's
``Box``): globals in [-4, 4] as the encoder's, the rest in [0, 1] except the board's counts (up to the
cell's land hexes for markers, ``U / 8`` for units, ``U * 16 / 32`` for CF).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.game import Game
from ffo_env.ffo.core.scenario import MAX_CF
from ffo_env.ffo.core.state import Decision, Phase, State
from ffo_env.ffo.encoding.layout import (
    GLOBAL_GROUPS,
    GLOBAL_HIGH,
    GLOBAL_INDEX,
    GLOBAL_LOW,
    N_CELLS,
    N_GLOBALS,
    N_ROWS,
    N_UNIT_FEATURES,
    PLANE_INDEX,
    UNIT_FEATURE_INDEX,
    UNIT_GROUPS,
    block_at,
    expand_names,
)
from ffo_env.ffo.encoding.observation import FLAT, ObservationEncoder, PerGameCache, encoder_for, mark_units
from ffo_env.ffo.encoding.observation import _Shared as Shared

__all__ = [
    "BLOCKS",
    "BOARD_PLANES",
    "POOL",
    "UNIT_COLUMNS",
    "CompactEncoder",
    "CompactLayout",
    "compact_encoder_for",
    "describe",
]

BLOCKS = ("globals", "units", "legal_hex", "hex_flag", "legal_special", "city_german", "board")
POOL = 4  # hexes per side of a coarse board cell
_N_BX = -(-hg.N_COLS // POOL)  # coarse columns and rows of the full coarse grid
_N_BY = -(-N_ROWS // POOL)
assert _N_BX * POOL == hg.N_COLS  # whole blocks of columns (the pooling reshapes them)

# unit feature groups of layout.UNIT_GROUPS kept, in the encoder's order (the rest are constant per row)
UNIT_COLUMNS: tuple[str, ...] = (
    "visible", "status", "cf", "reduced", "x", "y", "on_top", "stack_size", "moved", "attacked",
    "no_attack", "immobile", "supplied", "must_leave", "scare", "replacement", "battle_attacker",
    "battle_defender", "in_reserve_ready", "ctx_unit", "legal",
)  # fmt: skip
_UNIT_SIZE = {g[0]: g[1] for g in UNIT_GROUPS}
_UNIT_COLS = np.array(
    [UNIT_FEATURE_INDEX[n] + k for n in UNIT_COLUMNS for k in range(_UNIT_SIZE[n])], dtype=np.int64
)
N_UNIT_COLUMNS = len(_UNIT_COLS)
_UNIT_NAMES = [n if _UNIT_SIZE[n] == 1 else f"{n}[{k}]" for n in UNIT_COLUMNS for k in range(_UNIT_SIZE[n])]

# (name, scale, meaning): scale "share" divides by the cell's land hexes, a number divides the sum
BOARD_PLANES: tuple[tuple[str, str, str], ...] = (
    ("german_control", "share", "share of land hexes German-controlled"),
    ("ever_german", "share", "share of land hexes ever entered by a German unit"),
    ("refugee", "1", "refugee markers"),
    ("refugee_flipped", "1", "refugee markers overrun this phase"),
    ("attacked_hex", "1", "hexes attacked this combat phase"),
    ("own_units", "8", "own units / 8"),
    ("own_cf", "32", "own CF / 32"),
    ("enemy_units", "8", "enemy units / 8"),
    ("enemy_cf", "32", "visible enemy CF / 32"),
)
N_BOARD_PLANES = len(BOARD_PLANES)
# encoder planes read for the board, in this order; enemy_cf is made of the last two
_BOARD_SRC = np.array(
    [
        PLANE_INDEX[n]
        for n in (
            "german_control", "ever_german", "refugee", "refugee_flipped", "attacked_hex", "own_count",
            "own_cf", "enemy_count", "enemy_top_cf", "enemy_revealed_cf",
        )
    ],
    dtype=np.int64,
)  # fmt: skip
_P_LEGAL_HEX = PLANE_INDEX["legal_hex"]
_P_DEST_OVERSTACKS = PLANE_INDEX["dest_overstacks"]
_P_TARGET_ENDS_GAME = PLANE_INDEX["target_ends_game"]
_P_GERMAN_CONTROL = PLANE_INDEX["german_control"]
_G_TO_ACT = GLOBAL_INDEX["to_act"]
_TARGET_DECISIONS = (Decision.ATTACK_TARGET, Decision.AIR_TARGET)
# columns of the compact unit table (UNIT_COLUMNS expanded) and board planes, for the direct path
_C = {n: _UNIT_NAMES.index(n if _UNIT_SIZE[n] == 1 else f"{n}[0]") for n in UNIT_COLUMNS}
_C_VISIBLE, _C_STATUS, _C_CF, _C_SUPPLIED = _C["visible"], _C["status"], _C["cf"], _C["supplied"]
_C_MUST_LEAVE, _C_SCARE, _C_REPLACEMENT = _C["must_leave"], _C["scare"], _C["replacement"]
_C_BATTLE_ATTACKER, _C_BATTLE_DEFENDER = _C["battle_attacker"], _C["battle_defender"]
_C_IN_RESERVE_READY, _C_CTX_UNIT, _C_LEGAL = _C["in_reserve_ready"], _C["ctx_unit"], _C["legal"]
_N_FULL = _C_SUPPLIED - _C_CF  # cf .. immobile: the encoder's full-information columns, masked by visibility
assert (_C_VISIBLE, _C_STATUS, _C_CF) == (0, 1, 5) and _C_SUPPLIED + 1 == _C_MUST_LEAVE == _C_SCARE - 1
assert _C_LEGAL == N_UNIT_COLUMNS - 1 and list(_UNIT_COLS[_C_CF:]) == list(
    range(UNIT_FEATURE_INDEX["cf"], N_UNIT_FEATURES)
)  # the dynamic columns are the encoder's, contiguous and in its order
_B = {name: p for p, (name, _s, _m) in enumerate(BOARD_PLANES)}
_B_REFUGEE, _B_REFUGEE_FLIPPED, _B_ATTACKED_HEX = _B["refugee"], _B["refugee_flipped"], _B["attacked_hex"]
_B_OWN_UNITS, _B_OWN_CF, _B_ENEMY_UNITS, _B_ENEMY_CF = (
    _B["own_units"], _B["own_cf"], _B["enemy_units"], _B["enemy_cf"],
)  # fmt: skip
assert (_B["german_control"], _B["ever_german"]) == (0, 1)


@dataclass(frozen=True)
class CompactLayout:
    """Where each block sits in the compact vector of one game, and the bounds of every entry."""

    n_units: int
    land_hexes: np.ndarray  # hex index of land hex k (legal_hex[k], hex_flag[k]); also its action id
    city_hexes: np.ndarray  # hex index of city k
    cell_origin: np.ndarray  # (K, 2): first column (1-based) and first row of coarse cell k
    cell_land: np.ndarray  # (K,): land hexes in coarse cell k
    n_specials: int
    shapes: dict[str, tuple[int, ...]]
    offsets: dict[str, int]
    size: int
    low: np.ndarray
    high: np.ndarray

    def unflatten(self, vec: np.ndarray) -> dict[str, np.ndarray]:
        """The blocks of a compact vector, each in its shape (views of ``vec``)."""
        vec = np.asarray(vec)
        if vec.shape != (self.size,):
            raise ValueError(f"a compact observation has shape ({self.size},), got {vec.shape}")
        return {
            name: vec[self.offsets[name] : self.offsets[name] + int(np.prod(self.shapes[name]))].reshape(
                self.shapes[name]
            )
            for name in BLOCKS
        }

    def block_of(self, offset: int) -> tuple[str, tuple[int, ...]]:
        """The block holding ``offset`` and the index within that block's shape."""
        return block_at(BLOCKS, self.offsets, self.shapes, self.size, offset)

    def describe(self, offset: int) -> str:
        """What the compact vector holds at ``offset``, in words."""
        return describe(self, offset)


_GLOBAL_NAMES = expand_names(GLOBAL_GROUPS)
_SPECIAL_NAMES = ("PASS", "MOVE_FIRST", "FIGHT_FIRST", "STUKA", "NAVAL_FRENCH", "NAVAL_BRITISH")


def describe(layout: CompactLayout, offset: int) -> str:
    """What the compact vector holds at ``offset`` (``"units: row 3, cf"``, ``"board: own_units @ columns
    9-12 rows 4-7"``, ...), with the names of the encoding's spec."""
    block, idx = layout.block_of(offset)
    if block == "globals":
        return f"globals: {_GLOBAL_NAMES[idx[0]]}"
    if block == "units":
        return f"units: row {idx[0]}, {_UNIT_NAMES[idx[1]]}"
    if block in ("legal_hex", "hex_flag"):
        h = int(layout.land_hexes[idx[0]])
        return f"{block}: hex {hg.hex_name(h)} (action {h})"
    if block == "legal_special":
        k = idx[0]
        name = _SPECIAL_NAMES[k] if k < len(_SPECIAL_NAMES) else f"LOWER_{k - len(_SPECIAL_NAMES)}"
        return f"legal_special: {name}"
    if block == "city_german":
        return f"city_german: hex {hg.hex_name(int(layout.city_hexes[idx[0]]))}"
    p, k = idx
    c0, r0 = (int(x) for x in layout.cell_origin[k])
    c1, r1 = min(c0 + POOL - 1, hg.N_COLS), min(r0 + POOL - 1, N_ROWS - 1)
    return f"board: {BOARD_PLANES[p][0]} @ columns {c0}-{c1} rows {r0}-{r1}"


def _build_layout(game: Game) -> tuple[CompactLayout, np.ndarray]:
    """The layout of ``game`` and the coarse cell (index in the layout) of each land hex."""
    n_units = len(game.scenario.units)
    land_hexes = np.flatnonzero(np.asarray(game.tables.land, dtype=bool))
    city_hexes = np.flatnonzero(np.asarray(game.scenario.map.is_city, dtype=bool))
    n_specials = game.num_distinct_actions - game.layout.special_base
    bx = (hg.HEX_X[land_hexes].astype(np.int64) - 1) // POOL
    by = hg.HEX_Y[land_hexes].astype(np.int64) // POOL
    cells, cell_of = np.unique(bx * _N_BY + by, return_inverse=True)  # coarse cells with land, in order
    n_cells = len(cells)
    cell_land = np.bincount(cell_of, minlength=n_cells).astype(np.float32)
    cell_origin = np.stack([(cells // _N_BY) * POOL + 1, (cells % _N_BY) * POOL], axis=1)
    shapes: dict[str, tuple[int, ...]] = {
        "globals": (N_GLOBALS,),
        "units": (n_units, N_UNIT_COLUMNS),
        "legal_hex": (len(land_hexes),),
        "hex_flag": (len(land_hexes),),
        "legal_special": (n_specials,),
        "city_german": (len(city_hexes),),
        "board": (N_BOARD_PLANES, n_cells),
    }
    offsets, k = {}, 0
    for name in BLOCKS:
        offsets[name] = k
        k += int(np.prod(shapes[name]))
    low = np.zeros(k, dtype=np.float32)
    high = np.ones(k, dtype=np.float32)
    low[:N_GLOBALS] = GLOBAL_LOW
    high[:N_GLOBALS] = GLOBAL_HIGH
    board_high = np.empty((N_BOARD_PLANES, n_cells), dtype=np.float32)
    for p, (name, scale, _m) in enumerate(BOARD_PLANES):
        if scale == "share":
            board_high[p] = 1.0
        elif name.endswith("_units"):
            board_high[p] = n_units / float(scale)
        elif name.endswith("_cf"):
            board_high[p] = n_units * MAX_CF / float(scale)  # CFs of distinct units, each at most MAX_CF
        else:
            board_high[p] = cell_land  # markers: at most one per hex
    ob = offsets["board"]
    high[ob:] = board_high.ravel()
    layout = CompactLayout(
        n_units=n_units,
        land_hexes=land_hexes,
        city_hexes=city_hexes,
        cell_origin=cell_origin,
        cell_land=cell_land,
        n_specials=n_specials,
        shapes=shapes,
        offsets=offsets,
        size=k,
        low=low,
        high=high,
    )
    for a in (land_hexes, city_hexes, cell_origin, cell_land, low, high):
        a.setflags(write=False)
    return layout, cell_of


class CompactEncoder:
    """The compact vector of a state for one viewer (use :func:`compact_encoder_for`, cached per game)."""

    # Speed: the work is one gather from the encoder's planes (every plane entry the vector reads, in the
    # order it needs them), a few slice writes, and one np.add.reduceat that pools the board: the board's
    # entries are gathered plane by plane, coarse cell by coarse cell, so each pooled value is the sum of
    # one contiguous run. numpy's per-call overhead dominates on arrays this small, so fewer calls win: axis
    # reductions over a padded grid, strided adds and a BLAS product with a pooling matrix were each slower.

    def __init__(self, game: Game) -> None:
        self.game = game
        self.encoder: ObservationEncoder = encoder_for(game)
        self.layout, cell_of = _build_layout(game)
        lay = self.layout
        n_land = len(lay.land_hexes)
        land_cells = FLAT[lay.land_hexes]
        order = np.argsort(cell_of, kind="stable")  # land hexes grouped by coarse cell
        board_src = (_BOARD_SRC[:, None] * N_CELLS + land_cells[order][None, :]).ravel()
        self._idx = np.concatenate(
            [
                _P_LEGAL_HEX * N_CELLS + land_cells,
                _P_DEST_OVERSTACKS * N_CELLS + land_cells,
                _P_TARGET_ENDS_GAME * N_CELLS + land_cells,
                _P_GERMAN_CONTROL * N_CELLS + FLAT[lay.city_hexes],
                board_src,
            ]
        )
        self._n_land = n_land
        self._n_city = len(lay.city_hexes)
        self._board0 = 3 * n_land + self._n_city  # where the board's entries start in the gather
        # start of each (plane, coarse cell) run in the board's part of the gather
        runs = np.searchsorted(cell_of[order], np.arange(len(lay.cell_land)))
        self._starts = (np.arange(N_BOARD_PLANES)[:, None] * n_land + runs[None, :]).ravel()
        # each plane's scale: 1 / the cell's land hexes for shares, 1 / the number for sums
        factor = np.empty((N_BOARD_PLANES, len(lay.cell_land)), dtype=np.float32)
        for p, (_name, scale, _m) in enumerate(BOARD_PLANES):
            factor[p] = 1.0 / lay.cell_land if scale == "share" else 1.0 / float(scale)
        self._factor = factor.ravel()
        self._special_base = game.layout.special_base
        o = lay.offsets
        self._o = tuple(o[n] for n in BLOCKS)
        # the unit table's kept columns, row by row, as indices into the flattened (units, features) table
        self._unit_idx = (np.arange(lay.n_units)[:, None] * N_UNIT_FEATURES + _UNIT_COLS[None, :]).ravel()
        # ---- the direct path (encode): per-unit and per-hex lookups into the compact blocks
        n_cells = len(lay.cell_land)
        self._k1 = k1 = n_cells + 1  # coarse cells plus one overflow column (off the map, not land)
        cellk = np.full(hg.N_HEX + 1, n_cells, dtype=np.int64)  # hex -> coarse cell; index -1 (off map) too
        cellk[lay.land_hexes] = cell_of
        self._cellk = cellk
        land_pos = np.full(hg.N_HEX + 1, n_land, dtype=np.int64)  # hex -> land index (n_land: not land)
        land_pos[lay.land_hexes] = np.arange(n_land)
        self._land_pos = land_pos
        # the land hexes' coarse cells for the control planes (one weighted bincount each)
        self._land_cells = cell_of.astype(np.int64)
        enc = self.encoder
        # per viewer, the board rows each unit adds to (its count: own_units or enemy_units; own_cf; enemy_cf),
        # as offsets into the (plane, coarse cell) bincount
        self._unit_rows = tuple(
            np.stack(
                [
                    np.where(enc._own[v], _B_OWN_UNITS, _B_ENEMY_UNITS),
                    np.full(lay.n_units, _B_OWN_CF),
                    np.full(lay.n_units, _B_ENEMY_CF),
                ]
            ).astype(np.int64)
            * k1
            for v in (0, 1)
        )
        self._unit_w = np.ones((3, lay.n_units))  # their weights: 1, own CF, enemy top CF (scratch)
        self._n_pooled = N_BOARD_PLANES * k1
        self._control_key: bytes | None = None
        self._control_rows = np.zeros((2, n_cells), dtype=np.float64)  # german_control, ever_german sums
        self._city_german = np.zeros(self._n_city, dtype=np.float32)
        self._french_cities = 0.0
        self._eg_key: bytes | None = None

    def encode_reference(
        self,
        state: State,
        viewer: int,
        omniscient: bool = False,
        legal: list[int] | None = None,
        out: np.ndarray | None = None,
    ) -> np.ndarray:
        """The compact vector as the specification defines it: the structured observation of the encoder
        (its fog of war), compacted. :meth:`encode` builds the same bytes without the structured
        observation (``tests/test_compact_direct.py`` compares them); this is the reference."""
        if legal is None and not state.is_terminal() and int(state.player) == int(viewer):
            legal = state.legal_actions()
        obs = self.encoder.encode(state, int(viewer), omniscient, legal=legal)
        return self.compact(obs, legal, out)

    def encode(
        self,
        state: State,
        viewer: int,
        omniscient: bool = False,
        legal: list[int] | None = None,
        out: np.ndarray | None = None,
    ) -> np.ndarray:
        """The compact vector of ``state`` for side ``viewer`` (0 French, 1 German); ``legal`` may pass
        ``state.legal_actions()`` when the caller has it.

        Equal, byte for byte, to :meth:`encode_reference` (the structured observation compacted), built
        straight from the encoder's per-unit data (``_sync``: the state's unit lists and stacks), its fog
        of war (``_visibility``, rule 3.6, R3), its supply (``_supplied``) and its globals (``_globals``):
        the same code the structured observation runs, without its 110,760 plane entries. The pooled
        board is summed per unit and per marker into the coarse cells (integer sums, exact in float32,
        so the order of summation does not matter)."""
        viewer = int(viewer)
        enc = self.encoder
        terminal = state.is_terminal()
        to_act = (not terminal) and int(state.player) == viewer
        if to_act and legal is None:
            legal = state.legal_actions()
        if out is None:
            out = np.empty(self.layout.size, dtype=np.float32)
        og, ou, ol, of, os_, oc, ob = self._o
        sh = enc._sync(state)
        _rev_hex, rev_unit, visible = enc._visibility(state, sh, viewer, bool(omniscient))
        own = enc._own[viewer]
        on = sh.on
        own_on = own & on

        # ---- public hex state: control (rule 3.7, 4.3) and ever_german (7.8), summed per coarse cell, kept
        # while unchanged (a new game starts from the same control)
        control = state.control
        if control != self._control_key:
            self._control_key = bytes(control)
            c8 = np.frombuffer(self._control_key, dtype=np.uint8)
            self._control_rows[0] = np.bincount(
                self._land_cells, weights=c8[self.layout.land_hexes], minlength=self._k1 - 1
            )
            self._city_german[:] = c8[self.layout.city_hexes]
            self._french_cities = enc.french_cities(c8)
        eg = state.ever_german
        if eg != self._eg_key:
            self._eg_key = bytes(eg)
            e8 = np.frombuffer(self._eg_key, dtype=np.uint8)
            self._control_rows[1] = np.bincount(
                self._land_cells, weights=e8[self.layout.land_hexes], minlength=self._k1 - 1
            )

        out[og:ou] = enc._globals(state, sh, viewer, to_act, terminal, legal, self._french_cities)
        out[oc:ob] = self._city_german

        # ---- unit table (the columns of UNIT_COLUMNS)
        U = self.layout.n_units
        T = out[ou:ol].reshape(U, N_UNIT_COLUMNS)
        T[:, _C_VISIBLE] = visible
        T[:, _C_STATUS : _C_STATUS + 4] = sh.status_onehot
        # full-information columns of the units the viewer sees (all >= 0: a product with 0 is +0.0)
        np.multiply(sh.dyn, visible[:, None], out=T[:, _C_CF : _C_CF + _N_FULL])
        supplied = enc._supplied(state, viewer, sh.loc, own_on, sh.present[viewer])
        T[:, _C_SUPPLIED] = supplied
        T[:, _C_MUST_LEAVE] = sh.must_leave_on & own
        T[:, _C_SCARE:] = 0.0
        T[:, _C_IN_RESERVE_READY] = sh.in_reserve_ready
        mark_units(T, state, visible, (_C_SCARE, _C_REPLACEMENT, _C_BATTLE_ATTACKER, _C_BATTLE_DEFENDER))

        # ---- decision: legal hexes, specials and unit actions, the unit, the hex flags (decider only)
        lh = out[ol:of]
        lh[:] = 0.0
        flag = out[of:os_]
        flag[:] = 0.0
        specials = out[os_:oc]
        specials[:] = 0.0
        if to_act and legal:
            self._decision(state, sh, viewer, legal, T, lh, flag, specials, own_on)

        # ---- board: every pooled plane but control as one weighted bincount over (plane, coarse cell): per
        # unit its count (own_units or enemy_units), its CF if own (own_cf) and its CF if it tops an enemy
        # stack (enemy_cf: the top unit is seen, rule 3.6); zero weights add nothing, units off the map
        # fall in the overflow column
        k1 = self._k1
        cellk = self._cellk
        cf = sh.cf
        ucell = cellk[sh.loc]
        idx = self._unit_rows[viewer] + ucell
        w = self._unit_w  # row 0 stays 1
        np.multiply(cf, own, out=w[1])
        rev_enemy = (rev_unit & (on > own)) if (omniscient or state.revealed[viewer]) else None
        if rev_enemy is None or not rev_enemy.any():
            np.multiply(cf, sh.is_top & enc._own[1 - viewer], out=w[2])
            idx_l, wts_l = [idx.reshape(-1)], [w.reshape(-1)]
        else:
            # some enemy units stand in revealed hexes: per hex the top unit's CF or the whole revealed
            # stack's (R3), the larger (as the structured observation's two planes)
            w[2] = 0.0
            esel = sh.stack_german if viewer == 0 else ~sh.stack_german
            et, ehx = sh.tops[esel], sh.hexes[esel]
            val = np.zeros(hg.N_HEX + 1, dtype=np.float64)
            val[ehx] = cf[et]
            ri = rev_enemy.nonzero()[0]
            np.maximum(val, np.bincount(sh.loc[ri], weights=cf[ri], minlength=hg.N_HEX + 1), out=val)
            nz = val.nonzero()[0]
            idx_l = [idx.reshape(-1), _B_ENEMY_CF * k1 + cellk[nz]]
            wts_l = [w.reshape(-1), val[nz]]
        refugees = state.refugees
        if refugees:
            rc = cellk[np.fromiter(refugees.keys(), dtype=np.int64, count=len(refugees))]
            idx_l += [_B_REFUGEE * k1 + rc, _B_REFUGEE_FLIPPED * k1 + rc]
            wts_l += [np.ones(len(rc)), np.fromiter(refugees.values(), dtype=np.float64, count=len(rc))]
        done = state.attacked_hexes()
        if done:
            hexes = set(done)  # a hex can be attacked twice; the plane marks it once
            idx_l.append(_B_ATTACKED_HEX * k1 + cellk[np.fromiter(hexes, dtype=np.int64, count=len(hexes))])
            wts_l.append(np.ones(len(hexes)))
        if len(idx_l) == 1:
            pooled = np.bincount(idx_l[0], weights=wts_l[0], minlength=self._n_pooled)
        else:
            pooled = np.bincount(
                np.concatenate(idx_l), weights=np.concatenate(wts_l), minlength=self._n_pooled
            )
        pooled = pooled.reshape(N_BOARD_PLANES, k1)[:, :-1]
        pooled[0:2] = self._control_rows
        np.multiply(pooled.astype(np.float32).reshape(-1), self._factor, out=out[ob:])
        return out

    def _decision(
        self,
        state: State,
        sh: Shared,
        viewer: int,
        legal: list[int],
        T: np.ndarray,
        lh: np.ndarray,
        flag: np.ndarray,
        specials: np.ndarray,
        own_on: np.ndarray,
    ) -> None:
        """The decider's entries of :meth:`encode`, as the structured observation sets them."""
        enc = self.encoder
        la = np.asarray(legal, dtype=np.int64)
        unit_base, special_base = enc.unit_base, self._special_base
        top = max(legal)
        hx = la if top < unit_base else la[la < unit_base]
        n_land = self._n_land
        if hx.size:
            pos = self._land_pos[hx]
            lh_pos = pos[pos < n_land]
            lh[lh_pos] = 1.0
        ctx_u = state.decision_unit()
        if ctx_u >= 0:
            T[ctx_u, _C_CTX_UNIT] = 1.0
            if hx.size and enc.counted[ctx_u] and enc._own[viewer][ctx_u]:
                # rule 6.5, R9: the unit would join a hex already full without it (the own units counted for
                # stacking, rule 6.3, R8: at least the limit elsewhere, more than it where the unit stands)
                limit = enc.stack_limits[state.phase in (Phase.SETUP_FRENCH, Phase.SETUP_GERMAN)]
                cu = own_on & enc.counted
                n_hex = np.bincount(sh.loc[cu], minlength=hg.N_HEX + 1)[hx]
                n_hex -= hx == sh.loc[ctx_u]  # (loc -1 off the map matches no hex)
                fl = pos[n_hex >= limit]
                flag[fl[fl < n_land]] = 1.0
        if (
            viewer == 1
            and state.decision in _TARGET_DECISIONS
            and hx.size
            and state.turn < enc.last_turn
            and self._french_cities > 0
        ):
            # rule 4.1, 4.3, R21: wiping out this stack ends the game (the core decides, as there)
            big = hx[sh.size_at[hx] >= sh.french_left]
            ends = [h for h in big.tolist() if state.destroying_ends_game(h)]
            if ends:
                ep = self._land_pos[np.asarray(ends, dtype=np.int64)]
                flag[ep[ep < n_land]] = 1.0
        if top >= unit_base:
            ua = la[(la >= unit_base) & (la < special_base)] - unit_base
            if ua.size:
                T[ua, _C_LEGAL] = 1.0
            if top >= special_base:
                specials[la[la >= special_base] - special_base] = 1.0

    def compact(
        self, obs: dict[str, np.ndarray], legal: list[int] | None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """The compact vector of a structured observation; ``legal`` (the decider's legal actions) gives
        ``legal_special`` when the observation says its viewer decides (``globals.to_act``)."""
        if out is None:
            out = np.empty(self.layout.size, dtype=np.float32)
        og, ou, ol, of, os_, oc, ob = self._o
        g = obs["globals"]
        out[og:ou] = g
        # (one flat gather: np.take along an axis costs twice as much on this small table)
        obs["units"].reshape(-1).take(self._unit_idx, out=out[ou:ol])
        v = obs["planes"].reshape(-1).take(self._idx)  # uint8
        L = self._n_land
        out[ol:of] = v[:L]
        np.maximum(v[L : 2 * L], v[2 * L : 3 * L], out=out[of:os_])
        specials = out[os_:oc]
        specials[:] = 0.0
        if g[_G_TO_ACT] > 0 and legal:
            la = np.asarray(legal, dtype=np.int64)
            specials[la[la >= self._special_base] - self._special_base] = 1.0
        b0 = self._board0
        out[oc:ob] = v[3 * L : b0]
        # enemy CF seen: the top unit's, or the revealed stack's (which holds the top unit, so the larger)
        np.maximum(v[b0 + 8 * L : b0 + 9 * L], v[b0 + 9 * L : b0 + 10 * L], out=v[b0 + 8 * L : b0 + 9 * L])
        # (converting first and then summing in float32 is faster than reduceat's own dtype conversion)
        pooled = np.add.reduceat(v[b0 : b0 + N_BOARD_PLANES * L].astype(np.float32), self._starts)
        np.multiply(pooled, self._factor, out=out[ob:])
        return out


_ENCODERS: PerGameCache[CompactEncoder] = PerGameCache(CompactEncoder)


def compact_encoder_for(game: Game) -> CompactEncoder:
    """The (cached) compact encoder of ``game`` (the last few games, as :func:`encoder_for`)."""
    return _ENCODERS.get(game)
