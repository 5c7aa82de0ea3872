"""The ``ffo`` command: ``ffo map``, ``ffo play`` (more subcommands are added as the project grows)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ffo_env.games import DEFAULT_GAME, add_game_option, game_info, game_of_record


def _game_module(args: argparse.Namespace) -> Any:
    """The command-line layer of the game of ``args``: ``ffo_env.<game>.commands``."""
    import importlib

    return importlib.import_module(
        f"ffo_env.{game_info(getattr(args, 'game', DEFAULT_GAME)).package_name}.commands"
    )


def _game_command(args: argparse.Namespace, name: str) -> int:
    """The command ``name`` of the game of ``args``: ``ffo_env.<game>.commands.<name>(args)``."""
    return int(getattr(_game_module(args), name)(args))


def _cmd_map(args: argparse.Namespace) -> int:
    return _game_command(args, "draw_map")


def _cmd_play(args: argparse.Namespace) -> int:
    if args.record and Path(args.record).exists() and not args.force:
        raise ValueError(
            f"{args.record} already exists; add --force to overwrite it or choose another --record path"
        )
    if "human" in (args.french, args.german):
        from webplay.command import run as run_web  # a person plays: the local web UI (checks its own paths)

        return run_web(args)
    return _game_command(args, "play")


def _cmd_replay(args: argparse.Namespace) -> int:
    recorded = game_of_record(args.record)
    if recorded is not None and recorded != args.game:
        raise ValueError(
            f"{args.record} is a record of {game_info(recorded).title}, not of {game_info(args.game).title}: "
            f"run 'ffo replay --game {recorded} {args.record}'"
        )
    return _game_command(args, "replay")


def reader_gone() -> int:
    """Exit status 1 and no message when stdout's reader went away (``ffo ... | head``): stdout is pointed at
    devnull, Python's advice, so that the exit's flush does not raise a second BrokenPipeError."""
    import os

    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 1


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ffo", description="France Fights On: rules engine, environment, bots and training."
    )
    p.add_argument(
        "--debug",
        action="store_true",
        help="show the full traceback when a command fails (also: environment variable FFO_DEBUG=1)",
    )
    _add_data_option(p)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    pm = sub.add_parser(
        "map", help="draw the map (PNG or text)", description="Draw the map as a PNG or as text."
    )
    from ffo_env.ffo.commands import add_map_arguments

    add_map_arguments(pm)
    pm.set_defaults(func=_cmd_map)

    pp = sub.add_parser(
        "play",
        help="play one full game between two agents and print the result",
        description="Play one full game between two agents; print the result and VP breakdown.",
    )
    pp.add_argument(
        "--french",
        default="random",
        help="agent for the French side, or 'human' to play it in the browser (default: random)",
    )
    pp.add_argument(
        "--german",
        default="random",
        help="agent for the German side, or 'human' to play it in the browser (default: random)",
    )
    from ffo_env.ffo.core.game import SETUP_MODES

    pp.add_argument("--seed", type=int, default=0, help="game seed (dice and random choices; default 0)")
    pp.add_argument(
        "--setup",
        default="random",
        choices=SETUP_MODES,
        help="setup mode (R2): agents place units, random placement, or the fixed deployment",
    )
    pp.add_argument("--record", metavar="PATH", help="write the game record (JSON) here")
    pp.add_argument("--force", action="store_true", help="overwrite an existing --record file")
    pp.add_argument("--json", action="store_true", help="also print the result as one JSON line")
    pp.add_argument(
        "--port",
        type=int,
        default=0,
        help="with a human side: port of the local web UI on 127.0.0.1 (default: a free port)",
    )
    pp.add_argument(
        "--open-browser",
        action="store_true",
        help="with a human side: open the web UI in the default browser",
    )
    add_game_option(pp)
    pp.set_defaults(func=_cmd_play)

    pr = sub.add_parser(
        "replay",
        help="replay a game record and print the final position",
        description="Replay a game record, check it against the engine and print the final position.",
    )
    pr.add_argument("record", help="path of a game record written by 'ffo play --record'")
    pr.add_argument(
        "--html",
        metavar="PATH",
        help="write a self-contained HTML viewer of the game (step, play, scrub; no network needed)",
    )
    add_game_option(pr)
    pr.set_defaults(func=_cmd_replay)

    # subcommands that live in higher layers; each module offers add_arguments(parser) and run(args)
    import importlib

    for name, module, help_text in _PLUGINS:
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name and (module.startswith(e.name) or e.name.startswith(module)):
                continue  # that layer is not installed / not written yet
            raise
        sp = sub.add_parser(
            name, help=help_text, description=(mod.__doc__ or help_text).strip().splitlines()[0]
        )
        mod.add_arguments(sp)
        sp.set_defaults(func=mod.run)
    for sp in sub.choices.values():
        _add_data_option(sp)  # also after the command name: ffo eval --data ...
    return p


def _add_data_option(parser: argparse.ArgumentParser) -> None:
    from ffo_env.ffo.core.datasets import DATA_VERSIONS, DEFAULT_DATA

    parser.add_argument(
        "--data",
        default=argparse.SUPPRESS,  # given before and after the command name, neither hides the other
        metavar="VERSION|DIR",
        help=f"game data to play: {', '.join(DATA_VERSIONS)} (default {DEFAULT_DATA}, the balanced "
        "reconstruction; or $FFO_DATA), or a folder with map.csv, units.yaml, tables.yaml, setup_fixed.yaml; "
        "with --game france1940 one of its data versions (ffo_env.france1940.core.data.DATA_VERSIONS)",
    )


def _use_f40_data(data: str | None) -> None:
    """Make ``data`` the France 1940 data version of this process and of every worker it starts (they
    inherit ``$FFO_F40_DATA``, the default of ``RulesOptions.data_version``). An unknown version is one
    DataError naming it and the known ones."""
    import os

    from ffo_env.france1940.core.data import DATA_ENV, data_dir

    if data is not None:
        data_dir(data)  # an unknown version: one error before anything runs
        os.environ[DATA_ENV] = data


def _use_data(data: str | None) -> None:
    """Make ``data`` the game data of this process and of every worker it starts (they inherit the
    environment). A bad name or folder raises one clear DataError."""
    import os

    from ffo_env.ffo.core.datasets import DATA_ENV, DATA_VERSIONS, data_dir
    from ffo_env.ffo.core.scenario import scenario_for

    if data is not None:
        scenario_for(data)  # validates the whole data set before anything runs
        os.environ[DATA_ENV] = data if data in DATA_VERSIONS else str(data_dir(data).resolve())


_PLUGINS = (
    ("eval", "agents.harness", "run a tournament between agents and write results (JSON/CSV)"),
    ("ladder", "agents.ladder", "rate agents (both sides) from a round robin: one Elo table with intervals"),
    ("compare", "agents.compare", "is agent B stronger than A on one side? paired games on the same seeds"),
    (
        "train",
        "training.train_command",
        "train French/German policies (MaskablePPO, or RLlib with --backend rllib)",
    ),
    ("release", "training.release", "install a finished training run's policies as the pretrained policies"),
    ("bench", "benchmarks.bench", "measure the speed of the core, the environment and training"),
    (
        "benchmark",
        "benchmarks.protocol.cli",
        "benchmark protocol: tasks, runs over seeds, reports with intervals",
    ),
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command. A bad input (file, config, option value) ends with one ``error: ...`` line and exit 2,
    an unexpected failure with one ``internal error`` line and exit 1; ``--debug`` shows the traceback."""
    import os

    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    args.command_line = ["ffo", *argv]  # what a run records as its command, also when called in-process
    debug = bool(getattr(args, "debug", False)) or os.environ.get("FFO_DEBUG", "") not in ("", "0")
    from ffo_env.ffo.core.datasets import DATA_ENV
    from ffo_env.france1940.core.data import DATA_ENV as F40_DATA_ENV

    data_before = os.environ.get(DATA_ENV)
    f40_data_before = os.environ.get(F40_DATA_ENV)
    try:
        game = getattr(args, "game", DEFAULT_GAME)
        if game == DEFAULT_GAME:  # another game's command refuses --data
            _use_data(getattr(args, "data", None))
        elif game == "france1940":  # France 1940's data versions (issue 63 item 4)
            _use_f40_data(getattr(args, "data", None))
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return reader_gone()
    except (ValueError, OSError, LookupError) as e:  # bad input: what, where, what was expected
        if debug:
            raise
        msg = str(e) if not isinstance(e, KeyError) else f"missing key {e}"
        print(f"error: {msg}", file=sys.stderr)
        return 2
    except Exception as e:
        if debug:
            raise
        print(
            f"internal error: {type(e).__name__}: {e} (run 'ffo --debug ...' for the traceback and report it)",
            file=sys.stderr,
        )
        return 1
    finally:
        # an in-process caller's environment is left as it was
        for name, before in ((DATA_ENV, data_before), (F40_DATA_ENV, f40_data_before)):
            if before is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = before


if __name__ == "__main__":
    sys.exit(main())
