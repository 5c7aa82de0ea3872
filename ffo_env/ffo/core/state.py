"""``State``: a France Fights On position as a sequence of atomic decisions.

The turn sequence of rule 5.1 is a state machine. Each call of
:meth:`State.apply_action` makes one choice for the side named by
:attr:`State.current_side` (the owner of a retreat, step loss or over-stack
decision is the side that owns it, even in the other side's phase); the engine
then runs every automatic step (dice, phases with nothing to decide) until the
next decision. Legality is decided in one place, :meth:`State.legal_actions`,
which the environment masks, the bots and the validation of a submitted action
all use.

This module holds the machine and the position's bookkeeping (placing and removing units, control,
supply, dice, VP); each rule section's legality and effects live in its own module (setup_phase,
evacuation, movement, combat, panzer_scare, replacement, reinforcements, refugees, stacking,
turn_sequence), their working data in the typed records of :mod:`ffo_env.ffo.core.contexts`.

Dice come from the state's own generator (R37) and every roll is logged in
:attr:`State.dice_log` with what it decided.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from ffo_env.core.dice import Dice
from ffo_env.ffo.core import (
    evacuation,
    masks,
    movement,
    phase_handlers,
    stacking,
    state_io,
    turn_sequence,
    victory,
)
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core import scenario as scenario_data
from ffo_env.ffo.core.actions import IllegalActionError
from ffo_env.ffo.core.combat_odds import BattlePreview, battle_preview
from ffo_env.ffo.core.contexts import BattleView, PhaseContext
from ffo_env.ffo.core.datasets import DATA_VERSIONS
from ffo_env.ffo.core.describe import action_text, decision_text, position_text
from ffo_env.ffo.core.mapdata import ColoredRow
from ffo_env.ffo.core.phases import (
    COMBAT_PHASES,
    DEAD,
    EVACUATED,
    MOVEMENT_PHASES,
    ON_MAP,
    RESERVE,
    SETUP_PHASES,
    STATUS_NAMES,
    Decision,
    Phase,
)
from ffo_env.ffo.core.scenario import Side, UnitSpec
from ffo_env.ffo.core.search import Reach
from ffo_env.ffo.core.state_check import StateError
from ffo_env.ffo.core.visibility import SeenStack, seen_stack

if TYPE_CHECKING:
    from ffo_env.ffo.core.game import Game, RulesOptions
    from ffo_env.ffo.core.scenario import Scenario

__all__ = ["DEAD", "EVACUATED", "ON_MAP", "RESERVE", "STATUS_NAMES", "Decision", "Phase", "State"]

FRENCH = Side.FRENCH
GERMAN = Side.GERMAN
# the phase names the dice log writes, by phase number (Enum.name is a slow descriptor, and a reset's
# random setup logs a hundred draws)
_PHASE_NAMES = tuple(p.name for p in sorted(Phase))


class State:
    """A game position. Create with ``Game.new_initial_state(seed)`` (or :meth:`State.initial`)."""

    # ------------------------------------------------------------------ init

    def __init__(self, game: Game, seed: int = 0, *, _blank: bool = False, _start: bool = True) -> None:
        # _blank: no attributes at all (clone/from_dict fill them in); _start=False: every attribute
        # initialised but the state machine not run (ffo_env.ffo.core.notation builds test positions so)
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
        self._ctx = PhaseContext()  # working data of the phase (core only; see contexts.py)
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
        self.control = bytearray(game.initial_control)  # rule 3.7: French but the green and yellow rows
        self.ever_german = bytearray(hg.N_HEX)  # rule 7.8, 11.7, R20
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

    @classmethod
    def initial(cls, game: Game, seed: int = 0) -> State:
        """The position at the start of a game of ``game`` whose dice come from ``seed`` (R37)."""
        return cls(game, seed)

    # ------------------------------------------------------------- accessors

    @property
    def units(self) -> tuple[UnitSpec, ...]:
        return self.game.scenario.units

    @property
    def current_side(self) -> Side:
        return self.player

    @property
    def current_player(self) -> int:
        """0 (``french``) or 1 (``german``): the side to decide, as every game of the suite names it
        (:class:`ffo_env.games.GameState`)."""
        return int(self.player)

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

    def occupied_hexes(self, side: Side | int) -> tuple[int, ...]:
        """The hexes holding ``side``'s units, in ascending order (a hex holds one side's units, rule 6.6)."""
        # the hexes change only as units enter or leave them (_place, _lift), which bump the position versions
        kind, key = ("occupied1" if side else "occupied0"), tuple(self._pos_version)
        hit: tuple[Any, tuple[int, ...]] | None = self._cache.get(kind)
        if hit is not None and hit[0] == key:
            return hit[1]
        sides = self.game.unit_side
        out = tuple(sorted(h for h, st in self.stacks.items() if sides[st[0]] == side))
        self._cache[kind] = (key, out)
        return out

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
        """The stack in ``h`` as ``viewer`` sees it (rule 3.6, R3); see :mod:`ffo_env.ffo.core.visibility`."""
        return seen_stack(self, viewer, h)

    def selected_unit(self) -> int:
        """The unit chosen to be placed, moved or railed and awaiting its hex, else -1."""
        u = self._ctx.unit
        return -1 if u is None else u

    def decision_unit(self) -> int:
        """The unit the pending hex decision is about (placed, moved, railed, retreating, advancing on,
        entering), else -1."""
        d = self.decision
        if d in (Decision.MOVE_DEST, Decision.RAIL_DEST, Decision.SETUP_HEX):
            return self.selected_unit()
        b = self._ctx.battle
        if d == Decision.RETREAT:
            return b.retreat_queue[0] if b and b.retreat_queue else -1
        if d == Decision.ADVANCE_SECOND:
            return b.second if b and b.second is not None else -1
        if d == Decision.REINFORCE_HEX:
            ent = self._ctx.entering
            return ent[0] if ent else -1
        return -1

    def move_destinations(self) -> Mapping[int, Reach]:
        """At MOVE_DEST: every destination of the unit moving, with its MP cost, refugee VP and path (R13)."""
        return MappingProxyType(self._ctx.dests or {})

    def moving_mp(self) -> int | None:
        """MP of the unit choosing its destination (MOVE_DEST), else ``None``."""
        return self._ctx.mp

    def rail_origins(self) -> dict[int, list[int]]:
        """In any French phase: the cities a French rail move could start from now and the cities each could
        reach (rule 11.7, R17; the unit's own conditions aside). For planning a rail move a turn ahead."""
        return evacuation.rail_origins(self)

    def rail_options(self) -> Mapping[int, list[int]]:
        """At RAIL_UNIT: units that may attempt a rail move and their destination cities (rule 11.7, R17)."""
        return MappingProxyType(self._ctx.rail or {})

    def refugees_left(self) -> int:
        """Refugee markers still to place this phase (rule 10.2)."""
        return self._ctx.refugees_left or 0

    def entering_units(self) -> tuple[int, ...]:
        """Reinforcements still to enter this phase, the next first (rules 9.2-9.4, R34)."""
        return tuple(self._ctx.entering or ())

    @property
    def battle(self) -> Mapping[str, Any] | None:
        """The battle being fought (public, read-only): target, attacker, air, attackers, defenders, and as
        the battle goes on supply (R11), support, att_cf/def_cf/differential/shifts/column (R26), result."""
        b = self._ctx.battle
        return None if b is None else BattleView(b)

    def last_battle_result(self) -> str | None:
        """The CRT result of the last battle fought this phase, if any."""
        lb = self._ctx.last_battle
        return lb.result if lb else None

    def battles_fought(self) -> tuple[Mapping[str, Any], ...]:
        """The battles resolved this combat phase: target, final column, die, result, air (rules 13.12, 13.19)."""
        return tuple(MappingProxyType(x.as_dict()) for x in self._ctx.log or ())

    def attacked_hexes(self) -> tuple[int, ...]:
        """Hexes attacked so far this combat phase (R23)."""
        return tuple(self._ctx.attacked_hexes or ())

    def destinations(self, u: int, mp: int) -> Mapping[int, Reach]:
        """Legal destinations of unit ``u`` with ``mp`` movement points (R13, R15), stay excluded."""
        return movement.destinations(self, u, mp)

    def rail_route_to(self, u: int, dest: int) -> tuple[int, ...]:
        """The route a rail move of unit ``u`` to city ``dest`` takes (R17): hexes entered, ``dest`` last."""
        return evacuation.rail_route_to(self, u, dest)

    def battle_preview(
        self,
        target: int,
        attackers: list[int],
        att_support: int = 0,
        def_support: int = 0,
        *,
        viewer: int | None = None,
    ) -> BattlePreview:
        """Differential, column shifts by cause and rule, final column and the result distribution of
        ``attackers`` attacking ``target`` now (R26; see :func:`combat_odds.battle_preview`). With ``viewer``,
        only what that side may see of the defending stack is used (rule 3.6, R3)."""
        return battle_preview(self, target, list(attackers), att_support, def_support, viewer)

    def french_cities(self) -> list[int]:
        """The city hexes under French control now (rules 3.7, 4.3; :mod:`victory`)."""
        return victory.french_cities(self)

    def city_vp_if_ended(self) -> int:
        """The city VP the French would add if the game ended now (rule 4.3, R21; :mod:`victory`)."""
        return victory.city_vp_if_ended(self)

    def pending_overstack_vp(self) -> int:
        """French VP at stake in over-stacked German hexes (rule 6.5, R9; see :mod:`stacking`). Used by the
        envs' ``reward="shaped"`` as a potential."""
        return stacking.pending_overstack_vp(self)

    def elimination_vp(self, u: int) -> int:
        """French VP for eliminating unit ``u`` (rules 4.3, 4.6); 0 for a French unit."""
        spec = self.units[u]
        if spec.side != GERMAN:
            return 0
        vp = self.game.scenario.tables.vp
        if spec.type == "mountain":
            return int(vp["german_mountain_division_eliminated"])
        return int(vp["german_mech_eliminated" if spec.mechanized else "german_infantry_eliminated"])

    # ------------------------------------------------------------- decisions

    def legal_actions(self) -> list[int]:
        """Legal actions of the current decision, sorted. The one definition of legality."""
        if self._legal is None:
            fn = phase_handlers.LEGAL.get(self.decision)
            self._legal = [] if fn is None else sorted(fn(self))
        return self._legal

    def legal_action_mask(self) -> bytearray:
        mask = bytearray(self.game.layout.n_actions)
        for a in self.legal_actions():
            mask[a] = 1
        return mask

    def apply_action(self, action: int) -> None:
        """Make the current decision. ``action`` must be an int or numpy integer (else ``TypeError``); out of
        range or not legal raises :class:`IllegalActionError` (a ``ValueError``). Either way the state is unchanged."""
        a = self.check_action(action)
        self._apply_decision(a, auto=False)
        self._run_automatic_steps()

    def check_action(self, action: object) -> int:
        """``action`` as an int if it is legal now; else the :class:`IllegalActionError` that
        :meth:`apply_action` would raise (the state is never changed)."""
        a = self._checked_action(action)
        if self.phase == Phase.GAME_OVER:
            raise IllegalActionError("the game is over; no action is legal")
        legal = self.legal_actions()
        i = bisect.bisect_left(legal, a)
        if i == len(legal) or legal[i] != a:
            raise IllegalActionError(
                f"action {a} ({self.game.layout.describe(a, self._unit_ids())})"
                f" is not legal for {self.player.agent} at {self.decision.name} in {self._where()};"
                f" {len(legal)} legal actions, e.g. {[self.action_to_string(x) for x in legal[:5]]}"
            )
        return a

    def _checked_action(self, action: object) -> int:
        """``action`` as an int in the action space, or a clear error naming it and the decision.

        Only integers are actions: ``int(1379.9)`` or ``int("1379")`` would silently play another action.
        """
        if type(action) is int and 0 <= action < self.game.layout.n_actions:  # the common case, fast
            return action
        if isinstance(action, np.ndarray) and action.ndim == 0:
            action = action[()]
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(
                f"action {action!r} ({type(action).__name__}) is not an integer; an action is an int"
                f" in [0, {self.game.layout.n_actions}) ({self.player.agent} at {self.decision.name}"
                f" in {self._where()})"
            )
        a = int(action)
        if not 0 <= a < self.game.layout.n_actions:
            raise IllegalActionError(
                f"action {a} is outside the action space [0, {self.game.layout.n_actions})"
                f" ({self.player.agent} at {self.decision.name} in {self._where()})"
            )
        return a

    def _unit_ids(self) -> tuple[str, ...]:
        return self.game.unit_ids

    def _where(self) -> str:
        return f"turn {self.turn} {self.phase.name}"

    def _apply_decision(self, a: int, auto: bool) -> None:
        self.history.append((int(self.player), a, auto))
        self._legal = None
        phase_handlers.APPLY[self.decision](self, a)
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
                if not phase_handlers.ENTER[self.phase](self):
                    self.decision = Decision.END_PHASE
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
        self.dice_log.append(
            {
                "i": len(self.dice_log),
                "die": v,
                "for": purpose,
                "turn": self.turn,
                "phase": _PHASE_NAMES[self.phase],
            }
        )
        self.last_dice.append(v)
        if len(self.last_dice) > 8:
            del self.last_dice[0]
        return v

    def _pick(self, n: int, purpose: str) -> int:
        """A uniform choice 0..n-1 from the game's generator (random setup), logged like a die."""
        v = self.dice.below(n)
        self.dice_log.append(
            {
                "i": len(self.dice_log),
                "pick": v,
                "of": n,
                "for": purpose,
                "turn": self.turn,
                "phase": _PHASE_NAMES[self.phase],
            }
        )
        return v

    def _picker(self) -> Callable[[int, str], int]:
        """:meth:`_pick` for a run of draws within one phase and game turn (a side's random setup: about fifty
        draws a reset): the same draws and the same log entries, with the turn and phase looked up once."""
        below = self.dice.below
        log = self.dice_log
        append = log.append
        turn = self.turn
        phase = _PHASE_NAMES[self.phase]

        def pick(n: int, purpose: str) -> int:
            v = below(n)
            append({"i": len(log), "pick": v, "of": n, "for": purpose, "turn": turn, "phase": phase})
            return v

        return pick

    # ------------------------------------------------------------------ VP

    def _award(self, vp: int, kind: str, detail: str) -> None:
        if vp == 0:
            return
        self.vp += vp
        self.vp_log.append(
            {"turn": self.turn, "phase": self.phase.name, "kind": kind, "vp": vp, "detail": detail}
        )

    # ------------------------------------------------------------- positions

    def _place(self, u: int, h: int) -> None:
        """Put unit ``u`` on top of hex ``h`` (R3) and take control of it (rule 3.7)."""
        st = self.stacks.get(h)
        if st is None:
            self.stacks[h] = [u]
        else:
            st.append(u)
        self.loc[u] = h
        self.status[u] = ON_MAP
        game = self.game
        side = game.unit_side[u]
        self._pos_version[side] += 1
        if game.unit_port[u]:
            self._port_version += 1
        revealed = self.revealed
        revealed[0].discard(h)
        revealed[1].discard(h)
        self._take(h, side)

    def _take(self, h: int, side: int) -> None:
        if self.game.always_german[h]:
            return  # rule 3.7: the green and yellow rows are always German
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

    def _counted(self, h: int) -> int:
        return stacking.counted(self, h)

    def _overstacked(self, side: int) -> tuple[int, int] | None:
        return stacking.overstacked(self, side)

    # ---------------------------------------------------------------- supply

    def supply_mask(self, side: int, west: bool = False) -> bytearray:
        """Hexes from which a unit of ``side`` (and west group) traces supply (rules 7.2, 7.7, 7.8, R10); a
        read-only 0/1 bytearray of length ``N_HEX`` (see :func:`masks.supply_mask`)."""
        return masks.supply_mask(self, side, west)

    _supply_mask = supply_mask  # the name the encoder and older code use

    def is_supplied(self, u: int) -> bool:
        """Supply of unit ``u`` now (rules 7.1-7.8; judged at the moments of R11)."""
        h = self.loc[u]
        if h < 0:
            return False
        spec = self.units[u]
        if spec.side == FRENCH and self.game.tables.city[h] and not self.ever_german[h]:
            return True  # rule 7.8
        return bool(masks.supply_mask(self, spec.side, spec.west)[h])

    def _supplied_for_action(self, u: int) -> bool:
        # rule 7.9: a scared corps moves and attacks as if out of supply
        return u != self.scare_unit and self.is_supplied(u)

    # ------------------------------------------------------------- phases

    def _end_phase(self) -> None:
        """End-of-phase housekeeping: R7 compliance, stacking (rule 6.5, R9), end of game (R21)."""
        ph = self.phase
        if not self._ctx.ended:
            self._ctx.ended = True
            if self.turn == 1 and ph == Phase.FRENCH_MOVEMENT:
                movement.gt1_compliance(self, FRENCH)
            if self.turn == 1 and ph == Phase.GERMAN_MOVEMENT:
                movement.gt1_compliance(self, GERMAN)
        if ph in MOVEMENT_PHASES:
            # rule 6.5, R9: only movement can over-stack (retreats and advances may not, rule 13.6,
            # R31), and setup stacks (rule 6.2) stand until their side's first movement phase
            over = stacking.overstacked(self, FRENCH if ph == Phase.FRENCH_MOVEMENT else GERMAN)
            if over is not None:
                h, side = over
                self._ctx.overstack_hex = h
                self._set(Decision.OVERSTACK_REMOVE, Side(side).other)
                return
        # per-phase resets
        if ph in MOVEMENT_PHASES:
            self.moved = [False] * len(self.moved)
            self.oos_roll = {}
            for h in self.refugees:
                self.refugees[h] = False
        if ph in COMBAT_PHASES:
            self.attacked = [False] * len(self.attacked)
        self._ctx = PhaseContext()
        if ph not in SETUP_PHASES and not self._french_ground_left():
            self._finish()  # rule 4.1, R21
            return
        nxt, new_turn = turn_sequence.phase_after(ph, self.german_move_first)
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
        status = self.status
        return any(status[u] in (ON_MAP, RESERVE) for u in self.game.side_unit_list[FRENCH])

    def _finish(self) -> None:
        """Final VP and the result (rule 4.3, R21; :mod:`victory`)."""
        victory.finish(self)

    # ---------------------------------------------------------- text forms

    def action_to_string(self, a: int) -> str:
        """What action ``a`` does in the current decision."""
        return action_text(self, self._checked_action(a))

    def decision_string(self) -> str:
        return decision_text(self)

    def __str__(self) -> str:
        return position_text(self)

    # ------------------------------------------------------ clone / serialise

    def clone(self) -> State:
        s = State.__new__(State)
        s.game = self.game
        s.seed = self.seed
        s.dice = self.dice.copy()
        s.turn = self.turn
        s.phase = self.phase
        s.decision = self.decision
        s.player = self.player
        s._ctx = self._ctx.copy()
        s.loc = list(self.loc)
        s.status = list(self.status)
        s.steps = list(self.steps)
        s.moved = list(self.moved)
        s.attacked = list(self.attacked)
        s.no_attack = list(self.no_attack)
        s.immobile = list(self.immobile)
        s.must_leave = list(self.must_leave)
        s.left_green = list(self.left_green)
        s.entered_map = list(self.entered_map)
        s.entry_ready = list(self.entry_ready)
        s.stacks = {h: list(st) for h, st in self.stacks.items()}
        s.control = bytearray(self.control)
        s.ever_german = bytearray(self.ever_german)
        s.refugees = dict(self.refugees)
        s.revealed = (set(self.revealed[0]), set(self.revealed[1]))
        s.vp = self.vp
        s.vp_log = list(self.vp_log)
        s.stuka_used = self.stuka_used
        s.naval_used = list(self.naval_used)
        s.scare_ever = self.scare_ever
        s.scare_unit = self.scare_unit
        s.replacement_unit = self.replacement_unit
        s.german_move_first = self.german_move_first
        s.oos_roll = dict(self.oos_roll)
        s.dice_log = list(self.dice_log)
        s.rail_log = list(self.rail_log)
        s.history = list(self.history)
        s.last_dice = list(self.last_dice)
        s.winner = self.winner
        s._pos_version = list(self._pos_version)
        s._port_version = self._port_version
        s._cache = dict(self._cache)
        s._legal = None if self._legal is None else list(self._legal)
        return s

    def __deepcopy__(self, memo: dict[int, Any]) -> State:
        return self.clone()

    def __reduce__(self) -> tuple[Callable[..., State], tuple[Any, ...]]:
        # pickled (multiprocessing envs) as the game's class, options and scenario plus the saved-state dict
        game = self.game
        scen = game.scenario
        shipped = scen.version in DATA_VERSIONS and scen is scenario_data.scenario_for(scen.version)
        own: Scenario | str = scen.version if shipped else scen  # a shipped version travels as its name
        return _unpickle_state, (type(game), game.options, own, self.to_dict())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form that :meth:`from_dict` turns back into an identical state."""
        return state_io.state_to_dict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, game: Game, d: dict[str, Any]) -> State:
        """The state saved by :meth:`to_dict`, after :func:`~ffo_env.ffo.core.state_check.check_state_dict` has
        checked every invariant it can (a damaged or crafted dict is one ``StateError`` naming the key)."""
        return state_io.state_from_dict(cls, game, d)

    @classmethod
    def from_json(cls, game: Game, text: str) -> State:
        try:
            d = json.loads(text)
        except (json.JSONDecodeError, TypeError) as e:
            raise StateError(f"saved state: not valid JSON: {e}") from e
        return cls.from_dict(game, d)


def _unpickle_state(
    game_cls: type[Game], options: RulesOptions, own: Scenario | str, d: dict[str, Any]
) -> State:
    game = game_cls(
        scenario=scenario_data.scenario_for(own) if isinstance(own, str) else own, options=options
    )
    return State.from_dict(game, d)
