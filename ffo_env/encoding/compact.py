"""The compact observation (``observation_format="compact"``): a short 1-D float32 vector for stock tools.

The flat observation (:mod:`ffo_env.envs.flat`) is 113,611 floats, most of them map planes that never
change (terrain, rivers) or hold a handful of non-zero cells; an MLP's first layer on it alone holds
~7 M weights, so stock scripts (CleanRL's ``ppo.py``, SB3's ``MlpPolicy``) crawl. The compact vector keeps
what changes and what the current decision needs, in 4,490 floats for the shipped data.

It is computed from the structured observation of :mod:`ffo_env.encoding.observation` (the encoder's
own arrays, after its fog of war: rule 3.6, R2, R3), never from the core state directly, so it shows
nothing the structured observation hides. ``omniscient=True`` lifts the fog as there.

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

from ffo_env.core import hexgrid as hg
from ffo_env.core.game import Game
from ffo_env.core.scenario import MAX_CF
from ffo_env.core.state import State
from ffo_env.encoding.layout import (
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
from ffo_env.encoding.observation import FLAT, ObservationEncoder, PerGameCache, encoder_for

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

    def encode(
        self,
        state: State,
        viewer: int,
        omniscient: bool = False,
        legal: list[int] | None = None,
        out: np.ndarray | None = None,
    ) -> np.ndarray:
        """The compact vector of ``state`` for side ``viewer`` (0 French, 1 German): the structured
        observation of the encoder (its fog of war), compacted. ``legal`` may pass
        ``state.legal_actions()`` when the caller has it."""
        if legal is None and not state.is_terminal() and int(state.player) == int(viewer):
            legal = state.legal_actions()
        obs = self.encoder.encode(state, int(viewer), omniscient, legal=legal)
        return self.compact(obs, legal, out)

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
