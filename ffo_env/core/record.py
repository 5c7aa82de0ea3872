"""Game records: a versioned JSON document that replays to an identical final state (R37).

A record holds the seed, the rules options, the data and engine versions, every
decision (agent-made and automatic, each with its text), every die roll with
what it decided, the VP log and the result. :func:`replay` rebuilds the game
from the seed and the agent decisions alone and checks it against the record.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ffo_env.core.game import ENGINE_VERSION, Game, RulesOptions
from ffo_env.core.scenario import Scenario, default_scenario
from ffo_env.core.state import State

RECORD_FORMAT = "ffo-game-record"
RECORD_VERSION = 1


class RecordError(ValueError):
    """A record that cannot be replayed (wrong format/version, or it diverges from the engine)."""


class Recorder:
    """Plays a state forward while writing each decision with its text (taken before it is applied)."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.decisions: list[dict[str, Any]] = []
        self._seen = len(state.history)

    def _sync_auto(self) -> None:
        # automatic decisions were applied by the engine after the last agent decision
        for side, action, auto in self.state.history[self._seen:]:
            self.decisions.append({"player": "french" if side == 0 else "german", "action": action, "auto": auto})
        self._seen = len(self.state.history)

    def apply(self, action: int) -> None:
        s = self.state
        self._sync_auto()
        text = s.action_to_string(action)
        ctx = s.decision_string()
        s.apply_action(action)
        # the agent decision is the first new history entry; automatic ones follow
        side, a, auto = s.history[self._seen]
        self.decisions.append({"player": "french" if side == 0 else "german", "action": a, "auto": auto,
                               "text": text, "at": ctx})
        self._seen += 1
        self._sync_auto()

    def record(self) -> dict[str, Any]:
        self._sync_auto()
        return make_record(self.state, self.decisions)


def make_record(state: State, decisions: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    if decisions is None:
        decisions = [{"player": "french" if side == 0 else "german", "action": a, "auto": auto}
                     for side, a, auto in state.history]
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
    Path(path).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def load_record(path: str | Path) -> dict[str, Any]:
    try:
        rec = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise RecordError(f"{path}: cannot read a game record: {e}") from e
    if rec.get("format") != RECORD_FORMAT:
        raise RecordError(f"{path}: not a {RECORD_FORMAT} document")
    if rec.get("record_version") != RECORD_VERSION:
        raise RecordError(f"{path}: record_version {rec.get('record_version')} is not {RECORD_VERSION}")
    return rec


def replay(record: dict[str, Any], scenario: Scenario | None = None) -> State:
    """Rebuild the game of ``record`` from its seed and agent decisions; check every automatic one and the dice."""
    if record.get("engine") != ENGINE_VERSION:
        raise RecordError(f"record was made by engine {record.get('engine')}, this is {ENGINE_VERSION}")
    game = Game(scenario=scenario or default_scenario(), options=RulesOptions.from_dict(record["options"]))
    state = game.new_initial_state(record["seed"])
    for _i, d in enumerate(record["decisions"]):
        if d["auto"]:
            continue
        state.apply_action(d["action"])
    got = [[s, a, bool(auto)] for s, a, auto in state.history]
    want = [[0 if d["player"] == "french" else 1, d["action"], bool(d["auto"])] for d in record["decisions"]]
    if got != want:
        first = next((i for i, (x, y) in enumerate(zip(got, want, strict=False)) if x != y), min(len(got), len(want)))
        raise RecordError(f"replay diverges from the record at decision {first}")
    if state.dice_log != record["dice"]:
        raise RecordError("replay rolled different dice from the record")
    if "rail_routes" in record and state.rail_log != record["rail_routes"]:
        raise RecordError("replay took different rail routes from the record (R17)")
    return state
