"""``ffo play``, ``ffo replay`` and ``ffo map`` of France Fights On: the command-line layer of the game.

``ffo_env.cli`` hands a command here by the game's package name (``ffo_env.<game>.commands``), as it does for
every game of the suite. Like ``ffo_env.cli`` this sits above the agents, which it imports when a game is
played; the replay, its viewer and the map need the rules core and the renderer only.
"""

from __future__ import annotations

import argparse
import json
import sys


def play(args: argparse.Namespace) -> int:
    """Play one game between two agents; print the result and VP breakdown; write the record if asked."""
    if args.record:
        from ffo_env.atomic import check_writable

        check_writable(args.record)  # an unwritable path is refused before the game, not after it
    from agents import make_agent
    from agents.harness import agent_seed, play_out
    from ffo_env.ffo.core.game import Game, RulesOptions
    from ffo_env.ffo.core.record import Recorder, save_record

    game = Game(options=RulesOptions(setup=args.setup))
    state = game.new_initial_state(args.seed)
    agents = {
        "french": make_agent(args.french, "french", seed=agent_seed(args.seed, "french")),
        "german": make_agent(args.german, "german", seed=agent_seed(args.seed, "german")),
    }
    rec = Recorder(state)
    dt = play_out(state, agents, rec)
    record = rec.record()
    res = record["result"]
    print(f"seed {args.seed}: {res['winner']} victory, French VP {res['vp']} after GT{res['turn']}")
    for kind, vp in sorted(res["vp_breakdown"].items()):
        print(f"  {kind:<16} {vp:+d}")
    print(f"  {res['decisions']} decisions ({res['agent_decisions']} by agents) in {dt:.2f} s")
    if args.record:
        save_record(record, args.record)
        print(f"record written to {args.record}")
    if args.json:
        print(json.dumps(res))
    return 0


def replay(args: argparse.Namespace) -> int:
    """Replay a record, checking it against the engine; print the final position or write the viewer."""
    from ffo_env.ffo.core.record import RecordError, load_record
    from ffo_env.ffo.core.record import replay as replay_record

    try:
        record = load_record(args.record)
        if args.html:
            from ffo_env.ffo.render.html_viewer import write_viewer

            size = write_viewer(record, args.html)  # replays the record itself, with the same checks
            print(
                f"viewer written to {args.html} ({size / 1e6:.1f} MB); open it in a browser (works offline)"
            )
            return 0
        state = replay_record(record)
    except RecordError as e:
        print(
            f"error: {args.record}: {e}" if str(args.record) not in str(e) else f"error: {e}", file=sys.stderr
        )
        return 2
    print(state)
    return 0


def add_map_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``ffo map``."""
    from ffo_env.ffo.render import cli_map

    cli_map.add_arguments(parser)


def draw_map(args: argparse.Namespace) -> int:
    """``ffo map``: draw the map as a PNG or as text."""
    from ffo_env.ffo.render import cli_map

    return cli_map.run(args)
