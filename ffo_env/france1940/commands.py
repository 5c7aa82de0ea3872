"""``ffo play --game france1940`` and ``ffo replay --game france1940``: the command-line layer of the game.

``ffo_env.cli`` hands a command here when ``--game france1940`` is given (it imports
``ffo_env.<game>.commands`` by the game's name). Like ``ffo_env.cli`` this sits above the agents, which it
imports when a game is played; the replay and its viewer need the rules core only.
"""

from __future__ import annotations

import argparse
import json
import sys

GAME = "france1940"


def play(args: argparse.Namespace) -> int:
    """Play one game between two agents of the game; print the result; write the record if asked."""
    from ffo_env.games import refuse_ffo_options

    refuse_ffo_options(args, GAME)
    if args.record:
        from ffo_env.atomic import check_writable

        check_writable(args.record)  # an unwritable path is refused before the game, not after it
    from agents.harness import agent_seed, play_out
    from agents.registry import make_agent
    from ffo_env.france1940.core.record import Recorder, save_record
    from ffo_env.france1940.interface import new_state

    agents = {
        side: make_agent(getattr(args, side), side, seed=agent_seed(args.seed, side), game=GAME)
        for side in ("french", "german")
    }
    state = new_state(args.seed)
    rec = Recorder(state)
    dt = play_out(state, agents, rec)
    record = rec.record()
    n_agent = sum(1 for d in record["decisions"] if not d["auto"])
    print(
        f"seed {args.seed}: {record['winner']} victory ({record['result']}), VP Allied {state.vp[0]} "
        f"German {state.vp[1]} after GT{state.turn}; armies {state.columns[0]} / {state.columns[1]}"
    )
    print(f"  {len(record['decisions'])} decisions ({n_agent} by agents) in {dt:.2f} s")
    if args.record:
        save_record(record, args.record)
        print(f"record written to {args.record}")
    if args.json:
        print(
            json.dumps(
                {
                    "game": GAME,
                    "seed": args.seed,
                    "winner": record["winner"],
                    "result": record["result"],
                    "vp": list(state.vp),
                    "columns": list(state.columns),
                    "turn": state.turn,
                    "decisions": len(record["decisions"]),
                    "agent_decisions": n_agent,
                }
            )
        )
    return 0


def replay(args: argparse.Namespace) -> int:
    """Verify a record; print the final position, or write the HTML viewer (only for a record that verifies)."""
    from ffo_env.france1940.core.record import RecordError, load_record
    from ffo_env.france1940.core.record import replay as verify
    from ffo_env.france1940.env import render_text
    from ffo_env.games import refuse_ffo_options

    refuse_ffo_options(args, GAME)
    try:
        record = load_record(args.record)
        if args.html:
            from ffo_env.france1940.viewer import write_viewer

            size = write_viewer(record, args.html)  # verifies the record first; nothing is written otherwise
            print(
                f"viewer written to {args.html} ({size / 1e6:.1f} MB); open it in a browser (works offline)"
            )
            return 0
        state = verify(record)
    except RecordError as e:
        msg = str(e)
        print(f"error: {msg}" if str(args.record) in msg else f"error: {args.record}: {msg}", file=sys.stderr)
        return 2
    print(render_text(state))
    print(f"{record['winner']} victory ({record['result']}); the record verifies")
    return 0
