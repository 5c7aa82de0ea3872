"""Measure the speed of the rules core, the environments and training, against PettingZoo peers.

Runs on one core (the process is pinned to one CPU and torch to one thread), after a
warm-up, over several repeats; reports the median and the spread (min-max) of each figure.
``chess_v6`` and ``connect_four_v3`` from PettingZoo classic are measured in the same run
under the same random legal play, interleaved with the France Fights On AEC env repeat by
repeat (the ratio is taken per repeat), so the ratio to them holds on a noisy machine.
The load average before and after the run is part of the report.

The other games of the suite (every game of the registry :data:`ffo_env.games.GAMES` beside France Fights
On: Springtime for Hitler, France, 1940) are measured in the same run, each with the same rows named by its
title: random play on its rules core, its AEC env (``game_info(game).aec_env()``, observation and mask every
step, interleaved with the France Fights On env and the peers, with the per-repeat ratio to each) and its
French ``-flat-v0`` Gymnasium id (random German); ``--skip-game NAME`` leaves one out.

    ffo bench                     # everything, prints a table, writes bench.json
    ffo bench --quick             # 1 s x 2 repeats, no training figure
    python benchmarks/bench.py --quick --out /tmp/bench.json
    ffo bench --quick --profile   # also: where the time of one AEC step goes (bench.profile.txt)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.env_speed import PEERS, aec_random, core_random, single_agent_random, suite_core_random
from benchmarks.profiling import profile_aec, step_breakdown
from benchmarks.report import (
    FORMAT,
    OTHER_GAMES,
    VERSION,
    _loadavg,
    _machine,
    _versions,
    format_table,
    run_bench,
)
from benchmarks.timing import _pin_one_core, _unpin
from benchmarks.traced_memory import memory
from benchmarks.training_speed import imitation_samples, train_samples
from ffo_env.atomic import atomic_write_text, check_writable

__all__ = [
    "FORMAT",
    "OTHER_GAMES",
    "PEERS",
    "VERSION",
    "aec_random",
    "core_random",
    "format_table",
    "imitation_samples",
    "main",
    "memory",
    "profile_aec",
    "run_bench",
    "single_agent_random",
    "step_breakdown",
    "suite_core_random",
    "train_samples",
]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--seconds", type=float, default=None, help="seconds per measurement repeat (default 3; quick 1)"
    )
    p.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="repeats per figure; the median is reported (default 3; quick 2)",
    )
    p.add_argument(
        "--warmup", type=float, default=None, help="warm-up seconds before each figure (default 1; quick 0.5)"
    )
    p.add_argument("--quick", action="store_true", help="short run: 1 s x 2 repeats, no training figures")
    p.add_argument(
        "--skip-train", action="store_true", help="skip the MaskablePPO and imitation-fit samples/s figures"
    )
    p.add_argument("--skip-peers", action="store_true", help="skip chess_v6 / connect_four_v3")
    p.add_argument(
        "--skip-game",
        action="append",
        default=[],
        choices=OTHER_GAMES,
        metavar="GAME",
        help=f"leave out the figures of this game of the suite ({', '.join(OTHER_GAMES)}); may be repeated",
    )
    p.add_argument(  # the option before report version 6, kept as the same as --skip-game springtime
        "--skip-springtime",
        action="append_const",
        const="springtime",
        dest="skip_game",
        help="the same as --skip-game springtime",
    )
    p.add_argument(
        "--train-config",
        default=None,
        help="training config for the samples/s figures (default configs/ffo/train_quick.yaml)",
    )
    p.add_argument(
        "--memory-steps", type=int, default=300, help="steps per env of the memory figure (default 300)"
    )
    p.add_argument("--out", default="bench.json", help="where to write the JSON report (default bench.json)")
    p.add_argument(
        "--profile",
        nargs="?",
        const="",
        default=None,
        metavar="PATH",
        help="also profile the AEC loop: per-step breakdown + cProfile (or pyinstrument) report "
        "written to PATH (default: the --out path with .profile.txt)",
    )
    p.add_argument(
        "--profiler",
        choices=("cprofile", "pyinstrument"),
        default="cprofile",
        help="profiler of --profile (pyinstrument must be installed)",
    )
    p.add_argument("--profile-only", action="store_true", help="only the profile, no other figure")


def run(args: argparse.Namespace) -> int:
    quick = args.quick
    seconds = args.seconds if args.seconds is not None else (1.0 if quick else 3.0)
    repeats = args.repeats if args.repeats is not None else (2 if quick else 3)
    warmup = args.warmup if args.warmup is not None else (0.5 if quick else 1.0)
    out = Path(args.out)
    check_writable(out)  # refused now, not after minutes of measuring
    if args.profile is not None or args.profile_only:
        check_writable(Path(args.profile) if args.profile else out.with_suffix(".profile.txt"))
    report: dict[str, Any] | None = None
    if not args.profile_only:
        report = run_bench(
            seconds,
            repeats,
            warmup,
            args.skip_train or quick,
            args.skip_peers,
            args.train_config,
            memory_steps=args.memory_steps,
            skip_games=tuple(args.skip_game),
        )
    if args.profile is not None or args.profile_only:
        path = Path(args.profile) if args.profile else out.with_suffix(".profile.txt")
        pin_desc, previous = _pin_one_core()
        try:
            prof = profile_aec(args.seconds if args.seconds is not None else 3.0, path, args.profiler)
        finally:
            _unpin(previous)
        prof["affinity"] = pin_desc
        if report is None:
            report = {
                "format": FORMAT,
                "version": VERSION,
                "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "versions": _versions(),
                "machine": {**_machine(), "loadavg_before": _loadavg()},
                "results": {},
            }
        report["profile"] = prof
        print("\n\n".join(path.read_text(encoding="utf-8").split("\n\n")[:2]))
        print(f"profile written to {path}")
    assert report is not None  # the measurements or the profile above made it
    atomic_write_text(out, json.dumps(report, indent=1) + "\n")
    if report.get("results"):
        print(format_table(report))
    print(f"report written to {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench", description=__doc__.strip().splitlines()[0])
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
