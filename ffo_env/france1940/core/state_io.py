"""Saved states: a versioned JSON document of every field of a :class:`State`, and its checker.

:func:`state_from_dict` refuses anything malformed with one :class:`StateError` naming the field and what
was expected, and builds nothing from it; no pickle anywhere. Beyond types it checks the position's
invariants (stacking, enemy units never sharing a hex, units on playable hexes, VP consistent with the
losses) so that a hand-edited file cannot put the engine in a state play could never reach silently.
"""

from __future__ import annotations

import json
from typing import Any

from ffo_env.atomic import atomic_write_text
from ffo_env.france1940.core.data import ALLIED, DATA_VERSIONS, FIRST_DATA, GERMAN
from ffo_env.france1940.core.game import ENGINE_VERSION, Game
from ffo_env.france1940.core.hexgrid import N_HEXES
from ffo_env.france1940.core.options import ALLIED_COLUMNS, GERMAN_COLUMNS, RulesOptions, with_data_version
from ffo_env.france1940.core.state import FIELDS, MAP, STATUS_NAMES, State

STATE_FORMAT = "france1940-state"
STATE_VERSION = 1
PHASES = (
    "start",
    "setup",
    "reinforce",
    "intercept",
    "initial",
    "airsup",
    "fort_react",
    "combat",
    "mech",
    "missions",
    "over",
)


class StateError(ValueError):
    """A saved state that is not a valid position."""


def state_to_dict(s: State) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(json.dumps({f: getattr(s, f) for f in FIELDS}))
    return {
        "format": STATE_FORMAT,
        "version": STATE_VERSION,
        "engine": ENGINE_VERSION,
        "data": s.game.data.version,
        "options": s.game.options.to_dict(),
        "state": body,
    }


def state_to_json(s: State) -> str:
    return json.dumps(state_to_dict(s), ensure_ascii=False, sort_keys=True)


def save_state(s: State, path: str) -> None:
    atomic_write_text(path, state_to_json(s) + "\n")


def _fail(field: str, expected: str, found: object) -> StateError:
    text = repr(found)
    return StateError(f"state.{field}: expected {expected}, found {text[:80]}")


def _typed_list(
    body: dict[str, Any], f: str, n: int, kind: type, lo: int | None = None, hi: int | None = None
) -> None:
    v = body.get(f)
    if not isinstance(v, list) or len(v) != n:
        raise _fail(f, f"a list of {n} {kind.__name__}", v)
    for i, x in enumerate(v):
        if type(x) is not kind:
            raise _fail(f"{f}[{i}]", kind.__name__, x)
        if isinstance(x, int) and ((lo is not None and x < lo) or (hi is not None and x > hi)):
            raise _fail(f"{f}[{i}]", f"an integer in [{lo}, {hi}]", x)


def state_from_dict(d: object, game: Game | None = None) -> State:
    """A :class:`State` from a saved document, checked field by field (StateError on the first fault)."""
    if not isinstance(d, dict):
        raise StateError(f"a saved state is a JSON object, found {type(d).__name__}")
    if d.get("format") != STATE_FORMAT or d.get("version") != STATE_VERSION:
        raise StateError(
            f"format/version: expected {STATE_FORMAT!r} version {STATE_VERSION},"
            f" found {d.get('format')!r} version {d.get('version')!r}"
        )
    # a state saved before data versions (session 40) has no "data": it was played with v1, whatever the
    # default is now (v3 since session 48), P19
    data = d.get("data", FIRST_DATA)
    if data not in DATA_VERSIONS:
        raise StateError(
            f"data: the state was saved with game data {data!r}, which this engine does not have; "
            f"known versions: {', '.join(DATA_VERSIONS)}"
        )
    if game is None:
        try:
            game = Game(RulesOptions.from_dict(with_data_version(d.get("options"), str(data))))
        except (TypeError, ValueError) as e:
            raise StateError(f"options: {e}") from None
    elif game.data.version != data:
        raise StateError(
            f"data: the state was saved with game data {data!r}, this game plays {game.data.version!r}"
        )
    body = d.get("state")
    if not isinstance(body, dict):
        raise StateError("state: expected an object of the state's fields")
    missing = [f for f in FIELDS if f not in body]
    extra = sorted(set(body) - set(FIELDS))
    if missing or extra:
        raise StateError(f"state: missing fields {missing}, unknown fields {extra}")
    n = len(game.units)
    for f in (
        "seed",
        "dice_state",
        "turn",
        "phasing",
        "player",
        "mover",
        "mp_left",
        "fort_free",
        "owed",
        "winner",
    ):
        if type(body[f]) is not int:
            raise _fail(f, "an integer", body[f])
    if not 0 <= body["dice_state"] < 1 << 64:
        raise _fail("dice_state", "a 64-bit generator state", body["dice_state"])
    if not 1 <= body["turn"] <= game.last_turn:
        raise _fail("turn", f"a game-turn in [1, {game.last_turn}]", body["turn"])
    if body["phasing"] not in (ALLIED, GERMAN) or body["player"] not in (-1, ALLIED, GERMAN):
        raise _fail("phasing/player", "0 or 1 (player also -1)", (body["phasing"], body["player"]))
    if body["phase"] not in PHASES:
        raise _fail("phase", f"one of {PHASES}", body["phase"])
    if not -1 <= body["mover"] < n or body["mp_left"] < 0 or body["owed"] < 0:
        raise _fail("mover/mp_left/owed", f"a unit index in [-1, {n}) and non-negative points", body["mover"])
    if body["winner"] not in (-1, ALLIED, GERMAN) or not isinstance(body["result"], str):
        raise _fail("winner/result", "-1, 0 or 1 and a string", body["winner"])
    if not isinstance(body["decision"], str):
        raise _fail("decision", "a string", body["decision"])
    for f, lo, hi in (("arrive", -1, 99), ("status", 0, len(STATUS_NAMES) - 1), ("hex", 0, N_HEXES)):
        _typed_list(body, f, n, int, lo, hi)
    for f in ("ac_turn", "gse_moved_turn"):
        _typed_list(body, f, n, int, 0, 12)
    _typed_list(body, "ac_hex", n, int, 0, N_HEXES)
    for f in ("moved", "supply", "attacked", "restricted"):
        _typed_list(body, f, n, bool)
    _typed_list(body, "ac_mission", n, str)
    cols = body["columns"]
    if not (
        isinstance(cols, list) and len(cols) == 2 and cols[0] in ALLIED_COLUMNS and cols[1] in GERMAN_COLUMNS
    ):
        raise _fail("columns", "[Allied column, German column]", cols)
    for f in ("rolls", "fort_destroyed", "invaded", "attacked_hexes", "log", "queue", "history", "vp"):
        if not isinstance(body[f], list):
            raise _fail(f, "a list", body[f])
    for f in ("hex_weight", "air"):
        if not isinstance(body[f], dict):
            raise _fail(f, "an object", body[f])
    for k, v in body["hex_weight"].items():
        if not (k.isdigit() and type(v) is int and v >= 0):
            raise _fail(f"hex_weight.{k}", "a hex number and a weight", v)
    for i, r in enumerate(body["rolls"]):
        if not (isinstance(r, list) and len(r) == 2 and isinstance(r[0], str) and type(r[1]) is int):
            raise _fail(f"rolls[{i}]", "[what, value]", r)
    for i, h in enumerate(body["history"]):
        ok = (
            isinstance(h, list)
            and len(h) == 3
            and h[0] in (0, 1)
            and type(h[1]) is int
            and type(h[2]) is bool
        )
        if not ok:
            raise _fail(f"history[{i}]", "[player, action, auto]", h)
    if body["cmb"] is not None and not isinstance(body["cmb"], dict):
        raise _fail("cmb", "null or an object", body["cmb"])
    vp = body["vp"]
    if len(vp) != 2 or any(type(x) is not int or x < 0 for x in vp):
        raise _fail("vp", "[Allied VP, German VP], non-negative integers", vp)
    for i, h in enumerate(body["fort_destroyed"]):
        if h not in game.data.fortified:
            raise _fail(f"fort_destroyed[{i}]", "a fortified hex", h)
    for i, c in enumerate(body["invaded"]):
        if c not in ("B", "N", "L"):
            raise _fail(f"invaded[{i}]", "B, N or L", c)
    for i, item in enumerate(body["queue"]):
        if not isinstance(item, dict) or not isinstance(item.get("kind"), str):
            raise _fail(f"queue[{i}]", "an object with a kind", item)
        u = item.get("unit", 0)
        if type(u) is not int or not 0 <= u < n:
            raise _fail(f"queue[{i}].unit", f"a unit index in [0, {n})", u)
    s = State.__new__(State)
    s.game = game
    for f in FIELDS:
        setattr(s, f, body[f])
    s.touch()  # the caches start empty
    s._legal = None
    _check_position(s)
    return s


def _check_position(s: State) -> None:
    """Invariants of a position (F13, F4): units on playable hexes, at most three per hex, no mixed sides."""
    d = s.game.data
    per_hex: dict[int, list[int]] = {}
    for u, st in enumerate(s.status):
        if st == MAP:
            h = s.hex[u]
            if not 1 <= h <= N_HEXES or not d.playable(h):
                raise _fail(f"hex[{u}]", f"a playable hex for {s.uid(u)} on the map", h)
            per_hex.setdefault(h, []).append(u)
        elif s.hex[u] != 0:
            raise _fail(f"hex[{u}]", f"0 for {s.uid(u)} ({STATUS_NAMES[st]})", s.hex[u])
    for h, us in per_hex.items():
        if len({s.side_of(u) for u in us}) > 1:
            raise StateError(f"state: hex {h} holds units of both sides ({[s.uid(u) for u in us]})")
        if sum(0 if s.spec(u).is_para else 1 for u in us) > 3:
            raise StateError(f"state: hex {h} holds more than three units ({[s.uid(u) for u in us]}) (F13)")


def state_from_json(text: str) -> State:
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise StateError(f"not JSON: {e}") from None
    return state_from_dict(d)
