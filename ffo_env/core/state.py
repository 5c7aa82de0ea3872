"""``State``: a France Fights On position as a sequence of atomic decisions.

The turn sequence of rule 5.1 is a state machine. Each call of
:meth:`State.apply_action` makes one choice for the side named by
:attr:`State.current_side` (the owner of a retreat, step loss or over-stack
decision is the side that owns it, even in the other side's phase); the engine
then runs every automatic step (dice, phases with nothing to decide) until the
next decision. Legality is decided in one place, :meth:`State.legal_actions`,
which the environment masks, the bots and the validation of a submitted action
all use.

Dice come from the state's own generator (R37) and every roll is logged in
:attr:`State.dice_log` with what it decided.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Mapping
from enum import IntEnum
from types import MappingProxyType
from typing import Any

import numpy as np

from ffo_env.core import hexgrid as hg
from ffo_env.core.actions import IllegalActionError, Special
from ffo_env.core.combat_odds import (
    BattlePreview,
    attack_strength,
    battle_preview,
    city_die_applies,
    known_shifts,
)
from ffo_env.core.dice import Dice
from ffo_env.core.game import ENGINE_VERSION, Game, RulesOptions
from ffo_env.core.mapdata import ColoredRow
from ffo_env.core.scenario import Side, UnitSpec
from ffo_env.core.search import Reach, bits_to_mask, flood_bits, mask_to_bits, rail_route, reachable
from ffo_env.core.visibility import SeenStack, seen_stack

FRENCH = Side.FRENCH
GERMAN = Side.GERMAN


class Phase(IntEnum):
    SETUP_FRENCH = 0  # rule 3.3, R2
    SETUP_GERMAN = 1  # rule 3.4, R2
    EVACUATION = 2  # I.A, rule 11.6
    FRENCH_MOVEMENT = 3  # I.B
    FRENCH_COMBAT = 4  # I.C
    REFUGEE_RECOVERY = 5  # I.D, rule 10.5
    PANZER_SCARE = 6  # I.E, rule 7.9
    GERMAN_ORDER = 7  # start of II, rule 5.6
    REPLACEMENT = 8  # II.A, rule 8.2
    LUFTWAFFE = 9  # II.B, rule 12.4
    GERMAN_MOVEMENT = 10  # II.C or II.D
    GERMAN_COMBAT = 11  # II.D or II.C
    REPLACEMENT_COMPLETION = 12  # II.E, rule 8.3
    REINFORCEMENT = 13  # II.F, rule 9
    REFUGEE_PLACEMENT = 14  # II.G, rule 10.1
    SCARE_REMOVAL = 15  # II.H, rule 7.9
    GAME_OVER = 16


class Decision(IntEnum):
    NONE = 0  # terminal
    SETUP_UNIT = 1  # unit to place next (R2)
    SETUP_HEX = 2  # hex for it
    GERMAN_ORDER = 3  # move-first / fight-first (rule 5.6)
    EVACUATE = 4  # unit to evacuate, or pass (rule 11.6)
    RAIL_UNIT = 5  # unit to rail, or pass (rule 11.7)
    RAIL_DEST = 6  # destination city
    MOVE_UNIT = 7  # unit to move, or end the phase (R13)
    MOVE_DEST = 8  # destination hex (own hex = stay)
    ATTACK_TARGET = 9  # target hex, or end the phase (R22.1)
    ATTACK_ADD = 10  # attacking unit, or done (R22.2)
    SUPPORT_ATTACK = 11  # R22.4
    SUPPORT_DEFENCE = 12  # R22.5
    LOWER = 13  # R22.7, rule 13.19
    STEP_LOSS = 14  # BB loss (rule 13.7, R29)
    RETREAT = 15  # retreat hex of one unit (rule 13.6, R28)
    ADVANCE_UNIT = 16  # unit to advance, or done (rule 13.2, R31)
    ADVANCE_SECOND = 17  # second hex of a German mechanized advance, or stay
    AIR_TARGET = 18  # Luftwaffe air-only strike target, or pass (rule 12.4)
    REPLACEMENT = 19  # unit to designate, or pass (rule 8.2)
    REINFORCE_HEX = 20  # entry hex of a reinforcement (rule 9, R34)
    REFUGEE_HEX = 21  # refugee marker hex (rule 10.2, R35)
    SCARE_UNIT = 22  # German unit that gets the panzer scare (rule 7.9)
    OVERSTACK_REMOVE = 23  # unit removed from an over-stacked hex by the opponent (rule 6.5, R9)
    # internal, never seen by an agent
    ENTER = 90
    END_PHASE = 91


# unit status
RESERVE = 0  # not placed yet (setup) or a reinforcement off map
ON_MAP = 1
DEAD = 2
EVACUATED = 3
STATUS_NAMES = ("reserve", "on_map", "dead", "evacuated")

_FRENCH_TURN = (Phase.EVACUATION, Phase.FRENCH_MOVEMENT, Phase.FRENCH_COMBAT, Phase.REFUGEE_RECOVERY,
                Phase.PANZER_SCARE)


class State:
    """A game position. Create with ``Game.new_initial_state(seed)``."""

    # ------------------------------------------------------------------ init

    def __init__(self, game: Game, seed: int = 0, *, _blank: bool = False, _start: bool = True) -> None:
        # _blank: no attributes at all (clone/from_dict fill them in); _start=False: every attribute
        # initialised but the state machine not run (ffo_env.core.notation builds test positions so)
        self.game = game
        if _blank:
            return
        sc = game.scenario
        n = len(sc.units)
        self.seed = int(seed)
        self.dice = Dice(self.seed)
        self.turn = 1
        self.phase = Phase.SETUP_FRENCH
        self.decision = Decision.ENTER
        self.player = FRENCH
        self.ctx: dict[str, Any] = {}
        self.loc = [-1] * n
        self.status = [RESERVE] * n
        self.steps = [u.steps for u in sc.units]
        self.moved = [False] * n  # this movement phase (rule 11.3)
        self.attacked = [False] * n  # this combat phase (R23)
        self.no_attack = [False] * n  # rail (rule 11.7) or replacement (rule 8.2) this game turn
        self.immobile = [False] * n  # failed rail (rule 11.7) or replacement (rule 8.2)
        self.must_leave = [False] * n  # R7: 18th Army / green-row units must leave green+red rows
        self.left_green = [False] * n  # rule 9.2: 18th Army units "then stay out"
        self.entered_map = [False] * n  # rule 9.5: west-group unit has left the yellow row
        self.entry_ready = [False] * n  # R34: rolled in, no free hex yet
        self.stacks: dict[int, list[int]] = {}
        nh = hg.N_HEX
        mt = game.tables
        # rule 3.7: all hexes French except the green and yellow rows
        self.control = bytearray(
            1 if mt.row[i] in (ColoredRow.GREEN, ColoredRow.YELLOW) else 0 for i in range(nh)
        )
        self.ever_german = bytearray(nh)  # rule 7.8, 11.7, R20
        self.refugees: dict[int, bool] = {}  # hex -> flipped this phase (rule 10.4)
        self.revealed: tuple[set[int], set[int]] = (set(), set())  # rule 3.6, R3
        self.vp = 0
        self.vp_log: list[dict[str, Any]] = []
        self.stuka_used = False  # this game turn (R32)
        self.naval_used = [False, False]  # French, British markers this game turn (R32)
        self.scare_ever = False  # R36
        self.scare_unit = -1
        self.replacement_unit = -1
        self.german_move_first = True
        self.oos_roll: dict[int, int] = {}  # hex -> MP die this phase (R12)
        self.dice_log: list[dict[str, Any]] = []
        self.rail_log: list[dict[str, Any]] = []  # R17: the route of every rail move, for the record
        self.history: list[tuple[int, int, bool]] = []  # (side, action, auto)
        self.last_dice: list[int] = []
        self.winner: int | None = None
        self._pos_version = [0, 0]
        self._port_version = 0  # bumped when a naval garrison enters or leaves the map (rule 7.8)
        # derived data, one slot per kind: kind -> (key of the position versions it was made from, value)
        self._cache: dict[Any, tuple[Any, Any]] = {}
        self._legal: list[int] | None = None
        if _start:
            self._run_automatic_steps()

    # ------------------------------------------------------------- accessors

    @property
    def units(self) -> tuple[UnitSpec, ...]:
        return self.game.scenario.units

    @property
    def current_side(self) -> Side:
        return self.player

    @property
    def current_agent(self) -> str:
        return self.player.agent

    def is_terminal(self) -> bool:
        return self.phase == Phase.GAME_OVER

    def returns(self) -> list[float]:
        """Zero-sum result ``[french, german]``: +1 for the winner (rule 4.3), 0 before the end."""
        if not self.is_terminal():
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == FRENCH else [-1.0, 1.0]

    def units_at(self, h: int) -> list[int]:
        return self.stacks.get(h, [])

    def side_at(self, h: int) -> int:
        st = self.stacks.get(h)
        if not st:
            return -1
        return self.units[st[0]].side

    def cf(self, u: int) -> int:
        spec = self.units[u]
        return spec.cf_full if self.steps[u] == spec.steps else spec.cf_reduced

    def is_full(self, u: int) -> bool:
        return self.steps[u] == self.units[u].steps

    def mf(self, u: int) -> int:
        spec = self.units[u]
        t = self.game.scenario.tables.movement_factor
        if spec.static:
            return t["static"]
        return t["mechanized"] if spec.mechanized else t["non_mechanized"]

    def on_map_units(self, side: Side | int | None = None) -> list[int]:
        st = self.status
        if side is None:
            return [u for u in range(len(st)) if st[u] == ON_MAP]
        # a unit's status changes only as it enters or leaves the map (_place, _lift), which bump
        # its side's position version
        kind = "onmap1" if side else "onmap0"
        key = self._pos_version[side]
        hit: tuple[Any, list[int]] | None = self._cache.get(kind)
        if hit is not None and hit[0] == key:
            return list(hit[1])
        out = [u for u in self.game.side_unit_list[side] if st[u] == ON_MAP]
        self._cache[kind] = (key, out)
        return list(out)

    def vp_breakdown(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for e in self.vp_log:
            out[e["kind"]] = out.get(e["kind"], 0) + e["vp"]
        return out

    # ---------------------------------------------------------- rule queries
    # Public questions about the state, answered by the engine's own code: encoder, bots, renderers and
    # tests ask these instead of reading the phases' working data.

    def controller(self, h: int) -> Side:
        """The side controlling hex ``h`` (rule 3.7)."""
        return Side(self.control[h])

    def movement_points(self, u: int) -> int | None:
        """MP unit ``u`` has to move with this phase: its MF if supplied, else the OOS die of its hex
        (rules 7.1, 7.3, R11, R12); ``None`` while that die is not rolled yet."""
        if self._supplied_for_action(u):
            return self.mf(u)
        return self.oos_roll.get(self.loc[u])

    def french_units_left(self) -> int:
        """French units on the map or still to come: when none is left the game ends (rule 4.1, R21)."""
        status = self.status
        return sum(1 for u in self.game.side_unit_list[FRENCH] if status[u] in (ON_MAP, RESERVE))

    def destroying_ends_game(self, h: int) -> bool:
        """Would wiping out the stack in ``h`` remove the last French unit before the last game turn,
        with French cities still to count for France (rules 4.1, 4.3, R21)? Stack sizes are public (R3)."""
        st = self.stacks.get(h)
        if not st or self.game.unit_side[st[0]] != FRENCH or self.turn >= self.game.scenario.tables.last_turn:
            return False
        if len(st) < self.french_units_left():
            return False
        return any(self.control[c] == FRENCH for c in self.game.tables.city_hexes)

    def seen_stack(self, viewer: int, h: int) -> SeenStack | None:
        """The stack in ``h`` as ``viewer`` sees it (rule 3.6, R3); see :mod:`ffo_env.core.visibility`."""
        return seen_stack(self, viewer, h)

    def selected_unit(self) -> int:
        """The unit chosen to be placed, moved or railed and awaiting its hex, else -1."""
        return int(self.ctx.get("unit", -1))

    def decision_unit(self) -> int:
        """The unit the pending hex decision is about (placed, moved, railed, retreating, advancing on,
        entering), else -1."""
        d = self.decision
        if d in (Decision.MOVE_DEST, Decision.RAIL_DEST, Decision.SETUP_HEX):
            return self.selected_unit()
        b = self.ctx.get("battle")
        if d == Decision.RETREAT:
            return int(b["retreat_queue"][0]) if b else -1
        if d == Decision.ADVANCE_SECOND:
            return int(b.get("second", -1)) if b else -1
        if d == Decision.REINFORCE_HEX:
            ent = self.ctx.get("entering")
            return int(ent[0]) if ent else -1
        return -1

    def move_destinations(self) -> Mapping[int, Reach]:
        """At MOVE_DEST: every destination of the unit moving, with its MP cost, refugee VP and path (R13)."""
        return MappingProxyType(self.ctx.get("dests", {}))

    def moving_mp(self) -> int | None:
        """MP of the unit choosing its destination (MOVE_DEST), else ``None``."""
        mp = self.ctx.get("mp")
        return None if mp is None else int(mp)

    def rail_options(self) -> Mapping[int, list[int]]:
        """At RAIL_UNIT: units that may attempt a rail move and their destination cities (rule 11.7, R17)."""
        return MappingProxyType(self.ctx.get("rail", {}))

    def refugees_left(self) -> int:
        """Refugee markers still to place this phase (rule 10.2)."""
        return int(self.ctx.get("refugees_left", 0))

    @property
    def battle(self) -> Mapping[str, Any] | None:
        """The battle being fought (public, read-only): target, attacker, air, attackers, defenders, and as
        the battle goes on supply (R11), support, att_cf/def_cf/differential/shifts/column (R26), result."""
        b = self.ctx.get("battle")
        return None if b is None else MappingProxyType(b)

    def last_battle_result(self) -> str | None:
        """The CRT result of the last battle fought this phase, if any."""
        lb = self.ctx.get("last_battle")
        return lb.get("result") if lb else None

    def battles_fought(self) -> tuple[Mapping[str, Any], ...]:
        """The battles resolved this combat phase: target, final column, die, result, air (rules 13.12, 13.19)."""
        return tuple(MappingProxyType(x) for x in self.ctx.get("log", ()))

    def attacked_hexes(self) -> tuple[int, ...]:
        """Hexes attacked so far this combat phase (R23)."""
        return tuple(self.ctx.get("attacked_hexes", ()))

    # ------------------------------------------------------------- decisions

    def legal_actions(self) -> list[int]:
        """Legal actions of the current decision, sorted. The one definition of legality."""
        if self._legal is None:
            self._legal = sorted(self._compute_legal())
        return self._legal

    def legal_action_mask(self) -> bytearray:
        mask = bytearray(self.game.layout.n_actions)
        for a in self.legal_actions():
            mask[a] = 1
        return mask

    def apply_action(self, action: int) -> None:
        """Make the current decision. ``action`` must be an int or numpy integer (else ``TypeError``); out of
        range or not legal raises :class:`IllegalActionError` (a ``ValueError``). Either way the state is unchanged."""
        a = self._checked_action(action)
        if self.phase == Phase.GAME_OVER:
            raise IllegalActionError("the game is over; no action is legal")
        legal = self.legal_actions()
        if not _contains(legal, a):
            raise IllegalActionError(
                f"action {a} ({self.game.layout.describe(a, self._unit_ids()) if 0 <= a < self.game.layout.n_actions else 'out of range'})"
                f" is not legal for {self.player.agent} at {self.decision.name} in {self._where()};"
                f" {len(legal)} legal actions, e.g. {[self.action_to_string(x) for x in legal[:5]]}"
            )
        self._apply_decision(a, auto=False)
        self._run_automatic_steps()

    def _checked_action(self, action: object) -> int:
        """``action`` as an int in the action space, or a clear error naming it and the decision.

        Only integers are actions: ``int(1379.9)`` or ``int("1379")`` would silently play another action.
        """
        if type(action) is int and 0 <= action < self.game.layout.n_actions:  # the common case, fast
            return action
        if isinstance(action, np.ndarray) and action.ndim == 0:
            action = action[()]
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"action {action!r} ({type(action).__name__}) is not an integer; an action is an int"
                            f" in [0, {self.game.layout.n_actions}) ({self.player.agent} at {self.decision.name}"
                            f" in {self._where()})")
        a = int(action)
        if not 0 <= a < self.game.layout.n_actions:
            raise IllegalActionError(f"action {a} is outside the action space [0, {self.game.layout.n_actions})"
                                     f" ({self.player.agent} at {self.decision.name} in {self._where()})")
        return a

    def _unit_ids(self) -> tuple[str, ...]:
        return tuple(u.id for u in self.units)

    def _where(self) -> str:
        return f"turn {self.turn} {self.phase.name}"

    def _apply_decision(self, a: int, auto: bool) -> None:
        self.history.append((int(self.player), a, auto))
        self._legal = None
        handler = _APPLY[self.decision]
        handler(self, a)
        self._legal = None

    def _run_automatic_steps(self) -> None:
        """Run automatic steps until an agent decision is pending or the game is over."""
        skip = self.game.options.skip_forced
        while True:
            self._legal = None
            d = self.decision
            if self.phase == Phase.GAME_OVER:
                self.decision = Decision.NONE
                return
            if d == Decision.ENTER:
                self._enter_phase()
                continue
            if d == Decision.END_PHASE:
                self._end_phase()
                continue
            legal = self.legal_actions()
            if not legal:
                raise RuntimeError(f"engine error: no legal action at {d.name} in {self._where()}")
            if skip and len(legal) == 1:
                self._apply_decision(legal[0], auto=True)
                continue
            return

    def _set(self, decision: Decision, side: Side | int) -> None:
        self.decision = decision
        self.player = Side(side)
        self._legal = None

    # ------------------------------------------------------------------ dice

    def _roll(self, purpose: str) -> int:
        v = self.dice.roll()
        self.dice_log.append({"i": len(self.dice_log), "die": v, "for": purpose, "turn": self.turn,
                              "phase": self.phase.name})
        self.last_dice.append(v)
        if len(self.last_dice) > 8:
            del self.last_dice[0]
        return v

    def _pick(self, n: int, purpose: str) -> int:
        """A uniform choice 0..n-1 from the game's generator (random setup), logged like a die."""
        v = self.dice.below(n)
        self.dice_log.append({"i": len(self.dice_log), "pick": v, "of": n, "for": purpose, "turn": self.turn,
                              "phase": self.phase.name})
        return v

    # ------------------------------------------------------------------ VP

    def _award(self, vp: int, kind: str, detail: str) -> None:
        if vp == 0:
            return
        self.vp += vp
        self.vp_log.append({"turn": self.turn, "phase": self.phase.name, "kind": kind, "vp": vp, "detail": detail})

    # ------------------------------------------------------------- positions

    def _place(self, u: int, h: int) -> None:
        """Put unit ``u`` on top of hex ``h`` (R3) and take control of it (rule 3.7)."""
        self.stacks.setdefault(h, []).append(u)
        self.loc[u] = h
        self.status[u] = ON_MAP
        spec = self.units[u]
        side = spec.side
        self._pos_version[side] += 1
        if spec.port:
            self._port_version += 1
        self.revealed[0].discard(h)
        self.revealed[1].discard(h)
        self._take(h, side)

    def _take(self, h: int, side: int) -> None:
        mt = self.game.tables
        if mt.row[h] in (ColoredRow.GREEN, ColoredRow.YELLOW):
            return  # rule 3.7: always German
        self.control[h] = side
        if side == GERMAN:
            self.ever_german[h] = 1

    def _lift(self, u: int) -> None:
        h = self.loc[u]
        st = self.stacks[h]
        st.remove(u)
        if not st:
            del self.stacks[h]
        self.loc[u] = -1
        spec = self.units[u]
        self._pos_version[spec.side] += 1
        if spec.port:
            self._port_version += 1
        self.revealed[0].discard(h)
        self.revealed[1].discard(h)

    def _move_to(self, u: int, h: int) -> None:
        self._lift(u)
        self._place(u, h)
        self._track_rows(u, h)

    def _track_rows(self, u: int, h: int) -> None:
        spec = self.units[u]
        row = self.game.tables.row[h]
        if spec.side == GERMAN:
            if spec.west and row != ColoredRow.YELLOW:
                self.entered_map[u] = True  # rule 9.5
            if row not in (ColoredRow.GREEN, ColoredRow.RED):
                self.must_leave[u] = False  # R7
                if spec.group == "18":
                    self.left_green[u] = True  # rule 9.2

    def _eliminate(self, u: int, cause: str, award: bool = True) -> None:
        if self.status[u] == ON_MAP:
            self._lift(u)
        self.status[u] = DEAD
        spec = self.units[u]
        if u == self.scare_unit:
            self.scare_unit = -1
        if u == self.replacement_unit:
            self.replacement_unit = -1
        if award and spec.side == GERMAN:
            self._award(self.elimination_vp(u), "german_losses", f"{spec.id} eliminated ({cause})")

    def elimination_vp(self, u: int) -> int:
        """French VP for eliminating unit ``u`` (rules 4.3, 4.6); 0 for a French unit."""
        spec = self.units[u]
        if spec.side != GERMAN:
            return 0
        vp = self.game.scenario.tables.vp
        if spec.type == "mountain":
            return int(vp["german_mountain_division_eliminated"])
        return int(vp["german_mech_eliminated" if spec.mechanized else "german_infantry_eliminated"])

    def pending_overstack_vp(self) -> int:
        """French VP at stake in over-stacked German hexes: what the French would score if the
        German movement phase ended in this position (rule 6.5, R9: the French remove the excess
        units of their choice, assumed the costliest; rule 4.6). 0 outside the German movement
        phase, where nothing is removed. Used by the envs' ``reward="shaped"`` as a potential."""
        if self.phase != Phase.GERMAN_MOVEMENT:
            return 0
        limit = self.game.scenario.tables.stack_limit
        free = self.game.unit_free_stacking
        total = 0
        for st in self.stacks.values():
            if self.units[st[0]].side != GERMAN:
                continue
            counted = [u for u in st if not free[u]]
            if len(counted) > limit:
                costs = sorted((self.elimination_vp(u) for u in counted), reverse=True)
                total += sum(costs[: len(counted) - limit])
        return total

    def _lose_step(self, u: int, cause: str) -> None:
        """One step loss (rules 2.11, 13.5, 13.7, 4.3, 4.6)."""
        spec = self.units[u]
        if self.steps[u] >= 2:
            self.steps[u] -= 1
            self._pos_version[spec.side] += 1
            if spec.side == GERMAN:
                vp = self.game.scenario.tables.vp
                key = "german_mech_reduced" if spec.mechanized else "german_infantry_reduced"
                self._award(vp[key], "german_losses", f"{spec.id} reduced ({cause})")
        else:
            self._eliminate(u, cause)

    # ---------------------------------------------------------------- supply

    def _garrisoned_ports(self) -> tuple[int, ...]:
        key = self._port_version
        hit: tuple[Any, tuple[int, ...]] | None = self._cache.get("ports")
        if hit is not None and hit[0] == key:
            return hit[1]
        out = []
        for u in self.game.port_units:
            if self.status[u] == ON_MAP:
                out.append(self.loc[u])
        ports = tuple(out)
        self._cache["ports"] = (key, ports)
        return ports

    def _occupied_bits(self, side: int) -> int:
        """Hexes holding units of ``side``, as an int bitset."""
        kind = "occ1" if side else "occ0"
        key = self._pos_version[side]
        hit: tuple[Any, int] | None = self._cache.get(kind)
        if hit is not None and hit[0] == key:
            return hit[1]
        sides = self.game.unit_side
        bits = 0
        for h, st in self.stacks.items():
            if sides[st[0]] == side:
                bits |= 1 << h
        self._cache[kind] = (key, bits)
        return bits

    def supply_mask(self, side: int, west: bool = False) -> bytearray:
        """Hexes from which a unit of ``side`` (and west group) traces supply (rules 7.2, 7.7, 7.8, R10).

        A 0/1 bytearray of length ``N_HEX``, cached until the enemy's units (or, for the French,
        the naval garrisons) change; treat it as read-only. The French city exception of rule 7.8
        is :meth:`is_supplied`'s, not part of the mask."""
        if side == FRENCH:
            kind: Any = "sF"
            key: Any = (self._pos_version[GERMAN], self._port_version)
        else:
            kind = "sGw" if west else "sG"
            key = self._pos_version[FRENCH]
        hit: tuple[Any, bytearray] | None = self._cache.get(kind)
        if hit is not None and hit[0] == key:
            return hit[1]
        game = self.game
        mt = game.tables
        passable = game.passable_bits[side] & ~self._occupied_bits(1 - side)
        if side == FRENCH:
            sources = 0
            for h in self._garrisoned_ports():  # rule 7.8
                sources |= 1 << h
        else:
            sources = mt.yellow_bits if west else mt.green_bits  # rule 7.7, 9.5
        mask = bits_to_mask(flood_bits(mt.open_bits, sources, passable))
        self._cache[kind] = (key, mask)
        return mask

    _supply_mask = supply_mask  # the name the encoder and older code use

    def is_supplied(self, u: int) -> bool:
        """Supply of unit ``u`` now (rules 7.1-7.8; judged at the moments of R11)."""
        h = self.loc[u]
        if h < 0:
            return False
        spec = self.units[u]
        if spec.side == FRENCH and self.game.tables.city[h] and not self.ever_german[h]:
            return True  # rule 7.8
        return bool(self._supply_mask(spec.side, spec.west)[h])

    def _supplied_for_action(self, u: int) -> bool:
        # rule 7.9: a scared corps moves and attacks as if out of supply
        return u != self.scare_unit and self.is_supplied(u)

    # ------------------------------------------------------------- phases

    def _phase_after(self, ph: Phase) -> tuple[Phase, bool]:
        """Next phase and whether a new game turn starts."""
        if ph == Phase.SETUP_FRENCH:
            return Phase.SETUP_GERMAN, False
        if ph == Phase.SETUP_GERMAN:
            return Phase.EVACUATION, False
        if ph in _FRENCH_TURN[:-1]:
            return _FRENCH_TURN[_FRENCH_TURN.index(ph) + 1], False
        if ph == Phase.PANZER_SCARE:
            return Phase.GERMAN_ORDER, False
        if ph == Phase.GERMAN_ORDER:
            return Phase.REPLACEMENT, False
        if ph == Phase.REPLACEMENT:
            return Phase.LUFTWAFFE, False
        if ph == Phase.LUFTWAFFE:
            return (Phase.GERMAN_MOVEMENT if self.german_move_first else Phase.GERMAN_COMBAT), False
        if ph == Phase.GERMAN_MOVEMENT:
            return (Phase.GERMAN_COMBAT if self.german_move_first else Phase.REPLACEMENT_COMPLETION), False
        if ph == Phase.GERMAN_COMBAT:
            return (Phase.REPLACEMENT_COMPLETION if self.german_move_first else Phase.GERMAN_MOVEMENT), False
        if ph == Phase.REPLACEMENT_COMPLETION:
            return Phase.REINFORCEMENT, False
        if ph == Phase.REINFORCEMENT:
            return Phase.REFUGEE_PLACEMENT, False
        if ph == Phase.REFUGEE_PLACEMENT:
            return Phase.SCARE_REMOVAL, False
        return Phase.EVACUATION, True

    def _enter_phase(self) -> None:
        entered = _ENTER[self.phase](self)
        if not entered:
            self.decision = Decision.END_PHASE

    def _end_phase(self) -> None:
        """End-of-phase housekeeping: R7 compliance, stacking (rule 6.5, R9), end of game (R21)."""
        ph = self.phase
        if not self.ctx.get("ended"):
            self.ctx["ended"] = True
            if self.turn == 1 and ph == Phase.FRENCH_MOVEMENT:
                self._gt1_compliance(FRENCH)
            if self.turn == 1 and ph == Phase.GERMAN_MOVEMENT:
                self._gt1_compliance(GERMAN)
        if ph in (Phase.FRENCH_MOVEMENT, Phase.GERMAN_MOVEMENT):
            # rule 6.5, R9: only movement can over-stack (retreats and advances may not, rule 13.6,
            # R31), and setup stacks (rule 6.2) stand until their side's first movement phase
            over = self._overstacked(FRENCH if ph == Phase.FRENCH_MOVEMENT else GERMAN)
            if over is not None:
                h, side = over
                self.ctx["overstack_hex"] = h
                self._set(Decision.OVERSTACK_REMOVE, Side(side).other)
                return
        # per-phase resets
        if ph in (Phase.FRENCH_MOVEMENT, Phase.GERMAN_MOVEMENT):
            self.moved = [False] * len(self.moved)
            self.oos_roll = {}
            for h in self.refugees:
                self.refugees[h] = False
        if ph in (Phase.FRENCH_COMBAT, Phase.GERMAN_COMBAT):
            self.attacked = [False] * len(self.attacked)
        self.ctx = {}
        if ph not in (Phase.SETUP_FRENCH, Phase.SETUP_GERMAN) and not self._french_ground_left():
            self._finish()  # rule 4.1, R21
            return
        nxt, new_turn = self._phase_after(ph)
        if new_turn:
            # end of the German player turn (rule 5.2)
            self.no_attack = [False] * len(self.no_attack)
            self.immobile = [False] * len(self.immobile)
            self.replacement_unit = -1
            if self.turn >= self.game.scenario.tables.last_turn:
                self._finish()  # rule 4.1
                return
            self.turn += 1
            self.stuka_used = False
            self.naval_used = [False, False]
        self.phase = nxt
        self.decision = Decision.ENTER

    def _french_ground_left(self) -> bool:
        for u in self.units:
            if u.side == FRENCH and self.status[u.index] in (ON_MAP, RESERVE):
                return True
        return False

    def _finish(self) -> None:
        """Final VP (rule 4.3 cities, R21) and the result (rule 4.3: 25+ VP is a French win)."""
        vp = self.game.scenario.tables.vp["city_at_end"]
        for h in self.game.tables.city_hexes:
            if self.control[h] == FRENCH:
                self._award(vp, "cities", f"{self.game.scenario.map.city[h]} ({hg.hex_name(h)}) French at the end")
        self.winner = FRENCH if self.vp >= self.game.scenario.tables.victory_vp else GERMAN
        self.phase = Phase.GAME_OVER
        self.decision = Decision.NONE
        self.ctx = {}

    def _gt1_compliance(self, side: Side) -> None:
        """R7: units still in violation at the end of GT1 movement are eliminated (no VP)."""
        mt = self.game.tables
        for u in self.on_map_units(side):
            if self.units[u].static:
                continue
            h = self.loc[u]
            if side == FRENCH:
                bad = mt.row[h] == ColoredRow.RED or mt.adj_red[h]  # rule 5.3
            else:
                bad = mt.row[h] in (ColoredRow.GREEN, ColoredRow.RED)  # rule 5.4
            if bad:
                self._eliminate(u, "GT1 row compliance (R7)", award=False)

    def _stack_limit(self) -> int:
        t = self.game.scenario.tables
        return t.setup_stack_limit if self.phase in (Phase.SETUP_FRENCH, Phase.SETUP_GERMAN) else t.stack_limit

    def _counted(self, h: int) -> int:
        st = self.stacks.get(h)
        if not st:
            return 0
        free = self.game.unit_free_stacking
        return sum(1 for u in st if not free[u])

    def _overstacked(self, side: int) -> tuple[int, int] | None:
        limit = self.game.scenario.tables.stack_limit
        for h in sorted(self.stacks):
            st = self.stacks[h]
            if self.units[st[0]].side == side and self._counted(h) > limit:
                return h, side
        return None

    # ---------------------------------------------------------------- setup

    def _enter_setup_french(self) -> bool:
        sc = self.game.scenario
        for u in sc.units:
            if u.port:
                self._place(u.index, sc.map.hex_of_city(u.port))  # rule 3.3: garrisons in their ports
        mode = self.game.options.setup
        if mode == "fixed":
            for u in sc.units:
                if u.side == FRENCH and not u.port:
                    self._place(u.index, sc.fixed_setup[u.id])
            return False
        if mode == "random":
            self._random_setup(FRENCH)
            return False
        self._set(Decision.SETUP_UNIT, FRENCH)
        return True

    def _enter_setup_german(self) -> bool:
        sc = self.game.scenario
        mode = self.game.options.setup
        if mode == "fixed":
            for u in sc.units:
                if u.side == GERMAN and u.setup == "green":
                    self._place(u.index, sc.fixed_setup[u.id])
            self._mark_green_units()
            return False
        if mode == "random":
            self._random_setup(GERMAN)
            self._mark_green_units()
            return False
        self._set(Decision.SETUP_UNIT, GERMAN)
        return True

    def _mark_green_units(self) -> None:
        for u in self.on_map_units(GERMAN):
            self.must_leave[u] = True  # R7

    def _setup_pending(self, side: Side) -> list[int]:
        kinds = ("red", "fortress") if side == FRENCH else ("green",)
        return [u.index for u in self.units if u.side == side and u.setup in kinds and self.status[u.index] == RESERVE]

    def _setup_hexes(self, u: int) -> list[int]:
        spec = self.units[u]
        mt = self.game.tables
        limit = self.game.scenario.tables.setup_stack_limit
        if spec.side == FRENCH:
            east = list(mt.red[-2:])  # rule 3.3: 5923 and 5924
            if spec.setup == "fortress":
                cand = east
                if spec.type == "fortress":
                    return [h for h in cand if self._counted(h) < limit]
                return cand
            cand = [h for h in mt.red if h not in east]
        else:
            cand = list(mt.green)
        if spec.free_stacking:
            return cand
        return [h for h in cand if self._counted(h) < limit]

    def _random_setup(self, side: Side) -> None:
        pending = self._setup_pending(side)
        # fortress corps first so that their two hexes are never taken by the 51st's choice
        pending.sort(key=lambda u: (self.units[u].type != "fortress", self.units[u].free_stacking))
        n_first = sum(1 for u in pending if self.units[u].type == "fortress")
        while pending:
            # R2/R3: the order of placement decides the stack order, so it is drawn too
            # (fortress corps first, so the 51st never takes one of their two hexes)
            k = self._pick(n_first, "random setup: unit") if n_first else self._pick(len(pending), "random setup: unit")
            n_first = max(0, n_first - 1)
            u = pending.pop(k)
            hexes = self._setup_hexes(u)
            self._place(u, hexes[self._pick(len(hexes), f"random setup: hex of {self.units[u].id}")])

    def _legal_setup_unit(self) -> list[int]:
        layout = self.game.layout
        return [layout.unit_action(u) for u in self._setup_pending(self.player)]

    def _apply_setup_unit(self, a: int) -> None:
        self.ctx["unit"] = a - self.game.layout.unit_base
        self._set(Decision.SETUP_HEX, self.player)

    def _legal_setup_hex(self) -> list[int]:
        return self._setup_hexes(self.ctx["unit"])

    def _apply_setup_hex(self, a: int) -> None:
        self._place(self.ctx.pop("unit"), a)
        if self._setup_pending(self.player):
            self._set(Decision.SETUP_UNIT, self.player)
        else:
            if self.player == GERMAN:
                self._mark_green_units()
            self.decision = Decision.END_PHASE

    # ----------------------------------------------------------- evacuation

    def _evac_ports(self) -> list[int]:
        """Ports that may evacuate now (rule 11.6, R20)."""
        out = []
        used = self.ctx.get("ports_used", [])
        for u in self.units:
            if not u.port or self.status[u.index] != ON_MAP:
                continue
            h = self.loc[u.index]
            if h in used or self.ever_german[h]:
                continue
            if any(self.side_at(n) == GERMAN for n in hg.NEIGHBOR_LISTS[h]):
                continue
            out.append(h)
        return out

    def _enter_evacuation(self) -> bool:
        if self.turn < self.game.scenario.tables.evacuation_first_turn:
            return False  # rule 5.3, R20
        self.ctx["ports_used"] = []
        if not self._legal_evacuate_units():
            return False
        self._set(Decision.EVACUATE, FRENCH)
        return True

    def _legal_evacuate_units(self) -> list[int]:
        out: list[int] = []
        for h in self._evac_ports():
            out.extend(self.stacks.get(h, ()))
        return out

    def _legal_evacuate(self) -> list[int]:
        layout = self.game.layout
        return [layout.unit_action(u) for u in self._legal_evacuate_units()] + [layout.special(Special.PASS)]

    def _apply_evacuate(self, a: int) -> None:
        layout = self.game.layout
        if a == layout.special(Special.PASS):
            self.decision = Decision.END_PHASE
            return
        u = a - layout.unit_base
        spec = self.units[u]
        h = self.loc[u]
        self.ctx["ports_used"].append(h)
        steps = self.steps[u]
        vp = self.game.scenario.tables.vp
        if spec.static:
            per = vp["evacuated_step_static"]  # R20
        elif spec.mechanized:
            per = vp["evacuated_step_mechanized"]  # rule 4.3, R19
        else:
            per = vp["evacuated_step_non_mechanized"]
        self._lift(u)
        self.status[u] = EVACUATED
        self._award(per * steps, "evacuation", f"{spec.id} ({steps} step{'s' if steps > 1 else ''}) from {hg.hex_name(h)}")
        if not self._legal_evacuate_units():
            self.decision = Decision.END_PHASE

    # ------------------------------------------------------------- movement

    def _enter_movement(self) -> bool:
        side = FRENCH if self.phase == Phase.FRENCH_MOVEMENT else GERMAN
        self.moved = [False] * len(self.moved)
        self.oos_roll = {}
        comply = []
        if self.turn == 1:
            comply = [u for u in self.on_map_units(side) if not self.units[u].static]  # R7
        elif side == GERMAN:
            comply = [u for u in self.on_map_units(GERMAN) if self.must_leave[u]]  # R7, rule 9.2
        self.ctx["comply"] = comply
        if side == FRENCH and self.turn >= self.game.scenario.tables.rail_first_turn:
            cands = self._rail_candidates()
            if cands:
                self.ctx["rail"] = cands
                self._set(Decision.RAIL_UNIT, FRENCH)
                return True
        self._set(Decision.MOVE_UNIT, side)
        return True

    def _movers(self, side: int) -> list[int]:
        moved = self.moved
        immobile = self.immobile
        static = self.game.unit_static
        return [u for u in self.on_map_units(side) if not moved[u] and not immobile[u] and not static[u]]

    def _legal_move_unit(self) -> list[int]:
        layout = self.game.layout
        out = [layout.unit_action(u) for u in self._movers(self.player)]
        if not any(not self.moved[u] and self.status[u] == ON_MAP and not self.immobile[u] for u in self.ctx["comply"]):
            out.append(layout.special(Special.PASS))  # R7: end only when every unit that must comply has moved
        return out

    def _mp_for(self, u: int) -> int:
        """MP of a unit chosen to move: its MF, or a die if out of supply (rules 7.1, 7.3, R11, R12)."""
        if self._supplied_for_action(u):
            return self.mf(u)
        h = self.loc[u]
        roll = self.oos_roll.get(h)
        if roll is None:
            roll = self._roll(f"OOS movement {self.units[u].id} in {hg.hex_name(h)} (rule 7.3)")
            self.oos_roll[h] = roll  # R12: shared by every OOS unit of that hex this phase
        return min(roll, self.mf(u))

    def _blocked_for(self, u: int) -> bytearray:
        """Hexes unit ``u`` may never enter (R15, rule 5.5, R5, 9.2, 9.5, 13.4). Read-only (cached)."""
        spec = self.units[u]
        side = spec.side
        yellow = side == GERMAN and spec.west and self.entered_map[u]
        green_red = side == GERMAN and self.left_green[u]
        kind = ("blk", side, yellow, green_red)
        key = self._pos_version[1 - side]
        hit: tuple[Any, bytearray] | None = self._cache.get(kind)
        if hit is not None and hit[0] == key:
            return hit[1]
        mask = bytearray(self.game.forbidden[side])
        enemy = 1 - side
        sides = self.game.unit_side
        for h, st in self.stacks.items():
            if sides[st[0]] == enemy:
                mask[h] = 1
        mt = self.game.tables
        if yellow:
            for h in mt.yellow:
                mask[h] = 1
        if green_red:
            # rule 9.2: an 18th Army unit that has left the red and green rows "then stays out"
            for h in mt.green:
                mask[h] = 1
            for h in mt.red:
                mask[h] = 1
        self._cache[kind] = (key, mask)
        return mask

    def _no_return_for(self, u: int) -> bytes | None:
        """Region unit ``u`` may leave during a move but not come back into (rules 9.2, 9.5)."""
        spec = self.units[u]
        if spec.side != GERMAN:
            return None
        if spec.west and not self.entered_map[u]:
            return self.game.tables.no_return_yellow  # rule 9.5: once on the regular map, never back
        if spec.group == "18" and not self.left_green[u]:
            return self.game.tables.no_return_green_red  # rule 9.2: out of the red and green rows, then stay out
        return None

    def _end_ok(self, u: int, h: int, comply: bool) -> bool:
        """May unit ``u`` end a move in hex ``h``? (rules 5.3-5.5, R6, R7)."""
        mt = self.game.tables
        if self.units[u].side == FRENCH:
            if mt.adj_green_or_yellow[h]:
                return False  # rule 5.5, R6
            if comply and (mt.row[h] == ColoredRow.RED or mt.adj_red[h]):
                return False  # rule 5.3, R7
            return True
        if mt.row[h] == ColoredRow.RED:
            return False  # rule 5.5
        if comply and mt.row[h] == ColoredRow.GREEN:
            return False  # rule 5.4, R7
        return True

    def destinations(self, u: int, mp: int) -> Mapping[int, Reach]:
        """Legal destinations of unit ``u`` with ``mp`` movement points (R13, R15), stay excluded.

        A read-only mapping hex -> :class:`Reach` (a ``dict`` or a lazy :class:`search.Dests`)."""
        side = self.units[u].side
        refugees = self.refugees if side == FRENCH else None  # rule 10.3: French only
        comply = u in self.ctx.get("comply", ())
        mt = self.game.tables
        # mt.end_ok is _end_ok tabulated per (side, comply)
        return reachable(mt, self.loc[u], mp, self._blocked_for(u), refugees,
                         self.game.scenario.tables.refugee_move_extra, self._no_return_for(u),
                         mt.end_ok[2 * side + comply])

    def _complies(self, u: int, h: int) -> bool:
        """Is hex ``h`` already out of the rows unit ``u`` must leave? (rules 5.3, 5.4, 9.2, R7)"""
        mt = self.game.tables
        if self.units[u].side == FRENCH:
            return not (mt.row[h] == ColoredRow.RED or mt.adj_red[h])
        return mt.row[h] not in (ColoredRow.GREEN, ColoredRow.RED)

    def _apply_move_unit(self, a: int) -> None:
        layout = self.game.layout
        if a == layout.special(Special.PASS):
            self.decision = Decision.END_PHASE
            return
        u = a - layout.unit_base
        mp = self._mp_for(u)
        dests = self.destinations(u, mp)
        self.ctx["unit"] = u
        self.ctx["mp"] = mp
        self.ctx["dests"] = dests
        self._set(Decision.MOVE_DEST, self.player)

    def _legal_move_dest(self) -> list[int]:
        u = self.ctx["unit"]
        dests: dict[int, Reach] = self.ctx["dests"]
        out = list(dests)
        h = self.loc[u]
        if not dests or u not in self.ctx["comply"] or self._complies(u, h):
            out.append(h)  # staying put; R7: not while a compliant destination exists
        return out

    def _apply_move_dest(self, a: int) -> None:
        u = self.ctx.pop("unit")
        dests: dict[int, Reach] = self.ctx.pop("dests")
        self.ctx.pop("mp", None)
        self.moved[u] = True
        if a != self.loc[u]:
            r = dests[a]
            side = self.units[u].side
            for h in r.overrun:  # rule 10.4, 4.5: one VP per refugee hex per phase
                if not self.refugees.get(h, True):
                    self.refugees[h] = True
                    self._award(self.game.scenario.tables.vp["refugee_overrun"], "refugees",
                                f"{self.units[u].id} overran refugees in {hg.hex_name(h)}")
            for h in r.path[:-1]:
                self._take(h, side)  # rule 3.7: control changes as a unit enters a hex
            # the path never re-enters a region it left (search.reachable no_return, rules 9.2, 9.5),
            # so the end hex alone tells whether the unit has left it (_track_rows)
            self._move_to(u, a)
        self._set(Decision.MOVE_UNIT, self.player)

    # ----------------------------------------------------------------- rail

    def _adj_enemy_mask(self, side: int) -> bytearray:
        kind = "adjE1" if side else "adjE0"
        key = self._pos_version[1 - side]
        hit: tuple[Any, bytearray] | None = self._cache.get(kind)
        if hit is not None and hit[0] == key:
            return hit[1]
        mask = bytearray(hg.N_HEX)
        enemy = 1 - side
        sides = self.game.unit_side
        for h, st in self.stacks.items():
            if sides[st[0]] == enemy:
                mask[h] = 1
                for n in hg.NEIGHBOR_LISTS[h]:
                    mask[n] = 1
        self._cache[kind] = (key, mask)
        return mask

    def _rail_passable(self) -> int:
        """Hexes a rail route may enter, as a bitset: clear or city, out of the colored rows, not
        adjacent to (or holding) an enemy unit (rule 11.7, R17)."""
        return self.game.tables.rail_ok_bits & ~mask_to_bits(self._adj_enemy_mask(FRENCH))

    def rail_route_to(self, u: int, dest: int) -> tuple[int, ...]:
        """The route a rail move of unit ``u`` to city ``dest`` takes (R17): hexes entered, ``dest`` last."""
        return rail_route(self.game.tables.open_nb, self.loc[u], dest, self._rail_passable())

    def _rail_candidates(self) -> dict[int, list[int]]:
        """Units that may attempt a rail move and their destination cities (rule 11.7, R16, R17)."""
        mt = self.game.tables
        adj = self._adj_enemy_mask(FRENCH)  # includes enemy-occupied hexes themselves
        ok = self._rail_passable()
        dest_ok = [h for h in mt.city_hexes
                   if not self.ever_german[h] and self.control[h] == FRENCH and not adj[h]
                   and not mt.adj_green_or_yellow[h]]
        out: dict[int, list[int]] = {}
        comps: dict[int, int] = {}
        for u in self.on_map_units(FRENCH):
            spec = self.units[u]
            h = self.loc[u]
            if spec.static or self.immobile[u] or not mt.city[h] or self.ever_german[h] or adj[h]:
                continue
            comp = comps.get(h)
            if comp is None:
                comp = flood_bits(mt.open_bits, 1 << h, ok)
                comps[h] = comp
            dests = [c for c in dest_ok if c != h and (comp >> c) & 1]
            if dests:
                out[u] = dests
        return out

    def _legal_rail_unit(self) -> list[int]:
        layout = self.game.layout
        return [layout.unit_action(u) for u in self.ctx["rail"]] + [layout.special(Special.PASS)]

    def _apply_rail_unit(self, a: int) -> None:
        layout = self.game.layout
        rail = self.ctx.pop("rail")
        if a == layout.special(Special.PASS):
            self._set(Decision.MOVE_UNIT, FRENCH)
            return
        u = a - layout.unit_base
        self.moved[u] = True  # rule 11.7: it may not move farther this turn
        self.no_attack[u] = True  # rule 11.7: may not attack either way
        die = self._roll(f"rail move of {self.units[u].id} (rule 11.7)")
        if die <= self.game.scenario.tables.rail_success_max:
            self.ctx["unit"] = u
            self.ctx["rail_dests"] = rail[u]
            self._set(Decision.RAIL_DEST, FRENCH)
        else:
            self.immobile[u] = True  # rule 11.7: remains in place this game turn
            self._set(Decision.MOVE_UNIT, FRENCH)

    def _legal_rail_dest(self) -> list[int]:
        return list(self.ctx["rail_dests"])

    def _apply_rail_dest(self, a: int) -> None:
        u = self.ctx.pop("unit")
        self.ctx.pop("rail_dests")
        start = self.loc[u]
        route = self.rail_route_to(u, a)
        for h in route[:-1]:
            self._take(h, FRENCH)  # rule 3.7, R17: every hex the route enters turns French, as along a move's path
        self.rail_log.append({"turn": self.turn, "unit": self.units[u].id, "from": hg.hex_name(start),
                              "to": hg.hex_name(a), "route": [hg.hex_name(h) for h in route]})  # R17
        self._move_to(u, a)
        self._set(Decision.MOVE_UNIT, FRENCH)

    # --------------------------------------------------------------- combat

    def _enter_combat(self) -> bool:
        side = FRENCH if self.phase == Phase.FRENCH_COMBAT else GERMAN
        if side == FRENCH and self.turn == 1:
            return False  # rule 5.3
        self.attacked = [False] * len(self.attacked)
        self.ctx["attacked_hexes"] = []
        if not self._attack_targets(side):
            return False
        self._set(Decision.ATTACK_TARGET, side)
        return True

    def _can_attack(self, u: int, target: int) -> bool:
        """May unit ``u`` attack hex ``target`` (apart from grouping)? (rules 11.7, 8.2, 13.9, 13.16, 13.20, R23, R24)"""
        spec = self.units[u]
        if spec.static or self.attacked[u] or self.no_attack[u] or self.status[u] != ON_MAP:
            return False
        h = self.loc[u]
        d = _dir(h, target)
        if d < 0 or self.game.tables.blocked_side[h][d]:
            return False
        if spec.is_panzer and self.game.tables.city[target]:
            return False  # rule 13.16, R24
        return True

    def _attack_targets(self, side: int) -> list[int]:
        # _can_attack inlined: a unit that may attack at all, across an open hexside
        # (mt.open_nb), a panzer corps not against a city (rule 13.16, R24)
        enemy_bits = self._occupied_bits(1 - side)
        out: set[int] = set()
        done = () if self.game.options.repeat_attacks else self.ctx.get("attacked_hexes", [])
        game = self.game
        mt = game.tables
        open_nb = mt.open_nb
        city = mt.city
        static = game.unit_static
        panzer = game.unit_panzer
        loc = self.loc
        attacked = self.attacked
        no_attack = self.no_attack
        for u in self.on_map_units(side):
            if static[u] or attacked[u] or no_attack[u]:
                continue
            pz = panzer[u]
            for n in open_nb[loc[u]]:
                if n in out or not (enemy_bits >> n) & 1 or n in done or (pz and city[n]):
                    continue
                out.add(n)
        return sorted(out)

    def _legal_attack_target(self) -> list[int]:
        return self._attack_targets(self.player) + [self.game.layout.special(Special.PASS)]

    def _apply_attack_target(self, a: int) -> None:
        if a == self.game.layout.special(Special.PASS):
            self.decision = Decision.END_PHASE
            return
        self.revealed[self.player].add(a)  # rule 3.6, R3: declared, revealed, cannot be called off
        self.ctx["attacked_hexes"].append(a)
        self.ctx["battle"] = {
            "target": a,
            "attacker": int(self.player),
            "air": False,
            "attackers": [],
            "defenders": list(self.stacks[a]),
        }
        self._set(Decision.ATTACK_ADD, self.player)

    def _attack_candidates(self) -> list[int]:
        b = self.ctx["battle"]
        target = b["target"]
        atk = b["attackers"]
        group_west = self.units[atk[0]].west if atk else None
        out = []
        for n in hg.NEIGHBOR_LISTS[target]:
            for u in self.stacks.get(n, ()):
                spec = self.units[u]
                if spec.side != self.player or u in atk:
                    continue
                if group_west is not None and spec.west != group_west:
                    continue  # rule 9.5
                if self._can_attack(u, target):
                    out.append(u)
        return out

    def _legal_attack_add(self) -> list[int]:
        layout = self.game.layout
        out = [layout.unit_action(u) for u in self._attack_candidates()]
        if self.ctx["battle"]["attackers"]:
            out.append(layout.special(Special.PASS))
        return out

    def _apply_attack_add(self, a: int) -> None:
        layout = self.game.layout
        b = self.ctx["battle"]
        if a != layout.special(Special.PASS):
            b["attackers"].append(a - layout.unit_base)
            if self._attack_candidates():
                return
        self._judge_battle_supply()
        self._after_attack_support_choice(first=True)

    def _judge_battle_supply(self) -> None:
        b = self.ctx["battle"]
        # R11: supply of every involved unit judged once, at the declaration, and kept per unit
        # (str keys: the battle is JSON-serialised); rule 7.9: a scared corps attacks as if OOS
        sup = {str(u): self._supplied_for_action(u) for u in b["attackers"]}
        b["att_supplied"] = sup
        b["att_oos"] = not all(sup.values())  # rule 7.4
        b["def_oos"] = any(not self.is_supplied(u) for u in b["defenders"])
        b["att_supplied_mech"] = bool(b["attackers"]) and all(
            self.units[u].mechanized and sup[str(u)] for u in b["attackers"])  # rule 13.13
        for u in b["attackers"]:
            self.attacked[u] = True  # R23
        b["origins"] = sorted({self.loc[u] for u in b["attackers"]})

    def _support_options(self, for_attacker: bool) -> list[int]:
        b = self.ctx["battle"]
        layout = self.game.layout
        side = b["attacker"] if for_attacker else 1 - b["attacker"]
        target = b["target"]
        mt = self.game.tables
        out = []
        if side == GERMAN:
            if not self.stuka_used and not b["air"]:
                out.append(layout.special(Special.STUKA))  # rule 12.1, R32
        else:
            if b.get("naval_kind") is None and (mt.coastal[target] or mt.inland1[target]):  # R32 range
                if not self.naval_used[0]:
                    out.append(layout.special(Special.NAVAL_FRENCH))
                if not self.naval_used[1]:
                    out.append(layout.special(Special.NAVAL_BRITISH))
        return out

    def _after_attack_support_choice(self, first: bool) -> None:
        if first:
            opts = self._support_options(True)
            if opts:
                self._set(Decision.SUPPORT_ATTACK, self.ctx["battle"]["attacker"])
                return
        opts = self._support_options(False)
        if opts:
            self._set(Decision.SUPPORT_DEFENCE, 1 - self.ctx["battle"]["attacker"])
            return
        self._prepare_lower()

    def _legal_support(self) -> list[int]:
        for_attacker = self.decision == Decision.SUPPORT_ATTACK
        return self._support_options(for_attacker) + [self.game.layout.special(Special.PASS)]

    def _apply_support(self, a: int) -> None:
        layout = self.game.layout
        b = self.ctx["battle"]
        for_attacker = self.decision == Decision.SUPPORT_ATTACK
        key = "att_support" if for_attacker else "def_support"
        mt = self.game.tables
        sup = self.game.scenario.tables.support
        target = b["target"]
        if a == layout.special(Special.STUKA):
            self.stuka_used = True
            spec = sup["stuka_attack"] if for_attacker else sup["stuka_defence"]  # rule 12.5
            b[key] = self._support_dice(spec, "8th Fliegerkorps " + ("attack" if for_attacker else "defence") + " (rule 12.5)")
        elif a in (layout.special(Special.NAVAL_FRENCH), layout.special(Special.NAVAL_BRITISH)):
            which = 0 if a == layout.special(Special.NAVAL_FRENCH) else 1
            self.naval_used[which] = True
            b["naval_kind"] = which
            coastal = mt.coastal[target]
            if for_attacker:
                spec = sup["naval_attack_coastal"] if coastal else sup["naval_attack_inland"]
            else:
                spec = sup["naval_defence_coastal"] if coastal else sup["naval_defence_inland"]
            name = "French" if which == 0 else "British"
            b[key] = self._support_dice(spec, f"{name} naval gunfire (rule 12.8)")
            loss = self._roll(f"{name} naval gunfire VP loss (rule 4.4, R18)")
            if self.game.options.naval_vp_loss == "die_minus_one":
                loss -= 1
            self._award(-loss, "naval", f"{name} naval gunfire at {hg.hex_name(target)}")
        if for_attacker:
            self._after_attack_support_choice(first=False)
        else:
            self._prepare_lower()

    def _support_dice(self, spec: Any, purpose: str) -> int:
        total = sum(self._roll(purpose) for _ in range(spec.dice))
        return int(total // spec.divisor)

    def _qualifies(self, pred: list[bool]) -> bool:
        return (any(pred) if self.game.options.mixed_stack == "any" else all(pred)) if pred else False

    def _prepare_lower(self) -> None:
        """Roll the city die (rule 13.16) and compute the column before lowering (R22.6, R26)."""
        b = self.ctx["battle"]
        target = b["target"]
        t = self.game.scenario.tables
        defenders = [u for u in b["defenders"] if self.status[u] == ON_MAP]
        b["defenders"] = defenders
        shifts: dict[str, int] = {}
        if city_die_applies(self, target, defenders):
            die = self._roll(f"city defence of {hg.hex_name(target)} (rule 13.16)")
            shifts["city"] = -(die // t.city_die_divisor)
        air = b["air"]
        shifts.update(known_shifts(
            self, target, b["attackers"], defenders, air=air, attacker_side=b["attacker"],
            att_oos=bool(b.get("att_oos")), def_oos=bool(b["def_oos"]),
            att_supplied_mech=bool(b.get("att_supplied_mech")), origins=b.get("origins", [])))
        att_cf = b.get("att_support", 0) + (0 if air else attack_strength(self, target, b["attackers"]))
        def_cf = sum(self.cf(u) for u in defenders) + b.get("def_support", 0)
        diff = att_cf - def_cf
        crt = t.crt
        base = crt.column_of(diff)
        col = max(0, min(len(crt.columns) - 1, base + sum(shifts.values())))  # R26, rule 13.18
        b.update(att_cf=att_cf, def_cf=def_cf, differential=diff, shifts=shifts, column=col)
        self._set(Decision.LOWER, b["attacker"])

    def battle_preview(self, target: int, attackers: list[int], att_support: int = 0,
                       def_support: int = 0) -> BattlePreview:
        """Differential, column shifts by cause and rule, final column and the result distribution of
        ``attackers`` attacking ``target`` now (R26; see :func:`combat_odds.battle_preview`)."""
        return battle_preview(self, target, list(attackers), att_support, def_support)

    def _legal_lower(self) -> list[int]:
        col = self.ctx["battle"]["column"]
        return [self.game.layout.lower(k) for k in range(col + 1)]

    def _apply_lower(self, a: int) -> None:
        b = self.ctx["battle"]
        k = a - self.game.layout.lower(0)
        b["lowered"] = k
        col = b["column"] - k  # rule 13.19
        b["final_column"] = col
        die = self._roll(f"combat at {hg.hex_name(b['target'])} (rule 13.12)")
        res = self.game.scenario.tables.crt.result(col, die)
        b["die"] = die
        b["result"] = res
        self.ctx.setdefault("log", []).append(
            {"target": b["target"], "column": col, "die": die, "result": res, "air": b["air"]})
        self._apply_result(res)

    def _apply_result(self, res: str) -> None:
        b = self.ctx["battle"]
        air = b["air"]
        if air and res in ("AS", "AE", "DR"):
            res = "AS"  # rule 12.4, R30
        if res == "AE":
            for u in list(b["attackers"]):
                if self.status[u] == ON_MAP:
                    self._lose_step(u, "AE")  # rule 13.5, R27
            self._battle_done()
            return
        if res == "AS":
            self._battle_done()  # rule 13.8
            return
        if res == "DE":
            for u in list(b["defenders"]):
                if air and self.units[u].static:
                    continue  # R30: naval garrisons survive an air-only DE
                self._lose_step(u, "DE")  # rule 13.5, R27
            self._start_advance()
            return
        if res == "DR":
            queue = []
            for u in reversed(b["defenders"]):  # top unit first
                if self.units[u].static:
                    self._lose_step(u, "DR: naval garrison (rule 13.20)")
                else:
                    queue.append(u)
            b["retreat_queue"] = queue
            self._next_retreat()
            return
        # BB, rule 13.7, R29
        if air:
            b["loss_queue"] = [[GERMAN, FRENCH]]
        else:
            b["loss_queue"] = [[b["attacker"], b["attacker"]], [1 - b["attacker"], 1 - b["attacker"]]]
        self._next_loss()

    def _loss_candidates(self, victim: int) -> list[int]:
        b = self.ctx["battle"]
        pool = b["attackers"] if victim == b["attacker"] else b["defenders"]
        out = [u for u in pool if self.status[u] == ON_MAP]
        if b["air"]:
            out = [u for u in out if not self.units[u].static]  # rule 12.4, R29
        return out

    def _next_loss(self) -> None:
        b = self.ctx["battle"]
        while b["loss_queue"]:
            chooser, victim = b["loss_queue"][0]
            if self._loss_candidates(victim):
                self._set(Decision.STEP_LOSS, chooser)
                return
            b["loss_queue"].pop(0)
        self._start_advance()

    def _legal_step_loss(self) -> list[int]:
        layout = self.game.layout
        victim = self.ctx["battle"]["loss_queue"][0][1]
        return [layout.unit_action(u) for u in self._loss_candidates(victim)]

    def _apply_step_loss(self, a: int) -> None:
        b = self.ctx["battle"]
        b["loss_queue"].pop(0)
        self._lose_step(a - self.game.layout.unit_base, "BB")
        self._next_loss()

    def _retreat_hexes(self, u: int) -> list[int]:
        """Rule 13.6, R28, R5, R8."""
        b = self.ctx["battle"]
        h = self.loc[u]
        spec = self.units[u]
        blocked = self._blocked_for(u)
        origins = b.get("origins", [])
        row = self.game.tables.row
        out = []
        for _d, n, _r in self.game.tables.moves[h]:
            if blocked[n] or n in origins:
                continue
            if spec.side == GERMAN and row[n] == ColoredRow.RED:
                continue  # rule 5.5, R38: a German unit never ends a retreat in the red row (else DE, rule 13.6)
            if not spec.free_stacking and self._counted(n) >= self.game.scenario.tables.stack_limit:
                continue
            out.append(n)
        return out

    def _next_retreat(self) -> None:
        b = self.ctx["battle"]
        while b["retreat_queue"]:
            u = b["retreat_queue"][0]
            if self.status[u] != ON_MAP:
                b["retreat_queue"].pop(0)
                continue
            if self._retreat_hexes(u):
                self._set(Decision.RETREAT, self.units[u].side)
                return
            b["retreat_queue"].pop(0)
            self._lose_step(u, "DR with no retreat (rule 13.6)")
        self._start_advance()

    def _legal_retreat(self) -> list[int]:
        return self._retreat_hexes(self.ctx["battle"]["retreat_queue"][0])

    def _apply_retreat(self, a: int) -> None:
        b = self.ctx["battle"]
        u = b["retreat_queue"].pop(0)
        self._move_to(u, a)
        self._next_retreat()

    def _advance_ok(self, u: int, h: int) -> bool:
        if self._blocked_for(u)[h]:
            return False
        spec = self.units[u]
        if spec.side == GERMAN and self.game.tables.row[h] == ColoredRow.RED:
            return False  # rule 5.5 via R31
        if self.side_at(h) == 1 - spec.side:
            return False
        if not spec.free_stacking and self._counted(h) >= self.game.scenario.tables.stack_limit:
            return False
        return True

    def _start_advance(self) -> None:
        b = self.ctx["battle"]
        target = b["target"]
        if b["air"] or self.stacks.get(target):
            self._battle_done()
            return
        b["advanced"] = []
        self._next_advance()

    def _advance_candidates(self) -> list[int]:
        b = self.ctx["battle"]
        target = b["target"]
        return [u for u in b["attackers"]
                if self.status[u] == ON_MAP and u not in b["advanced"] and self._advance_ok(u, target)]

    def _next_advance(self) -> None:
        if self._advance_candidates():
            self._set(Decision.ADVANCE_UNIT, self.ctx["battle"]["attacker"])
        else:
            self._battle_done()

    def _legal_advance_unit(self) -> list[int]:
        layout = self.game.layout
        return [layout.unit_action(u) for u in self._advance_candidates()] + [layout.special(Special.PASS)]

    def _apply_advance_unit(self, a: int) -> None:
        layout = self.game.layout
        b = self.ctx["battle"]
        if a == layout.special(Special.PASS):
            self._battle_done()
            return
        u = a - layout.unit_base
        b["advanced"].append(u)
        self._move_to(u, b["target"])
        spec = self.units[u]
        if spec.is_british_51:
            self._award(self.game.scenario.tables.vp["british_51_advance"], "british_51",
                        f"51st advanced into {hg.hex_name(b['target'])}")  # rule 4.3, R31
        # rule 13.2, R31: only a German mechanized unit supplied at the declaration (R11; a scared
        # corps counts as OOS, rule 7.9) may go on to a second hex
        if spec.side == GERMAN and spec.mechanized and self._second_hexes(u):
            b["second"] = u
            self._set(Decision.ADVANCE_SECOND, GERMAN)
            return
        self._next_advance()

    def _second_hexes(self, u: int) -> list[int]:
        """R31: second hex of a supplied German mechanized advance."""
        b = self.ctx["battle"]
        target = b["target"]
        mt = self.game.tables
        if mt.mountain[target] or not b["att_supplied"].get(str(u), False):
            return []
        out = []
        for _d, n, _r in mt.moves[target]:
            if mt.mountain[n]:
                continue
            if self._advance_ok(u, n):
                out.append(n)
        return out

    def _legal_advance_second(self) -> list[int]:
        u = self.ctx["battle"]["second"]
        return self._second_hexes(u) + [self.game.layout.special(Special.PASS)]

    def _apply_advance_second(self, a: int) -> None:
        b = self.ctx["battle"]
        u = b.pop("second")
        if a != self.game.layout.special(Special.PASS):
            self._move_to(u, a)
        self._next_advance()

    def _battle_done(self) -> None:
        b = self.ctx.pop("battle")
        self.ctx["last_battle"] = {k: b[k] for k in ("target", "result", "die", "column") if k in b}
        if b["air"]:
            self.decision = Decision.END_PHASE  # one air-only strike per phase
            return
        side = b["attacker"]
        if self._attack_targets(side):
            self._set(Decision.ATTACK_TARGET, side)
        else:
            self.decision = Decision.END_PHASE

    # --------------------------------------------------------- scare, order

    def _enter_refugee_recovery(self) -> bool:
        if self.turn >= 2:
            self.refugees = {}  # rule 10.5
        return False

    def _enter_panzer_scare(self) -> bool:
        t = self.game.scenario.tables
        if self.turn < t.scare_first_turn:
            return False
        die = self._roll("panzer scare (rule 7.9)")
        limit = t.scare_later_max if self.scare_ever else t.scare_first_max  # R36
        if die > limit:
            return False
        self.scare_ever = True
        if not self._scare_candidates():
            return False
        self._set(Decision.SCARE_UNIT, FRENCH)
        return True

    def _scare_candidates(self) -> list[int]:
        """Supplied German mechanized units the French player can see (rules 7.9, 3.6, R3): the top
        unit of its stack, or any unit of a stack revealed to him by an attack declaration. A unit
        hidden under another (e.g. a panzer corps under the free-stacking 1st Mountain Division) is
        not offered: the action mask would reveal what rule 3.6 forbids the French to look at."""
        revealed = self.revealed[FRENCH]
        out = []
        for u in self.on_map_units(GERMAN):
            if not self.units[u].mechanized:
                continue
            h = self.loc[u]
            if self.stacks[h][-1] != u and h not in revealed:
                continue  # rule 3.6, R3: hidden under the top unit
            if self.is_supplied(u):
                out.append(u)
        return out

    def _legal_scare_unit(self) -> list[int]:
        layout = self.game.layout
        return [layout.unit_action(u) for u in self._scare_candidates()]

    def _apply_scare_unit(self, a: int) -> None:
        self.scare_unit = a - self.game.layout.unit_base
        self.decision = Decision.END_PHASE

    def _enter_scare_removal(self) -> bool:
        if self.turn >= 2:
            self.scare_unit = -1  # rule 7.9, II.H
        return False

    def _enter_german_order(self) -> bool:
        if self.turn == 1:
            self.german_move_first = True  # rule 5.4
            return False
        self._set(Decision.GERMAN_ORDER, GERMAN)
        return True

    def _legal_german_order(self) -> list[int]:
        layout = self.game.layout
        return [layout.special(Special.MOVE_FIRST), layout.special(Special.FIGHT_FIRST)]

    def _apply_german_order(self, a: int) -> None:
        self.german_move_first = a == self.game.layout.special(Special.MOVE_FIRST)  # rule 5.6
        self.decision = Decision.END_PHASE

    # ---------------------------------------------------------- replacement

    def _replacement_candidates(self) -> list[int]:
        """Rule 8.2."""
        mt = self.game.tables
        adj = self._adj_enemy_mask(GERMAN)
        out = []
        for u in self.on_map_units(GERMAN):
            spec = self.units[u]
            h = self.loc[u]
            if spec.steps == 2 and self.steps[u] == 1 and not mt.mountain[h] and not adj[h] and self.is_supplied(u):
                out.append(u)
        return out

    def _enter_replacement(self) -> bool:
        if self.turn < self.game.scenario.tables.replacement_first_turn:
            return False  # rule 8.1, 5.4
        if not self._replacement_candidates():
            return False
        self._set(Decision.REPLACEMENT, GERMAN)
        return True

    def _legal_replacement(self) -> list[int]:
        layout = self.game.layout
        return [layout.unit_action(u) for u in self._replacement_candidates()] + [layout.special(Special.PASS)]

    def _apply_replacement(self, a: int) -> None:
        layout = self.game.layout
        if a != layout.special(Special.PASS):
            u = a - layout.unit_base
            self.replacement_unit = u
            self.immobile[u] = True  # rule 8.2
            self.no_attack[u] = True
        self.decision = Decision.END_PHASE

    def _enter_replacement_completion(self) -> bool:
        u = self.replacement_unit
        if u >= 0 and self.status[u] == ON_MAP and self.steps[u] < self.units[u].steps:
            self.steps[u] = self.units[u].steps  # rule 8.3, 4.6
            self._pos_version[GERMAN] += 1
        self.replacement_unit = -1
        return False

    # ------------------------------------------------------------ luftwaffe

    def _enter_luftwaffe(self) -> bool:
        if self.stuka_used or not self.on_map_units(FRENCH):
            return False
        self._set(Decision.AIR_TARGET, GERMAN)
        return True

    def _legal_air_target(self) -> list[int]:
        targets = sorted(h for h, st in self.stacks.items() if self.units[st[0]].side == FRENCH)
        return targets + [self.game.layout.special(Special.PASS)]

    def _apply_air_target(self, a: int) -> None:
        if a == self.game.layout.special(Special.PASS):
            self.decision = Decision.END_PHASE
            return
        self.stuka_used = True  # rule 12.1, R32
        # R3: the strike is declared on the hex, so its stack is revealed to the German player; his
        # STEP_LOSS choice among the French defenders of a BB (rule 13.7, R29) shows nothing new
        self.revealed[GERMAN].add(a)
        b: dict[str, Any] = {"target": a, "attacker": GERMAN, "air": True, "attackers": [], "defenders": list(self.stacks[a]),
             "att_oos": False, "att_supplied": {}, "att_supplied_mech": False, "origins": []}
        b["def_oos"] = any(not self.is_supplied(u) for u in b["defenders"])
        self.ctx["battle"] = b
        b["att_support"] = self._support_dice(self.game.scenario.tables.support["stuka_attack"],
                                              "8th Fliegerkorps air strike (rule 12.5)")
        self._after_attack_support_choice(first=False)

    # -------------------------------------------------------- reinforcement

    def _enter_reinforcement(self) -> bool:
        t = self.game.scenario.tables
        queue = []
        for g in ("18", "4", "K"):
            sched = t.entry[g]
            if self.turn < sched.first_turn:
                continue
            for u in self.units:
                if u.group != g or self.status[u.index] != RESERVE:
                    continue
                if self.entry_ready[u.index]:
                    queue.append(u.index)  # R34: no new roll
                    continue
                die = self._roll(f"entry of {u.id} (rule 9.2-9.4, R34)")
                if die <= sched.max_roll(self.turn):
                    self.entry_ready[u.index] = True
                    queue.append(u.index)
        self.ctx["entering"] = queue
        return self._next_reinforcement()

    def _entry_hexes(self, u: int) -> list[int]:
        row = self.game.scenario.tables.entry[self.units[u].group].row
        hexes = self.game.tables.green if row == ColoredRow.GREEN else self.game.tables.yellow
        return [h for h in hexes if not self.stacks.get(h)]  # rules 9.2-9.4: no stacking

    def _next_reinforcement(self) -> bool:
        q = self.ctx["entering"]
        while q:
            if self._entry_hexes(q[0]):
                self._set(Decision.REINFORCE_HEX, GERMAN)
                return True
            q.pop(0)  # R34: stays ready, enters next turn without a new roll
        self.decision = Decision.END_PHASE
        return True

    def _legal_reinforce_hex(self) -> list[int]:
        return self._entry_hexes(self.ctx["entering"][0])

    def _apply_reinforce_hex(self, a: int) -> None:
        u = self.ctx["entering"].pop(0)
        self.entry_ready[u] = False
        self._place(u, a)
        if self.units[u].group == "18":
            self.must_leave[u] = True  # rule 9.2, R7
        self._next_reinforcement()

    # ------------------------------------------------------------- refugees

    def _refugee_base(self) -> list[int]:
        """Land hexes outside the colored rows, not German-occupied or adjacent to a German unit (R35)."""
        key = self._pos_version[GERMAN]
        hit: tuple[Any, list[int]] | None = self._cache.get("refB")
        if hit is not None and hit[0] == key:
            return hit[1]
        adj = self._adj_enemy_mask(FRENCH)  # German-occupied or adjacent to a German unit
        out = [h for h in self.game.tables.land_not_colored if not adj[h]]
        self._cache["refB"] = (key, out)
        return out

    def _refugee_hexes(self) -> list[int]:
        """R35."""
        refugees = self.refugees
        base = self._refugee_base()
        if not refugees:
            return list(base)
        return [h for h in base if h not in refugees]

    def _any_refugee_hex(self) -> bool:
        refugees = self.refugees
        return any(h not in refugees for h in self._refugee_base())

    def _enter_refugee_placement(self) -> bool:
        t = self.game.scenario.tables
        if self.turn < t.refugee_first_turn:
            return False
        die = self._roll("refugees (rule 10.1)")
        self.ctx["refugees_left"] = min(die, t.refugee_max)
        if not self._any_refugee_hex():
            return False
        self._set(Decision.REFUGEE_HEX, GERMAN)
        return True

    def _legal_refugee_hex(self) -> list[int]:
        return self._refugee_hexes()

    def _apply_refugee_hex(self, a: int) -> None:
        self.refugees[a] = False
        self.ctx["refugees_left"] -= 1
        if self.ctx["refugees_left"] <= 0 or not self._any_refugee_hex():
            self.decision = Decision.END_PHASE

    # ------------------------------------------------------------ overstack

    def _legal_overstack(self) -> list[int]:
        # fog of war (rule 3.6, R3) does not hide these identities: rule 6.5 has the opposing player
        # remove "the units of his choice" from the over-stacked hex, so the rules show him the stack
        layout = self.game.layout
        h = self.ctx["overstack_hex"]
        return [layout.unit_action(u) for u in self.stacks[h] if not self.units[u].free_stacking]

    def _apply_overstack(self, a: int) -> None:
        u = a - self.game.layout.unit_base
        self._eliminate(u, "over-stacked (rule 6.5, R9)")
        self.ctx.pop("overstack_hex", None)
        self.decision = Decision.END_PHASE

    # --------------------------------------------------------------- legal

    def _compute_legal(self) -> list[int]:
        fn = _LEGAL.get(self.decision)
        if fn is None:
            return []
        return fn(self)

    # ---------------------------------------------------------- text forms

    def action_to_string(self, a: int) -> str:
        """What action ``a`` does in the current decision."""
        a = self._checked_action(a)
        layout = self.game.layout
        kind = layout.kind(a)
        d = self.decision
        if kind == "special":
            s = a - layout.special_base
            if s >= int(Special.LOWER_0):
                return f"lower the differential by {s - int(Special.LOWER_0)} column(s)"
            name = Special(s)
            if name == Special.PASS:
                return {
                    Decision.MOVE_UNIT: "end the movement phase",
                    Decision.ATTACK_TARGET: "end the combat phase",
                    Decision.ATTACK_ADD: "done adding attackers",
                    Decision.EVACUATE: "end evacuation",
                    Decision.RAIL_UNIT: "no rail move",
                    Decision.ADVANCE_UNIT: "no (further) advance",
                    Decision.ADVANCE_SECOND: "stay in the target hex",
                    Decision.AIR_TARGET: "no air strike",
                    Decision.REPLACEMENT: "no replacement",
                }.get(d, "pass")
            return {Special.MOVE_FIRST: "move first, then fight", Special.FIGHT_FIRST: "fight first, then move",
                    Special.STUKA: "commit the 8th Fliegerkorps", Special.NAVAL_FRENCH: "commit French naval gunfire",
                    Special.NAVAL_BRITISH: "commit British naval gunfire"}[name]
        if kind == "unit":
            u = self.units[a - layout.unit_base]
            verb = {Decision.SETUP_UNIT: "place", Decision.EVACUATE: "evacuate", Decision.RAIL_UNIT: "rail",
                    Decision.MOVE_UNIT: "move", Decision.ATTACK_ADD: "attack with", Decision.STEP_LOSS: "lose a step of",
                    Decision.ADVANCE_UNIT: "advance", Decision.REPLACEMENT: "replace", Decision.SCARE_UNIT: "scare",
                    Decision.OVERSTACK_REMOVE: "remove"}.get(d, "choose")
            where = f" in {hg.hex_name(self.loc[u.index])}" if self.loc[u.index] >= 0 else ""
            return f"{verb} {u.id}{where}"
        h = hg.hex_name(a)
        if d == Decision.MOVE_DEST:
            u = self.ctx["unit"]
            if a == self.loc[u]:
                return f"{self.units[u].id} stays in {h}"
            r = self.ctx["dests"][a]
            extra = f", -{r.vp} VP refugees" if r.vp else ""
            return f"move {self.units[u].id} to {h} ({r.mp} MP{extra})"
        if d == Decision.RAIL_DEST and "unit" in self.ctx and _contains(self.legal_actions(), a):
            u = self.ctx["unit"]
            route = " - ".join(hg.hex_name(x) for x in (self.loc[u], *self.rail_route_to(u, a)))
            return f"rail {self.units[u].id} to {h} via {route}"  # R17: the route taken
        verb = {Decision.SETUP_HEX: "place in", Decision.RAIL_DEST: "rail to", Decision.ATTACK_TARGET: "attack",
                Decision.RETREAT: "retreat to", Decision.ADVANCE_SECOND: "advance on to", Decision.AIR_TARGET: "air strike on",
                Decision.REINFORCE_HEX: "enter at", Decision.REFUGEE_HEX: "refugees in"}.get(d, "hex")
        return f"{verb} {h}"

    def decision_string(self) -> str:
        return f"GT{self.turn} {self.phase.name} {self.player.agent} {self.decision.name}"

    def __str__(self) -> str:
        lines = [f"France Fights On - GT{self.turn} {self.phase.name}; {self.player.agent} to decide {self.decision.name};"
                 f" French VP {self.vp}"]
        for side in (FRENCH, GERMAN):
            parts = []
            for u in self.on_map_units(side):
                spec = self.units[u]
                red = "" if self.is_full(u) else "(r)"
                parts.append(f"{spec.id}{red}@{hg.hex_name(self.loc[u])}")
            lines.append(f"{side.agent}: " + " ".join(parts))
        if self.refugees:
            lines.append("refugees: " + " ".join(hg.hex_name(h) + ("*" if f else "") for h, f in sorted(self.refugees.items())))
        dead = [self.units[u].id for u in range(len(self.units)) if self.status[u] == DEAD]
        evac = [self.units[u].id for u in range(len(self.units)) if self.status[u] == EVACUATED]
        lines.append(f"dead: {' '.join(dead) or '-'}; evacuated: {' '.join(evac) or '-'}")
        if self.is_terminal():
            lines.append(f"GAME OVER: {'French' if self.winner == FRENCH else 'German'} victory with {self.vp} VP")
        return "\n".join(lines)

    # ------------------------------------------------------ clone / serialise

    def clone(self) -> State:
        s = State(self.game, _blank=True)
        for k, v in self.__dict__.items():
            if k == "game":
                continue
            if isinstance(v, list):
                v = [list(x) if isinstance(x, list) else x for x in v] if k == "history" else list(v)
            elif isinstance(v, bytearray):
                v = bytearray(v)
            elif isinstance(v, dict):
                v = _deep(v) if k in ("ctx",) else {kk: (list(vv) if isinstance(vv, list) else vv) for kk, vv in v.items()}
            elif isinstance(v, tuple) and k == "revealed":
                v = (set(v[0]), set(v[1]))
            elif isinstance(v, Dice):
                v = v.copy()
            s.__dict__[k] = v
        s._cache = dict(self._cache)
        return s

    def __deepcopy__(self, memo: dict[int, Any]) -> State:
        return self.clone()

    def __getstate__(self) -> dict[str, Any]:
        return {"game_options": self.game.options.to_dict(), "state": self.to_dict(),
                "scenario_default": self.game.scenario is _default_scenario_obj(), "scenario": None
                if self.game.scenario is _default_scenario_obj() else self.game.scenario}

    def __setstate__(self, d: dict[str, Any]) -> None:
        from ffo_env.core.scenario import default_scenario

        scen = default_scenario() if d["scenario_default"] else d["scenario"]
        game = Game(scenario=scen, options=RulesOptions.from_dict(d["game_options"]))
        other = State.from_dict(game, d["state"])
        self.__dict__.update(other.__dict__)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form that :meth:`from_dict` turns back into an identical state."""
        ctx = _ctx_to_json(self.ctx)
        return {
            "engine": ENGINE_VERSION,
            "seed": self.seed,
            "dice_state": str(self.dice.state),
            "turn": self.turn,
            "phase": self.phase.name,
            "decision": self.decision.name,
            "player": int(self.player),
            "ctx": ctx,
            "loc": self.loc,
            "status": self.status,
            "steps": self.steps,
            "moved": self.moved,
            "attacked": self.attacked,
            "no_attack": self.no_attack,
            "immobile": self.immobile,
            "must_leave": self.must_leave,
            "left_green": self.left_green,
            "entered_map": self.entered_map,
            "entry_ready": self.entry_ready,
            "stacks": {str(h): st for h, st in sorted(self.stacks.items())},
            "control": list(self.control),
            "ever_german": list(self.ever_german),
            "refugees": {str(h): f for h, f in sorted(self.refugees.items())},
            "revealed": [sorted(self.revealed[0]), sorted(self.revealed[1])],
            "vp": self.vp,
            "vp_log": self.vp_log,
            "stuka_used": self.stuka_used,
            "naval_used": self.naval_used,
            "scare_ever": self.scare_ever,
            "scare_unit": self.scare_unit,
            "replacement_unit": self.replacement_unit,
            "german_move_first": self.german_move_first,
            "oos_roll": {str(h): r for h, r in sorted(self.oos_roll.items())},
            "dice_log": self.dice_log,
            "rail_log": self.rail_log,
            "history": [list(x) for x in self.history],
            "last_dice": self.last_dice,
            "winner": self.winner,
            "pos_version": self._pos_version,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, game: Game, d: dict[str, Any]) -> State:
        """The state saved by :meth:`to_dict`, after :func:`~ffo_env.core.state_check.check_state_dict` has
        checked every invariant it can (a damaged or crafted dict is one ``StateError`` naming the key)."""
        from ffo_env.core.state_check import check_state_dict

        check_state_dict(game, d)
        s = cls(game, _blank=True)
        s.seed = d["seed"]
        s.dice = Dice(state=int(d["dice_state"]))
        s.turn = d["turn"]
        s.phase = Phase[d["phase"]]
        s.decision = Decision[d["decision"]]
        s.player = Side(d["player"])
        s.ctx = _ctx_from_json(d["ctx"])
        for k in ("loc", "status", "steps", "moved", "attacked", "no_attack", "immobile", "must_leave",
                  "left_green", "entered_map", "entry_ready", "vp_log", "naval_used", "dice_log", "last_dice"):
            setattr(s, k, list(d[k]))
        s.stacks = {int(h): list(st) for h, st in d["stacks"].items()}
        s.control = bytearray(d["control"])
        s.ever_german = bytearray(d["ever_german"])
        s.refugees = {int(h): bool(f) for h, f in d["refugees"].items()}
        s.revealed = (set(d["revealed"][0]), set(d["revealed"][1]))
        s.vp = d["vp"]
        s.stuka_used = d["stuka_used"]
        s.scare_ever = d["scare_ever"]
        s.scare_unit = d["scare_unit"]
        s.replacement_unit = d["replacement_unit"]
        s.german_move_first = d["german_move_first"]
        s.oos_roll = {int(h): r for h, r in d["oos_roll"].items()}
        s.history = [(int(x[0]), int(x[1]), bool(x[2])) for x in d["history"]]
        s.rail_log = [dict(x) for x in d.get("rail_log", [])]
        s.winner = d["winner"]
        s._pos_version = list(d["pos_version"])
        s._port_version = 0
        s._cache = {}
        s._legal = None
        return s

    @classmethod
    def from_json(cls, game: Game, text: str) -> State:
        from ffo_env.core.state_check import StateError

        try:
            d = json.loads(text)
        except (json.JSONDecodeError, TypeError) as e:
            raise StateError(f"saved state: not valid JSON: {e}") from e
        return cls.from_dict(game, d)


# ----------------------------------------------------------------- helpers


def _contains(sorted_list: list[int], a: int) -> bool:
    i = bisect.bisect_left(sorted_list, a)
    return i < len(sorted_list) and sorted_list[i] == a


def _dir(a: int, b: int) -> int:
    row = hg.NEIGHBORS[a]
    for d in range(6):
        if row[d] == b:
            return d
    return -1


def _deep(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _deep(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_deep(x) for x in v]
    return v


def _ctx_to_json(ctx: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in ctx.items():
        if k == "dests":
            out[k] = {str(h): [r.vp, r.mp, list(r.path), list(r.overrun)] for h, r in v.items()}
        elif k == "rail":
            out[k] = {str(u): d for u, d in v.items()}
        else:
            out[k] = _deep(v)
    return out


def _ctx_from_json(ctx: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in ctx.items():
        if k == "dests":
            out[k] = {int(h): Reach(x[0], x[1], tuple(x[2]), tuple(x[3])) for h, x in v.items()}
        elif k == "rail":
            out[k] = {int(u): list(d) for u, d in v.items()}
        else:
            out[k] = _deep(v)
    return out


def _default_scenario_obj() -> Any:
    from ffo_env.core import scenario

    return scenario._DEFAULT


_ENTER = {
    Phase.SETUP_FRENCH: State._enter_setup_french,
    Phase.SETUP_GERMAN: State._enter_setup_german,
    Phase.EVACUATION: State._enter_evacuation,
    Phase.FRENCH_MOVEMENT: State._enter_movement,
    Phase.FRENCH_COMBAT: State._enter_combat,
    Phase.REFUGEE_RECOVERY: State._enter_refugee_recovery,
    Phase.PANZER_SCARE: State._enter_panzer_scare,
    Phase.GERMAN_ORDER: State._enter_german_order,
    Phase.REPLACEMENT: State._enter_replacement,
    Phase.LUFTWAFFE: State._enter_luftwaffe,
    Phase.GERMAN_MOVEMENT: State._enter_movement,
    Phase.GERMAN_COMBAT: State._enter_combat,
    Phase.REPLACEMENT_COMPLETION: State._enter_replacement_completion,
    Phase.REINFORCEMENT: State._enter_reinforcement,
    Phase.REFUGEE_PLACEMENT: State._enter_refugee_placement,
    Phase.SCARE_REMOVAL: State._enter_scare_removal,
}

_LEGAL = {
    Decision.SETUP_UNIT: State._legal_setup_unit,
    Decision.SETUP_HEX: State._legal_setup_hex,
    Decision.GERMAN_ORDER: State._legal_german_order,
    Decision.EVACUATE: State._legal_evacuate,
    Decision.RAIL_UNIT: State._legal_rail_unit,
    Decision.RAIL_DEST: State._legal_rail_dest,
    Decision.MOVE_UNIT: State._legal_move_unit,
    Decision.MOVE_DEST: State._legal_move_dest,
    Decision.ATTACK_TARGET: State._legal_attack_target,
    Decision.ATTACK_ADD: State._legal_attack_add,
    Decision.SUPPORT_ATTACK: State._legal_support,
    Decision.SUPPORT_DEFENCE: State._legal_support,
    Decision.LOWER: State._legal_lower,
    Decision.STEP_LOSS: State._legal_step_loss,
    Decision.RETREAT: State._legal_retreat,
    Decision.ADVANCE_UNIT: State._legal_advance_unit,
    Decision.ADVANCE_SECOND: State._legal_advance_second,
    Decision.AIR_TARGET: State._legal_air_target,
    Decision.REPLACEMENT: State._legal_replacement,
    Decision.REINFORCE_HEX: State._legal_reinforce_hex,
    Decision.REFUGEE_HEX: State._legal_refugee_hex,
    Decision.SCARE_UNIT: State._legal_scare_unit,
    Decision.OVERSTACK_REMOVE: State._legal_overstack,
}

_APPLY = {
    Decision.SETUP_UNIT: State._apply_setup_unit,
    Decision.SETUP_HEX: State._apply_setup_hex,
    Decision.GERMAN_ORDER: State._apply_german_order,
    Decision.EVACUATE: State._apply_evacuate,
    Decision.RAIL_UNIT: State._apply_rail_unit,
    Decision.RAIL_DEST: State._apply_rail_dest,
    Decision.MOVE_UNIT: State._apply_move_unit,
    Decision.MOVE_DEST: State._apply_move_dest,
    Decision.ATTACK_TARGET: State._apply_attack_target,
    Decision.ATTACK_ADD: State._apply_attack_add,
    Decision.SUPPORT_ATTACK: State._apply_support,
    Decision.SUPPORT_DEFENCE: State._apply_support,
    Decision.LOWER: State._apply_lower,
    Decision.STEP_LOSS: State._apply_step_loss,
    Decision.RETREAT: State._apply_retreat,
    Decision.ADVANCE_UNIT: State._apply_advance_unit,
    Decision.ADVANCE_SECOND: State._apply_advance_second,
    Decision.AIR_TARGET: State._apply_air_target,
    Decision.REPLACEMENT: State._apply_replacement,
    Decision.REINFORCE_HEX: State._apply_reinforce_hex,
    Decision.REFUGEE_HEX: State._apply_refugee_hex,
    Decision.SCARE_UNIT: State._apply_scare_unit,
    Decision.OVERSTACK_REMOVE: State._apply_overstack,
}
