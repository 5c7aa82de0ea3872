"""The saved start states of the benchmark's endgame tasks: how they are made, stored and loaded.

A state set is a gzipped JSON file in ``benchmarks/ffo/data/`` (``benchmarks/protocol/data/`` before issue 62's
step 7; a task's fingerprint hashes the file's name and bytes, not its folder)::

    {"format": "ffo-benchmark-states", "version": 1, "engine": ..., "data": ..., "turn": 13,
     "made_by": {"command": ..., "seeds": [...], "french": "expert", "german": "expert"},
     "states": [<State.to_dict()>, ...]}

Each state is the first position of game turn ``turn`` in a game between the two sides' ``expert`` bots
(random setup, game seed ``seeds[i]``, each bot seeded as ``ffo play`` seeds it). Loading checks every
state with the core (``State.from_dict``: ``ffo_env/ffo/core/state_check.py``), so a damaged file is one clear
error. Regenerate with (deterministic: the same command writes the same bytes)::

    python -m benchmarks.ffo.states --turn 13 --games 32 --first-seed 0 \\
        --out benchmarks/ffo/data/endgame-t13-v1.json.gz

(the files record the command under the module's earlier name, ``benchmarks.protocol.states``, which still
runs it: the same command writes the same bytes).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from benchmarks.protocol import state_sets
from benchmarks.protocol.state_sets import encode
from ffo_env.atomic import atomic_write_bytes

FORMAT = "ffo-benchmark-states"
VERSION = 1
DATA_DIR = Path(__file__).resolve().parent / "data"


class StatesError(ValueError):
    """A state set that cannot be used; the message names the file."""


def play_to_turn(game_seed: int, turn: int, data: str | None = None) -> dict[str, Any] | None:
    """The saved-state dict at the first decision of ``turn`` in expert-vs-expert play from ``game_seed``,
    or None if that game ended before it."""
    from agents import make_agent
    from agents.harness import agent_seed
    from ffo_env.ffo.env import make_game

    game = make_game("random", None, data)
    state = game.new_initial_state(game_seed)
    bots = {
        side: make_agent("expert", side, seed=agent_seed(game_seed, side)) for side in ("french", "german")
    }
    while not state.is_terminal() and state.turn < turn:
        state.apply_action(bots[state.current_agent].act_state(state))
    return None if state.is_terminal() else state.to_dict()


def make_state_set(turn: int, seeds: list[int], command: str, data: str | None = None) -> dict[str, Any]:
    from ffo_env.ffo.core.version import ENGINE_VERSION
    from ffo_env.ffo.env import make_game

    states, used = [], []
    for s in seeds:
        d = play_to_turn(s, turn, data)
        if d is not None:
            states.append(d)
            used.append(s)
    return {
        "format": FORMAT,
        "version": VERSION,
        "engine": ENGINE_VERSION,
        "data": make_game("random", None, data).scenario.version,
        "turn": turn,
        "made_by": {"command": command, "seeds": used, "french": "expert", "german": "expert"},
        "states": states,
    }


def load_state_set(path: Path) -> dict[str, Any]:
    """The document of a state-set file, its states checked against the current game; one StatesError."""
    return state_sets.load_state_set(path, FORMAT, VERSION, StatesError)


def start_states(path: Path, data: str | None = None) -> list[Any]:
    """The core States of a state set, each checked by the core (``State.from_dict``)."""
    from ffo_env.ffo.core.state import State
    from ffo_env.ffo.core.state_check import StateError
    from ffo_env.ffo.env import make_game

    doc = load_state_set(path)
    game = make_game("random", None, data)
    return state_sets.check_states(
        path, doc, game.scenario.version, lambda d: State.from_dict(game, d), StateError, StatesError
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.ffo.states",
        description="Write a benchmark state set: the first position of a turn in expert-vs-expert games.",
    )
    p.add_argument("--turn", type=int, required=True, help="game turn the saved states start")
    p.add_argument("--games", type=int, default=32, help="number of games (seeds first-seed ...)")
    p.add_argument("--first-seed", type=int, default=0, help="first game seed (default 0)")
    p.add_argument("--out", required=True, help="the .json.gz file to write")
    args = p.parse_args(argv)
    if not 2 <= args.turn <= 15 or not 1 <= args.games <= 1000:
        print("error: --turn must be in 2..15 and --games in 1..1000", file=sys.stderr)
        return 2
    seeds = list(range(args.first_seed, args.first_seed + args.games))
    command = (  # the name the shipped files record (their bytes, and so the tasks' fingerprints, stay)
        f"python -m benchmarks.protocol.states --turn {args.turn} --games {args.games} "
        f"--first-seed {args.first_seed} --out {Path(args.out).name}"
    )
    doc = make_state_set(args.turn, seeds, command)
    atomic_write_bytes(args.out, encode(doc))
    print(f"{len(doc['states'])} states of turn {args.turn} written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
