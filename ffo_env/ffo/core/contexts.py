"""The working data of the phase being played: typed, slotted records the phase modules fill in.

:class:`PhaseContext` lives for one phase (``State._end_phase`` replaces it with a fresh one); a
:class:`Battle` lives from the declaration of an attack to its last advance. Nothing outside
``ffo_env.ffo.core`` reads them: callers ask :class:`~ffo_env.ffo.core.state.State`'s public queries, and the
saved-state JSON keeps the dict form of :mod:`ffo_env.ffo.core.state_io`. ``copy`` copies exactly the lists
the engine mutates in place; the rest (destination maps, candidate lists) is only ever replaced, so a
clone may share it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any

from ffo_env.ffo.core.search import Reach


@dataclass(slots=True)
class Battle:
    """One battle (rules 13.1-13.20, R22, R26): each optional field stays ``None`` until its step sets it."""

    target: int
    attacker: int  # the attacking side
    air: bool  # a Luftwaffe air-only strike (rule 12.4)
    attackers: list[int]
    defenders: list[int]
    att_supplied: dict[int, bool] | None = None  # R11: judged once, at the declaration, per unit
    att_oos: bool | None = None  # rule 7.4
    def_oos: bool | None = None
    att_supplied_mech: bool | None = None  # rule 13.13
    origins: list[int] | None = None  # hexes the attack came from (rule 13.6: never a retreat hex)
    naval_kind: int | None = None  # 0 French, 1 British marker committed (R32)
    att_support: int | None = None
    def_support: int | None = None
    att_cf: int | None = None
    def_cf: int | None = None
    differential: int | None = None
    shifts: dict[str, int] | None = None  # R26: column shifts by cause
    column: int | None = None
    lowered: int | None = None  # rule 13.19
    final_column: int | None = None
    die: int | None = None
    result: str | None = None
    retreat_queue: list[int] | None = None  # rule 13.6, R28: defenders still to retreat, top first
    loss_queue: list[tuple[int, int]] | None = None  # rule 13.7, R29: (chooser, victim) step losses to take
    advanced: list[int] | None = None  # rule 13.2, R31
    second: int | None = None  # the unit choosing a second advance hex

    def copy(self) -> Battle:
        return Battle(
            self.target,
            self.attacker,
            self.air,
            list(self.attackers),
            list(self.defenders),
            self.att_supplied,
            self.att_oos,
            self.def_oos,
            self.att_supplied_mech,
            self.origins,
            self.naval_kind,
            self.att_support,
            self.def_support,
            self.att_cf,
            self.def_cf,
            self.differential,
            self.shifts,
            self.column,
            self.lowered,
            self.final_column,
            self.die,
            self.result,
            None if self.retreat_queue is None else list(self.retreat_queue),
            None if self.loss_queue is None else list(self.loss_queue),
            None if self.advanced is None else list(self.advanced),
            self.second,
        )

    def public_value(self, name: str) -> Any:
        """Field ``name`` in its public (JSON) form, ``None`` if not set yet."""
        v = getattr(self, name)
        if v is None:
            return None
        if name == "att_supplied":
            return {str(u): ok for u, ok in v.items()}  # JSON object keys are strings
        if name == "loss_queue":
            return [list(x) for x in v]
        return v


BATTLE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Battle))
_BATTLE_FIELD_SET = frozenset(BATTLE_FIELDS)


class BattleView(Mapping[str, Any]):
    """A read-only mapping over a :class:`Battle`: the keys are the fields set so far (the saved-state form)."""

    __slots__ = ("_battle",)

    def __init__(self, battle: Battle) -> None:
        self._battle = battle

    def __getitem__(self, key: str) -> Any:
        if key not in _BATTLE_FIELD_SET:
            raise KeyError(key)
        v = self._battle.public_value(key)
        if v is None:
            raise KeyError(key)
        return v

    def __iter__(self) -> Iterator[str]:
        b = self._battle
        return iter([k for k in BATTLE_FIELDS if getattr(b, k) is not None])

    def __len__(self) -> int:
        b = self._battle
        return sum(1 for k in BATTLE_FIELDS if getattr(b, k) is not None)

    def __repr__(self) -> str:
        return f"BattleView({dict(self)!r})"


@dataclass(frozen=True, slots=True)
class FoughtBattle:
    """A battle resolved this combat phase (rules 13.12, 13.19)."""

    target: int
    column: int
    die: int
    result: str
    air: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "column": self.column,
            "die": self.die,
            "result": self.result,
            "air": self.air,
        }


@dataclass(frozen=True, slots=True)
class BattleOutcome:
    """The last battle of the phase: what the encoder shows once the battle is over."""

    target: int
    result: str
    die: int
    column: int

    def as_dict(self) -> dict[str, Any]:
        return {"target": self.target, "result": self.result, "die": self.die, "column": self.column}


@dataclass(slots=True)
class PhaseContext:
    """Working data of the current phase; a field is ``None`` outside the decision or phase that uses it."""

    ended: bool = False  # end-of-phase R7 compliance done (an over-stack decision may interrupt the end)
    unit: int | None = None  # unit awaiting its hex: SETUP_HEX, MOVE_DEST or RAIL_DEST
    mp: int | None = None  # MOVE_DEST: MP of the unit moving (rules 7.1, 7.3, R12)
    dests: Mapping[int, Reach] | None = None  # MOVE_DEST: its destinations (R13)
    rail_dests: list[int] | None = None  # RAIL_DEST: cities the rail move may reach (rule 11.7, R17)
    comply: list[int] | None = None  # movement: units that must leave their rows this phase (R7)
    rail: dict[int, list[int]] | None = None  # RAIL_UNIT: units that may rail, their cities (rule 11.7)
    ports_used: list[int] | None = None  # evacuation: ports already evacuated from (rule 11.6)
    attacked_hexes: list[int] | None = None  # combat: hexes attacked this phase (R23)
    battle: Battle | None = None
    last_battle: BattleOutcome | None = None
    log: list[FoughtBattle] | None = None  # combat: battles resolved this phase
    entering: list[int] | None = None  # reinforcement: units still to enter (rule 9, R34)
    refugees_left: int | None = None  # refugee markers still to place (rule 10.2)
    overstack_hex: int | None = None  # OVERSTACK_REMOVE: the over-stacked hex (rule 6.5, R9)

    def copy(self) -> PhaseContext:
        return PhaseContext(
            self.ended,
            self.unit,
            self.mp,
            self.dests,
            self.rail_dests,
            self.comply,
            self.rail,
            None if self.ports_used is None else list(self.ports_used),
            None if self.attacked_hexes is None else list(self.attacked_hexes),
            None if self.battle is None else self.battle.copy(),
            self.last_battle,
            None if self.log is None else list(self.log),
            None if self.entering is None else list(self.entering),
            self.refugees_left,
            self.overstack_hex,
        )


CONTEXT_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(PhaseContext))
