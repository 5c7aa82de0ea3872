"""Observation tensors of a France Fights On state, for one viewing side.

``encode(state, viewer)`` returns a dict of three numpy arrays; the layout below is
the specification (``tests/test_encoding_spec.py`` parses these tables and checks
them against :data:`PLANE_GROUPS`, :data:`GLOBAL_GROUPS` and :data:`UNIT_GROUPS`:
names, order, index ranges and sizes).

Conventions
-----------
- Grid: ``planes[c, column - 1, row]`` -- column 1..60 runs south -> north, row
  0..25 west -> east (:mod:`ffo_env.ffo.core.hexgrid`). Odd columns have 25 rows; the
  missing ``[column - 1, 25]`` cells are marked by the ``off_map`` plane and are
  zero in every other plane.
- "own" is the viewer's side, "enemy" the other side (the layout is the same for
  both agents; ``globals.viewer_german`` says which side is looking).
- Fog of war (rule 3.6, R2, R3; :mod:`ffo_env.ffo.encoding.fog`): of an enemy stack the
  viewer sees the top unit (class, strength, flags) and the number of units; the
  rest only once the stack is revealed to him (he declared an attack on it and it
  has not changed since). Enemy rows of the unit table are zero apart from public
  facts (status, the counter's printed data, markers, battle roles) unless the
  unit is visible.
- Decision context (``ctx_unit``, ``dest*``, ``legal*``, ``mp``, ``legal_count``
  and the unit flags ``ctx_unit``/``legal``) is filled only for the side that
  makes the current decision; the battle being fought is public.
- ``omniscient=True`` lifts the fog; the layout is unchanged. Never a default.

Planes ``(71, 60, 26)`` uint8
-----------------------------
=======  =======================  ====  ==========================================================
index    name                     max   meaning
=======  =======================  ====  ==========================================================
0        off_map                  1     cell is not a hex (row 25 of an odd column)
1-6      terrain[6]               1     terrain one-hot: clear, rough, marsh, mountain, sea, neutral
7-12     river[6]                 1     river hexside E, NE, NW, W, SW, SE (none at cities, R14)
13-18    blocked[6]               1     blocked hexside, same directions
19       city                     1     city hex
20       port                     1     port hex (naval garrison, rule 3.3)
21       coastal                  1     land hex adjacent to all-sea (R32)
22       inland1                  1     land hex adjacent to a coastal hex (R32)
23-25    row[3]                   1     colored row one-hot: red, green, yellow
26       german_control           1     hex controlled by the German player (rule 3.7)
27       ever_german              1     a German unit has ever entered the hex (rule 7.8, R20)
28       refugee                  1     refugee marker (rule 10.1)
29       refugee_flipped          1     refugee marker overrun this phase (rule 10.4)
30       attacked_hex             1     hex already attacked this combat phase (R23)
31       scare_hex                1     hex of the unit under the panzer scare marker (rule 7.9)
32       replacement_hex          1     hex of the unit under the replacement marker (rule 8.2)
33       own_count                62    number of own units in the hex
34       own_cf                   255   their summed current combat factor
35-40    own_class[6]             62    own units by class (see UNIT_CLASSES)
41       own_reduced              62    own reduced units
42       own_moved                62    own units that moved this movement phase (rule 11.3)
43       own_attacked             62    own units that attacked this combat phase (R23)
44       own_no_attack            62    own units that may not attack this turn (rules 8.2, 11.7)
45       own_immobile             62    own immobile units (rules 8.2, 11.7)
46       own_supplied             62    own units in supply now (rules 7.1-7.8, R11)
47       own_must_leave           62    own units that must leave the green/red rows (R7)
48       enemy_count              62    number of units in the enemy stack (public, rule 3.6)
49-54    enemy_top_class[6]       1     class of the enemy top unit, one-hot
55       enemy_top_cf             255   current combat factor of the enemy top unit
56       enemy_top_reduced        1     the enemy top unit is reduced
57       enemy_top_moved          1     the enemy top unit moved this phase
58       enemy_top_attacked       1     the enemy top unit attacked this phase
59       enemy_revealed           1     enemy stack revealed to the viewer (R3)
60       enemy_revealed_cf        255   summed current CF of a revealed enemy stack
61       battle_target            1     target hex of the battle being fought (R22)
62       battle_attackers         62    units attacking from the hex
63       ctx_unit                 1     hex of the unit the decision is about (decider only)
64       dest_mp                  255   1 + MP spent to reach a legal destination (R13; 1 = stay)
65       dest_vp                  255   VP lost to refugees on the way there (R13, rule 10.4)
66       legal_hex                1     the hex is a legal action now (decider only)
67       own_stack_full           1     own units counted for stacking fill the hex: one more over-stacks (6.3)
68       own_overstacked          1     own counted units exceed the limit: the excess goes (rule 6.5, R9)
69       dest_overstacks          1     legal hex where the decision's unit would over-stack (decider only)
70       target_ends_game         1     legal German target holding every French unit left (decider only)
=======  =======================  ====  ==========================================================

The stacking planes use the stacking limit of the phase (rule 6.3, R8; the setup limit while
setting up) and leave out free-stacking units. ``dest_overstacks`` marks, for a decision about one
unit (move, rail, retreat, advance, entry, setup), the legal hexes whose counted own units other
than that unit already fill the limit; it is empty when the unit itself stacks freely. An
over-stack is legal but costs the excess units at the end of the movement phase (rule 6.5, R9),
and it is the costliest mistake a learned German player makes.

``target_ends_game`` marks, when the German chooses an attack or air-strike target, the legal
targets whose stack holds every Anglo-French ground unit left (on the map or in reserve) while a
city is still French and turns remain: wiping it out would end the game at once with those cities
counted for France (rule 4.1, 4.3, R21). Stack heights are public (rule 3.6), so the German can
count this himself; the plane only saves a network from summing the whole map for it.

Globals ``(123,)`` float32
--------------------------
=======  =======================  ==========================================================
index    name                     meaning
=======  =======================  ==========================================================
0        turn                     game turn / last turn
1-15     turn_onehot[15]          game turn 1..15 one-hot
16-32    phase[17]                Phase one-hot (SETUP_FRENCH .. GAME_OVER)
33-56    decision[24]             Decision one-hot (NONE .. OVERSTACK_REMOVE)
57       viewer_german            the viewer is the German player
58       to_act                   the viewer makes the current decision
59       actor_german             the German player makes the current decision
60       vp                       French VP / victory VP (rule 4.3), clipped to [-4, 4]
61       stuka_available          8th Fliegerkorps unused this game turn (R32)
62-63    naval_available[2]       French, British naval marker unused this game turn (R32)
64       german_move_first        German movement before combat this turn (rule 5.6)
65-66    scare[2]                 a scare marker is on a unit; a scare has happened (R36)
67       replacement              a replacement marker is on a unit (rule 8.2)
68-70    french_units[3]          fraction of Anglo-French units on map, dead, evacuated
71-72    german_main[2]           fraction of German main-force units on map, dead
73-84    entry[12]                groups 18, 4, K: fraction on map, off map, dead, waiting (R34)
85-92    last_dice[8]             last eight dice, most recent first, die / 6 (0 = none)
93       mp                       MP of the unit being moved / 6 (R12; decider only)
94       refugees_left            refugee markers still to place / 6
95       battle                   a battle is being fought
96       battle_air               it is an air-only strike (rule 12.4)
97       battle_viewer_attacks    the viewer is the attacker
98-99    battle_cf[2]             attacker, defender combat factors / 20 (once computed)
100      battle_differential      differential / 10
101-109  battle_column[9]         CRT column after shifts, one-hot (R26)
110      battle_shift             sum of column shifts / 4
111-112  battle_support[2]        attacker, defender support factors / 10 (R22.4-5)
113-114  battle_oos[2]            attacker, defender out of supply (R11)
115-119  last_result[5]           last CRT result this phase: AE, AS, BB, DR, DE
120      legal_count              number of legal actions / 100 (decider only)
121      step_fraction            decisions taken so far / 4000
122      french_cities            share of the cities under French control (public; rule 4.3)
=======  =======================  ==========================================================

Units ``(62, 44)`` float32, one row per unit of the scenario
------------------------------------------------------------
=======  =======================  ==========================================================
index    name                     meaning
=======  =======================  ==========================================================
0        own                      the unit is the viewer's
1        german                   the unit is German
2        visible                  identity, hex and strength are known to the viewer (rule 3.6)
3-6      status[4]                reserve, on map, dead, evacuated (public)
7-16     type[10]                 unit type one-hot (scenario.UNIT_TYPES)
17-20    group[4]                 German group main, 18, 4, K (rules 9.2-9.5)
21       cf_full                  printed full-strength CF / 16 (scenario.MAX_CF)
22       cf_reduced               printed reduced CF / 16
23       two_step                 the counter has two steps
24       free_stacking            free-stacking unit (rule 6.3)
25       cf                       current CF / 16 (if visible)
26       reduced                  the unit is reduced (if visible)
27       x                        column / 60 (if visible and on map)
28       y                        (row + 1) / 26 (if visible and on map)
29       on_top                   top unit of its stack (if visible)
30       stack_size               units in its hex / 8 (if visible)
31       moved                    moved this movement phase (if visible)
32       attacked                 attacked this combat phase (if visible)
33       no_attack                may not attack this turn (if visible)
34       immobile                 immobile (if visible)
35       supplied                 in supply now (own units only)
36       must_leave               must leave the green/red rows (own units only, R7)
37       scare                    carries the panzer scare marker (public)
38       replacement              carries the replacement marker (if visible)
39       battle_attacker          attacks in the current battle (public once added)
40       battle_defender          defends in the current battle (if visible)
41       in_reserve_ready         German reinforcement rolled in, waiting for a hex (R34)
42       ctx_unit                 the unit the decision is about (decider only)
43       legal                    its unit action is legal now (decider only)
=======  =======================  ==========================================================

Unit classes (``own_class``, ``enemy_top_class``): ``UNIT_CLASSES``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.phases import Decision, Phase
from ffo_env.ffo.core.scenario import GROUPS, UNIT_TYPES

N_COLS = hg.N_COLS
N_ROWS = 26
GRID_SHAPE = (N_COLS, N_ROWS)
N_CELLS = N_COLS * N_ROWS

UNIT_CLASSES = ("infantry", "fortress", "mountain", "mechanized", "panzer", "garrison")
CLASS_OF_TYPE = {  # unit type -> index in UNIT_CLASSES
    "infantry": 0,
    "colonial": 0,
    "adhoc": 0,
    "fortress": 1,
    "mountain": 2,
    "armor": 3,
    "motorized": 3,
    "cavalry": 3,
    "panzer": 4,
    "naval_garrison": 5,
}
CRT_RESULTS = ("AE", "AS", "BB", "DR", "DE")
N_TURN_ONEHOT = 15
N_PHASES = len(Phase)
N_DECISIONS = int(Decision.OVERSTACK_REMOVE) + 1
N_COLUMNS = 9
GLOBAL_LOW, GLOBAL_HIGH = -4.0, 4.0

# (name, size, max value, meaning) -- the order is the layout
PLANE_GROUPS: tuple[tuple[str, int, int, str], ...] = (
    ("off_map", 1, 1, "cell is not a hex"),
    ("terrain", 6, 1, "terrain one-hot"),
    ("river", 6, 1, "river hexside per direction"),
    ("blocked", 6, 1, "blocked hexside per direction"),
    ("city", 1, 1, "city hex"),
    ("port", 1, 1, "port hex"),
    ("coastal", 1, 1, "coastal land hex"),
    ("inland1", 1, 1, "one hex inland"),
    ("row", 3, 1, "colored row one-hot"),
    ("german_control", 1, 1, "German control"),
    ("ever_german", 1, 1, "ever German"),
    ("refugee", 1, 1, "refugee marker"),
    ("refugee_flipped", 1, 1, "refugee overrun this phase"),
    ("attacked_hex", 1, 1, "attacked this combat phase"),
    ("scare_hex", 1, 1, "panzer scare marker"),
    ("replacement_hex", 1, 1, "replacement marker"),
    ("own_count", 1, 62, "own units"),
    ("own_cf", 1, 255, "own CF"),
    ("own_class", 6, 62, "own units by class"),
    ("own_reduced", 1, 62, "own reduced"),
    ("own_moved", 1, 62, "own moved"),
    ("own_attacked", 1, 62, "own attacked"),
    ("own_no_attack", 1, 62, "own may not attack"),
    ("own_immobile", 1, 62, "own immobile"),
    ("own_supplied", 1, 62, "own supplied"),
    ("own_must_leave", 1, 62, "own must leave rows"),
    ("enemy_count", 1, 62, "enemy stack height"),
    ("enemy_top_class", 6, 1, "enemy top class"),
    ("enemy_top_cf", 1, 255, "enemy top CF"),
    ("enemy_top_reduced", 1, 1, "enemy top reduced"),
    ("enemy_top_moved", 1, 1, "enemy top moved"),
    ("enemy_top_attacked", 1, 1, "enemy top attacked"),
    ("enemy_revealed", 1, 1, "enemy stack revealed"),
    ("enemy_revealed_cf", 1, 255, "revealed enemy CF"),
    ("battle_target", 1, 1, "battle target"),
    ("battle_attackers", 1, 62, "attacking units"),
    ("ctx_unit", 1, 1, "unit of the decision"),
    ("dest_mp", 1, 255, "1 + MP to destination"),
    ("dest_vp", 1, 255, "VP cost of destination"),
    ("legal_hex", 1, 1, "legal hex action"),
    ("own_stack_full", 1, 1, "own stack at the limit"),
    ("own_overstacked", 1, 1, "own stack over the limit"),
    ("dest_overstacks", 1, 1, "destination over-stacks"),
    ("target_ends_game", 1, 1, "target holds the last French units"),
)

# (name, size, meaning)
GLOBAL_GROUPS: tuple[tuple[str, int, str], ...] = (
    ("turn", 1, "turn / last"),
    ("turn_onehot", N_TURN_ONEHOT, "turn one-hot"),
    ("phase", N_PHASES, "phase one-hot"),
    ("decision", N_DECISIONS, "decision one-hot"),
    ("viewer_german", 1, "viewer is German"),
    ("to_act", 1, "viewer decides"),
    ("actor_german", 1, "German decides"),
    ("vp", 1, "VP / victory VP"),
    ("stuka_available", 1, "stuka unused"),
    ("naval_available", 2, "naval markers unused"),
    ("german_move_first", 1, "move first"),
    ("scare", 2, "scare marker; scare ever"),
    ("replacement", 1, "replacement marker"),
    ("french_units", 3, "French on map / dead / evacuated"),
    ("german_main", 2, "German main on map / dead"),
    ("entry", 12, "reinforcement groups"),
    ("last_dice", 8, "last dice"),
    ("mp", 1, "MP of mover"),
    ("refugees_left", 1, "refugees to place"),
    ("battle", 1, "in battle"),
    ("battle_air", 1, "air-only strike"),
    ("battle_viewer_attacks", 1, "viewer attacks"),
    ("battle_cf", 2, "attacker, defender CF"),
    ("battle_differential", 1, "differential"),
    ("battle_column", N_COLUMNS, "column one-hot"),
    ("battle_shift", 1, "shift sum"),
    ("battle_support", 2, "support factors"),
    ("battle_oos", 2, "OOS flags"),
    ("last_result", len(CRT_RESULTS), "last CRT result"),
    ("legal_count", 1, "legal actions / 100"),
    ("step_fraction", 1, "decisions / 4000"),
    ("french_cities", 1, "French cities / all cities"),
)

UNIT_GROUPS: tuple[tuple[str, int, str], ...] = (
    ("own", 1, ""),
    ("german", 1, ""),
    ("visible", 1, ""),
    ("status", 4, ""),
    ("type", len(UNIT_TYPES), ""),
    ("group", len(GROUPS), ""),
    ("cf_full", 1, ""),
    ("cf_reduced", 1, ""),
    ("two_step", 1, ""),
    ("free_stacking", 1, ""),
    ("cf", 1, ""),
    ("reduced", 1, ""),
    ("x", 1, ""),
    ("y", 1, ""),
    ("on_top", 1, ""),
    ("stack_size", 1, ""),
    ("moved", 1, ""),
    ("attacked", 1, ""),
    ("no_attack", 1, ""),
    ("immobile", 1, ""),
    ("supplied", 1, ""),
    ("must_leave", 1, ""),
    ("scare", 1, ""),
    ("replacement", 1, ""),
    ("battle_attacker", 1, ""),
    ("battle_defender", 1, ""),
    ("in_reserve_ready", 1, ""),
    ("ctx_unit", 1, ""),
    ("legal", 1, ""),
)


def block_at(
    order: tuple[str, ...],
    offsets: dict[str, int],
    shapes: dict[str, tuple[int, ...]],
    size: int,
    offset: int,
) -> tuple[str, tuple[int, ...]]:
    """The block of a 1-D observation (blocks ``order`` laid end to end at ``offsets``) holding ``offset``,
    and the index within that block's shape; the flat and the compact layouts both name entries so."""
    if not 0 <= offset < size:
        raise ValueError(f"offset must be in [0, {size}), got {offset}")
    for name in reversed(order):
        if offset >= offsets[name]:
            idx = np.unravel_index(offset - offsets[name], shapes[name])
            return name, tuple(int(i) for i in idx)
    raise AssertionError("unreachable")  # pragma: no cover


def _offsets(groups: tuple[tuple[Any, ...], ...]) -> tuple[dict[str, int], int]:
    out: dict[str, int] = {}
    k = 0
    for g in groups:
        out[g[0]] = k
        k += g[1]
    return out, k


PLANE_INDEX, N_PLANES = _offsets(PLANE_GROUPS)  # plane group name -> its first plane
GLOBAL_INDEX, N_GLOBALS = _offsets(GLOBAL_GROUPS)  # global group name -> its first entry
UNIT_FEATURE_INDEX, N_UNIT_FEATURES = _offsets(UNIT_GROUPS)  # unit feature group name -> its first column


def expand_names(groups: tuple[tuple[Any, ...], ...]) -> list[str]:
    """Flat names, ``group`` or ``group[k]``, in layout order."""
    out: list[str] = []
    for g in groups:
        out.extend([g[0]] if g[1] == 1 else [f"{g[0]}[{k}]" for k in range(g[1])])
    return out


PLANE_HIGH = np.array([g[2] for g in PLANE_GROUPS for _ in range(g[1])], dtype=np.uint8)


@dataclass(frozen=True)
class ObservationSpec:
    n_planes: int = N_PLANES
    n_globals: int = N_GLOBALS
    n_units: int = 62
    n_unit_features: int = N_UNIT_FEATURES

    @property
    def shapes(self) -> dict[str, tuple[int, ...]]:
        return {
            "planes": (self.n_planes, *GRID_SHAPE),
            "globals": (self.n_globals,),
            "units": (self.n_units, self.n_unit_features),
        }
