"""Game records: a versioned JSON document that replays to an identical game (S54).

A record holds the seed, scenario, rules options, data and engine versions, every decision (agent-made
and automatic) with its text and the decision it answered, every die roll and draw, the Morale log, the
result and the final state. :func:`replay` rebuilds the game from the seed and the agent decisions alone
and checks **every** field against the record: a record whose text, dice, Morale log, result or final
state was altered is refused (:class:`RecordError`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ffo_env.atomic import atomic_write_text
from ffo_env.springtime.core.data import AGENTS, DATA_VERSION
from ffo_env.springtime.core.game import ENGINE_VERSION, Game, RulesOptions
from ffo_env.springtime.core.state import State
from ffo_env.springtime.core.state_io import state_to_dict

RECORD_FORMAT = "springtime-game-record"
RECORD_VERSION = 1
_KEYS = (
    "format",
    "record_version",
    "engine",
    "data",
    "scenario",
    "options",
    "seed",
    "decisions",
    "dice",
    "morale_log",
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
        entry = self.decisions.__len__()
        self._sync()
        self.decisions[entry].update(text=text, at=at)

    def record(self) -> dict[str, Any]:
        self._sync()
        return make_record(self.state, self.decisions)


def make_record(s: State, decisions: list[dict[str, Any]]) -> dict[str, Any]:
    g = s.game
    return {
        "format": RECORD_FORMAT,
        "record_version": RECORD_VERSION,
        "engine": ENGINE_VERSION,
        "data": DATA_VERSION,
        "scenario": g.scenario,
        "options": g.options.to_dict(),
        "seed": s.seed,
        "decisions": decisions,
        "dice": s.dice_log,
        "morale_log": s.morale_log,
        "result": s.result,
        "winner": AGENTS[s.winner] if s.winner >= 0 else None,
        "final_state": state_to_dict(s),
    }


def replay(rec: object) -> State:
    """Replay a record and verify every field; returns the final state or raises :class:`RecordError`."""
    if not isinstance(rec, dict):
        raise RecordError(f"a record is a JSON object, found {type(rec).__name__}")
    if rec.get("format") != RECORD_FORMAT or rec.get("record_version") != RECORD_VERSION:
        raise RecordError(f"format: expected {RECORD_FORMAT!r} version {RECORD_VERSION}")
    if sorted(rec) != sorted(_KEYS):
        raise RecordError(f"keys: expected {sorted(_KEYS)}, found {sorted(rec)}")
    if rec.get("engine") != ENGINE_VERSION or rec.get("data") != DATA_VERSION:
        raise RecordError(
            f"versions: recorded with rules engine {rec.get('engine')!r} and game data {rec.get('data')!r}, this"
            f" is {ENGINE_VERSION!r} with {DATA_VERSION!r}: the rules differ, so the game cannot be replayed here;"
            " replay it with the ffo_env release that made it, or play it again to record it with this one"
        )
    try:
        game = Game(scenario=str(rec["scenario"]), options=RulesOptions.from_dict(rec["options"]))
    except (TypeError, ValueError) as e:
        raise RecordError(f"scenario/options: {e}") from None
    seed = rec.get("seed")
    decisions = rec.get("decisions")
    if type(seed) is not int or not isinstance(decisions, list):
        raise RecordError("seed/decisions: expected an integer seed and a list of decisions")
    rec_ = Recorder(game.new_initial_state(seed))
    i = 0
    while i < len(decisions):
        d = decisions[i]
        if not isinstance(d, dict):
            raise RecordError(f"decisions[{i}]: expected an object")
        if d.get("auto") is True:
            i += 1
            continue  # replayed by the engine itself
        if rec_.state.is_terminal():
            raise RecordError(f"decisions[{i}]: the game was already over")
        try:
            rec_.apply(d.get("action"))  # type: ignore[arg-type]
        except (TypeError, ValueError) as e:
            raise RecordError(f"decisions[{i}]: {e}") from None
        i += 1
    fresh = rec_.record()
    for key in _KEYS:
        if fresh[key] != json.loads(json.dumps(rec[key])):
            where = key
            if key == "decisions":
                n = next(
                    (j for j, (a, b) in enumerate(zip(fresh[key], rec[key], strict=False)) if a != b), None
                )
                where = f"decisions[{n}]" if n is not None else "decisions (length)"
            raise RecordError(f"{where}: the record differs from the replay")
    return rec_.state


def write_record(path: str | Path, rec: dict[str, Any]) -> None:
    atomic_write_text(Path(path), json.dumps(rec, ensure_ascii=False, indent=1))


def read_record(path: str | Path) -> dict[str, Any]:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise RecordError(f"{path}: not JSON: {e}") from None
    if not isinstance(doc, dict):
        raise RecordError(f"{path}: a record is a JSON object")
    return doc
