"""Validation of a saved state (the dict of ``State.to_dict``) before it is loaded.

``check_state_dict(game, d)`` raises one :class:`StateError` naming the key or path that is wrong,
what was found and what was expected. It checks types and every invariant the engine keeps between
decisions: unit locations on land and in range, stacks that agree with the locations, no hex shared
by both sides, stacking limits where the rules enforce them, statuses, and the phase/decision/winner
agreement. It reads the data (map, units, tables) from ``game`` and re-derives no movement rule.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.phases import DEAD, EVACUATED, ON_MAP, RESERVE, Decision, Phase
from ffo_env.ffo.core.version import ENGINE_VERSION

if TYPE_CHECKING:
    from ffo_env.ffo.core.game import Game

_SETUP_PHASES = ("SETUP_FRENCH", "SETUP_GERMAN")

_PER_UNIT_INT = ("loc", "status", "steps")
UNIT_FLAGS = (  # the per-unit boolean lists of a saved state (also the notation's flags)
    "moved",
    "attacked",
    "no_attack",
    "immobile",
    "must_leave",
    "left_green",
    "entered_map",
    "entry_ready",
)
_REQUIRED: dict[str, tuple[type, ...]] = {
    "engine": (str,),
    "seed": (int,),
    "dice_state": (str,),
    "turn": (int,),
    "phase": (str,),
    "decision": (str,),
    "player": (int,),
    "ctx": (dict,),
    "stacks": (dict,),
    "control": (list,),
    "ever_german": (list,),
    "refugees": (dict,),
    "revealed": (list,),
    "vp": (int,),
    "vp_log": (list,),
    "stuka_used": (bool,),
    "naval_used": (list,),
    "scare_ever": (bool,),
    "scare_unit": (int,),
    "replacement_unit": (int,),
    "german_move_first": (bool,),
    "oos_roll": (dict,),
    "dice_log": (list,),
    "history": (list,),
    "last_dice": (list,),
    "pos_version": (list,),
    **{k: (list,) for k in _PER_UNIT_INT + UNIT_FLAGS},
}


class StateError(ValueError):
    """A saved state that is malformed or breaks an invariant of the engine."""


def _short(x: object) -> str:
    try:
        text = json.dumps(x, default=repr)
    except (TypeError, ValueError, RecursionError):
        text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def _type_name(types: tuple[type, ...]) -> str:
    return " or ".join(
        {int: "integer", bool: "true/false", str: "string", list: "list", dict: "object"}.get(t, t.__name__)
        for t in types
    )


def _ok_type(x: object, types: tuple[type, ...]) -> bool:
    if isinstance(x, bool) and bool not in types:
        return False  # JSON true is not an integer here
    return isinstance(x, types)


def _fail(path: str, expected: str, found: object) -> StateError:
    return StateError(f"saved state, {path}: expected {expected}, found {_short(found)}")


def _int_key(path: str, k: object) -> int:
    if not isinstance(k, (str, int)):
        raise _fail(path, "a hex number as key", k)
    try:
        return int(k)
    except ValueError:
        raise _fail(path, "a hex number as key", k) from None


def check_state_dict(game: Game, d: Any) -> None:
    """Raise :class:`StateError` on the first problem of the saved state ``d``; return None if it is sound."""
    if not isinstance(d, Mapping):
        raise StateError(f"saved state: expected a JSON object, found {type(d).__name__}")
    for key, types in _REQUIRED.items():
        if key not in d:
            raise StateError(f'saved state: missing key "{key}"')
        if not _ok_type(d[key], types):
            raise _fail(key, _type_name(types), d[key])
    unknown = sorted(set(d) - set(_REQUIRED) - {"rail_log", "winner"})
    if unknown:
        raise StateError(f'saved state: unknown key "{unknown[0]}"')
    if d["engine"] != ENGINE_VERSION:
        raise StateError(
            f"saved state, engine: saved by {d['engine']!r}, this is {ENGINE_VERSION!r}; "
            f"a state from another engine cannot be loaded"
        )
    _check_scalars(game, d)
    _check_units(game, d)
    _check_map_arrays(game, d)
    _check_stacks(game, d)
    _check_logs(game, d)


def _check_scalars(game: Game, d: Mapping[str, Any]) -> None:
    try:
        int(d["dice_state"])
    except ValueError:
        raise _fail("dice_state", "a decimal integer string", d["dice_state"]) from None
    last = game.scenario.tables.last_turn
    if not 1 <= d["turn"] <= last:
        raise _fail("turn", f"a game turn 1..{last}", d["turn"])
    if d["phase"] not in Phase.__members__:
        raise _fail("phase", f"one of {', '.join(Phase.__members__)}", d["phase"])
    if d["decision"] not in Decision.__members__:
        raise _fail("decision", f"one of {', '.join(Decision.__members__)}", d["decision"])
    if d["player"] not in (0, 1):
        raise _fail("player", "0 (French) or 1 (German)", d["player"])
    over = d["phase"] == "GAME_OVER"
    if over != (d["decision"] == "NONE"):
        raise _fail(
            "decision",
            "NONE exactly when phase is GAME_OVER",
            f"decision {d['decision']} in phase {d['phase']}",
        )
    winner = d.get("winner")
    if over and winner not in (0, 1):
        raise _fail("winner", "0 or 1 once the game is over", winner)
    if not over and winner is not None:
        raise _fail("winner", "null while the game is running", winner)
    if d["decision"] in ("SETUP_UNIT", "SETUP_HEX") and d["phase"] not in _SETUP_PHASES:
        raise _fail("decision", "a setup decision only in a setup phase", f"{d['decision']} in {d['phase']}")
    if d["phase"] in _SETUP_PHASES and d["turn"] != 1:
        raise _fail("turn", "1 during setup", d["turn"])
    n = len(game.scenario.units)
    for key in ("scare_unit", "replacement_unit"):
        if not -1 <= d[key] < n:
            raise _fail(key, f"-1 or a unit index 0..{n - 1}", d[key])
    _check_list_of("naval_used", d["naval_used"], 2, (bool,))
    _check_list_of("pos_version", d["pos_version"], 2, (int,))


def _check_list_of(
    path: str,
    xs: list[Any],
    length: int | None,
    types: tuple[type, ...],
    bound: Callable[[Any], bool] | None = None,
    bound_text: str = "",
) -> None:
    if length is not None and len(xs) != length:
        raise _fail(path, f"a list of {length} entries", f"{len(xs)} entries")
    for i, x in enumerate(xs):
        if not _ok_type(x, types):
            raise _fail(f"{path}[{i}]", _type_name(types), x)
        if bound is not None and not bound(x):
            raise _fail(f"{path}[{i}]", bound_text, x)


def _check_units(game: Game, d: Mapping[str, Any]) -> None:
    units = game.scenario.units
    n = len(units)
    land = game.scenario.map.land
    for key in _PER_UNIT_INT:
        _check_list_of(key, d[key], n, (int,))
    for key in UNIT_FLAGS:
        _check_list_of(key, d[key], n, (bool,))
    for u, spec in enumerate(units):
        loc, status, steps = d["loc"][u], d["status"][u], d["steps"][u]
        where = f"unit {spec.id} (index {u})"
        if status not in (RESERVE, ON_MAP, DEAD, EVACUATED):
            raise _fail(f"status[{u}]", f"0..3 (reserve, on map, dead, evacuated) for {where}", status)
        if status == ON_MAP:
            if not 0 <= loc < hg.N_HEX:
                raise _fail(f"loc[{u}]", f"a hex 0..{hg.N_HEX - 1} for {where}, which is on the map", loc)
            if not land[loc]:
                raise _fail(f"loc[{u}]", f"a land hex for {where}", f"{hg.hex_name(loc)} (sea or neutral)")
        elif loc != -1:
            raise _fail(f"loc[{u}]", f"-1 for {where}, which is off the map (status {status})", loc)
        if not 0 <= steps <= spec.steps:
            raise _fail(f"steps[{u}]", f"0..{spec.steps} for {where}", steps)
        if status == ON_MAP and steps == 0:
            raise _fail(f"steps[{u}]", f"at least 1 for {where}, which is on the map", steps)


def _check_map_arrays(game: Game, d: Mapping[str, Any]) -> None:
    land = game.scenario.map.land
    _check_list_of("control", d["control"], hg.N_HEX, (int,), lambda x: x in (0, 1), "0 or 1")
    _check_list_of("ever_german", d["ever_german"], hg.N_HEX, (int,), lambda x: x in (0, 1), "0 or 1")
    for k, v in d["refugees"].items():
        h = _int_key("refugees", k)
        if not 0 <= h < hg.N_HEX or not land[h]:
            raise _fail(f"refugees.{k}", "a land hex", k)
        if not isinstance(v, bool):
            raise _fail(f"refugees.{k}", "true/false", v)
    for k in d["oos_roll"]:
        h = _int_key("oos_roll", k)
        if not 0 <= h < hg.N_HEX:
            raise _fail(f"oos_roll.{k}", f"a hex 0..{hg.N_HEX - 1}", k)
    if len(d["revealed"]) != 2:
        raise _fail("revealed", "two lists (French, German)", d["revealed"])
    for side, xs in enumerate(d["revealed"]):
        if not isinstance(xs, list):
            raise _fail(f"revealed[{side}]", "list", xs)
        _check_list_of(
            f"revealed[{side}]", xs, None, (int,), lambda x: 0 <= x < hg.N_HEX, f"a hex 0..{hg.N_HEX - 1}"
        )


def _check_stacks(game: Game, d: Mapping[str, Any]) -> None:
    units = game.scenario.units
    n = len(units)
    loc, status = d["loc"], d["status"]
    tables = game.scenario.tables
    limits = [_side_stack_limit(d, side, tables.setup_stack_limit, tables.stack_limit) for side in (0, 1)]
    free = game.unit_free_stacking
    seen: set[int] = set()
    for k, st in d["stacks"].items():
        h = _int_key("stacks", k)
        path = f"stacks.{k}"
        if not isinstance(st, list) or not st:
            raise _fail(path, "a non-empty list of unit indices", st)
        _check_list_of(path, st, None, (int,), lambda x: 0 <= x < n, f"a unit index 0..{n - 1}")
        for u in st:
            if u in seen:
                raise _fail(path, f"each unit in one stack once; unit {units[u].id} appears again", st)
            seen.add(u)
            if status[u] != ON_MAP or loc[u] != h:
                raise _fail(
                    path,
                    f"only units located in hex {k}; unit {units[u].id} has status "
                    f"{status[u]} and loc {loc[u]}",
                    st,
                )
        if len({units[u].side for u in st}) > 1:
            raise _fail(path, "units of one side only (enemy units never share a hex)", st)
        counted = sum(1 for u in st if not free[u])
        limit = limits[int(units[st[0]].side)]
        if limit is not None and counted > limit:
            raise _fail(
                path,
                f"at most {limit} units counting for stacking in phase {d['phase']} "
                f"of turn {d['turn']} (rules 6.1, 6.2, 6.5, R8, R9)",
                f"{counted} units",
            )
    for u in range(n):
        if status[u] == ON_MAP and u not in seen:
            raise _fail(
                f"stacks.{loc[u]}",
                f"unit {units[u].id} (index {u}), located there, in the stack",
                d["stacks"].get(str(loc[u])),
            )


def _side_stack_limit(d: Mapping[str, Any], side: int, setup_limit: int, limit: int) -> int | None:
    """The most units a hex of ``side`` may hold now; None while its movement may over-stack (rule 6.5, R9)."""
    phase = d["phase"]
    own_move = "FRENCH_MOVEMENT" if side == 0 else "GERMAN_MOVEMENT"
    if phase == own_move or d["decision"] == "OVERSTACK_REMOVE":
        return None
    if d["turn"] == 1 and phase not in ("GAME_OVER",):
        # setup stacks (rule 6.2) stand until the end of their side's first movement phase
        first_move_over = (
            (
                "FRENCH_COMBAT",
                "REFUGEE_RECOVERY",
                "PANZER_SCARE",
                "GERMAN_ORDER",
                "REPLACEMENT",
                "LUFTWAFFE",
                "GERMAN_MOVEMENT",
                "GERMAN_COMBAT",
            )
            if side == 0
            else ()
        )
        if phase not in first_move_over and not (side == 1 and phase in _GERMAN_AFTER_BOTH):
            return setup_limit
    return limit


# German phases that follow both German movement and combat in any order (rule 5.6)
_GERMAN_AFTER_BOTH = ("REPLACEMENT_COMPLETION", "REINFORCEMENT", "REFUGEE_PLACEMENT", "SCARE_REMOVAL")


def _check_logs(game: Game, d: Mapping[str, Any]) -> None:
    n_actions = game.layout.n_actions
    for i, x in enumerate(d["history"]):
        path = f"history[{i}]"
        if not isinstance(x, list) or len(x) != 3:
            raise _fail(path, "[side, action, automatic]", x)
        side, action, auto = x
        if side not in (0, 1) or isinstance(side, bool):
            raise _fail(f"{path}[0]", "side 0 or 1", side)
        if not _ok_type(action, (int,)) or not 0 <= action < n_actions:
            raise _fail(f"{path}[1]", f"an action 0..{n_actions - 1}", action)
        if not isinstance(auto, bool):
            raise _fail(f"{path}[2]", "true/false", auto)
    _check_list_of("dice_log", d["dice_log"], None, (dict,))
    _check_list_of("vp_log", d["vp_log"], None, (dict,))
    if "rail_log" in d:
        if not isinstance(d["rail_log"], list):
            raise _fail("rail_log", "list", d["rail_log"])
        _check_list_of("rail_log", d["rail_log"], None, (dict,))
