"""The saved start states of France 1940's late-game task (``france1940/german-late/v2``; ``v1`` is retired):
how they are made, stored and loaded.

A state set is a gzipped JSON file in ``benchmarks/france1940/data/`` (the fingerprint hashes its bytes)::

    {"format": "france1940-benchmark-states", "version": 1, "engine": ..., "data": ..., "turn": 7,
     "made_by": {"command": ..., "seeds": [...], "french": "expert", "german": "expert",
                 "armies": ["Hist", "I"]},
     "states": [<saved-state dict of ffo_env.france1940.core.state_io>, ...]}

Each state is the first position of game-turn ``turn`` (the German player-turn's first decision) in a game
between the two sides' ``expert`` bots, the historical armies (``Hist`` / ``I``), standard rules, the default
game data, game seed ``seeds[i]``, each bot seeded as ``ffo play`` seeds it (``agents.harness.agent_seed``).
Loading checks every state with the core's checker (``state_io.state_from_dict``), so a damaged file is one
clear error naming the file and the state. Regenerate with (deterministic: the same command writes the same
bytes)::

    python -m benchmarks.france1940.states --turn 7 --games 24 --first-seed 0 \\
        --out benchmarks/france1940/data/late-t7-eval-v2.json.gz  # and --games 64 --first-seed 2000 for train
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from benchmarks.protocol import state_sets
from benchmarks.protocol.state_sets import encode
from ffo_env.atomic import atomic_write_bytes

FORMAT = "france1940-benchmark-states"
VERSION = 1
DATA_DIR = Path(__file__).resolve().parent / "data"
ARMIES = ("Hist", "I")  # the historical pair: the Allied and the German Order of Battle Alternative column


class StatesError(ValueError):
    """A state set that cannot be used; the message names the file."""


def play_to_turn(game_seed: int, turn: int) -> dict[str, Any] | None:
    """The saved-state dict at the first decision of game-turn ``turn`` in expert-vs-expert play (historical
    armies, standard rules) from ``game_seed``, or None if that game ended before it."""
    from agents import make_agent
    from agents.harness import agent_seed
    from ffo_env.france1940.core.game import new_state
    from ffo_env.france1940.core.state_io import state_to_dict

    state = new_state(game_seed, None, {"allied_obac": ARMIES[0], "german_obac": ARMIES[1]})
    bots = {
        side: make_agent("expert", side, seed=agent_seed(game_seed, side), game="france1940")
        for side in ("french", "german")
    }
    while not state.is_terminal() and state.turn < turn:
        state.apply_action(int(bots[state.current_agent].act_state(state)))
    return None if state.is_terminal() else state_to_dict(state)


def make_state_set(turn: int, seeds: list[int], command: str) -> dict[str, Any]:
    from ffo_env.france1940.core.data import data_choice
    from ffo_env.france1940.core.game import ENGINE_VERSION

    states, used = [], []
    for s in seeds:
        d = play_to_turn(s, turn)
        if d is not None:
            states.append(d)
            used.append(s)
    return {
        "format": FORMAT,
        "version": VERSION,
        "engine": ENGINE_VERSION,
        "data": data_choice(),
        "turn": turn,
        "made_by": {
            "command": command,
            "seeds": used,
            "french": "expert",
            "german": "expert",
            "armies": list(ARMIES),
        },
        "states": states,
    }


def load_state_set(path: Path) -> dict[str, Any]:
    """The document of a state-set file (format and shape checked); one StatesError naming the file."""
    return state_sets.load_state_set(path, FORMAT, VERSION, StatesError)


def start_states(path: Path) -> list[Any]:
    """The core States of a state set, each checked by the core (``state_io.state_from_dict``); they play the
    game data they were made on (the file's ``data``), which must be the installation's current choice."""
    from ffo_env.france1940.core.data import data_choice
    from ffo_env.france1940.core.state_io import StateError, state_from_dict

    return state_sets.check_states(
        path, load_state_set(path), data_choice(), state_from_dict, StateError, StatesError
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.france1940.states",
        description="Write a France 1940 benchmark state set: the first position of a game-turn in "
        "expert-vs-expert games (historical armies).",
    )
    p.add_argument("--turn", type=int, required=True, help="game-turn the saved states start (2..10)")
    p.add_argument("--games", type=int, default=24, help="number of games (seeds first-seed ...)")
    p.add_argument("--first-seed", type=int, default=0, help="first game seed (default 0)")
    p.add_argument("--out", required=True, help="the .json.gz file to write")
    args = p.parse_args(argv)
    if not 2 <= args.turn <= 10 or not 1 <= args.games <= 1000:
        print("error: --turn must be in 2..10 and --games in 1..1000", file=sys.stderr)
        return 2
    seeds = list(range(args.first_seed, args.first_seed + args.games))
    command = (
        f"python -m benchmarks.france1940.states --turn {args.turn} --games {args.games} "
        f"--first-seed {args.first_seed} --out {Path(args.out).name}"
    )
    doc = make_state_set(args.turn, seeds, command)
    atomic_write_bytes(args.out, encode(doc))
    print(f"{len(doc['states'])} states of game-turn {args.turn} written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
