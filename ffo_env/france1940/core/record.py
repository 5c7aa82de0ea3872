"""Game records: a versioned JSON document that replays to an identical game (F59).

A record holds the seed, the rules options, the data and engine versions, every decision (agent-made and
automatic) with its text and the decision it answered, every die with what it decided, the event log,
the victory points, the result and the final state. :func:`replay` rebuilds the game from the seed and
the agents' decisions alone and checks **every** field against the record: a record whose text, dice,
log, VP, result or final state was altered is refused (:class:`RecordError`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ffo_env.atomic import atomic_write_text
from ffo_env.france1940.core.data import AGENTS, DATA_VERSIONS, FIRST_DATA
from ffo_env.france1940.core.game import ENGINE_VERSION, Game
from ffo_env.france1940.core.options import RulesOptions, with_data_version
from ffo_env.france1940.core.state import State
from ffo_env.france1940.core.state_io import state_to_dict

RECORD_FORMAT = "france1940-game-record"
RECORD_VERSION = 1
_KEYS = (
    "format",
    "record_version",
    "engine",
    "data",
    "options",
    "seed",
    "columns",
    "decisions",
    "dice",
    "log",
    "vp",
    "result",
    "winner",
    "final_state",
)


class RecordError(ValueError):
    """A record that cannot be replayed, or that differs from what the engine plays."""


class Recorder:
    """Plays a state forward, writing each decision with its text (taken before it is applied)."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.decisions: list[dict[str, Any]] = []
        self._sync()

    def _sync(self) -> None:
        for side, a, auto in self.state.history[len(self.decisions) :]:
            self.decisions.append({"player": AGENTS[side], "action": a, "auto": bool(auto)})

    def apply(self, action: int) -> None:
        s = self.state
        self._sync()
        text, at = s.action_to_string(int(action)), s.decision_string()
        s.apply_action(action)
        entry = len(self.decisions)
        self._sync()
        self.decisions[entry].update(text=text, at=at)

    def record(self) -> dict[str, Any]:
        self._sync()
        return make_record(self.state, self.decisions)


def make_record(s: State, decisions: list[dict[str, Any]]) -> dict[str, Any]:
    rec: dict[str, Any] = json.loads(
        json.dumps(
            {
                "format": RECORD_FORMAT,
                "record_version": RECORD_VERSION,
                "engine": ENGINE_VERSION,
                "data": s.game.data.version,
                "options": s.game.options.to_dict(),
                "seed": s.seed,
                "columns": s.columns,
                "decisions": decisions,
                "dice": s.rolls,
                "log": s.log,
                "vp": s.vp,
                "result": s.result,
                "winner": AGENTS[s.winner] if s.winner >= 0 else None,
                "final_state": state_to_dict(s),
            }
        )
    )
    return rec


def replay(rec: object) -> State:
    """Replay a record and verify every field; returns the final state or raises :class:`RecordError`."""
    if not isinstance(rec, dict):
        raise RecordError(f"a record is a JSON object, found {type(rec).__name__}")
    if rec.get("format") != RECORD_FORMAT or rec.get("record_version") != RECORD_VERSION:
        raise RecordError(f"format: expected {RECORD_FORMAT!r} version {RECORD_VERSION}")
    if sorted(rec) != sorted(_KEYS):
        raise RecordError(f"keys: expected {sorted(_KEYS)}, found {sorted(rec)}")
    if rec.get("engine") != ENGINE_VERSION:
        raise RecordError(f"engine: recorded {rec.get('engine')!r}, this engine is {ENGINE_VERSION!r}")
    data = rec.get("data")
    if data not in DATA_VERSIONS:  # a record replays under the data it was played with, or not at all
        raise RecordError(
            f"data: the record was played with game data {data!r}, which this engine does not have; "
            f"known versions: {', '.join(DATA_VERSIONS)}"
        )
    try:
        # a record of session 40 has no options.data_version: it plays the data its "data" field names (v1,
        # then the only version), never the process's default (v3 since session 48), P19
        options = with_data_version(rec["options"], str(data))
        game = Game(RulesOptions.from_dict(options))
    except (TypeError, ValueError) as e:
        raise RecordError(f"options: {e}") from None
    seed = rec.get("seed")
    decisions = rec.get("decisions")
    if type(seed) is not int or not isinstance(decisions, list):
        raise RecordError("seed/decisions: expected an integer seed and a list of decisions")
    rec_ = Recorder(game.new_initial_state(seed))
    for i, d in enumerate(decisions):
        if not isinstance(d, dict):
            raise RecordError(f"decisions[{i}]: expected an object")
        if d.get("auto") is True:
            continue  # replayed by the engine itself
        if rec_.state.is_terminal():
            raise RecordError(f"decisions[{i}]: the game was already over")
        try:
            rec_.apply(d.get("action"))  # type: ignore[arg-type]
        except (TypeError, ValueError) as e:
            raise RecordError(f"decisions[{i}]: {e}") from None
    fresh = rec_.record()
    if data == FIRST_DATA:  # only v1 was written before data versions (P19)
        fresh["final_state"] = _as_written_before_data_versions(fresh["final_state"], rec["final_state"])
    for key in _KEYS:
        if fresh[key] != json.loads(json.dumps(options if key == "options" else rec[key])):
            where = key
            if key == "decisions":
                n = next(
                    (j for j, (a, b) in enumerate(zip(fresh[key], rec[key], strict=False)) if a != b), None
                )
                where = f"decisions[{n}]" if n is not None else "decisions (length)"
            raise RecordError(f"{where}: the record differs from the replay")
    return rec_.state


def _as_written_before_data_versions(fresh: Any, written: object) -> Any:
    """The replayed final state in the form the record wrote it: a record of session 40 wrote its final state
    before data versions, without ``data`` and without ``options.data_version`` (both v1 then)."""
    if not isinstance(written, dict) or "data" in written or not isinstance(fresh, dict):
        return fresh
    out = {k: v for k, v in fresh.items() if k != "data"}
    if isinstance(out.get("options"), dict) and "data_version" not in (written.get("options") or {}):
        out["options"] = {k: v for k, v in out["options"].items() if k != "data_version"}
    return out


def save_record(rec: dict[str, Any], path: str | Path) -> None:
    atomic_write_text(Path(path), json.dumps(rec, ensure_ascii=False, indent=1))


def load_record(path: str | Path) -> dict[str, Any]:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise RecordError(f"{path}: not JSON: {e}") from None
    if not isinstance(doc, dict):
        raise RecordError(f"{path}: a record is a JSON object")
    return doc
