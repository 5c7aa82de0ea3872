"""Benchmark protocol: list the tasks, run an algorithm on a task, report results with intervals.

    ffo benchmark tasks [--json]        # every game's tasks: ffo/..., springtime/... (benchmarks/<game>/)
    ffo benchmark run --task ffo/french-endgame/v2 --algo maskable_ppo --track short --seeds 5 --out DIR
    ffo benchmark run --resume DIR
    ffo benchmark report benchmarks/results --out report/

(``ffo bench`` is the other command: the speed of the core, the envs and training.)
See docs/guide/benchmark_protocol.md for the protocol.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from benchmarks.protocol import policy_row
from benchmarks.protocol.games import bench_games


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="benchmark_command", required=True, metavar="SUBCOMMAND")
    pt = sub.add_parser(
        "tasks", help="list the tasks", description="List the benchmark tasks and their versions."
    )
    pt.add_argument("--json", action="store_true", help="print the list as JSON")
    pt.add_argument(
        "--fingerprints", action="store_true", help="also compute each task's fingerprint now (a few seconds)"
    )
    pt.set_defaults(benchmark_func=_tasks)

    pr = sub.add_parser(
        "run",
        help="run an algorithm on a task over several seeds",
        description="Train an algorithm on a task over several seeds, evaluating at fixed points of the budget.",
    )
    pr.add_argument(
        "--task",
        help="task id, e.g. ffo/french-endgame/v2 or springtime/german-vs-heuristic/v2 "
        "('ffo benchmark tasks')",
    )
    pr.add_argument(
        "--algo",
        help="algorithm: maskable_ppo, maskable_ppo_pretrained, ppo_mlp_compact, dagger_expert (learners); "
        "random, untrained, pretrained, expert, policy (reference rows; policy plays --policy FILE); Springtime "
        "tasks also maskable_ppo_shaped, ppo_mlp_compact_shaped",
    )
    pr.add_argument(
        "--policy",
        action="append",
        metavar="[SIDE=]FILE",
        help="with --algo policy: the trained policy file to measure (a self-play task takes french=FILE and "
        "german=FILE)",
    )
    pr.add_argument(
        "--label",
        help="with --algo policy: the row's name in the results and the report, policy:LABEL (default: the "
        "file's name without .pt)",
    )
    pr.add_argument("--budget", type=int, help="learner decisions per seed (self-play: both sides together)")
    pr.add_argument(
        "--track",
        choices=("short", "long"),
        help="the task's short (default) or long budget instead of --budget",
    )
    pr.add_argument("--seeds", type=int, default=5, help="number of seeds (default 5)")
    pr.add_argument("--first-seed", type=int, default=0, help="first seed (default 0)")
    pr.add_argument(
        "--evals", type=int, default=6, help="evaluation points including 0 and the end (default 6)"
    )
    pr.add_argument("--eval-games", type=int, help="evaluation games per point (default: the task's)")
    pr.add_argument("--out", help="new run folder (must not exist or be empty)")
    pr.add_argument("--resume", metavar="DIR", help="continue the killed run in DIR")
    pr.add_argument("--no-progress", action="store_true", help="no progress bar")
    pr.set_defaults(benchmark_func=_run)

    pp = sub.add_parser(
        "report",
        help="pool results and write report.json, report.md, points.csv and plots",
        description="Pool result folders: IQM with stratified bootstrap intervals, performance profiles, "
        "probability of improvement; report.json, report.md (an overview, then a table per task), points.csv "
        "(every evaluation point of every run) and PNG learning curves.",
    )
    pp.add_argument("results", nargs="+", help="result folders or results.json files (searched recursively)")
    pp.add_argument(
        "--out", required=True, help="folder for report.json, report.md, points.csv and the plots"
    )
    pp.add_argument("--reps", type=int, default=2000, help="bootstrap resamples (default 2000)")
    pp.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    pp.add_argument(
        "--game",
        choices=bench_games(),
        help="report only the tasks of this game of the suite (default: every task found; the normalised "
        "aggregate then pools the games' tasks)",
    )
    pp.set_defaults(benchmark_func=_report)


def run(args: argparse.Namespace) -> int:
    return int(args.benchmark_func(args) or 0)


def _tasks(args: argparse.Namespace) -> int:
    from benchmarks.protocol.tasks import TASKS, fingerprint

    rows: list[dict[str, Any]] = []
    for t in TASKS.values():
        row = {
            "id": t.id,
            "game": t.game,
            "kind": t.kind,
            "side": t.side or "both",
            "opponent": t.opponent or "+".join(t.references),
            "short_budget": t.short_budget,
            "long_budget": t.long_budget,
            "eval_games": t.eval_games,
            "counts": t.counted,
            "description": t.description,
        }
        if t.note:
            row["note"] = t.note
        if t.superseded_by:
            row["superseded_by"] = t.superseded_by
        if args.fingerprints:
            row["fingerprint"] = fingerprint(t)
        rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    w = max(len(r["id"]) for r in rows) + 1
    print(
        f"{'task':{w}} {'game':10} {'kind':9} {'side':7} {'opponent':24} {'short':>9} {'long':>10}  description"
    )
    for r in rows:
        mark = "" if r["counts"] else " (reference only)"
        if "superseded_by" in r:
            mark = f" (superseded by {r['superseded_by']})"
        print(
            f"{r['id']:{w}} {r['game']:10} {r['kind']:9} {r['side']:7} {r['opponent']:24} "
            f"{r['short_budget']:>9,} {r['long_budget']:>10,}  {r['description']}{mark}"
        )
    return 0


def _run(args: argparse.Namespace) -> int:
    from benchmarks.protocol import run as runner
    from benchmarks.protocol.lock import holding_run

    if args.resume:
        if args.task or args.algo or args.out or args.policy or args.label:
            raise ValueError(
                "--resume DIR continues a run as planned; do not give --task, --algo, --out, --policy or --label"
            )
        folder = Path(args.resume)
        plan = runner.check_resumable(folder)
        with holding_run(folder):
            doc = runner.execute(folder, plan, progress_bar=not args.no_progress)
    else:
        if not args.task or not args.algo or not args.out:
            raise ValueError("give --task, --algo and --out (or --resume DIR)")
        if args.budget is not None and args.track is not None:
            raise ValueError("give --budget or --track, not both")
        plan = runner.make_plan(
            args.task,
            args.algo,
            args.budget,
            args.track,
            args.seeds,
            args.first_seed,
            args.evals,
            args.eval_games,
            list(getattr(args, "command_line", ["ffo", "benchmark", "run"])),
            policies=args.policy,
            label=args.label,
        )
        folder = Path(args.out)
        runner.check_new(folder)  # before the lock, which would create the folder
        with holding_run(folder):
            runner.start(plan, folder)
            doc = runner.execute(folder, plan, progress_bar=not args.no_progress)
    row = policy_row.row_name(plan)
    runs = doc["ffo_env"][plan["task"]][row]
    for name, r in runs.items():
        last = [v for k, v in r.items() if k.startswith("step_")][-1]
        print(
            f"{plan['task']} {row} {name}: score {last['score'][0]:.3f} after "
            f"{last['step_count']:,} decisions, {last['wall_seconds']:.0f} s"
        )
    print(f"results written to {folder / 'results.json'}")
    return 0


def _report(args: argparse.Namespace) -> int:
    from benchmarks.protocol.report import make_report

    if not 100 <= args.reps <= 100_000:
        raise ValueError(f"--reps must be in 100..100000, got {args.reps}")
    report = make_report(
        [Path(p) for p in args.results], Path(args.out), reps=args.reps, seed=args.seed, game=args.game
    )
    print(report["text"], end="")
    print(f"report written to {Path(args.out) / 'report.json'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    from ffo_env.cli import main as ffo_main

    return ffo_main(["benchmark", *(sys.argv[1:] if argv is None else argv)])
