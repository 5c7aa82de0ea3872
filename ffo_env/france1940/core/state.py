"""``State``: a position of *France, 1940* as a sequence of atomic decisions.

Each :meth:`State.apply_action` makes one choice for :attr:`State.player`; the engine then runs every
automatic step (dice, phases with nothing to decide) until the next decision (:mod:`.flow`). Legality is
decided in one place, :func:`ffo_env.france1940.core.rules.legal_actions`, used by masks, bots and the
validation of a submitted action: an illegal action raises and changes nothing. Every mutable field is a
plain JSON value, so a state saves, loads and clones exactly (:mod:`.state_io`).

This module holds the queries every rule uses: occupancy and stacking (F13), Zones of Control (F14),
fortified hexes (F25, F8), neutrality (F6), supply (F18, F19), eliminations and victory points (F39).
"""

from __future__ import annotations

import bisect
import copy
from typing import TYPE_CHECKING, Any

import numpy as np

from ffo_env.core.dice import Dice
from ffo_env.france1940.core import actions as A
from ffo_env.france1940.core.actions import IllegalActionError
from ffo_env.france1940.core.data import AGENTS, ALLIED, GERMAN
from ffo_env.france1940.core.hexgrid import N_HEXES, NEIGHBOUR_BITS, NEIGHBOURS, bits, flood_bits

if TYPE_CHECKING:
    from ffo_env.france1940.core.game import Game, UnitSpec

# unit status
OUT = 0  # not in this game (its column does not use it) or not yet arrived
MAP = 1
ELIM = 2  # destroyed (VP to the enemy, F39)
EXITED = 3  # left the map by the south edge (F16)
REMOVED = 4  # French unit removed for a German exit, or a withdrawn paratroop: no VP (F16, F41)
STATUS_NAMES = ("out", "map", "elim", "exited", "removed")
NEUTRALS = ("B", "N", "L")
BOMBERS = 98  # ``arrive`` of a Bomber Command aircraft in play (F58)

FIELDS = (
    "seed",
    "dice_state",
    "rolls",
    "columns",
    "turn",
    "phasing",
    "phase",
    "decision",
    "player",
    "arrive",
    "status",
    "hex",
    "moved",
    "supply",
    "attacked",
    "restricted",
    "ac_mission",
    "ac_hex",
    "ac_turn",
    "gse_moved_turn",
    "fort_destroyed",
    "belgian_area",
    "invaded",
    "attacked_hexes",
    "hex_weight",
    "vp",
    "log",
    "mover",
    "mp_left",
    "fort_free",
    "queue",
    "cmb",
    "owed",
    "air",
    "history",
    "result",
    "winner",
)


class State:
    """A France 1940 position. ``current_player``: 0 = the Allied (``french``) player, 1 = ``german``."""

    def __init__(self, game: Game, seed: int = 0) -> None:
        n = len(game.units)
        self.game = game
        self.seed = int(seed)
        self.dice_state = Dice(self.seed).state
        self.rolls: list[list[Any]] = []  # [what, value] for every die (F59)
        self.columns: list[str] = [game.options.allied_obac, game.options.german_obac]
        self.turn = 1
        self.phasing = GERMAN  # Germans always move first [R Sequence of Play]
        self.phase = "start"
        self.decision = "none"
        self.player = -1
        self.arrive: list[int] = [-1] * n  # -1 not in the game, 0 at start, t: reinforcement of game-turn t
        self.status: list[int] = [OUT] * n
        self.hex: list[int] = [0] * n
        self.moved: list[bool] = [False] * n
        self.supply: list[bool] = [True] * n  # judged at the start of the unit's movement phase (F18)
        self.attacked: list[bool] = [False] * n
        self.restricted: list[bool] = [False] * n  # F11
        self.ac_mission: list[str] = [""] * n  # GSE's Aircraft Element: "" on the ground, cap/int/cs/sup
        self.ac_hex: list[int] = [0] * n
        self.ac_turn: list[int] = [0] * n  # game-turn of its last take-off (F31)
        self.gse_moved_turn: list[int] = [0] * n
        self.fort_destroyed: list[int] = []
        self.belgian_area = True  # F8
        self.invaded: list[str] = []
        self.attacked_hexes: list[int] = []
        self.hex_weight: dict[str, int] = {}  # weight that attacked from a hex this Combat Phase (F22)
        self.vp: list[int] = [0, 0]
        self.log: list[list[Any]] = []  # [event, unit id or hex, detail]
        self.mover = -1
        self.mp_left = 0
        self.fort_free = -1  # BEF: free fortress steps of the current move, -1 when none may be taken (F47)
        self.queue: list[dict[str, Any]] = []  # pending sub-decisions: retreats, losses, placements
        self.cmb: dict[str, Any] | None = None
        self.air: dict[str, Any] = {}  # Air Superiority allotments of the current step (F35)
        self.owed = 0  # French defence still to remove for German exits (F16)
        self.history: list[list[Any]] = []  # [player, action, auto]
        self.result = ""
        self.winner = -1
        self._occ: dict[int, list[int]] | None = None
        self._side_at: dict[int, int] = {}  # with _occ (_index_hexes)
        self._stack: dict[int, int] = {}
        self._regions: dict[tuple[int, str], int] = {}  # supply regions as bit sets
        self._zoc: dict[int, set[int]] = {}
        self._ezs: dict[tuple[int, bool], frozenset[int]] = {}  # enemy_zoc_for_supply, by (side, retreat)
        self._legal: list[int] | None = None  # the legal actions of the current decision, once computed

    # ------------------------------------------------------------------ construction
    @classmethod
    def initial(cls, game: Game, seed: int = 0) -> State:
        from ffo_env.france1940.core import flow

        s = cls(game, seed)
        flow.start(s)
        return s

    # ------------------------------------------------------------------ the GameState protocol
    @property
    def current_player(self) -> int:
        return self.player

    @property
    def current_agent(self) -> str:
        return AGENTS[self.player] if self.player in (0, 1) else ""

    def legal_actions(self) -> list[int]:
        from ffo_env.france1940.core.rules import legal_actions

        if self._legal is None:
            self._legal = legal_actions(self)
        return list(self._legal)

    def legal_action_mask(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        m = np.zeros(A.N_ACTIONS, dtype=bool)
        m[self.legal_actions()] = True
        return m

    def check_action(self, action: object) -> int:
        """``action`` as a legal int, or IllegalActionError naming it and the decision."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"an action is an integer, found {action!r}")
        a = int(action)
        if self.is_terminal():
            raise IllegalActionError(f"the game is over; action {a} not applied")
        if a not in self.legal_actions():
            raise IllegalActionError(
                f"action {a} ({A.describe(a, self.game.unit_ids)}) is not legal at {self.decision_string()}"
            )
        return a

    def apply_action(self, action: int) -> None:
        from ffo_env.france1940.core import flow

        a = self.check_action(action)
        flow.apply(self, a)

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def returns(self) -> list[float]:
        if self.winner < 0:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == ALLIED else [-1.0, 1.0]

    def clone(self) -> State:
        s = State.__new__(State)
        for f in FIELDS:
            setattr(s, f, copy.deepcopy(getattr(self, f)))
        s.game = self.game
        s.touch()  # the caches start empty
        s._legal = None
        return s

    def to_dict(self) -> dict[str, Any]:
        from ffo_env.france1940.core.state_io import state_to_dict

        d: dict[str, Any] = state_to_dict(self)
        return d

    def action_to_string(self, a: int) -> str:
        return A.describe(int(a), self.game.unit_ids)

    def decision_string(self) -> str:
        who = self.current_agent or "-"
        extra = ""
        if self.decision == "step" and self.mover >= 0:
            extra = f" {self.uid(self.mover)}@{self.hex[self.mover]} mp={self.mp_left}"
        elif self.queue:
            q = self.queue[0]
            if "unit" in q:
                extra = f" {self.uid(q['unit'])}"
        return f"GT{self.turn} {AGENTS[self.phasing]} {self.phase} {self.decision}{extra} ({who})"

    # ------------------------------------------------------------------ dice (F59)
    def roll(self, what: str) -> int:
        d = Dice(state=self.dice_state)
        v = d.roll()
        self.dice_state = d.state
        self.rolls.append([what, v])
        return v

    def draw(self, n: int, what: str) -> int:
        d = Dice(state=self.dice_state)
        v = d.below(n)
        self.dice_state = d.state
        self.rolls.append([what, v])
        return v

    # ------------------------------------------------------------------ units and hexes
    def spec(self, u: int) -> UnitSpec:
        return self.game.units[u]

    def uid(self, u: int) -> str:
        return self.game.unit_ids[u]

    def side_of(self, u: int) -> int:
        return self.game.unit_side[u]

    def touch(self) -> None:
        """Positions (or ZOC, fortresses, neutrality, aircraft) changed: drop the caches."""
        self._occ = None
        self._regions = {}
        self._zoc = {}
        self._ezs = {}

    def _index_hexes(self) -> dict[int, list[int]]:
        """Who is where, and with it each occupied hex's side and stack count: the movement and combat rules
        ask these of every hex next to every unit, so they are read off one pass over the counters."""
        occ: dict[int, list[int]] = {}
        for u, st in enumerate(self.status):
            if st == MAP:
                occ.setdefault(self.hex[u], []).append(u)
        self._side_at, self._stack = {}, {}
        for h, us in occ.items():
            self._hex_facts(h, us)
        self._occ = occ
        return occ

    def _hex_facts(self, h: int, here: list[int]) -> None:
        """Record occupied hex ``h``'s side and stack count from its units ``here`` (non-empty)."""
        units = self.game.units
        self._side_at[h] = units[here[0]].side  # enemy units never share a hex (F13)
        self._stack[h] = sum(0 if units[u].is_para else 1 for u in here)  # paratroops count zero (F13)

    def occupants(self, h: int) -> list[int]:
        occ = self._occ
        if occ is None:
            occ = self._index_hexes()
        return occ.get(h, [])

    def side_at(self, h: int) -> int:
        """The side whose units are in ``h`` (-1 if empty); enemy units never share a hex (F13)."""
        if self._occ is None:
            self._index_hexes()
        return self._side_at.get(h, -1)

    def on_map(self, side: int) -> list[int]:
        return [u for u in self.game.side_units[side] if self.status[u] == MAP]

    def stack_count(self, h: int) -> int:
        """Units counting against the three-unit limit (F13): paratroops count zero."""
        if self._occ is None:
            self._index_hexes()
        return self._stack.get(h, 0)

    def move_unit(self, u: int, h: int) -> None:
        occ = self._occ
        old = self.hex[u]
        self.hex[u] = h
        self.touch()
        if occ is None:
            return
        # the index of who is where outlives a move, which changes two of its hexes (movement asks it of
        # every hex next to every unit after every step); each hex's list stays in counter order
        if u in occ.get(old, ()):
            occ[old].remove(u)
        if self.status[u] == MAP:
            bisect.insort(occ.setdefault(h, []), u)
        for x in (old, h):
            here = occ.get(x)
            if here:
                self._hex_facts(x, here)
            else:
                occ.pop(x, None)
                self._side_at.pop(x, None)
                self._stack.pop(x, None)
        self._occ = occ

    # ------------------------------------------------------------------ strengths (F20, F23, F30, F38)
    def attack_strength(self, u: int, fortified_target: bool, supplied: bool) -> int:
        t = self.spec(u).type
        if t.symbol == "artillery":
            a = t.attack if fortified_target else 0  # [R German Artillery], F30
        elif t.symbol in ("gse", "paratroop"):
            a = 0  # F38, F41
        else:
            a = t.attack
        return a if supplied else a // 2  # [R Supply (A)], F20

    def defence_strength(self, u: int, supplied: bool) -> int:
        d = self.spec(u).type.defence
        return d if supplied else d // 2

    def ma(self, u: int) -> int:
        m = self.spec(u).type.ma
        return m if self.supply[u] else m // 2  # F12, F20

    # ------------------------------------------------------------------ fortified hexes (F25, F8, F44)
    def fort_active(self, h: int) -> bool:
        f = self.game.data.fortified.get(h)
        if f is None or h in self.fort_destroyed:
            return False
        if f.kind == "maginot":
            return self.columns[ALLIED] not in self.game.data.maginot_clear  # C, E: clear terrain (F44)
        return self.belgian_area  # F8

    def fort_side(self, h: int, attacker_hexes: list[int]) -> int:
        """Intrinsic strength of fortified ``h`` against attackers adjacent from ``attacker_hexes`` (F25)."""
        f = self.game.data.fortified[h]
        tec = self.game.data.tables["tec"]
        adj = [x for x in attacker_hexes if x in NEIGHBOURS[h]]
        front = all(x in f.front for x in adj)  # artillery from two hexes away counts neither way
        return int(tec["fort_front"] if front else tec["fort_rear"])

    # ------------------------------------------------------------------ neutrality (F6)
    def closed_to(self, u: int, h: int) -> bool:
        """May unit ``u`` not enter / retreat into / trace supply through ``h``? (F6 c, F12, F25)."""
        spec = self.spec(u)
        if spec.side == GERMAN:
            return self.fort_active(h)  # German units never enter an undestroyed fortified hex (F25)
        return self.closed_to_home(spec.home, h)

    def closed_to_home(self, home: str, h: int) -> bool:
        cs = self.game.data.countries[h]
        if home in cs:
            return False  # P12: a unit's own country (and its border hexes) is never closed to it
        return any(c in NEUTRALS and c not in self.invaded for c in cs)

    def invade(self, countries: frozenset[str] | set[str], why: str) -> None:
        for c in sorted(countries):
            if c in NEUTRALS and c not in self.invaded:
                self.invaded.append(c)
                self.touch()
                self.log.append(["invaded", c, why])

    def invades_on_entry(self, h: int) -> set[str]:
        """Countries a German unit invades by entering ``h`` (F6 a): not border hexes shared with Germany."""
        cs = self.game.data.countries[h]
        return set() if "G" in cs else {c for c in cs if c in NEUTRALS}

    # ------------------------------------------------------------------ Zones of Control (F14, F33)
    def in_air_play(self, u: int) -> bool:
        """Can ``u``'s aircraft be in the air: a GSE on the map, or a Bomber Command aircraft (F58)."""
        return self.status[u] == MAP or (self.status[u] == OUT and self.arrive[u] == BOMBERS)

    def exerts_zoc(self, u: int) -> bool:
        spec = self.spec(u)
        if spec.is_gse or spec.is_para or spec.is_base:
            return False  # [R Air Units (E)], [R Optional (G)]
        if spec.nation in ("BE", "NL") and spec.home not in self.invaded:
            return False  # F6 b
        return True

    def zoc_hexes(self, side: int) -> set[int]:
        """Hexes controlled by ``side``'s ground units and interdicting aircraft (for movement, F14)."""
        if side in self._zoc:
            return self._zoc[side]
        out: set[int] = set()
        for u in self.game.side_units[side]:
            if self.status[u] == MAP and self.exerts_zoc(u):
                out.update(NEIGHBOURS[self.hex[u]])
            if self.ac_mission[u] == "int" and self.in_air_play(u):
                out.add(self.ac_hex[u])  # F33: an interdicted hex is a one-hex ZOC
        self._zoc[side] = out
        return out

    def enemy_zoc_for_supply(self, side: int, retreat: bool = False) -> frozenset[int]:
        """Enemy-controlled hexes for ``side``'s supply and retreats: not into hexes holding ``side``'s
        units, nor (Allied) into undestroyed fortified hexes ([R Zones of Control (E)], F14, F33). Kept until
        :meth:`touch` (the expert asks it for every retreat of every attack it weighs)."""
        key = (side, retreat)
        if key not in self._ezs:
            self._ezs[key] = frozenset(self._enemy_zoc_for_supply(side, retreat))
        return self._ezs[key]

    def _enemy_zoc_for_supply(self, side: int, retreat: bool) -> set[int]:
        enemy = 1 - side
        out: set[int] = set()
        for u in self.game.side_units[enemy]:
            if not self.in_air_play(u):
                continue
            if self.status[u] == MAP and self.exerts_zoc(u):
                out.update(NEIGHBOURS[self.hex[u]])
            if self.ac_mission[u] == "int" and (not retreat or self.game.options.interdiction_blocks_retreat):
                out.add(self.ac_hex[u])
        return {h for h in out if self.side_at(h) != side and not (side == ALLIED and self.fort_active(h))}

    # ------------------------------------------------------------------ supply (F18, F19)
    def passable(self, side: int, home: str) -> int:
        """Playable hexes (a bit set, :mod:`hexgrid`) a unit of ``side`` at home in ``home`` may trace supply
        through, before enemy units and ZOC: for German units not an undestroyed fortified hex (F25), for
        Allied units not a neutral country closed to them (F6 c, P12). It depends on the fortresses and
        neutrality alone, which change a few times a game, so the game keeps it for every state that shares
        them."""
        if side == GERMAN:
            maginot = self.columns[ALLIED] not in self.game.data.maginot_clear
            key: tuple[Any, ...] = (GERMAN, maginot, self.belgian_area, frozenset(self.fort_destroyed))
        else:
            key = (ALLIED, home, frozenset(self.invaded))
        got = self.game.passable_cache.get(key)
        if got is None:
            d = self.game.data
            hexes = [h for h in range(1, N_HEXES + 1) if d.playable(h)]
            if side == GERMAN:
                got = bits(h for h in hexes if not self.fort_active(h))
            else:
                got = bits(h for h in hexes if not self.closed_to_home(home, h))
            self.game.passable_cache[key] = got
        return got

    def supply_edge(self, side: int) -> int:
        """The map edge ``side``'s units trace supply to (F18), a bit set."""
        got = self.game.passable_cache.get(("edge", side))
        if got is None:
            d = self.game.data
            got = bits(d.german_edge if side == GERMAN else d.allied_south_edge + d.allied_west_edge)
            self.game.passable_cache["edge", side] = got
        return got

    def supply_region(self, side: int, home: str) -> int:
        """Hexes (a bit set) from which a unit of ``side`` at home in ``home`` reaches its supply edge (F18)."""
        # enemy units and enemy ZOC block the trace; one set, since enemy units never share a hex (F13)
        blocked = bits(self.enemy_zoc_for_supply(side)) | bits(
            self.hex[u] for u in self.game.side_units[1 - side] if self.status[u] == MAP
        )
        good = self.passable(side, home) & ~blocked
        return flood_bits(good, self.supply_edge(side) & good)

    def judge_supply(self, units: list[int]) -> dict[int, bool]:
        """Supply of ``units`` now (F18), fortress supply for Allied units that miss an edge (F19)."""
        out: dict[int, bool] = {}
        needy: list[int] = []
        for u in units:
            spec = self.spec(u)
            key = (spec.side, "G" if spec.side == GERMAN else spec.home)
            if key not in self._regions:
                self._regions[key] = self.supply_region(spec.side, key[1])
            reg = self._regions[key]
            h = self.hex[u]
            # P6: a unit on its edge is in supply
            ok = bool(self.supply_edge(spec.side) >> h & 1 or reg & NEIGHBOUR_BITS[h])
            out[u] = ok
            if not ok and spec.side == ALLIED:
                needy.append(u)
        if needy:
            self._fortress_supply(needy, out)
        return out

    def _fortress_supply(self, needy: list[int], out: dict[int, bool]) -> None:
        """F19 (P5): each undestroyed Maginot hex (and, with the airborne rule, Belgian fortified hex)
        supplies one corps-equivalent; the engine assigns units in the fortress first, then the others in
        roster order to the first fortress (in hex order) with room that they can reach."""
        forts = [h for h in sorted(self.game.data.fortified) if self.fort_active(h)]
        forts = [
            h
            for h in forts
            if self.game.data.fortified[h].kind == "maginot" or self.game.options.optional_airborne
        ]
        if not forts:
            return
        ezoc = bits(self.enemy_zoc_for_supply(ALLIED))
        german = bits(self.hex[u] for u in self.game.side_units[GERMAN] if self.status[u] == MAP)
        room = {f: 3 for f in forts}
        inside = sorted((u for u in needy if self.hex[u] in room), key=lambda u: u)
        for u in inside:  # units in the fortress count against it ([R Supply (C)], F19): served first
            w = self.spec(u).type.weight
            if room[self.hex[u]] >= w:
                room[self.hex[u]] -= w
                out[u] = True
        reach: dict[tuple[int, str], int] = {}
        for u in needy:
            h = self.hex[u]
            if h in room:
                continue
            w = self.spec(u).type.weight
            home = self.spec(u).home
            for f in forts:
                if room[f] < w:
                    continue
                # through Allied-held, uncontrolled hexes open to the unit's own home (F6 c), so one region
                # per fortress and home: a French unit asking first must not close Belgium to a Belgian one
                if (f, home) not in reach:
                    reach[f, home] = flood_bits(self.passable(ALLIED, home) & ~ezoc & ~german, 1 << f)
                if reach[f, home] & NEIGHBOUR_BITS[h]:
                    room[f] -= w
                    out[u] = True
                    break

    # ------------------------------------------------------------------ losses and victory points (F39)
    def unit_vp(self, u: int) -> int:
        """Victory points the enemy scores when ``u`` is destroyed ([R Standard Game Victory Conditions])."""
        spec = self.spec(u)
        vic = self.game.data.tables["victory"]
        if spec.is_base:
            return 0  # F58 (P16): the bombers, destroyed with it, score 2 each
        if spec.is_gse or spec.is_bomber:
            return int(vic["vp_air"])
        if spec.side == ALLIED:
            return int(vic["vp_british"] if spec.nation == "GB" else vic["vp_unit"])
        o = self.game.options
        if o.bef_variant and spec.type.symbol in ("armor", "mech_inf"):  # F57
            per = (
                vic["bef_armor_vp_per_factor"]
                if spec.type.symbol == "armor"
                else vic["bef_mech_inf_vp_per_factor"]
            )
            bonus = int(per) * spec.type.attack
            return bonus + (int(vic["vp_unit"]) if o.bef_armor_vp_mode == "add" else 0)
        return int(vic["vp_unit"])

    def destroy(self, u: int, why: str) -> None:
        """``u`` is destroyed: off the map, VP to the enemy; a GSE takes its Aircraft Element (F38, F39)."""
        if self.status[u] != MAP:
            return
        self.status[u] = ELIM
        self.hex[u] = 0
        self.ac_mission[u] = ""  # the Aircraft Element dies with its GSE wherever it is ([R Air Units (E)])
        self.ac_hex[u] = 0
        self.touch()
        self.vp[1 - self.side_of(u)] += self.unit_vp(u)
        self.log.append(["destroyed", self.uid(u), why])
        if self.spec(u).is_base:  # F58: the bomber base takes both bombers with it
            for b in self.game.side_units[ALLIED]:
                if self.spec(b).is_bomber and self.in_air_play(b):
                    self.status[b] = MAP  # so that destroy() applies to it
                    self.destroy(b, "bomber base destroyed")

    def remove(self, u: int, status: int, why: str) -> None:
        """Off the map without VP (German exits, French removals, withdrawn paratroops; F16, F41)."""
        self.status[u] = status
        self.hex[u] = 0
        self.ac_mission[u] = ""
        self.ac_hex[u] = 0
        self.touch()
        self.log.append([STATUS_NAMES[status], self.uid(u), why])

    def paris_held(self) -> bool:
        """A German ground combat unit with defence >= 1 in a Paris hex (F39)."""
        for h in self.game.data.paris:
            for u in self.occupants(h):
                spec = self.spec(u)
                if spec.side == GERMAN and not spec.is_gse and not spec.is_para and spec.type.defence >= 1:
                    return True
        return False

    def require(self, ok: bool, what: str) -> None:
        if not ok:
            raise IllegalActionError(what)
