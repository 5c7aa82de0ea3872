"""Game records: a versioned JSON document that replays to an identical final state (R37).

A record holds the seed, the rules options, the data and engine versions, every
decision (agent-made and automatic, each with its text), every die roll with
what it decided, the VP log and the result. :func:`replay` rebuilds the game
from the seed and the agent decisions alone and checks it against the record.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

# the package's one atomic writer, a leaf module (standard library only): usual file permissions, the
# folder fsynced after the rename, an error that names the record's path
from ffo_env.atomic import atomic_write_text
from ffo_env.ffo.core.game import ENGINE_VERSION, Game, RulesOptions
from ffo_env.ffo.core.scenario import Scenario, scenario_named
from ffo_env.ffo.core.sides import SIDE_NAMES, Side
from ffo_env.ffo.core.state import State

RECORD_FORMAT = "ffo-game-record"
RECORD_VERSION = 1


class RecordError(ValueError):
    """A record that cannot be replayed (wrong format/version, or it diverges from the engine)."""


class ReplayObserver(Protocol):
    """Watches a verified replay: the initial position, then around each agent decision (the viewer
    builds its frames so)."""

    def start(self, state: State) -> None: ...

    def before(self, state: State, action: int) -> None: ...

    def after(self, state: State, first: int) -> None:
        """``first``: the index in ``state.history`` of the agent decision just applied."""


class Recorder:
    """Plays a state forward while writing each decision with its text (taken before it is applied)."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.decisions: list[dict[str, Any]] = []
        self._seen = len(state.history)

    def _sync_auto(self) -> None:
        # automatic decisions were applied by the engine after the last agent decision
        for side, action, auto in self.state.history[self._seen :]:
            self.decisions.append(
                {"player": "french" if side == 0 else "german", "action": action, "auto": auto}
            )
        self._seen = len(self.state.history)

    def apply(self, action: int) -> None:
        s = self.state
        self._sync_auto()
        text = s.action_to_string(action)
        ctx = s.decision_string()
        s.apply_action(action)
        # the agent decision is the first new history entry; automatic ones follow
        side, a, auto = s.history[self._seen]
        self.decisions.append(
            {
                "player": "french" if side == 0 else "german",
                "action": a,
                "auto": auto,
                "text": text,
                "at": ctx,
            }
        )
        self._seen += 1
        self._sync_auto()

    def record(self) -> dict[str, Any]:
        self._sync_auto()
        return make_record(self.state, self.decisions)


def make_record(state: State, decisions: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    if decisions is None:
        decisions = [
            {"player": "french" if side == 0 else "german", "action": a, "auto": auto}
            for side, a, auto in state.history
        ]
    return {
        "format": RECORD_FORMAT,
        "record_version": RECORD_VERSION,
        "engine": ENGINE_VERSION,
        "data_version": state.game.scenario.version,
        "seed": state.seed,
        "options": state.game.options.to_dict(),
        "decisions": decisions,
        "dice": state.dice_log,
        "vp_log": state.vp_log,
        "rail_routes": state.rail_log,  # R17: the route of every rail move
        "result": result_summary(state),
    }


def result_summary(state: State) -> dict[str, Any]:
    return {
        "terminal": state.is_terminal(),
        "winner": None if state.winner is None else ("french" if state.winner == 0 else "german"),
        "vp": state.vp,
        "vp_breakdown": state.vp_breakdown(),
        "turn": state.turn,
        "decisions": len(state.history),
        "agent_decisions": sum(1 for _s, _a, auto in state.history if not auto),
    }


def save_record(record: dict[str, Any], path: str | Path) -> None:
    """Write ``record`` atomically: a crash mid-write leaves the old file (or none), never half a record."""
    atomic_write_text(path, json.dumps(record, indent=1, ensure_ascii=False) + "\n")


def load_record(path: str | Path) -> dict[str, Any]:
    try:
        rec = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise RecordError(f"{path}: cannot read a game record: {e}") from e
    if not isinstance(rec, dict) or rec.get("format") != RECORD_FORMAT:
        raise RecordError(
            f"{path}: not a {RECORD_FORMAT} document (expected a JSON object with "
            f'"format": "{RECORD_FORMAT}")'
        )
    if rec.get("record_version") != RECORD_VERSION:
        raise RecordError(f"{path}: record_version {rec.get('record_version')!r} is not {RECORD_VERSION}")
    try:
        check_record_shape(rec)
    except RecordError as e:
        raise RecordError(f"{path}: {e}") from None
    return rec


# ------------------------------------------------------------------ shape checks

# a game has a few thousand decisions and dice; far larger lists are corrupt (and would only waste time)
MAX_ENTRIES = 200_000
# "agents" is the one field the engine cannot check (who chose the moves); it is kept short and plain
MAX_AGENT_NAME = 200

_TOP_KEYS: dict[str, type | tuple[type, ...]] = {
    "engine": str,
    "data_version": str,
    "seed": int,
    "options": dict,
    "decisions": list,
    "dice": list,
    "vp_log": list,
    "result": dict,
}


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def check_record_shape(rec: object) -> None:
    """Raise RecordError naming the first key whose presence or type is wrong; replay trusts the shape after."""
    if not isinstance(rec, dict):
        raise RecordError(f"a game record is a JSON object, found {type(rec).__name__}")
    if rec.get("format") != RECORD_FORMAT:
        raise RecordError(f'key "format": expected "{RECORD_FORMAT}", found {_short(rec.get("format"))}')
    if rec.get("record_version") != RECORD_VERSION or isinstance(rec.get("record_version"), bool):
        raise RecordError(
            f'key "record_version": expected {RECORD_VERSION}, found {_short(rec.get("record_version"))}'
        )
    for key, typ in _TOP_KEYS.items():
        if key not in rec:
            raise RecordError(f'missing key "{key}"')
        val = rec[key]
        ok = _is_int(val) if typ is int else isinstance(val, typ)
        if not ok:
            want = typ.__name__ if isinstance(typ, type) else typ
            raise RecordError(f'key "{key}": expected {want}, found {type(val).__name__} {_short(val)}')
    for key in ("decisions", "dice", "vp_log", "rail_routes"):
        if key in rec and isinstance(rec[key], list) and len(rec[key]) > MAX_ENTRIES:
            raise RecordError(f'key "{key}": {len(rec[key])} entries, more than any game has ({MAX_ENTRIES})')
    if "rail_routes" in rec and not isinstance(rec["rail_routes"], list):
        raise RecordError(f'key "rail_routes": expected list, found {type(rec["rail_routes"]).__name__}')
    for i, d in enumerate(rec["decisions"]):
        where = f"decisions[{i}]"
        if not isinstance(d, dict):
            raise RecordError(f"{where}: expected an object, found {type(d).__name__} {_short(d)}")
        for key in ("player", "action", "auto"):
            if key not in d:
                raise RecordError(f'{where}: missing key "{key}"')
        if d["player"] not in SIDE_NAMES:
            raise RecordError(f'{where}.player: expected "french" or "german", found {_short(d["player"])}')
        if not _is_int(d["action"]):
            raise RecordError(f"{where}.action: expected an integer action, found {_short(d['action'])}")
        if not isinstance(d["auto"], bool):
            raise RecordError(f"{where}.auto: expected true or false, found {_short(d['auto'])}")
        for key in ("text", "at"):
            if key in d and not isinstance(d[key], str):
                raise RecordError(f"{where}.{key}: expected a string, found {_short(d[key])}")
            if key in d and d["auto"]:
                # the Recorder writes texts for agent decisions only; a viewer would show a forged one
                raise RecordError(f"{where}.{key}: an automatic decision carries no {key}")
    agents = rec.get("agents")
    if agents is not None and not (
        isinstance(agents, dict)
        and set(agents) <= set(SIDE_NAMES)
        and all(isinstance(v, str) and len(v) <= MAX_AGENT_NAME for v in agents.values())
    ):
        raise RecordError(
            f'key "agents": expected {{"french": name, "german": name}} with names of at most '
            f"{MAX_AGENT_NAME} characters, found {_short(agents)}"
        )


def _short(x: object) -> str:
    text = json.dumps(x, ensure_ascii=False, default=repr) if not isinstance(x, str) else repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


# ------------------------------------------------------------------ replay


def replay(
    record: dict[str, Any], scenario: Scenario | None = None, observer: ReplayObserver | None = None
) -> State:
    """Rebuild the game of ``record`` from its seed and agent decisions and verify all of it.

    Checked: the engine and data versions, every decision (agent and automatic) as it happens with
    the text and the decision context it carries, every die, the rail routes (R17), the VP log and the
    result: every field a viewer shows except the agents' names, which no engine can check. The first
    divergence raises a :class:`RecordError` naming the decision index and what the record says against
    what the engine did. ``observer`` sees each agent decision before and after it is applied.
    """
    check_record_shape(record)
    if record["engine"] != ENGINE_VERSION:
        raise RecordError(
            f"this record was made by engine {record['engine']!r} and this is {ENGINE_VERSION!r}: "
            f"its rules differ, so it cannot be replayed here; replay it with the ffo_env release "
            f"that made it, or play the game again to record it with {ENGINE_VERSION!r}"
        )
    scenario = scenario or scenario_named(record["data_version"])  # R37: the data it was played with
    if record["data_version"] != scenario.version:
        raise RecordError(
            f"this record was made with game data {record['data_version']!r}, "
            f"the loaded data is {scenario.version!r}; replay it with the same data files (--data FOLDER)"
        )
    try:
        options = RulesOptions.from_dict(record["options"])
    except (TypeError, ValueError) as e:
        raise RecordError(f'key "options": {e}') from None
    game = Game(scenario=scenario, options=options)
    state = game.new_initial_state(record["seed"])
    if observer is not None:
        observer.start(state)
    decisions = record["decisions"]
    for i, d in enumerate(decisions):
        done = len(state.history)
        if i < done:  # the engine already made this one automatically: it must match
            _check_decision(i, d, state.history[i])
            continue
        if i > done:  # unreachable: history grows one agent decision at a time
            raise RecordError(f"decision {i}: the replay has only {done} decisions")
        if d["auto"]:
            side = "french" if int(state.player) == 0 else "german"
            raise RecordError(
                f"decision {i}: the record says the engine made automatic action {d['action']}, "
                f"but the engine waits for {side} to decide "
                f"({_decision_text(state)})"
            )
        if state.is_terminal():
            raise RecordError(
                f"decision {i}: the record has action {d['action']} but the game is already over "
                f"after {done} decisions"
            )
        if Side.of(d["player"]) != int(state.player):
            raise RecordError(
                f"decision {i}: the record says {d['player']} decides, but it is "
                f"{Side(int(state.player)).agent}'s decision "
                f"({_decision_text(state)})"
            )
        try:
            # legality first: the texts and the observer read the action in the position before it
            state.check_action(d["action"])
        except ValueError as e:
            raise RecordError(
                f"decision {i}: action {d['action']} is illegal when replayed ({_decision_text(state)}): {e}"
            ) from None
        texts = _texts_before(state, d)
        if observer is not None:
            observer.before(state, d["action"])
        state.apply_action(d["action"])
        _check_decision(i, d, state.history[i])
        _check_texts(i, d, texts)
        if observer is not None:
            observer.after(state, i)
    if len(state.history) != len(decisions):
        i = len(decisions)
        extra = state.history[i] if len(state.history) > i else None
        raise RecordError(
            f"decision {i}: the record ends after {len(decisions)} decisions, the replay has "
            f"{len(state.history)} (next: {_fmt_entry(extra)})"
        )
    counted = record["result"].get("decisions")
    if counted != len(state.history):
        raise RecordError(
            f"decision {len(state.history)}: the record's decisions end after {len(state.history)} "
            f"but its result counts {_short(counted)}; the record is truncated or edited"
        )
    _check_list("dice", "die", record["dice"], state.dice_log)
    if "rail_routes" in record:
        _check_list("rail_routes", "rail move (R17)", record["rail_routes"], state.rail_log)
    _check_list("vp_log", "VP entry", record["vp_log"], state.vp_log)
    want = record["result"]
    got = result_summary(state)
    for key in sorted(set(want) | set(got)):
        if json.dumps(want.get(key), sort_keys=True) != json.dumps(got.get(key), sort_keys=True):
            raise RecordError(
                f"result.{key}: the record says {_short(want.get(key))}, "
                f"the replay gives {_short(got.get(key))}"
            )
    return state


def _texts_before(state: State, d: dict[str, Any]) -> dict[str, str]:
    """The engine's own text for the fields the record's decision carries, taken before it is applied."""
    texts: dict[str, str] = {}
    if "text" in d:
        texts["text"] = state.action_to_string(d["action"])
    if "at" in d:
        texts["at"] = state.decision_string()
    return texts


def _check_texts(i: int, d: dict[str, Any], texts: dict[str, str]) -> None:
    for key, got in texts.items():
        if d[key] != got:
            raise RecordError(
                f"decisions[{i}].{key}: the record says {_short(d[key])}, the engine says {_short(got)}"
            )


def _decision_text(state: State) -> str:
    try:
        return state.decision_string()
    except Exception:  # noqa: BLE001 - only decorates an error message
        return f"turn {state.turn}"


def _fmt_entry(entry: tuple[int, int, bool] | None) -> str:
    if entry is None:
        return "none"
    side, action, auto = entry
    return f"{Side(side).agent} action {action}{' (automatic)' if auto else ''}"


def _check_decision(i: int, d: dict[str, Any], got: tuple[int, int, bool]) -> None:
    want = (Side.of(d["player"]), d["action"], d["auto"])
    if (got[0], got[1], bool(got[2])) != want:
        raise RecordError(
            f"decision {i}: the record has {_fmt_entry(want)}, the replay made {_fmt_entry(got)}"
        )


def _check_list(key: str, what: str, want: list[Any], got: list[Any]) -> None:
    for j, (w, g) in enumerate(zip(want, got, strict=False)):
        # compared as JSON so that true never passes for 1 (Python's True == 1)
        if w != g or json.dumps(w, sort_keys=True) != json.dumps(g, sort_keys=True):
            raise RecordError(f"{key}[{j}]: the record has {what} {_short(w)}, the replay gives {_short(g)}")
    if len(want) != len(got):
        raise RecordError(f'key "{key}": the record has {len(want)} entries, the replay gives {len(got)}')
