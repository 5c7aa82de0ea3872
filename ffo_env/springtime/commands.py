"""``ffo play --game springtime`` and ``ffo replay --game springtime``: the command-line layer of the game.

``ffo_env.cli`` hands a command here when ``--game springtime`` is given (it imports
``ffo_env.<game>.commands`` by the game's name). Like ``ffo_env.cli`` this sits above the agents, which it
imports when a game is played; the replay and its viewer need the rules core and the renderer only.
"""

from __future__ import annotations

import argparse
import json
import sys

GAME = "springtime"


def refuse_game_options(args: argparse.Namespace) -> None:
    """Another game's own options (France Fights On's setup modes, R2, and game data versions, ``--data``)
    have no meaning here: any given is one error naming it (:func:`ffo_env.games.refuse_game_options`)."""
    from ffo_env.games import refuse_game_options as refuse

    refuse(args, GAME)


def play(args: argparse.Namespace) -> int:
    """Play one game between two Springtime agents; print the result; write the record if asked."""
    refuse_game_options(args)
    if args.record:
        from ffo_env.atomic import check_writable

        check_writable(args.record)  # an unwritable path is refused before the game, not after it
    from agents.harness import agent_seed, play_out
    from agents.registry import make_agent
    from ffo_env.springtime.core.game import Game
    from ffo_env.springtime.core.record import Recorder, write_record

    agents = {
        side: make_agent(getattr(args, side), side, seed=agent_seed(args.seed, side), game=GAME)
        for side in ("french", "german")
    }
    state = Game().new_initial_state(args.seed)
    rec = Recorder(state)
    dt = play_out(state, agents, rec)
    record = rec.record()
    n_agent = sum(1 for d in record["decisions"] if not d["auto"])
    print(
        f"seed {args.seed}: {record['winner']} victory ({record['result']}), French Morale {state.morale} on turn {state.turn}"
    )
    print(f"  {len(record['decisions'])} decisions ({n_agent} by agents) in {dt:.2f} s")
    if args.record:
        write_record(args.record, record)
        print(f"record written to {args.record}")
    if args.json:
        print(
            json.dumps(
                {
                    "game": GAME,
                    "seed": args.seed,
                    "winner": record["winner"],
                    "result": record["result"],
                    "morale": state.morale,
                    "turn": state.turn,
                    "decisions": len(record["decisions"]),
                    "agent_decisions": n_agent,
                }
            )
        )
    return 0


def replay(args: argparse.Namespace) -> int:
    """Verify a record; print the final position, or write the HTML viewer (only for a record that verifies)."""
    from ffo_env.springtime.core.record import RecordError, read_record
    from ffo_env.springtime.core.record import replay as verify

    refuse_game_options(args)
    try:
        record = read_record(args.record)
        if args.html:
            from ffo_env.springtime.render.viewer import write_viewer

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
    print(state)
    print(f"{record['winner']} victory ({record['result']}); the record verifies")
    return 0
