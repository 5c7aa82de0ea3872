"""``State``: a position of Springtime for Hitler as a sequence of atomic decisions.

Each :meth:`State.apply_action` makes one choice for :attr:`State.player`; the engine then runs every
automatic step (dice, draws, phases with nothing to decide) until the next decision. Legality is decided
in one place, :func:`ffo_env.springtime.core.rules.legal_actions`, used by masks, bots and the validation
of a submitted action. Every mutable field is a plain JSON value (ints, bools, lists, dicts), so a state
saves, loads and clones exactly (:mod:`.state_io`).

This module holds the bookkeeping every rule uses: placing and removing units, control (7.2, S7), French
Morale (C§7.6, S49), supply (13.2.1, S42), dice (S54). The sequence of play is in :mod:`.flow`, the
impulses in :mod:`.maneuver`, combat in :mod:`.combat`.
"""

from __future__ import annotations

import bisect
import copy
from collections import deque
from typing import TYPE_CHECKING, Any

import numpy as np

from ffo_env.core.dice import Dice
from ffo_env.springtime.core import actions as A
from ffo_env.springtime.core.actions import IllegalActionError
from ffo_env.springtime.core.data import AGENTS, ALLIED, AXIS, SIDE_NAMES

if TYPE_CHECKING:
    from ffo_env.springtime.core.data import UnitSpec
    from ffo_env.springtime.core.game import Game

# unit status
OFF = 0  # not yet in play (de Gaulle's DCR, Italy, the Air Landing Corps)
MAP = 1
ELIM = 2  # eliminated pool (rebuildable, 12.3)
GONE = 3  # permanently out of play
STATUS_NAMES = ("off", "map", "elim", "gone")

# decisions (who decides: State.player)
NONE = "none"
DECISIONS = (
    "none",
    "draw",  # 6.1.1, S14: NO keep / YES discard and draw
    "plan_red_take",  # S55
    "kleist",  # 4.4.1, S9: UNIT
    "advantage",  # 11.1.1, 11.1.5, S39: NO / OPEN_CITY / DRAW_EXTRA
    "event",  # 6.1.1, S16: NO / YES
    "event_loc",  # S19 de Gaulle: LOC
    "event_units",  # S19 Dynamo companions: UNIT / NO
    "declare",  # 8.1: PASS / REGROUP / REDEPLOY+loc / ASSAULT+mask
    "reserve_ag",  # S26, S52: AG
    "act",  # 9.1, 10.0: UNIT (move it) / COMBAT+loc / NO (end the impulse)
    "step",  # 9.2: LOC / NO (stop)
    "regroup_ag",  # S27 option army_group: AG
    "regroup_k",  # S27: the Axis adds K: NO / YES
    "regroup_pick",  # 8.1.2a: UNIT / NO
    "regroup_dest",  # LOC
    "redeploy_pick",  # 8.1.2b: UNIT / NO
    "participants",  # S31: UNIT / NO (done)
    "lead_att",  # 10.4.2: UNIT
    "lead_def",  # 10.4.3: UNIT
    "air_att",  # 9.4.1: NO / YES
    "air_def",
    "convert",  # 11.1.2, 11.1.3: NO / YES
    "retreat_pick",  # 10.5.1, S37: UNIT / NO
    "retreat_dest",  # 10.5.2: LOC
    "soldier_on",  # 11.1.4, S40: NO / YES
    "refit",  # 12.3: UNIT (flip) / REBUILD_FULL / REBUILD_RED / NO
    "refit_loc",  # 12.3.2, 12.3.3: LOC
    "end_event",  # 6.4.4: NO / YES
    "end_discard",  # 6.4.4: NO / YES
    "withdraw",  # 18.1.3, S63: NO / YES
    "setup_place",  # 18.2, S62: LOC
)

# decisions the engine never answers by itself, even with one legal action (``skip_forced``): an Event window
# with only NO legal is still asked, else the opponent, who sees every decision and whether the engine made
# it, would learn that the held marker cannot be played now (S13, S59 (a), P10)
ALWAYS_ASKED = frozenset({"event", "end_event"})

# the fields that make a position; everything a State holds besides ``game`` (state_io saves these)
FIELDS = (
    "seed",
    "dice_state",
    "turn",
    "box",
    "phase",
    "cont",
    "decision",
    "player",
    "loc",
    "status",
    "reduced",
    "oos",
    "flipped",
    "kleist_unit",
    "kleist_turn",
    "control",
    "morale",
    "rp",
    "advantage",
    "adv_used_by",
    "open_city",
    "italy_at_war",
    "cc_flag",
    "morale_at_political",
    "german_air_full",
    "allied_air_full",
    "air_used",
    "container",
    "held",
    "turn_track",
    "impulse_track",
    "draws",
    "draw_log",
    "billotte",
    "refugees",
    "last_assault",
    "imp",
    "cmb",
    "ret",
    "refit_ctx",
    "winner",
    "result",
    "morale_log",
    "dice_log",
    "history",
    "setup_queue",
    "bef_evacuated",
)


def _joins(spec: UnitSpec) -> bool:
    """rule 18.2, S62: French armored and Reserve units set up with the 1st or the 7th Army."""
    return spec.nation == "FR" and (spec.armor or spec.ag == "R")


class State:
    """A game position. Create with ``Game.new_initial_state(seed)``."""

    def __init__(self, game: Game, seed: int = 0, *, _blank: bool = False) -> None:
        self.game = game
        self._legal: list[int] | None = None
        self._occ: list[list[int]] | None = None  # per location [Allied units, Axis units]; None = stale
        if _blank:
            return
        d = game.data
        sc = game.spec
        nu, nl = game.n_units, game.n_locs
        self.seed = int(seed)
        self.dice_state = Dice(self.seed).state
        self.turn = sc.turn
        self.box = sc.impulse
        self.phase = "political"
        self.cont = "political_start"
        self.decision = NONE
        self.player = ALLIED
        self.loc = [-1] * nu
        self.status = [OFF] * nu
        self.reduced = [False] * nu
        self.oos = [False] * nu
        self.flipped = [False] * len(d.leaders)
        self.kleist_unit = -1
        self.kleist_turn = 0
        self.control = [AXIS if i in sc.axis_control else ALLIED for i in range(nl)]
        self.morale = sc.morale + game.options.morale_bid  # rule 17.1, S61
        self.rp = [sc.rp[0], sc.rp[1]]
        self.advantage = sc.advantage
        self.adv_used_by = -1
        self.open_city = False
        self.italy_at_war = False
        self.cc_flag = False
        self.morale_at_political = self.morale
        self.german_air_full = sc.german_air_full
        self.allied_air_full = False
        self.air_used: list[str] = []
        played = set(sc.events_played)
        self.container = [e.number for e in d.events if e.number not in played]
        self.held = [0, 0]
        self.turn_track = sorted(played)
        self.impulse_track: list[int] = []
        self.draws = [0, 0]
        self.draw_log: list[list[dict[str, Any]]] = [[], []]  # private: what each side drew/discarded
        self.billotte = False
        self.refugees = "none"  # "none" | "pending" (played, waiting) | "active" (this Allied impulse)
        self.last_assault: list[list[str]] = [[], []]
        self.imp: dict[str, Any] = {}
        self.cmb: dict[str, Any] | None = None
        self.ret: dict[str, Any] | None = None
        self.refit_ctx: dict[str, Any] = {}
        self.winner = -1
        self.result = ""
        self.morale_log: list[dict[str, Any]] = []
        self.dice_log: list[dict[str, Any]] = []
        self.history: list[list[int]] = []  # [side, action, auto]
        self.setup_queue: list[int] = []  # 18.2: units still to place, in order
        # rule 18.3, S64: the BEF in the eliminated pool left by Operation Dynamo (rebuilt in a BEF Evacuation
        # Port only); False while it is on the map or when it was eliminated in combat (rule 12.3.2)
        self.bef_evacuated = False
        for u, where, red in sc.units:
            self.status[u] = MAP
            self.loc[u] = where
            self.reduced[u] = red
        for u in sc.eliminated:
            self.status[u] = ELIM
        for u in sc.removed:
            self.status[u] = GONE
        if game.options.bef_returns and "GB-BEF" in game.unit_ids:
            bef = game.unit_ids.index("GB-BEF")
            if self.status[bef] == GONE:  # S58: with 18.3 the BEF is in the eliminated pool
                self.status[bef] = ELIM
                self.bef_evacuated = True  # S58, S64: removed by Operation Dynamo before Plan Red
                if 3 in self.turn_track:
                    self.turn_track.remove(3)
                    self.container.append(3)
                    self.container.sort()
        if sc.name == "plan_red":
            # S55: the scenario starts in the Maneuvers Phase of Turn 4 at Axis Impulse 6
            self.phase = "maneuver"
            self.cont = "impulse_start"
            if game.options.airdrops:
                self.status[game.unit_ids.index("DE-AIRLAND")] = GONE  # S58
        elif game.options.free_setup:
            self._free_setup()

    def _free_setup(self) -> None:
        """rule 18.2, S62: every unit of the setup except the Alp, Belgian and Dutch Armies is placed by its
        owner, the Allies first (1st and 7th Armies before the units that must join them), then the Axis."""
        g = self.game
        fixed = {"FR-ALP", "BE-ARMY", "NL-ARMY"}
        first = [g.unit_ids.index("FR-1A"), g.unit_ids.index("FR-7A")]
        queue = list(first)
        placed = [u for u in range(g.n_units) if self.status[u] == MAP and g.unit_ids[u] not in fixed]
        # the units that must join the 1st or 7th Army come right after them (S62, P9)
        queue += [u for u in placed if u not in queue and g.unit_side[u] == ALLIED and _joins(self.units[u])]
        queue += [u for u in placed if u not in queue and g.unit_side[u] == ALLIED]
        queue += [u for u in placed if u not in queue]
        for u in queue:
            self.status[u] = OFF
            self.loc[u] = -1
        self.setup_queue = queue
        self.phase = "setup"
        self.cont = "setup_next"

    @classmethod
    def initial(cls, game: Game, seed: int = 0) -> State:
        s = cls(game, seed)
        s._run()
        return s

    # ------------------------------------------------------------- accessors

    @property
    def units(self) -> tuple[UnitSpec, ...]:
        return self.game.data.units

    @property
    def current_player(self) -> int:
        """0 = the Allied (``french``) agent, 1 = the Axis (``german``) agent; -1 once the game is over."""
        return -1 if self.is_terminal() else self.player

    @property
    def current_side(self) -> int:
        """The side asked to decide (0 Allied, 1 Axis), as France Fights On's ``State.current_side``."""
        return self.player

    @property
    def current_agent(self) -> str:
        return AGENTS[self.player]

    @property
    def active(self) -> int:
        """The side whose impulse it is (odd boxes Allied, even Axis, rule 6.2)."""
        return ALLIED if self.box % 2 == 1 else AXIS

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def returns(self) -> list[float]:
        """Zero-sum ``[french, german]``: +1 for the winner, -1 for the loser, 0 before the end."""
        if self.winner < 0:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == ALLIED else [-1.0, 1.0]

    def units_at(self, loc: int, side: int | None = None) -> list[int]:
        return [
            u
            for u in range(self.game.n_units)
            if self.status[u] == MAP
            and self.loc[u] == loc
            and (side is None or self.game.unit_side[u] == side)
        ]

    def occupancy(self) -> list[list[int]]:
        """Units of each side per location, rebuilt after any change of ``loc`` or ``status``."""
        if self._occ is None:
            occ = [[0, 0] for _ in range(self.game.n_locs)]
            gs = self.game.unit_side
            for u, where in enumerate(self.loc):
                if self.status[u] == MAP and where >= 0:
                    occ[where][gs[u]] += 1
            self._occ = occ
        return self._occ

    def moved_units(self) -> None:
        """Call after changing ``loc`` or ``status`` directly (the methods below do it themselves)."""
        self._occ = None
        self._legal = None

    def count(self, loc: int, side: int) -> int:
        return self.occupancy()[loc][side]

    def has(self, loc: int, side: int) -> bool:
        return self.occupancy()[loc][side] > 0

    def contested(self, loc: int) -> bool:
        return self.has(loc, ALLIED) and self.has(loc, AXIS)  # rule 7.3

    def free(self, loc: int, side: int) -> bool:
        """Vacant (no enemy units) and friendly-controlled (rules 7.4, 7.5, S7)."""
        return self.control[loc] == side and not self.has(loc, 1 - side)

    def full(self, loc: int, side: int) -> bool:
        """The side has the stacking maximum there (7.1); Zones never fill (14.2, S8)."""
        if self.game.data.locations[loc].zone:
            return False
        limit: int = self.game.data.tables["stacking_limit"]
        return self.count(loc, side) >= limit

    def cv(self, u: int) -> int:
        spec = self.units[u]
        return spec.cv_reduced if self.reduced[u] else spec.cv_full

    def leader_rating(self, u: int) -> int:
        """Combat Rating of the Leader attached to unit ``u`` (own Leader, or Kleist, S9, S10), else 0."""
        g = self.game
        lead = g.leader_of[u]
        if u == self.kleist_unit and g.kleist >= 0:
            lead = g.kleist
        if lead < 0:
            return 0
        ld = g.data.leaders[lead]
        return ld.flipped if self.flipped[lead] else ld.front

    def neighbours(self, loc: int) -> tuple[tuple[int, str], ...]:
        return self.game.data.adjacency[loc]

    # ------------------------------------------------------------- decisions

    def legal_actions(self) -> list[int]:
        """Legal actions of the current decision, sorted. The one definition of legality."""
        if self._legal is None:
            from ffo_env.springtime.core import rules

            self._legal = [] if self.phase == "over" else sorted(rules.legal_actions(self))
        return self._legal

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
        for a in self.legal_actions():
            mask[a] = 1
        return mask

    def check_action(self, action: object) -> int:
        """``action`` as an int if it is legal now; else the error :meth:`apply_action` would raise
        (``TypeError`` for a non-integer, :class:`IllegalActionError` otherwise). Never changes the state."""
        a = self._checked(action)
        if self.phase == "over":
            raise IllegalActionError("the game is over; no action is legal")
        legal = self.legal_actions()
        i = bisect.bisect_left(legal, a)
        if i == len(legal) or legal[i] != a:
            raise IllegalActionError(
                f"action {a} ({self.action_to_string(a)}) is not legal for {self.current_agent} at"
                f" {self.decision} (turn {self.turn}, {self.phase}); legal: "
                f"{[self.action_to_string(x) for x in legal[:8]]}"
            )
        return a

    def apply_action(self, action: object) -> None:
        """Make the current decision; an illegal action raises :class:`IllegalActionError` and changes nothing."""
        self._do(self.check_action(action), auto=False)
        self._run()

    def _checked(self, action: object) -> int:
        if isinstance(action, np.ndarray) and action.ndim == 0:
            action = action[()]
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"action {action!r} ({type(action).__name__}) is not an integer")
        a = int(action)
        if not 0 <= a < A.N_ACTIONS:
            raise IllegalActionError(f"action {a} is outside the action space [0, {A.N_ACTIONS})")
        return a

    def _do(self, a: int, auto: bool) -> None:
        from ffo_env.springtime.core import rules

        self.history.append([self.player, a, int(auto)])
        self._legal = None
        rules.apply(self, a)
        self._legal = None

    def _run(self) -> None:
        """Run automatic steps until an agent decision is pending or the game is over."""
        from ffo_env.springtime.core import flow

        skip = self.game.options.skip_forced
        guard = 0
        while True:
            guard += 1
            if guard > 100000:
                raise RuntimeError("engine error: the automatic steps do not stop")
            self._legal = None
            if self.phase == "over":
                self.decision = NONE
                return
            if self.decision == NONE:
                flow.step(self)
                continue
            legal = self.legal_actions()
            if not legal:
                raise RuntimeError(f"engine error: no legal action at {self.decision} ({self.where()})")
            if skip and len(legal) == 1 and self.decision not in ALWAYS_ASKED:
                self._do(legal[0], auto=True)
                continue
            return

    def ask(self, decision: str, side: int) -> None:
        self.decision = decision
        self.player = side
        self._legal = None

    def where(self) -> str:
        return f"turn {self.turn} {self.phase} box {self.box}"

    def action_to_string(self, a: int) -> str:
        return A.describe(a, self.player, self.game.unit_ids, self.game.loc_ids)

    def string_to_action(self, text: str) -> int:
        return A.parse(text, self.player, self.game.unit_ids, self.game.loc_ids)

    def decision_string(self) -> str:
        return f"{self.current_agent} {self.decision} ({self.where()})"

    # ------------------------------------------------------------------ dice

    def roll(self, purpose: str) -> int:
        """One dr from the game's generator, logged with what it decides (S54)."""
        dice = Dice(state=self.dice_state)
        v = dice.roll()
        self.dice_state = dice.state
        self.dice_log.append({"die": v, "for": purpose, "turn": self.turn, "box": self.box})
        return v

    def pick(self, n: int, purpose: str) -> int:
        """A uniform 0..n-1 (Event draws, S14), logged like a die."""
        dice = Dice(state=self.dice_state)
        v = dice.below(n)
        self.dice_state = dice.state
        self.dice_log.append({"pick": v, "of": n, "for": purpose, "turn": self.turn, "box": self.box})
        return v

    # ---------------------------------------------------------------- morale

    def change_morale(self, delta: int, why: str) -> None:
        """French Morale changes at once, in any phase (S49); unbounded (S60)."""
        if delta == 0:
            return
        self.morale += delta
        self.morale_log.append({"turn": self.turn, "box": self.box, "delta": delta, "why": why})

    def _control_morale(self, loc: int, new: int) -> None:
        g = self.game
        m = g.data.tables["morale"]
        locs = g.data.locations
        name = g.loc_ids[loc]
        if loc == g.paris:  # C§7.6, rule 11.1.1
            if new == AXIS:
                self.change_morale(
                    m["paris_lost_open_city"] if self.open_city else m["paris_lost"], "Paris lost"
                )
            else:
                self.change_morale(m["paris_regained"], "Paris regained")
        elif locs[loc].zone and locs[loc].country == "FR":
            self.change_morale(m["zone_lost"] if new == AXIS else m["zone_regained"], f"Zone {name}")
        elif loc in g.french_locs:
            self.change_morale(m["area_lost"] if new == AXIS else m["area_regained"], f"Area {name}")

    def set_control(self, loc: int, side: int) -> None:
        if self.control[loc] != side:
            self.control[loc] = side
            self._control_morale(loc, side)

    def update_control(self) -> None:
        """Every location held by one side only and controlled by the other changes hands (7.2, S7)."""
        self._occ = None
        for loc, (na, nx) in enumerate(self.occupancy()):
            a, x = na > 0, nx > 0
            if a and not x:
                self.set_control(loc, ALLIED)
            elif x and not a:
                self.set_control(loc, AXIS)

    # ----------------------------------------------------------------- units

    def place(self, u: int, loc: int, reduced: bool = False) -> None:
        if self.units[u].id == "GB-BEF":
            self.bef_evacuated = False  # back on the map (rule 18.3)
        self.status[u] = MAP
        self.loc[u] = loc
        self._occ = None
        self.reduced[u] = reduced
        self.oos[u] = False  # S43: no marker until the next judgement
        self.update_control()

    def move(self, u: int, loc: int) -> None:
        self.loc[u] = loc
        self._occ = None
        self.update_control()

    def eliminate(self, u: int, why: str, permanent: bool = False) -> None:
        """Remove a unit with its Leader (10.4.5, S10); French Morale per C§7.6."""
        g = self.game
        spec = self.units[u]
        m = g.data.tables["morale"]
        self.status[u] = GONE if permanent or spec.nation in ("BE", "NL") else ELIM  # 12.3.2
        self.loc[u] = -1
        self.reduced[u] = False
        self.oos[u] = False
        if spec.id == "DE-AIRLAND":
            self.status[u] = GONE  # 18.1.4: never uses RPs
        if spec.id == "GB-BEF":
            self.bef_evacuated = False  # rule 12.3.2, S64: eliminated, not evacuated: any Allied Area
        if spec.nation == "FR":
            self.change_morale(m["french_unit_eliminated"], f"{spec.id} eliminated ({why})")
        elif spec.nation == "GB":
            self.change_morale(m["bef_eliminated"], f"{spec.id} eliminated ({why})")
        elif spec.nation == "BE":
            self.change_morale(m["belgian_army_leaves"], f"{spec.id} eliminated ({why})")
        elif spec.nation == "NL":
            self.change_morale(m["dutch_army_eliminated"], f"{spec.id} eliminated ({why})")
        elif spec.nation == "IT":
            self.change_morale(m["italian_unit_eliminated"], f"{spec.id} eliminated ({why})")
        elif spec.id == "DE-AIRLAND":
            self.change_morale(m["airlanding_eliminated"], f"{spec.id} eliminated ({why})")
        else:
            self.change_morale(m["german_unit_eliminated"], f"{spec.id} eliminated ({why})")
        if self.status[u] == GONE and u == self.kleist_unit:
            self.kleist_unit = -2  # S10: Kleist's unit is permanently gone; he never returns
        self.update_control()

    def remove(self, u: int, to_pool: bool) -> None:
        """Take a unit out of play without Morale change (Operation Dynamo, 6.1.2 uses eliminate)."""
        self.status[u] = ELIM if to_pool else GONE
        self.loc[u] = -1
        self._occ = None
        self.reduced[u] = False
        self.oos[u] = False
        self.update_control()

    def lose_step(self, u: int, why: str) -> bool:
        """Full -> Reduced, Reduced -> eliminated (10.4.4, S36). True if eliminated."""
        if self.reduced[u]:
            self.eliminate(u, why)
            return True
        self.reduced[u] = True
        return False

    def on_map(self, side: int | None = None) -> list[int]:
        gs = self.game.unit_side
        return [
            u for u in range(self.game.n_units) if self.status[u] == MAP and (side is None or gs[u] == side)
        ]

    # ---------------------------------------------------------------- supply

    def sources(self, u: int) -> frozenset[int]:
        """Supply sources of unit ``u``'s nationality (13.1, S42)."""
        g = self.game
        nat = self.units[u].nation
        if nat == "DE":
            return g.east
        if nat == "IT":
            return frozenset({g.zone_f})
        if nat == "BE":
            return g.belgian
        if nat == "NL":
            return g.dutch
        return g.supply_zones

    def traces(self, start: int, side: int, sources: frozenset[int]) -> bool:
        """A chain from ``start`` to a friendly-controlled source; every location after the first is
        friendly-controlled (Contested allowed; a Vacant enemy location blocks) (13.2.1, S42)."""
        if start in sources and self.control[start] == side:
            return True
        seen = {start}
        todo = deque([start])
        while todo:
            x = todo.popleft()
            for n, _b in self.neighbours(x):
                if n in seen or self.control[n] != side:
                    continue
                if n in sources:
                    return True
                seen.add(n)
                todo.append(n)
        return False

    def in_supply(self, u: int) -> bool:
        return self.traces(self.loc[u], self.units[u].side, self.sources(u))

    def supply_region(self, side: int, sources: frozenset[int]) -> set[int]:
        """The friendly-controlled locations joined to a friendly-controlled source through friendly-controlled
        locations: a unit traces supply (S42) iff its location or a neighbour is in this set."""
        region = {x for x in sources if self.control[x] == side}
        todo = deque(region)
        while todo:
            x = todo.popleft()
            for n, _b in self.neighbours(x):
                if n not in region and self.control[n] == side:
                    region.add(n)
                    todo.append(n)
        return region

    def judge_supply(self) -> None:
        """Set and clear Out of Supply markers for every unit of both sides (13.2, S43): one search per
        side and kind of source instead of one per unit (same answer as :meth:`in_supply`)."""
        regions: dict[tuple[int, frozenset[int]], set[int]] = {}
        for u in self.on_map():
            key = (self.units[u].side, self.sources(u))
            region = regions.get(key)
            if region is None:
                region = regions[key] = self.supply_region(*key)
            here = self.loc[u]
            self.oos[u] = not (here in region or any(n in region for n, _b in self.neighbours(here)))

    # ------------------------------------------------------------------ copy

    def clone(self) -> State:
        s = State(self.game, _blank=True)
        for f in FIELDS:
            setattr(s, f, copy.deepcopy(getattr(self, f)))
        return s

    def __str__(self) -> str:
        from ffo_env.springtime.core.notation import to_notation

        return to_notation(self)

    def to_dict(self) -> dict[str, Any]:
        from ffo_env.springtime.core.state_io import state_to_dict

        return state_to_dict(self)

    @classmethod
    def from_dict(cls, game: Game, d: dict[str, Any]) -> State:
        from ffo_env.springtime.core.state_io import state_from_dict

        return state_from_dict(d, game)

    def visible_to(self, side: int) -> dict[str, Any]:
        from ffo_env.springtime.core.visibility import visible_to

        return visible_to(self, side)

    def side_name(self, side: int) -> str:
        return SIDE_NAMES[side]
