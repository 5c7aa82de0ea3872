"""``Game``: the immutable scenario + rules options + derived tables, a factory of :class:`State`.

Rulings that choose between readings are options with the ruling as the default (rulings preamble);
the optional rules of section 18 are flags, off by default.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ffo_env.core.errors import DataError
from ffo_env.springtime.core.actions import N_ACTIONS, N_LOC, N_UNIT
from ffo_env.springtime.core.data import ALLIED, AXIS, Data, ScenarioSpec, default_data

if TYPE_CHECKING:
    from ffo_env.springtime.core.state import State

# 2: the Event windows of P10 (asked whenever a marker is held), the BEF rebuild of rule 12.3.2 / S64
ENGINE_VERSION = "springtime-core-2"
SCENARIOS = ("campaign", "plan_red")

_CHOICES = {
    "belgian_surrender": ("inverted", "literal"),  # S21
    "regroup_scope": ("all_units", "army_group"),  # S27
    "oos_combat_penalty": ("lead_unit", "any_unit"),  # S33
}


@dataclass(frozen=True)
class RulesOptions:
    """Rules options; the defaults are the binding rulings and the standard game.

    - ``belgian_surrender``: S21 ``inverted`` (surrender iff dr <= Axis-held Belgian Areas) or ``literal``.
    - ``regroup_scope``: S27 ``all_units`` (every unit may Regroup) or ``army_group`` (one declared Army
      Group, the Axis may add K, with the Reserves stacked with it).
    - ``oos_combat_penalty``: S33 ``lead_unit`` or ``any_unit``.
    - ``airdrops``: optional rule 18.1, the Air Landing Corps (S63).
    - ``free_setup``: optional rule 18.2, Limited Free Setup (S62; campaign only, S58).
    - ``bef_returns``: optional rule 18.3 (S64).
    - ``morale_bid``: rule 17.1, S61 ``by_side``: the winning bid of a side determination, signed:
      ``+n`` when the side both wanted was the Axis (starting French Morale rises by n), ``-n`` when it was
      the Allies (it falls by n). P7: the bidding itself is not a decision (the agents are bound to sides).
    - ``skip_forced``: apply a decision with exactly one legal action automatically (recorded ``auto``),
      except an Event window, which is always asked (P10: an automatic answer would tell the opponent that
      the held marker cannot be played now).
    """

    belgian_surrender: str = "inverted"
    regroup_scope: str = "all_units"
    oos_combat_penalty: str = "lead_unit"
    airdrops: bool = False
    free_setup: bool = False
    bef_returns: bool = False
    morale_bid: int = 0
    skip_forced: bool = True

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            v = getattr(self, name)
            if v not in allowed:
                raise ValueError(f"rules option {name} must be one of {allowed}, found {v!r}")
        for name in ("airdrops", "free_setup", "bef_returns", "skip_forced"):
            if type(getattr(self, name)) is not bool:
                raise TypeError(f"rules option {name} must be a bool, found {getattr(self, name)!r}")
        if type(self.morale_bid) is not int or not -100 <= self.morale_bid <= 100:
            raise TypeError(
                f"rules option morale_bid must be an integer in [-100, 100], found {self.morale_bid!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: object) -> RulesOptions:
        if not isinstance(d, dict):
            raise TypeError(f"rules options must be a mapping, found {type(d).__name__}")
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(
                f"unknown rules options {sorted(unknown)}; known: {sorted(cls.__dataclass_fields__)}"
            )
        return cls(**d)


@dataclass(frozen=True, eq=False)
class Game:
    """A scenario of the data with rules options; creates states from a seed."""

    scenario: str = "campaign"
    options: RulesOptions = field(default_factory=RulesOptions)
    data: Data = field(default_factory=default_data)
    # derived once
    n_units: int = field(init=False)
    n_locs: int = field(init=False)
    unit_side: tuple[int, ...] = field(init=False)
    side_units: tuple[tuple[int, ...], tuple[int, ...]] = field(init=False)
    leader_of: tuple[int, ...] = field(init=False)  # unit -> Leader index or -1 (Kleist excluded, S9)
    kleist: int = field(init=False)  # Leader index of Kleist
    k_units: tuple[int, ...] = field(init=False)  # units Kleist may join (4.4.1)
    unit_ids: tuple[str, ...] = field(init=False)
    loc_ids: tuple[str, ...] = field(init=False)
    french_locs: frozenset[int] = field(init=False)
    belgian: frozenset[int] = field(init=False)
    dutch: frozenset[int] = field(init=False)
    east: frozenset[int] = field(init=False)
    supply_zones: frozenset[int] = field(init=False)
    paris: int = field(init=False)
    zone_f: int = field(init=False)

    def __post_init__(self) -> None:
        if self.scenario not in SCENARIOS:
            raise ValueError(f"scenario must be one of {SCENARIOS}, found {self.scenario!r}")
        d = self.data
        if len(d.units) != N_UNIT or len(d.locations) != N_LOC:
            raise DataError(
                f"units.yaml/map.yaml: expected {N_UNIT} units and {N_LOC} locations (the action space),"
                f" found {len(d.units)} and {len(d.locations)}"
            )
        set_ = object.__setattr__
        set_(self, "n_units", len(d.units))
        set_(self, "n_locs", len(d.locations))
        set_(self, "unit_side", tuple(u.side for u in d.units))
        set_(
            self, "side_units", tuple(tuple(u.index for u in d.units if u.side == s) for s in (ALLIED, AXIS))
        )
        leader_of = [-1] * len(d.units)
        kleist = -1
        for ld in d.leaders:
            if ld.unit == "KLEIST":
                kleist = ld.index
            else:
                leader_of[d.unit_index(ld.unit)] = ld.index
        set_(self, "leader_of", tuple(leader_of))
        set_(self, "kleist", kleist)
        set_(self, "k_units", tuple(u.index for u in d.units if u.ag == "K"))
        set_(self, "unit_ids", tuple(u.id for u in d.units))
        set_(self, "loc_ids", tuple(x.id for x in d.locations))
        set_(self, "french_locs", frozenset(x.index for x in d.locations if x.country == "FR"))
        set_(self, "belgian", frozenset(x.index for x in d.locations if x.country == "BE"))
        set_(self, "dutch", frozenset(x.index for x in d.locations if x.country == "NL"))
        set_(self, "east", frozenset(x.index for x in d.locations if x.east))
        set_(self, "supply_zones", frozenset(x.index for x in d.locations if x.supply_zone))
        set_(self, "paris", next(x.index for x in d.locations if x.paris))
        set_(self, "zone_f", next(x.index for x in d.locations if x.country == "IT"))

    @property
    def spec(self) -> ScenarioSpec:
        return self.data.scenarios[self.scenario]

    @property
    def num_distinct_actions(self) -> int:
        return N_ACTIONS

    def new_initial_state(self, seed: int = 0) -> State:
        from ffo_env.springtime.core.state import State

        return State.initial(self, seed)
