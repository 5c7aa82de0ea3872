"""Saved states: a versioned JSON document of every field of a :class:`State`, and its checker.

:func:`state_from_dict` refuses anything malformed with one :class:`StateError` naming the field and
what was expected, and builds nothing from it; no pickle anywhere.
"""

from __future__ import annotations

import json
from typing import Any

from ffo_env.springtime.core.game import ENGINE_VERSION, Game, RulesOptions
from ffo_env.springtime.core.state import DECISIONS, FIELDS, GONE, MAP, OFF, State

STATE_FORMAT = "springtime-state"
STATE_VERSION = 1
PHASES = ("setup", "political", "maneuver", "refit", "end", "over")


class StateError(ValueError):
    """A saved state that is not a valid position."""


def state_to_dict(s: State) -> dict[str, Any]:
    d: dict[str, Any] = {
        "format": STATE_FORMAT,
        "version": STATE_VERSION,
        "engine": ENGINE_VERSION,
        "scenario": s.game.scenario,
        "options": s.game.options.to_dict(),
    }
    d["state"] = json.loads(json.dumps({f: getattr(s, f) for f in FIELDS}))
    return d


def state_to_json(s: State) -> str:
    return json.dumps(state_to_dict(s), ensure_ascii=False, sort_keys=True)


def game_of(d: object) -> Game:
    if not isinstance(d, dict):
        raise StateError(f"a saved state is a JSON object, found {type(d).__name__}")
    if d.get("format") != STATE_FORMAT or d.get("version") != STATE_VERSION:
        raise StateError(
            f"format/version: expected {STATE_FORMAT!r} version {STATE_VERSION},"
            f" found {d.get('format')!r} version {d.get('version')!r}"
        )
    try:
        return Game(scenario=str(d.get("scenario")), options=RulesOptions.from_dict(d.get("options")))
    except (TypeError, ValueError) as e:
        raise StateError(f"scenario/options: {e}") from None


def state_from_dict(d: object, game: Game | None = None) -> State:
    g = game_of(d) if game is None else game
    if not isinstance(d, dict):
        raise StateError(f"a saved state is a JSON object, found {type(d).__name__}")
    body = d.get("state")
    if not isinstance(body, dict):
        raise StateError("state: expected an object of the state's fields")
    missing = [f for f in FIELDS if f not in body]
    extra = sorted(set(body) - set(FIELDS))
    if missing or extra:
        raise StateError(f"state: missing fields {missing}, unknown fields {extra}")
    s = State(g, _blank=True)
    for f in FIELDS:
        setattr(s, f, json.loads(json.dumps(body[f])))
    check_state(s)
    return s


def state_from_json(text: str, game: Game | None = None) -> State:
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise StateError(f"not JSON: {e}") from None
    return state_from_dict(d, game)


def _ints(name: str, v: object, n: int, lo: int, hi: int) -> None:
    if not isinstance(v, list) or len(v) != n or any(type(x) is not int or not lo <= x <= hi for x in v):
        raise StateError(f"{name}: expected {n} integers in [{lo}, {hi}], found {v!r}")


def _bools(name: str, v: object, n: int) -> None:
    if not isinstance(v, list) or len(v) != n or any(type(x) is not bool for x in v):
        raise StateError(f"{name}: expected {n} booleans, found {v!r}")


def check_state(s: State) -> None:
    """The invariants of a position (types, ranges, stacking, markers); raises :class:`StateError`."""
    g = s.game
    nu, nl = g.n_units, g.n_locs
    for f in (
        "seed",
        "dice_state",
        "turn",
        "box",
        "morale",
        "kleist_unit",
        "kleist_turn",
        "player",
        "advantage",
        "adv_used_by",
        "morale_at_political",
        "winner",
    ):
        if type(getattr(s, f)) is not int:
            raise StateError(f"{f}: expected an integer, found {getattr(s, f)!r}")
    if not 1 <= s.turn <= g.data.tables["turns"] or not 1 <= s.box <= g.data.tables["impulse_boxes"]:
        raise StateError(f"turn/box: out of range ({s.turn}, {s.box})")
    if s.phase not in PHASES:
        raise StateError(f"phase: expected one of {PHASES}, found {s.phase!r}")
    if s.decision not in DECISIONS:
        raise StateError(f"decision: expected one of {DECISIONS}, found {s.decision!r}")
    from ffo_env.springtime.core.flow import STEPS

    if s.cont not in STEPS:
        raise StateError(f"cont: expected a step name, found {s.cont!r}")
    if s.player not in (0, 1) or s.advantage not in (-1, 0, 1) or s.winner not in (-1, 0, 1):
        raise StateError("player/advantage/winner: expected 0 or 1 (-1 for none)")
    _ints("loc", s.loc, nu, -1, nl - 1)
    _ints("status", s.status, nu, OFF, GONE)
    _bools("reduced", s.reduced, nu)
    _bools("oos", s.oos, nu)
    _bools("flipped", s.flipped, len(g.data.leaders))
    _ints("control", s.control, nl, 0, 1)
    _ints("rp", s.rp, 2, 0, 10**6)
    _ints("held", s.held, 2, 0, 9)
    _ints("draws", s.draws, 2, 0, 9)
    for u in range(nu):
        if (s.status[u] == MAP) != (s.loc[u] >= 0):
            raise StateError(f"loc/status: unit {g.unit_ids[u]} is {s.status[u]} at {s.loc[u]}")
        if s.status[u] == MAP and s.loc[u] == g.zone_f and g.data.units[u].nation != "IT" and s.cmb is None:
            raise StateError(f"loc: {g.unit_ids[u]} in Zone F (14.3)")
    if s.cmb is None:
        limit = g.data.tables["stacking_limit"]
        for loc in range(nl):
            if g.data.locations[loc].zone:
                continue
            for side in (0, 1):
                if s.count(loc, side) > limit:
                    raise StateError(
                        f"stacking: {side} has more than {limit} units in {g.loc_ids[loc]} (7.1)"
                    )
            if s.has(loc, 0) != s.has(loc, 1) and s.control[loc] != (0 if s.has(loc, 0) else 1):
                raise StateError(
                    f"control: {g.loc_ids[loc]} is held by one side only and controlled by the other"
                )
    markers = [m for m in s.container + s.turn_track + s.impulse_track + s.held if m]
    if sorted(markers) != list(range(1, 10)):
        raise StateError(f"events: the nine markers must each be in one place, found {sorted(markers)}")
    if s.phase == "over" and s.winner < 0:
        raise StateError("winner: a finished game has a winner")
