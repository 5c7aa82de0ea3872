"""``Game``: the immutable data + rules options + the unit roster; a factory of :class:`State`.

The roster holds, for every counter type, as many counters as the largest Order of Battle Alternative
column needs (start + reinforcements, C§8.2 "Max needed"), so that a unit's index (and its action) is the
same whichever columns are played: a game marks the counters its two columns use, and the rest stay out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ffo_env.core.errors import DataError
from ffo_env.france1940.core.actions import MAX_UNITS, N_ACTIONS
from ffo_env.france1940.core.data import ALLIED, GERMAN, Data, Obac, UnitType, data_for
from ffo_env.france1940.core.options import RulesOptions

if TYPE_CHECKING:
    from ffo_env.france1940.core.state import State

ENGINE_VERSION = "france1940-core-1"
HOME = {"FR": "F", "GB": "F", "BE": "B", "NL": "N", "DE": "G"}  # the country a unit is at home in (F6)


@dataclass(frozen=True)
class UnitSpec:
    """One counter of the roster. What follows from its type is read once here: the rules ask a unit's side
    and kind millions of times a game."""

    index: int
    id: str
    type: UnitType
    side: int = field(init=False, repr=False)
    nation: str = field(init=False, repr=False)
    home: str = field(init=False, repr=False)  # the country it is at home in (F6)
    mech: bool = field(init=False, repr=False)
    is_gse: bool = field(init=False, repr=False)
    is_para: bool = field(init=False, repr=False)
    is_art: bool = field(init=False, repr=False)
    is_bomber: bool = field(init=False, repr=False)
    is_base: bool = field(init=False, repr=False)

    def __post_init__(self) -> None:
        t = self.type
        set_ = object.__setattr__
        set_(self, "side", t.side)
        set_(self, "nation", t.nation)
        set_(self, "home", HOME[t.nation])
        set_(self, "mech", t.mech)
        set_(self, "is_gse", t.symbol == "gse")
        set_(self, "is_para", t.symbol == "paratroop")
        set_(self, "is_art", t.symbol == "artillery")
        set_(self, "is_bomber", t.symbol == "bomber")
        set_(self, "is_base", t.symbol == "bomber_base")


def _max_needed(obac: Obac) -> dict[str, int]:
    need: dict[str, int] = {}
    for i in range(len(obac.columns)):
        per: dict[str, int] = {}
        for t, counts in obac.start.items():
            per[t] = per.get(t, 0) + counts[i]
        for _turn, t, counts in obac.reinforcements:
            per[t] = per.get(t, 0) + counts[i]
        for t, n in per.items():
            need[t] = max(need.get(t, 0), n)
    return need


def _roster(d: Data) -> tuple[UnitSpec, ...]:
    out: list[UnitSpec] = []
    for obac, extra in (
        (d.allied_obac, {}),
        (d.german_obac, {k: v for k, v in d.airborne.items() if k in d.types}),
    ):
        need = _max_needed(obac)
        for t, n in extra.items():
            need[t] = need.get(t, 0) + n
        for t in sorted(need, key=list(d.types).index):
            for k in range(1, need[t] + 1):
                out.append(UnitSpec(len(out), f"{t}-{k:02d}", d.types[t]))
    for t in ("GB-BC", "GB-BCB"):  # F58, appended so that no other counter's index moves
        for k in range(1, d.bomber_command.get(t, 0) + 1):
            out.append(UnitSpec(len(out), f"{t}-{k:02d}", d.types[t]))
    return tuple(out)


@dataclass(frozen=True, eq=False, init=False)
class Game:
    """The data with rules options; creates states from a seed. The data is the version
    ``options.data_version`` names unless ``data`` (e.g. a folder of one's own, ``load_data``) is given; its
    version must then be the options' (a record names one version and replays under it)."""

    options: RulesOptions
    data: Data
    units: tuple[UnitSpec, ...] = field(init=False)
    unit_ids: tuple[str, ...] = field(init=False)
    side_units: tuple[tuple[int, ...], tuple[int, ...]] = field(init=False)
    unit_side: tuple[int, ...] = field(init=False)  # the side of each counter, by index
    # bit sets of hexes for supply (State.passable, State.supply_edge), functions of the data and of the
    # fortresses and neutrality: shared by all states of the game
    passable_cache: dict[tuple[Any, ...], int] = field(init=False, repr=False)
    last_turn: int = field(init=False)

    def __init__(self, options: RulesOptions | None = None, data: Data | None = None) -> None:
        options = options if options is not None else RulesOptions()
        if data is None:
            data = data_for(options.data_version)
        elif data.version != options.data_version:
            raise DataError(
                f"the game data is version {data.version!r}, the rules options name {options.data_version!r}"
            )
        set_ = object.__setattr__
        set_(self, "options", options)
        set_(self, "data", data)
        roster = _roster(self.data)
        if len(roster) > MAX_UNITS:
            raise DataError(
                f"obac.yaml: the roster needs {len(roster)} counters, the action space holds {MAX_UNITS}"
            )
        set_(self, "units", roster)
        set_(self, "unit_ids", tuple(u.id for u in roster))
        set_(self, "unit_side", tuple(u.side for u in roster))
        set_(self, "passable_cache", {})
        set_(
            self, "side_units", tuple(tuple(u.index for u in roster if u.side == s) for s in (ALLIED, GERMAN))
        )
        tables = self.data.tables
        set_(self, "last_turn", tables["bef_turns"] if self.options.bef_variant else tables["standard_turns"])

    @property
    def num_distinct_actions(self) -> int:
        return N_ACTIONS

    def unit_index(self, uid: str) -> int:
        return self.unit_ids.index(uid)

    def new_initial_state(self, seed: int = 0) -> State:
        from ffo_env.france1940.core.state import State

        return State.initial(self, seed)


def new_state(seed: int = 0, scenario: str | None = None, options: dict[str, object] | None = None) -> State:
    """The suite's factory (``ffo_env.games.GameInfo.new_state``): ``options`` are RulesOptions fields."""
    if scenario not in (None, "standard"):
        raise ValueError(f"France 1940 has one scenario, 'standard' (armies are options); found {scenario!r}")
    return Game(RulesOptions.from_dict(dict(options or {}))).new_initial_state(seed)
