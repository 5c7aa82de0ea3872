"""The candidate-slot action layout (``action_layout="slots"``, the default of ``ffo_env/German-compact-v0``,
issue 60).

The compact layout's actions are the core's: ``Discrete(1607)``, one output per hex, unit and special. A
stock MLP then learns "do not over-stack" or "take the city" once per hex, from the few games a short run
sees. The slot layout lists the decision's legal hex and unit actions in ``K`` slots (``slot_count``, default
:data:`N_SLOTS`) and
describes each slot with the same features: a feature such as "over-stacks" sits at the same place for every
candidate, and each slot's weights are trained at almost every decision (an MLP still has weights per slot;
nothing is shared by construction):

- action ``k < K``: the candidate in slot ``k``; action ``K + j``: the core's special ``special_base + j``
  (PASS / decline / stay, MOVE_FIRST, ..., LOWER_0..8), fixed outputs, so "decline the attack" is one output;
- candidates are the legal hex and unit actions, by default (``order="core"``) **in the core's action
  order** (hex index, then unit index); ``order="board"`` (:data:`SLOT_ORDERS`) sorts them by public board
  features instead (:meth:`SlotEncoder.board_order`), so that a slot's place says something a stock MLP,
  which has weights per slot, can use from its first updates; ``order="shuffled"`` draws a new random
  order at every decision (from the env's generator), so that a slot's place says nothing and the learner has
  to read each slot's features;
- more than ``K`` candidates (the German's refugee placement, rule 10.2, offers ~900 hexes): the slots hold
  ``K`` *groups* of consecutive candidates (``numpy.array_split``); choosing a group narrows the decision to
  its members (the game does not move, the reward is 0) until they fit, so every legal action stays
  reachable (at most three narrowings with the default 8 slots, one with 64; :func:`narrowing_depth`);
- masks: the filled slots and the legal specials, from ``State.legal_actions()`` (the core's legality).

Slot features (:data:`SLOT_FEATURES`, per slot, all from the core's public board: stack heights are public,
rule 3.6, R3; control, cities and the stacking limit are printed on the map): see the table in
:data:`SLOT_FEATURES`. A group's features are the mean of its members'. No feature is a projected score: the
learner still has to find out what a city or an over-stack is worth.

The observation (:data:`OBS_BLOCKS`): the compact vector's ``globals`` (123), ``city_german`` (20) and
``legal_special`` (15) blocks (:mod:`ffo_env.ffo.encoding.compact`), four board counts (:data:`EXTRA_FEATURES`)
and the ``K x F`` slot table: 330 floats for the shipped data and 8 slots (1,506 with 64), all in [-4, 4].

Why 8 slots (issue 60, ``docs/experiments/2026-11-28-german-compact-slots.md``, session 43): with 64 slots
stock ``MaskablePPO("MlpPolicy")`` lowered the French score but won 0-5 of 30 games within 60,000
decisions; with 8 it won 30/30 and 29/30 (seeds 0, 1) while the place-only controls (first, last,
uniform slot) win 0/30.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.game import Game
from ffo_env.ffo.core.phases import Decision, Phase
from ffo_env.ffo.core.scenario import Side
from ffo_env.ffo.core.state import State
from ffo_env.ffo.encoding.compact import CompactEncoder, compact_encoder_for

__all__ = [
    "EXTRA_FEATURES",
    "MAX_SLOTS",
    "MIN_SLOTS",
    "N_SLOTS",
    "SLOT_FEATURES",
    "SLOT_ORDERS",
    "SlotCandidates",
    "SlotEncoder",
    "check_slot_count",
    "narrowing_depth",
    "slot_encoder_for",
]

SLOT_ORDERS = ("core", "overstack_last", "board", "shuffled")
# the default (session 43): 8 slots, so a stock MLP learns a slot feature (over-stacks, rule 6.5) 8 times,
# not 64; a German movement decision has 34 legal destinations on average (at most ~110), two narrowings
N_SLOTS = 8
MIN_SLOTS, MAX_SLOTS = 2, 1024

# (name, meaning); every feature is in [0, 1] but d_city_delta, in [-1, 1]
SLOT_FEATURES: tuple[tuple[str, str], ...] = (
    ("filled", "the slot holds a candidate"),
    ("is_hex", "the candidate is a hex action"),
    ("is_unit", "the candidate is a unit action"),
    ("is_group", "the candidate is a group of candidates (choosing it narrows the decision)"),
    ("group_size", "members of the group / the decision's candidates"),
    ("overstacks", "hex: moving or placing the decision's unit there over-stacks it (rule 6.5, R9)"),
    ("ends_game", "hex: a German target holding every French unit left (rule 4.1, R21)"),
    ("stay", "hex: the decision's unit stands there"),
    ("city", "the hex (of the unit: its hex) is a city"),
    ("french_city", "... a city under French control (rule 4.3: French VP at the end)"),
    ("german_control", "... is German-controlled (rule 3.7)"),
    ("enemy_units", "... enemy units in it / 4 (stack heights are public, rule 3.6)"),
    ("own_units", "... own units counted for stacking in it / 4 (rule 6.3, R8)"),
    ("enemy_adjacent", "... enemy units in adjacent hexes / 6"),
    ("d_city", "... hex distance to the nearest French-held city / 20 (capped at 1)"),
    ("d_city_delta", "hex: that distance minus the decision unit's / 5, clipped to [-1, 1]"),
    ("x", "... column / 60"),
    ("y", "... (row + 1) / 26"),
    ("unit_cf", "unit: its current CF / 16 (own units; 0 if hidden)"),
    ("unit_overstacked", "unit: its hex holds more counted own units than the stacking limit (rule 6.5)"),
    ("unit_moved", "unit: it moved this movement phase"),
)
N_FEATURES = len(SLOT_FEATURES)
_F = {name: i for i, (name, _m) in enumerate(SLOT_FEATURES)}
EXTRA_FEATURES: tuple[tuple[str, str], ...] = (
    ("overstacked_hexes", "own hexes over the stacking limit now / 8"),
    ("french_cities", "cities under French control / the cities"),
    ("candidates", "legal hex and unit actions of the decision / 256 (capped at 4)"),
    ("narrowed", "steps of narrowing taken in this decision (0, 1, 2)"),
)
N_EXTRA = len(EXTRA_FEATURES)
OBS_BLOCKS = ("globals", "city_german", "legal_special", "extra", "slots")


@dataclass
class SlotCandidates:
    """The slots of one decision: per slot the core actions it stands for (one, or a group)."""

    groups: list[np.ndarray]  # slot k -> the core actions (int64) it holds; len <= the encoder's n_slots
    specials: np.ndarray  # legal core special actions


def split_candidates(actions: np.ndarray, n_slots: int = N_SLOTS) -> list[np.ndarray]:
    """The slots of ``actions`` (core actions in the listing's order): one each if they fit, else
    ``n_slots`` groups of consecutive ones, as equal as ``numpy.array_split`` makes them."""
    if len(actions) <= n_slots:
        return [actions[i : i + 1] for i in range(len(actions))]
    return list(np.array_split(actions, n_slots))


def check_slot_count(n_slots: object) -> int:
    """``n_slots`` if it is a valid ``slot_count`` (an int, not a bool or a float, in range); else ValueError."""
    if not isinstance(n_slots, int) or isinstance(n_slots, bool) or not MIN_SLOTS <= n_slots <= MAX_SLOTS:
        raise ValueError(f"slot_count must be an integer in [{MIN_SLOTS}, {MAX_SLOTS}], got {n_slots!r}")
    return n_slots


def narrowing_depth(n_candidates: int, n_slots: int) -> int:
    """The most narrowing steps a decision of ``n_candidates`` takes with ``n_slots`` slots."""
    depth = 0
    while n_candidates > n_slots:
        n_candidates = -(-n_candidates // n_slots)  # array_split's largest group
        depth += 1
    return depth


class SlotEncoder:
    """The slot layout of one game: candidates of a decision, the observation, the action mapping."""

    def __init__(self, game: Game, n_slots: int = N_SLOTS) -> None:
        check_slot_count(n_slots)
        self.game = game
        self.n_slots = n_slots
        self.compact: CompactEncoder = compact_encoder_for(game)
        lay = self.compact.layout
        self.n_specials = game.num_distinct_actions - game.layout.special_base
        self.special_base = game.layout.special_base
        self.unit_base = game.layout.unit_base
        self.n_actions = n_slots + self.n_specials
        # the deepest narrowing of any decision (every hex and unit action legal at once), the bound of "narrowed"
        self.max_depth = narrowing_depth(self.special_base, n_slots)
        self.city_hexes = np.asarray(game.tables.city_hexes, dtype=np.int64)
        self.is_city = np.zeros(hg.N_HEX, dtype=bool)
        self.is_city[self.city_hexes] = True
        self.counted = ~np.array(game.unit_free_stacking, dtype=bool)  # rule 6.3, R8
        self.unit_side = np.array(game.unit_side, dtype=np.int64)
        self.stack_limit = int(game.scenario.tables.stack_limit)
        self.setup_stack_limit = int(game.scenario.tables.setup_stack_limit)
        self._land_pos = np.full(hg.N_HEX, -1, dtype=np.int64)
        self._land_pos[lay.land_hexes] = np.arange(len(lay.land_hexes))
        self._nb = hg.NEIGHBORS.astype(np.int64)
        o = lay.offsets
        self._o_globals = (o["globals"], o["globals"] + lay.shapes["globals"][0])
        self._o_city = (o["city_german"], o["city_german"] + lay.shapes["city_german"][0])
        self._o_special = (o["legal_special"], o["legal_special"] + lay.shapes["legal_special"][0])
        self._o_flag = o["hex_flag"]
        self._o_units = o["units"]
        self._unit_cols = lay.shapes["units"][1]
        n_g = self._o_globals[1] - self._o_globals[0]
        n_c = self._o_city[1] - self._o_city[0]
        self.sizes = {
            "globals": n_g,
            "city_german": n_c,
            "legal_special": self.n_specials,
            "extra": N_EXTRA,
            "slots": n_slots * N_FEATURES,
        }
        self.size = sum(self.sizes.values())
        g_low, g_high = (
            lay.low[self._o_globals[0] : self._o_globals[1]],
            lay.high[self._o_globals[0] : self._o_globals[1]],
        )
        low = np.zeros(self.size, dtype=np.float32)
        high = np.ones(self.size, dtype=np.float32)
        low[:n_g], high[:n_g] = g_low, g_high
        e0 = n_g + n_c + self.n_specials
        high[e0 : e0 + N_EXTRA] = (8.0, 1.0, 4.0, float(max(2, self.max_depth)))
        high[e0] = 8.0  # at most 62 units over 8 hexes is well below
        slots0 = e0 + N_EXTRA
        delta = slots0 + np.arange(n_slots) * N_FEATURES + _F["d_city_delta"]
        low[delta] = -1.0
        self.low, self.high = low, high
        self.slots_offset = slots0

    # ------------------------------------------------------------------ candidates

    def candidates(
        self,
        state: State,
        narrowed: np.ndarray | None = None,
        order: str = "core",
        rng: np.random.Generator | None = None,
    ) -> SlotCandidates:
        """The slots of the decider's decision (``narrowed``: the members of the group chosen last, already
        in ``order``; ``rng``: the generator of ``order="shuffled"``)."""
        legal = np.asarray(state.legal_actions(), dtype=np.int64)
        specials = legal[legal >= self.special_base]
        if narrowed is None:
            acts = legal[legal < self.special_base]
            if order == "shuffled":
                if rng is None:
                    raise ValueError("slot order 'shuffled' needs a generator (rng)")
                acts = acts[rng.permutation(acts.size)]
            elif order != "core" and acts.size > 1:
                acts = acts[self.board_order(state, acts, overstack_only=order == "overstack_last")]
        else:
            acts = narrowed
        return SlotCandidates(
            split_candidates(acts, self.n_slots), specials if narrowed is None else specials[:0]
        )

    def action_mask(self, cands: SlotCandidates | None) -> np.ndarray:
        """The legal slot actions of a decision's slots: its filled slots and its legal specials (none if
        ``cands`` is None: not the decider's turn)."""
        m = np.zeros(self.n_actions, dtype=bool)
        if cands is not None:
            m[: len(cands.groups)] = True
            m[self.n_slots + (cands.specials - self.special_base)] = True
        return m

    def resolve(self, cands: SlotCandidates, action: int) -> tuple[int | None, np.ndarray | None]:
        """What slot action ``action`` does with the slots ``cands``: ``(core action, None)`` if it plays one,
        ``(None, members)`` if it picks a group to narrow to, ``(None, None)`` if it is not legal."""
        a = int(action)
        if 0 <= a < len(cands.groups):
            group = cands.groups[a]
            return (int(group[0]), None) if len(group) == 1 else (None, group)
        core = self.special_base + (a - self.n_slots)
        if self.n_slots <= a < self.n_actions and core in cands.specials:
            return core, None
        return None, None

    def board_order(self, state: State, acts: np.ndarray, overstack_only: bool = False) -> np.ndarray:
        """The permutation of ``acts`` (core hex and unit actions) that ``order="board"`` lists them in.

        Sorted by what the slot table shows of each (:meth:`candidate_features`), most promising for the
        decider first by a fixed rule, not a learned one: destinations that do not over-stack the unit
        (rule 6.5, R9) before those that do; targets whose elimination ends the game (rule 4.1, R21) first;
        French-held cities (rule 4.3), then nearer to the nearest French-held city; units standing in an
        over-stacked hex first; ties in the core's order. No key is a projected score or a lookahead.
        ``overstack_only`` (``order="overstack_last"``): the first key alone, the rest in the core's order."""
        viewer = int(state.current_player)
        comp = self.compact.encode(state, viewer, False)
        f = self.candidate_features(state, viewer, acts, comp)
        if overstack_only:
            return np.lexsort((np.arange(acts.size), f[:, _F["overstacks"]]))
        # numpy.lexsort sorts by the last key first; the core's order breaks every tie (a stable sort)
        return np.lexsort(
            (
                np.arange(acts.size),
                f[:, _F["d_city"]],
                -f[:, _F["french_city"]],
                -f[:, _F["unit_overstacked"]],
                -f[:, _F["ends_game"]],
                f[:, _F["overstacks"]],
            )
        )

    # ------------------------------------------------------------------ observation

    def encode(
        self, state: State, viewer: int, cands: SlotCandidates, depth: int, omniscient: bool = False
    ) -> np.ndarray:
        """The observation of ``viewer`` (the decider) with the slots ``cands`` after ``depth`` narrowings."""
        comp = self.compact.encode(state, viewer, omniscient)
        out = np.zeros(self.size, dtype=np.float32)
        i = 0
        for lo, hi in (self._o_globals, self._o_city):
            out[i : i + hi - lo] = comp[lo:hi]
            i += hi - lo
        out[i + (cands.specials - self.special_base)] = 1.0
        i += self.n_specials
        n_cand = sum(len(g) for g in cands.groups)
        feats = self.slot_features(state, viewer, cands, comp)
        hexes_over = self._hex_counts(state, viewer)[1]
        limit = self._limit(state)
        out[i : i + N_EXTRA] = (
            np.count_nonzero(hexes_over > limit) / 8.0,
            len(state.french_cities()) / max(1, len(self.city_hexes)),
            min(4.0, n_cand / 256.0),
            float(depth),
        )
        i += N_EXTRA
        out[i:] = feats.reshape(-1)
        return out

    def _limit(self, state: State) -> int:
        setting_up = state.phase in (Phase.SETUP_FRENCH, Phase.SETUP_GERMAN)
        return self.setup_stack_limit if setting_up else self.stack_limit  # rule 6.3, R8

    def _hex_counts(self, state: State, viewer: int) -> tuple[np.ndarray, np.ndarray]:
        """Per hex: enemy units (all, public heights) and own units counted for stacking."""
        enemy = np.zeros(hg.N_HEX, dtype=np.int64)
        own = np.zeros(hg.N_HEX, dtype=np.int64)
        side = self.unit_side
        counted = self.counted
        for h, st in state.stacks.items():
            if not st:
                continue
            if side[st[0]] == viewer:
                own[h] = int(np.count_nonzero(counted[st]))
            else:
                enemy[h] = len(st)
        return enemy, own

    def candidate_features(self, state: State, viewer: int, flat: np.ndarray, comp: np.ndarray) -> np.ndarray:
        """One row of :data:`SLOT_FEATURES` per core action in ``flat`` (``comp``: the compact vector)."""
        enemy, own = self._hex_counts(state, viewer)
        control = np.frombuffer(bytes(state.control), dtype=np.uint8)
        fc = np.asarray(state.french_cities(), dtype=np.int64)
        d_city = hg.DISTANCE[:, fc].min(axis=1).astype(np.float32) if fc.size else np.full(hg.N_HEX, 20.0)
        enemy_adj = np.where(self._nb >= 0, enemy[self._nb], 0).astype(bool).sum(axis=1)
        loc = np.asarray(state.loc, dtype=np.int64)
        ctx_u = state.decision_unit()
        ctx_hex = int(loc[ctx_u]) if ctx_u >= 0 else -1
        limit = self._limit(state)
        is_hex = flat < self.unit_base
        # the hex each candidate is about: the hex itself, or the unit's hex (-1 off the map)
        hx = np.where(is_hex, flat, loc[np.clip(flat - self.unit_base, 0, len(loc) - 1)])
        on = hx >= 0
        h = np.where(on, hx, 0)
        f = np.zeros((flat.size, N_FEATURES), dtype=np.float32)
        f[:, _F["filled"]] = 1.0
        f[:, _F["is_hex"]] = is_hex
        f[:, _F["is_unit"]] = ~is_hex
        lp = self._land_pos[h]
        flag = np.where(is_hex & (lp >= 0), comp[self._o_flag + np.maximum(lp, 0)], 0.0)
        target = state.decision in (Decision.ATTACK_TARGET, Decision.AIR_TARGET)
        f[:, _F["overstacks"]] = 0.0 if target else flag  # the encoder's dest_overstacks (rule 6.5, R9)
        f[:, _F["ends_game"]] = flag if target else 0.0  # its target_ends_game (rule 4.1, R21)
        f[:, _F["stay"]] = is_hex & (flat == ctx_hex)
        f[:, _F["city"]] = on & self.is_city[h]
        f[:, _F["french_city"]] = on & self.is_city[h] & (control[h] == Side.FRENCH)
        f[:, _F["german_control"]] = on & (control[h] == Side.GERMAN)
        f[:, _F["enemy_units"]] = np.where(on, enemy[h], 0) / 4.0
        f[:, _F["own_units"]] = np.where(on, own[h], 0) / 4.0
        f[:, _F["enemy_adjacent"]] = np.where(on, enemy_adj[h], 0) / 6.0
        f[:, _F["d_city"]] = np.where(on, np.minimum(d_city[h] / 20.0, 1.0), 0.0)
        if ctx_hex >= 0:
            f[:, _F["d_city_delta"]] = np.where(
                is_hex, np.clip((d_city[h] - d_city[ctx_hex]) / 5.0, -1.0, 1.0), 0.0
            )
        f[:, _F["x"]] = np.where(on, hg.HEX_X[h] / 60.0, 0.0)
        f[:, _F["y"]] = np.where(on, (hg.HEX_Y[h] + 1) / 26.0, 0.0)
        units = ~is_hex
        if units.any():
            u = flat[units] - self.unit_base
            mine = self.unit_side[u] == viewer
            rows = comp[self._o_units :].reshape(-1)[: len(loc) * self._unit_cols].reshape(len(loc), -1)
            f[units, _F["unit_cf"]] = np.where(mine, rows[u, 5], 0.0)  # the compact unit table's cf
            f[units, _F["unit_moved"]] = np.where(mine, rows[u, 11], 0.0)
            uh = h[units]
            f[units, _F["unit_overstacked"]] = mine & on[units] & (own[uh] > limit)
        return f

    def slot_features(self, state: State, viewer: int, cands: SlotCandidates, comp: np.ndarray) -> np.ndarray:
        """The ``n_slots x N_FEATURES`` table of ``cands`` (``comp``: the compact vector of the position)."""
        table = np.zeros((self.n_slots, N_FEATURES), dtype=np.float32)
        flat = np.concatenate(cands.groups) if cands.groups else np.zeros(0, dtype=np.int64)
        if flat.size == 0:
            return table
        f = self.candidate_features(state, viewer, flat, comp)
        # one row per slot: a single candidate's features, or the mean of its group's
        k = 0
        n = flat.size
        for s, g in enumerate(cands.groups):
            m = len(g)
            if m == 1:
                table[s] = f[k]
            else:
                table[s] = f[k : k + m].mean(axis=0)
                table[s, _F["is_group"]] = 1.0
                table[s, _F["group_size"]] = m / n
            k += m
        return table


_CACHE: dict[tuple[int, int], SlotEncoder] = {}


def slot_encoder_for(game: Game, n_slots: int = N_SLOTS) -> SlotEncoder:
    """The (cached) slot encoder of ``game`` with ``n_slots`` slots."""
    check_slot_count(n_slots)  # before the lookup: 8.0 == 8 as a key
    enc = _CACHE.get((id(game), n_slots))
    if enc is None or enc.game is not game:
        if len(_CACHE) > 8:
            _CACHE.clear()
        enc = _CACHE[(id(game), n_slots)] = SlotEncoder(game, n_slots)
    return enc
