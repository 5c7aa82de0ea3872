"""Saved-state JSON: ``State.to_dict`` / ``from_dict`` and the dict form of the phase context.

The format is the one every saved state, record and fixture already uses: the phase context is the
JSON object ``ctx`` whose keys are :class:`~ffo_env.ffo.core.contexts.PhaseContext`'s fields that are set, a
battle the object of its set fields. Loading converts it back into the typed records and refuses, with one
:class:`~ffo_env.ffo.core.state_check.StateError` naming the path, any ``ctx`` the engine could not have written.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ffo_env.core.dice import Dice
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.contexts import (
    BATTLE_FIELDS,
    CONTEXT_FIELDS,
    Battle,
    BattleOutcome,
    FoughtBattle,
    PhaseContext,
)
from ffo_env.ffo.core.phases import Decision, Phase
from ffo_env.ffo.core.scenario import Side
from ffo_env.ffo.core.search import Reach
from ffo_env.ffo.core.state_check import StateError, _fail, check_state_dict
from ffo_env.ffo.core.version import ENGINE_VERSION

if TYPE_CHECKING:
    from ffo_env.ffo.core.game import Game
    from ffo_env.ffo.core.state import State


# ------------------------------------------------------------------ context -> JSON


def context_to_json(ctx: PhaseContext) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if ctx.ended:
        out["ended"] = True
    for name in CONTEXT_FIELDS[1:]:
        v = getattr(ctx, name)
        if v is None:
            continue
        if name == "dests":
            v = {str(h): [r.vp, r.mp, list(r.path), list(r.overrun)] for h, r in v.items()}
        elif name == "rail":
            v = {str(u): list(d) for u, d in v.items()}
        elif name == "battle":
            v = battle_to_json(v)
        elif name == "last_battle":
            v = v.as_dict()
        elif name == "log":
            v = [x.as_dict() for x in v]
        elif isinstance(v, list):
            v = list(v)
        out[name] = v
    return out


def battle_to_json(b: Battle) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in BATTLE_FIELDS:
        v = b.public_value(name)
        if v is None:
            continue
        if isinstance(v, list):
            v = list(v)
        elif isinstance(v, dict):
            v = dict(v)
        out[name] = v
    return out


# ------------------------------------------------------------------ JSON -> context


def _bad(path: str, expected: str, found: object) -> StateError:
    return _fail(f"ctx.{path}", expected, found)


def _int(path: str, x: object) -> int:
    if not isinstance(x, int) or isinstance(x, bool):  # a Side is an int; true is not
        raise _bad(path, "an integer", x)
    return int(x)


def _bool(path: str, x: object) -> bool:
    if type(x) is not bool:
        raise _bad(path, "true/false", x)
    return x


def _str(path: str, x: object) -> str:
    if type(x) is not str:
        raise _bad(path, "a string", x)
    return x


def _ints(path: str, x: object) -> list[int]:
    if not isinstance(x, list):
        raise _bad(path, "a list of integers", x)
    return [_int(f"{path}[{i}]", v) for i, v in enumerate(x)]


def _obj(path: str, x: object) -> dict[str, Any]:
    if not isinstance(x, dict):
        raise _bad(path, "an object", x)
    return x


def _key(path: str, k: str) -> int:
    try:
        return int(k)
    except ValueError:
        raise _bad(path, "integer keys", k) from None


def _reach(path: str, x: object) -> Reach:
    if not isinstance(x, list) or len(x) != 4:
        raise _bad(path, "[vp, mp, path, overrun]", x)
    return Reach(_int(path, x[0]), _int(path, x[1]), tuple(_ints(path, x[2])), tuple(_ints(path, x[3])))


def battle_from_json(d: object) -> Battle:
    b = _obj("battle", d)
    unknown = sorted(set(b) - set(BATTLE_FIELDS))
    if unknown:
        raise StateError(f'saved state, ctx.battle: unknown key "{unknown[0]}"')
    for k in ("target", "attacker", "air", "attackers", "defenders"):
        if k not in b:
            raise StateError(f'saved state, ctx.battle: missing key "{k}"')
    out = Battle(
        _int("battle.target", b["target"]),
        _int("battle.attacker", b["attacker"]),
        _bool("battle.air", b["air"]),
        _ints("battle.attackers", b["attackers"]),
        _ints("battle.defenders", b["defenders"]),
    )
    for k, v in b.items():
        p = f"battle.{k}"
        if k in ("target", "attacker", "air", "attackers", "defenders"):
            continue
        if k == "att_supplied":
            out.att_supplied = {_key(p, u): _bool(p, ok) for u, ok in _obj(p, v).items()}
        elif k in ("att_oos", "def_oos", "att_supplied_mech"):
            setattr(out, k, _bool(p, v))
        elif k in ("origins", "retreat_queue", "advanced"):
            setattr(out, k, _ints(p, v))
        elif k == "shifts":
            out.shifts = {_str(p, name): _int(p, n) for name, n in _obj(p, v).items()}
        elif k == "result":
            out.result = _str(p, v)
        elif k == "loss_queue":
            if not isinstance(v, list):
                raise _bad(p, "a list of [chooser, victim] pairs", v)
            pairs = [_ints(p, x) for x in v]
            if any(len(x) != 2 for x in pairs):
                raise _bad(p, "a list of [chooser, victim] pairs", v)
            out.loss_queue = [(x[0], x[1]) for x in pairs]
        else:
            setattr(out, k, _int(p, v))
    return out


def context_from_json(d: dict[str, Any]) -> PhaseContext:
    unknown = sorted(set(d) - set(CONTEXT_FIELDS))
    if unknown:
        raise StateError(f'saved state, ctx: unknown key "{unknown[0]}"')
    ctx = PhaseContext()
    for k, v in d.items():
        if k == "ended":
            ctx.ended = _bool(k, v)
        elif k in ("unit", "mp", "refugees_left", "overstack_hex"):
            setattr(ctx, k, _int(k, v))
        elif k in ("rail_dests", "comply", "ports_used", "attacked_hexes", "entering"):
            setattr(ctx, k, _ints(k, v))
        elif k == "dests":
            ctx.dests = {_key(k, h): _reach(f"dests.{h}", r) for h, r in _obj(k, v).items()}
        elif k == "rail":
            ctx.rail = {_key(k, u): _ints(f"rail.{u}", c) for u, c in _obj(k, v).items()}
        elif k == "battle":
            ctx.battle = battle_from_json(v)
        elif k == "last_battle":
            lb = _obj(k, v)
            try:
                ctx.last_battle = BattleOutcome(
                    _int(f"{k}.target", lb["target"]),
                    _str(f"{k}.result", lb["result"]),
                    _int(f"{k}.die", lb["die"]),
                    _int(f"{k}.column", lb["column"]),
                )
            except KeyError as e:
                raise StateError(f'saved state, ctx.last_battle: missing key "{e.args[0]}"') from None
        elif k == "log":
            if not isinstance(v, list):
                raise _bad(k, "a list", v)
            ctx.log = [_fought(f"log[{i}]", x) for i, x in enumerate(v)]
    return ctx


def _fought(path: str, x: object) -> FoughtBattle:
    e = _obj(path, x)
    try:
        return FoughtBattle(
            _int(f"{path}.target", e["target"]),
            _int(f"{path}.column", e["column"]),
            _int(f"{path}.die", e["die"]),
            _str(f"{path}.result", e["result"]),
            _bool(f"{path}.air", e["air"]),
        )
    except KeyError as err:
        raise StateError(f'saved state, ctx.{path}: missing key "{err.args[0]}"') from None


_BATTLE_DECISIONS = (
    Decision.ATTACK_ADD,
    Decision.SUPPORT_ATTACK,
    Decision.SUPPORT_DEFENCE,
    Decision.LOWER,
    Decision.STEP_LOSS,
    Decision.RETREAT,
    Decision.ADVANCE_UNIT,
    Decision.ADVANCE_SECOND,
)
# what each pending decision reads of the context: (field, or battle field) that must be set and non-empty
_NEEDS: dict[Decision, tuple[str, ...]] = {
    Decision.SETUP_HEX: ("unit",),
    Decision.RAIL_UNIT: ("rail",),
    Decision.RAIL_DEST: ("unit", "rail_dests"),
    Decision.MOVE_DEST: ("unit", "dests"),
    Decision.REINFORCE_HEX: ("entering",),
    Decision.OVERSTACK_REMOVE: ("overstack_hex",),
    Decision.LOWER: ("battle.column",),
    Decision.STEP_LOSS: ("battle.loss_queue",),
    Decision.RETREAT: ("battle.retreat_queue",),
    Decision.ADVANCE_SECOND: ("battle.second",),
}


def check_context(ctx: PhaseContext, decision: Decision, n_units: int) -> None:
    """Unit and hex numbers in range, and the data the pending ``decision`` reads present."""

    def units(path: str, xs: Iterable[int]) -> None:
        for x in xs:
            if not 0 <= x < n_units:
                raise _bad(path, f"unit numbers 0..{n_units - 1}", x)

    def hexes(path: str, xs: Iterable[int]) -> None:
        for x in xs:
            if not 0 <= x < hg.N_HEX:
                raise _bad(path, f"hex numbers 0..{hg.N_HEX - 1}", x)

    units("unit", () if ctx.unit is None else (ctx.unit,))
    units("comply", ctx.comply or ())
    units("entering", ctx.entering or ())
    units("rail", ctx.rail or ())
    for u, cities in (ctx.rail or {}).items():
        hexes(f"rail.{u}", cities)
    hexes("rail_dests", ctx.rail_dests or ())
    hexes("ports_used", ctx.ports_used or ())
    hexes("attacked_hexes", ctx.attacked_hexes or ())
    hexes("overstack_hex", () if ctx.overstack_hex is None else (ctx.overstack_hex,))
    for h, r in (ctx.dests or {}).items():
        hexes("dests", (h, *r.path, *r.overrun))
    hexes("last_battle.target", () if ctx.last_battle is None else (ctx.last_battle.target,))
    hexes("log", (x.target for x in ctx.log or ()))
    b = ctx.battle
    if b is not None:
        hexes("battle.target", (b.target,))
        hexes("battle.origins", b.origins or ())
        for name in ("attackers", "defenders", "retreat_queue", "advanced"):
            units(f"battle.{name}", getattr(b, name) or ())
        units("battle.second", () if b.second is None else (b.second,))
        units("battle.att_supplied", b.att_supplied or ())
        for side in (b.attacker, *(x for pair in b.loss_queue or () for x in pair)):
            if side not in (0, 1):
                raise _bad("battle", "sides 0 (French) or 1 (German)", side)
    if decision in _BATTLE_DECISIONS and b is None:
        raise StateError(f'saved state, ctx: decision {decision.name} needs "battle"')
    for need in _NEEDS.get(decision, ()):
        owner: object = ctx
        name = need
        if need.startswith("battle."):
            owner, name = b, need[len("battle.") :]
        value = getattr(owner, name)
        if value is None or value == [] or value == {}:
            raise StateError(f'saved state, ctx: decision {decision.name} needs "{need}"')


# ------------------------------------------------------------------ the state


def state_to_dict(s: State) -> dict[str, Any]:
    """JSON-ready form that :func:`state_from_dict` turns back into an identical state."""
    return {
        "engine": ENGINE_VERSION,
        "seed": s.seed,
        "dice_state": str(s.dice.state),
        "turn": s.turn,
        "phase": s.phase.name,
        "decision": s.decision.name,
        "player": int(s.player),
        "ctx": context_to_json(s._ctx),
        "loc": s.loc,
        "status": s.status,
        "steps": s.steps,
        "moved": s.moved,
        "attacked": s.attacked,
        "no_attack": s.no_attack,
        "immobile": s.immobile,
        "must_leave": s.must_leave,
        "left_green": s.left_green,
        "entered_map": s.entered_map,
        "entry_ready": s.entry_ready,
        "stacks": {str(h): st for h, st in sorted(s.stacks.items())},
        "control": list(s.control),
        "ever_german": list(s.ever_german),
        "refugees": {str(h): f for h, f in sorted(s.refugees.items())},
        "revealed": [sorted(s.revealed[0]), sorted(s.revealed[1])],
        "vp": s.vp,
        "vp_log": s.vp_log,
        "stuka_used": s.stuka_used,
        "naval_used": s.naval_used,
        "scare_ever": s.scare_ever,
        "scare_unit": s.scare_unit,
        "replacement_unit": s.replacement_unit,
        "german_move_first": s.german_move_first,
        "oos_roll": {str(h): r for h, r in sorted(s.oos_roll.items())},
        "dice_log": s.dice_log,
        "rail_log": s.rail_log,
        "history": [list(x) for x in s.history],
        "last_dice": s.last_dice,
        "winner": s.winner,
        "pos_version": s._pos_version,
    }


def state_from_dict(cls: type[State], game: Game, d: dict[str, Any]) -> State:
    """The state saved by :func:`state_to_dict`, after :func:`~ffo_env.ffo.core.state_check.check_state_dict` has
    checked every invariant it can (a damaged or crafted dict is one ``StateError`` naming the key)."""
    check_state_dict(game, d)
    s = cls(game, _blank=True)
    s.seed = d["seed"]
    s.dice = Dice(state=int(d["dice_state"]))
    s.turn = d["turn"]
    s.phase = Phase[d["phase"]]
    s.decision = Decision[d["decision"]]
    s.player = Side(d["player"])
    s._ctx = context_from_json(d["ctx"])
    check_context(s._ctx, s.decision, len(game.scenario.units))
    s.loc = list(d["loc"])
    s.status = list(d["status"])
    s.steps = list(d["steps"])
    s.moved = list(d["moved"])
    s.attacked = list(d["attacked"])
    s.no_attack = list(d["no_attack"])
    s.immobile = list(d["immobile"])
    s.must_leave = list(d["must_leave"])
    s.left_green = list(d["left_green"])
    s.entered_map = list(d["entered_map"])
    s.entry_ready = list(d["entry_ready"])
    s.vp_log = list(d["vp_log"])
    s.naval_used = list(d["naval_used"])
    s.dice_log = list(d["dice_log"])
    s.last_dice = list(d["last_dice"])
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
