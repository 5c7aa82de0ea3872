"""Saved states: a versioned JSON document of every field of a :class:`State`, and its checker.

:func:`state_from_dict` refuses anything malformed with one :class:`StateError` naming the field and
what was expected, and builds nothing from it; no pickle anywhere.
"""

from __future__ import annotations

import json
from typing import Any

from ffo_env.springtime.core.game import ENGINE_VERSION, Game, RulesOptions
from ffo_env.springtime.core.state import DECISIONS, ELIM, FIELDS, GONE, MAP, OFF, State

STATE_FORMAT = "springtime-state"
# 2 adds ``bef_evacuated`` (rule 18.3, S64); a version-1 document still loads (:func:`_upgrade_v1`)
STATE_VERSION = 2
READABLE_VERSIONS = (1, 2)
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
    if d.get("format") != STATE_FORMAT or d.get("version") not in READABLE_VERSIONS:
        raise StateError(
            f"format/version: expected {STATE_FORMAT!r} version {' or '.join(map(str, READABLE_VERSIONS))},"
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
    if d.get("version") == 1:
        body = _upgrade_v1(body, g)
    missing = [f for f in FIELDS if f not in body]
    extra = sorted(set(body) - set(FIELDS))
    if missing or extra:
        raise StateError(f"state: missing fields {missing}, unknown fields {extra}")
    s = State(g, _blank=True)
    for f in FIELDS:
        setattr(s, f, json.loads(json.dumps(body[f])))
    check_state(s)
    return s


def _upgrade_v1(body: dict[str, Any], g: Game) -> dict[str, Any]:
    """A version-1 state's fields with ``bef_evacuated`` added (a copy; ``body`` is not changed).

    Version 1 did not say how the BEF left the map. It was evacuated by Operation Dynamo iff, under 18.3,
    it is in the eliminated pool and was not eliminated since the last Dynamo was played: the Morale log
    names every elimination of the BEF with its turn, the Allied draw log every marker played with its turn,
    and in one turn the BEF cannot leave twice (a rebuild comes only in the Refit Phase). With no Dynamo
    played the pool's BEF is the Plan Red scenario's, evacuated before the game (S58)."""
    if "bef_evacuated" in body:
        raise StateError("state: a version-1 state has no field bef_evacuated")
    out = dict(body)
    out["bef_evacuated"] = False
    try:
        bef = g.unit_ids.index("GB-BEF")
        if not (g.options.bef_returns and body["status"][bef] == ELIM):
            return out
        eliminated = [e["turn"] for e in body["morale_log"] if str(e["why"]).startswith("GB-BEF eliminated")]
        dynamo = [e["turn"] for e in body["draw_log"][0] if e.get("played") == 3]
        out["bef_evacuated"] = not eliminated or (bool(dynamo) and max(dynamo) > max(eliminated))
    except (KeyError, IndexError, TypeError, AttributeError, ValueError) as e:
        raise StateError(
            f"state: a version-1 state without a readable status, morale_log or draw_log ({e!r})"
        ) from None
    return out


def state_from_json(text: str, game: Game | None = None) -> State:
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise StateError(f"not JSON: {e}") from None
    return state_from_dict(d, game)


class _Spec:
    """Expected JSON shapes of the state's fields, with index ranges (built per game)."""

    def __init__(self, nu: int, nl: int, nleaders: int) -> None:
        self.nu, self.nl, self.nleaders = nu, nl, nleaders


def _fail(name: str, what: str, found: object) -> StateError:
    text = repr(found)
    return StateError(f"{name}: expected {what}, found {text[:80]}")


def _int(name: str, v: object, lo: int, hi: int) -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise _fail(name, f"an integer in [{lo}, {hi}]", v)
    return v


def _bool(name: str, v: object) -> None:
    if type(v) is not bool:
        raise _fail(name, "true or false", v)


def _str(name: str, v: object, allowed: tuple[str, ...] | None = None) -> None:
    if not isinstance(v, str) or (allowed is not None and v not in allowed):
        raise _fail(name, f"one of {allowed}" if allowed else "a string", v)


def _list(name: str, v: object, n: int | None = None) -> list[Any]:
    if not isinstance(v, list) or (n is not None and len(v) != n):
        raise _fail(name, f"an array of {n} items" if n is not None else "an array", v)
    return v


def _ints(name: str, v: object, n: int | None, lo: int, hi: int) -> None:
    for i, x in enumerate(_list(name, v, n)):
        _int(f"{name}[{i}]", x, lo, hi)


def _bools(name: str, v: object, n: int) -> None:
    for i, x in enumerate(_list(name, v, n)):
        _bool(f"{name}[{i}]", x)


def _strs(name: str, v: object, n: int | None, allowed: tuple[str, ...]) -> None:
    for i, x in enumerate(_list(name, v, n)):
        _str(f"{name}[{i}]", x, allowed)


def _dict(name: str, v: object) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise _fail(name, "an object", v)
    return v


_AGS = ("", "R", "1", "2", "3", "4", "Be", "N", "A", "B", "C", "K", "W")
_MODES = ("pass", "regroup", "redeploy", "assault")


def _check_imp(imp: dict[str, Any], nu: int, nl: int) -> None:
    """The impulse's working data (maneuver.py): every key it may hold, with its shape."""
    units = (-1, nu - 1)
    locs = (-1, nl - 1)
    shapes: dict[str, tuple[str, Any]] = {
        "side": ("int", (0, 1)),
        "window": ("str", ("T1", "I")),
        "mode": ("str", _MODES),
        "multi": ("bool", None),
        "moving": ("int", units),
        "mf": ("int", (-20, 40)),
        "steps": ("int", (0, 80)),
        "origin": ("int", locs),
        "began_contested": ("bool", None),
        "advance": ("bool", None),
        "plan_red": ("bool", None),
        "event_side": ("int", (0, 1)),
        "airdrop": ("int", locs),
        "played": ("bools", 2),
        "assault": ("strs", None),
        "active": ("units", None),
        "pending": ("units", None),
        "moved": ("units", None),
        "attacked": ("units", None),
        "regrouped": ("units", None),
        "dynamo": ("units", None),
        "eligible": ("units", None),
        "done": ("locs", None),
        "mandatory": ("locs", None),
        "cstart": ("locs", None),
        "ag": ("strs", nu),
        "entered": ("locs", nu),
        "came": ("locs", nu),
        "cross": ("cross", nu),
        "entry_ag": ("strs", nl),
    }
    for key, v in imp.items():
        name = f"imp.{key}"
        if key not in shapes:
            raise StateError(f"{name}: not a field of the impulse's working data")
        kind, arg = shapes[key]
        if kind == "int":
            _int(name, v, *arg)
        elif kind == "str":
            _str(name, v, arg)
        elif kind == "bool":
            _bool(name, v)
        elif kind == "bools":
            _bools(name, v, arg)
        elif kind == "strs":
            _strs(name, v, arg, _AGS)
        elif kind == "cross":
            _strs(name, v, arg, ("", "O", "R", "M"))
        elif kind == "units":
            _ints(name, v, arg, 0, nu - 1)
        else:
            _ints(name, v, arg, -1, nl - 1)


def _check_cmb(c: dict[str, Any], nu: int, nl: int) -> None:
    for key in ("loc",):
        _int(f"cmb.{key}", c.get(key), 0, nl - 1)
    for key in ("att", "dfn"):
        _int(f"cmb.{key}", c.get(key), 0, 1)
    for key in ("lead_att", "lead_def"):
        _int(f"cmb.{key}", c.get(key), -1, nu - 1)
    for key in ("dr_att", "dr_def", "av", "dv"):
        _int(f"cmb.{key}", c.get(key), -100, 100)
    for key in ("mandatory", "cstart", "converted"):
        _bool(f"cmb.{key}", c.get(key))
    for key in ("air_att", "air_def"):
        _str(f"cmb.{key}", c.get(key), ("", "DE0", "DE1", "FR", "GB"))
    _str("cmb.result", c.get("result"), ("", "repulse", "stalemate", "success", "overrun"))
    for key in ("parts", "defenders"):
        _ints(f"cmb.{key}", c.get(key), None, 0, nu - 1)
    if len(c) != 17:
        raise _fail("cmb", "the 17 fields of a combat", sorted(c))


def _check_ret(r: dict[str, Any], nu: int, nl: int) -> None:
    if sorted(r) != ["cur", "segs", "unit", "visited"]:
        raise _fail("ret", "the fields cur, segs, unit, visited", sorted(r))
    _int("ret.unit", r["unit"], -1, nu - 1)
    _int("ret.cur", r["cur"], -1, nl - 1)
    _ints("ret.visited", r["visited"], None, 0, nl - 1)
    for i, seg in enumerate(_list("ret.segs", r["segs"])):
        seg = _list(f"ret.segs[{i}]", seg, 4)
        _int(f"ret.segs[{i}][0]", seg[0], 0, 1)
        _ints(f"ret.segs[{i}][1]", seg[1], None, 0, nu - 1)
        _ints(f"ret.segs[{i}][2]", seg[2], None, 0, nu - 1)
        _bool(f"ret.segs[{i}][3]", seg[3])


def check_state(s: State) -> None:
    """The shape of every field and the invariants of a position; raises :class:`StateError`."""
    g = s.game
    nu, nl = g.n_units, g.n_locs
    from ffo_env.springtime.core.flow import STEPS

    big = 2**64
    _int("seed", s.seed, -big, big)
    _int("dice_state", s.dice_state, 0, big - 1)
    _int("turn", s.turn, 1, g.data.tables["turns"])
    _int("box", s.box, 1, g.data.tables["impulse_boxes"])
    _str("phase", s.phase, PHASES)
    _str("cont", s.cont, tuple(STEPS))
    _str("decision", s.decision, DECISIONS)
    _int("player", s.player, 0, 1)
    _int("kleist_unit", s.kleist_unit, -2, nu - 1)
    _int("kleist_turn", s.kleist_turn, 0, g.data.tables["turns"])
    _int("morale", s.morale, -(10**6), 10**6)
    _int("morale_at_political", s.morale_at_political, -(10**6), 10**6)
    _int("advantage", s.advantage, -1, 1)
    _int("adv_used_by", s.adv_used_by, -1, 1)
    _int("winner", s.winner, -1, 1)
    _str("result", s.result, ("", "automatic", "operational", "allied"))
    _str("refugees", s.refugees, ("none", "pending", "active"))
    for f in (
        "open_city",
        "italy_at_war",
        "cc_flag",
        "german_air_full",
        "allied_air_full",
        "billotte",
        "bef_evacuated",
    ):
        _bool(f, getattr(s, f))
    _ints("loc", s.loc, nu, -1, nl - 1)
    _ints("status", s.status, nu, OFF, GONE)
    _bools("reduced", s.reduced, nu)
    _bools("oos", s.oos, nu)
    _bools("flipped", s.flipped, len(g.data.leaders))
    _ints("control", s.control, nl, 0, 1)
    _ints("rp", s.rp, 2, 0, 10**6)
    _ints("held", s.held, 2, 0, 9)
    _ints("draws", s.draws, 2, 0, 9)
    for f in ("container", "turn_track", "impulse_track"):
        _ints(f, getattr(s, f), None, 1, 9)
    _ints("setup_queue", s.setup_queue, None, 0, nu - 1)
    _strs("air_used", s.air_used, None, ("DE0", "DE1", "FR", "GB"))
    for side, ags in enumerate(_list("last_assault", s.last_assault, 2)):
        _strs(f"last_assault[{side}]", ags, None, _AGS[1:])
    for side, log in enumerate(_list("draw_log", s.draw_log, 2)):
        for i, entry in enumerate(_list(f"draw_log[{side}]", log)):
            _dict(f"draw_log[{side}][{i}]", entry)
    for f in ("morale_log", "dice_log"):
        for i, entry in enumerate(_list(f, getattr(s, f))):
            _dict(f"{f}[{i}]", entry)
    for i, h in enumerate(_list("history", s.history)):
        _ints(f"history[{i}]", h, 3, 0, 10**6)
    _check_imp(_dict("imp", s.imp), nu, nl)
    ctx = _dict("refit_ctx", s.refit_ctx)
    if set(ctx) - {"side", "unit", "full"}:
        raise _fail("refit_ctx", "the fields side, unit, full", sorted(ctx))
    _int("refit_ctx.side", ctx.get("side", 0), 0, 1)
    _int("refit_ctx.unit", ctx.get("unit", 0), 0, nu - 1)
    _bool("refit_ctx.full", ctx.get("full", False))
    if s.cmb is not None:
        _check_cmb(_dict("cmb", s.cmb), nu, nl)
    if s.ret is not None:
        _check_ret(_dict("ret", s.ret), nu, nl)
    s.moved_units()
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
                        f"stacking: side {side} has more than {limit} units in {g.loc_ids[loc]} (7.1)"
                    )
            if s.has(loc, 0) != s.has(loc, 1) and s.control[loc] != (0 if s.has(loc, 0) else 1):
                raise StateError(
                    f"control: {g.loc_ids[loc]} is held by one side only and controlled by the other"
                )
    markers = [m for m in s.container + s.turn_track + s.impulse_track + s.held if m]
    if sorted(markers) != list(range(1, 10)):
        raise StateError(f"events: the nine markers must each be in one place, found {sorted(markers)}")
    if s.bef_evacuated and not (g.options.bef_returns and s.status[g.unit_ids.index("GB-BEF")] == ELIM):
        raise StateError("bef_evacuated: only a BEF in the eliminated pool under rule 18.3 was evacuated")
    if s.phase == "over" and s.winner < 0:
        raise StateError("winner: a finished game has a winner")
    needs_cmb = (
        "participants",
        "lead_att",
        "lead_def",
        "air_att",
        "air_def",
        "convert",
        "retreat_pick",
        "retreat_dest",
    )
    if s.decision in needs_cmb and s.cmb is None:
        raise StateError(f"cmb: the decision {s.decision} needs a combat in progress")
    if s.decision in ("retreat_pick", "retreat_dest") and (s.ret is None or not s.ret["segs"]):
        raise StateError(f"ret: the decision {s.decision} needs a retreat in progress")
    if s.decision == "setup_place" and not s.setup_queue:
        raise StateError("setup_queue: the decision setup_place needs a unit to place")
    if s.phase != "over":
        if s.decision == "none":
            raise StateError("decision: a saved position awaits a decision")
        s._legal = None
        try:
            legal = s.legal_actions()
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, AssertionError) as e:
            raise StateError(f"{s.decision}: the working data of the decision is malformed ({e!r})") from None
        if not legal:
            raise StateError(f"{s.decision}: no legal action in this position")
