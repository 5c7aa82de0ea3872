"""``Game``: the immutable scenario + rules options, a factory of :class:`State`.

Rulings that choose between readings of the rulebook are options here, with the
ruling as the default (rulings.md preamble).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from typing import Any

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.actions import ActionLayout
from ffo_env.ffo.core.mapdata import ColoredRow
from ffo_env.ffo.core.scenario import Scenario, Side, UnitSpec, default_scenario
from ffo_env.ffo.core.search import MapTables, build_tables
from ffo_env.ffo.core.state import State
from ffo_env.ffo.core.version import ENGINE_VERSION

__all__ = ["ENGINE_VERSION", "SETUP_MODES", "Game", "RulesOptions"]

SETUP_MODES = ("decide", "random", "fixed")


@dataclass(frozen=True)
class RulesOptions:
    """Rules options. Defaults are the binding rulings.

    - ``setup``: ``"decide"`` (R2: every placement is an agent decision), ``"random"``
      (uniform legal placement from the game's generator) or ``"fixed"`` (the
      deployment in ``data/setup_fixed.yaml``).
    - ``naval_vp_loss``: R18 ``"die"`` (lose 1-6 VP per fired marker) or
      ``"die_minus_one"`` (0-5).
    - ``skip_forced``: apply a decision automatically when it has exactly one legal
      action (it is still written to the record, marked ``auto``).
    - ``repeat_attacks``: R23, a hex may be attacked more than once per phase.
    - ``mixed_stack``: R24, ``"any"`` (the mountain shift / city benefit applies if at
      least one defender qualifies) or ``"all"``.
    """

    setup: str = "decide"
    naval_vp_loss: str = "die"
    skip_forced: bool = True
    repeat_attacks: bool = True
    mixed_stack: str = "any"

    def __post_init__(self) -> None:
        for name, expected in _OPTION_TYPES.items():
            value = getattr(self, name)
            # bool is an int and "false" is truthy: only the exact type is accepted
            if type(value) is not expected:
                raise TypeError(
                    f"rules option {name} must be a {expected.__name__}, found {value!r}"
                    f" ({type(value).__name__})"
                )
        if self.setup not in SETUP_MODES:
            raise ValueError(f"setup must be one of {SETUP_MODES}, got {self.setup!r}")
        if self.naval_vp_loss not in ("die", "die_minus_one"):
            raise ValueError(f"naval_vp_loss must be 'die' or 'die_minus_one', got {self.naval_vp_loss!r}")
        if self.mixed_stack not in ("any", "all"):
            raise ValueError(f"mixed_stack must be 'any' or 'all', got {self.mixed_stack!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RulesOptions:
        if not isinstance(d, dict):
            raise TypeError(
                f"rules options must be a mapping of option name to value, found {type(d).__name__}"
            )
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown rules options {sorted(unknown)}; known: {sorted(known)}")
        return cls(**d)


_OPTION_TYPES: dict[str, type] = {
    "setup": str,
    "naval_vp_loss": str,
    "skip_forced": bool,
    "repeat_attacks": bool,
    "mixed_stack": str,
}


@dataclass(frozen=True, eq=False)
class Game:
    """Scenario data and rules options; creates states from a seed."""

    scenario: Scenario = field(default_factory=default_scenario)
    options: RulesOptions = field(default_factory=RulesOptions)
    tables: MapTables = field(init=False)
    layout: ActionLayout = field(init=False)
    dist_green: tuple[int, ...] = field(init=False)
    forbidden: tuple[bytes, bytes] = field(init=False)
    # derived once per game for the hot loops of State (speed only)
    unit_side: tuple[int, ...] = field(init=False)  # side of each unit index
    side_unit_list: tuple[tuple[int, ...], tuple[int, ...]] = field(init=False)  # unit indices per side
    port_units: tuple[int, ...] = field(init=False)  # naval garrisons (rule 7.8)
    unit_static: tuple[bool, ...] = field(init=False)
    unit_free_stacking: tuple[bool, ...] = field(init=False)
    unit_panzer: tuple[bool, ...] = field(init=False)
    passable_bits: tuple[int, int] = field(init=False)  # not forbidden, per side, as int bitsets
    initial_control: bytes = field(init=False)  # controller of each hex at the start (rule 3.7)
    always_german: bytes = field(init=False)  # 1 for the hexes of the green and yellow rows (rule 3.7)
    unit_port: tuple[bool, ...] = field(init=False)  # a naval garrison (rule 7.8)
    unit_ids: tuple[str, ...] = field(init=False)  # for messages naming a unit action
    port_home: tuple[tuple[int, int], ...] = field(
        init=False
    )  # (unit, its port's hex) per garrison (rule 3.3)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for k, v in _derived(self.scenario).items():
            set_(self, k, v)
        set_(
            self,
            "layout",
            ActionLayout(hg.N_HEX, len(self.scenario.units), len(self.scenario.tables.crt.columns)),
        )

    @property
    def units(self) -> tuple[UnitSpec, ...]:
        return self.scenario.units

    def side_units(self, side: Side) -> list[int]:
        return [u.index for u in self.scenario.units if u.side == side]

    def new_initial_state(self, seed: int = 0) -> State:
        """The position at the start of the game: :meth:`State.initial` (the setup decisions come next)."""
        return State.initial(self, seed)

    @property
    def num_distinct_actions(self) -> int:
        return self.layout.n_actions


# Everything a Game derives from its scenario is immutable and depends on the scenario alone, so
# games of the same scenario object (every env of the default scenario) share one copy: a new
# env neither rebuilds the tables nor holds its own.
_DERIVED: OrderedDict[int, tuple[Scenario, dict[str, Any]]] = OrderedDict()
_DERIVED_MAX = 4


def _derived(scenario: Scenario) -> dict[str, Any]:
    hit = _DERIVED.get(id(scenario))
    if hit is not None and hit[0] is scenario:
        _DERIVED.move_to_end(id(scenario))
        return hit[1]
    out = _derive(scenario)
    _DERIVED[id(scenario)] = (scenario, out)
    while len(_DERIVED) > _DERIVED_MAX:
        _DERIVED.popitem(last=False)
    return out


def _derive(scenario: Scenario) -> dict[str, Any]:
    mt = build_tables(scenario.map, scenario.tables)
    green = list(mt.green)
    dg = hg.DISTANCE[:, green].min(axis=1) if green else [99] * hg.N_HEX
    # hexes each side may never enter (rules 5.5, R5, R10, R15)
    fr = bytearray(hg.N_HEX)
    de = bytearray(hg.N_HEX)
    gy = set(mt.green) | set(mt.yellow)
    for i in range(hg.N_HEX):
        if not mt.land[i]:
            fr[i] = de[i] = 1
        if i in gy:
            fr[i] = 1
    units = scenario.units
    return {
        "tables": mt,
        "dist_green": tuple(int(x) for x in dg),
        "forbidden": (bytes(fr), bytes(de)),
        "unit_side": tuple(int(u.side) for u in units),
        "side_unit_list": tuple(tuple(u.index for u in units if u.side == s) for s in (0, 1)),
        "port_units": tuple(u.index for u in units if u.port),
        "unit_static": tuple(bool(u.static) for u in units),
        "unit_free_stacking": tuple(bool(u.free_stacking) for u in units),
        "unit_panzer": tuple(bool(u.is_panzer) for u in units),
        "passable_bits": tuple(sum(1 << i for i in range(hg.N_HEX) if not f[i]) for f in (fr, de)),
        # rule 3.7: all hexes French except the green and yellow rows, which are always German
        "initial_control": bytes(1 if r in (ColoredRow.GREEN, ColoredRow.YELLOW) else 0 for r in mt.row),
        "always_german": bytes(1 if r in (ColoredRow.GREEN, ColoredRow.YELLOW) else 0 for r in mt.row),
        "unit_port": tuple(bool(u.port) for u in units),
        "unit_ids": tuple(u.id for u in units),
        "port_home": tuple((u.index, scenario.map.hex_of_city(u.port)) for u in units if u.port),
    }
