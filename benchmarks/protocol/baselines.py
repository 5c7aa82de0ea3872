"""Produce (or continue) the shipped baselines in ``benchmarks/results/``, one ``ffo benchmark run`` at a time.

    nice -n 10 python -m benchmarks.protocol.baselines                 # every job, in order
    nice -n 10 python -m benchmarks.protocol.baselines --only endgame  # jobs whose task id contains 'endgame'
    python -m benchmarks.protocol.baselines --list                     # the jobs and their state

Each job is ``ffo benchmark run --task T --algo A --track short --seeds K --out benchmarks/results/<T>/<A>``;
a job already started is continued with ``--resume`` (a killed job loses at most one evaluation interval), a
finished one is skipped, and one started by hand with fewer seeds than it asks for gets the missing ones in
a sibling folder ``<A>-seeds<a>-<b>`` (``--first-seed``; the report pools runs by task, algorithm and seed).
So this command can be killed and started again at any time, and several may run side by side
(``--only maskable_ppo`` in a second shell): a job being run by one is skipped by the others
(``.<algo>.lock`` beside its folder). Each endgame task's reference rows and then its learners (5 seeds;
version 2, whose evaluation positions training never starts from; version 1's results stay as they are),
then ``maskable_ppo_pretrained`` on both endgames (5 seeds; RL from the shipped policy, issue 39),
then the full-game tasks' reference rows and learners (3 seeds), then ``ffo/selfplay-ladder/v1``'s (3 seeds).
Springtime for Hitler's jobs (``--only springtime``) write under ``benchmarks/results/springtime/``:
the reference rows of its six tasks (3 seeds; the opponent-``expert`` and expert-row jobs last, the French
expert takes seconds a game) and ``maskable_ppo`` (3 seeds) on ``springtime/german-vs-random/v2``, then
on ``springtime/french-vs-heuristic/v2`` and ``springtime/german-vs-heuristic/v2``; then the learners with the
shaped training reward (``maskable_ppo_shaped``, and ``ppo_mlp_compact`` with and without it) in the same order;
then ``dagger_expert`` on the three learning tasks, the three learners on the two expert tasks, and
``springtime/selfplay-ladder/v2``'s reference rows and learners.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "benchmarks" / "results"
REFERENCES = ("random", "untrained", "expert")
LEARNERS = ("dagger_expert", "maskable_ppo", "ppo_mlp_compact")
INTERRUPTED = 130  # the exit status of a command stopped by Ctrl-C, as ffo's own


def jobs() -> list[tuple[str, str, int]]:
    """Every game's baseline jobs ``(task, algorithm, seeds)`` in the registry's order of the games (each game's
    benchmark part lists its own: ``baseline_jobs()``), each job once."""
    from benchmarks.protocol.games import bench_games, bench_of

    out = [job for game in bench_games() for job in bench_of(game).baseline_jobs()]
    return list(dict.fromkeys(out))


def folder_of(out: Path, task: str, algo: str) -> Path:
    """``<out>/<name>/<version>/<algo>`` for France Fights On (as shipped), ``<out>/<game>/<name>/...`` for
    another game of the suite (its benchmark part's ``RESULTS`` folder)."""
    from benchmarks.protocol.games import results_folder

    game, name, version = task.split("/")
    return results_folder(out, game) / name / version / algo


class DriverError(ValueError):
    """A run folder's file the driver cannot read; the message names it."""


def _read(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise DriverError(f"{path}: cannot read ({e}); the file is damaged") from e
    if not isinstance(doc, dict):
        raise DriverError(f"{path}: expected a JSON object; the file is damaged")
    return doc


def _planned(folder: Path) -> list[int]:
    """The seeds ``folder``'s plan runs ([] before it is started)."""
    p = folder / "plan.json"
    if not p.exists():
        return []
    doc = _read(p)
    try:
        return [int(k) for k in doc["seeds"]]
    except (KeyError, TypeError, ValueError) as e:
        raise DriverError(f"{p}: no list of seeds ({e}); the file is damaged") from e


def parts_of(out: Path, task: str, algo: str) -> list[Path]:
    """The job's run folders: :func:`folder_of`, then the siblings ``<algo>-seeds<a>-<b>`` that ran the seeds
    its plan lacks (a job run by hand with fewer seeds than it now asks for; the report pools every run
    folder it is given, by task, algorithm and seed)."""
    main = folder_of(out, task, algo)
    return [main, *sorted(d for d in main.parent.glob(f"{algo}-seeds*") if (d / "plan.json").exists())]


def seed_walls(out: Path, task: str, algo: str) -> dict[int, float | None]:
    """Each planned seed's wall seconds (None: not finished), over the job's run folders."""
    walls: dict[int, float | None] = {}
    for folder in parts_of(out, task, algo):
        for k in _planned(folder):
            p = folder / f"seed-{k}" / "progress.json"
            wall = None
            if p.exists():
                prog = _read(p)
                if prog.get("complete"):
                    wall = float(prog["rows"][-1]["wall_seconds"]) if prog.get("rows") else 0.0
            walls[k] = wall
    return walls


def state_of(out: Path, task: str, algo: str, seeds: int) -> str:
    walls = seed_walls(out, task, algo)
    if not walls:
        return "not started"
    done = sum(w is not None for w in walls.values())
    return "complete" if done >= seeds else f"{done}/{seeds} seeds complete"


def next_run(out: Path, task: str, algo: str, seeds: int) -> list[str] | None:
    """The ``ffo`` command line that takes the job a step further (None: complete): start it, resume a
    folder with an unfinished seed, or run the seeds no plan has yet into a sibling folder."""
    main = folder_of(out, task, algo)
    head = ["benchmark", "run", "--task", task, "--algo", algo, "--track", "short"]
    if not (main / "plan.json").exists():
        return [*head, "--seeds", str(seeds), "--out", str(main)]
    planned: list[int] = []
    for folder in parts_of(out, task, algo):
        ks = _planned(folder)
        planned += ks
        if any(not _complete(folder / f"seed-{k}") for k in ks):
            return ["benchmark", "run", "--resume", str(folder)]
    if len(planned) >= seeds:
        return None
    first, count = max(planned) + 1, seeds - len(planned)
    sibling = main.parent / f"{algo}-seeds{first}-{first + count - 1}"
    return [*head, "--seeds", str(count), "--first-seed", str(first), "--out", str(sibling)]


def _complete(seed_folder: Path) -> bool:
    p = seed_folder / "progress.json"
    return p.exists() and bool(_read(p).get("complete"))


def estimate_left(out: Path, selected: list[tuple[str, str, int]]) -> tuple[int, float, int]:
    """``(seed runs left, their estimated core-seconds, runs left with nothing to estimate from)``: a run left
    is priced at the mean wall time of the finished runs of the same game, task kind and algorithm (measured
    as they ran, one core each, beside whatever else the machine did), the driver's jobs or not: a superseded
    task's runs price its successor's."""
    from benchmarks.protocol.algo_table import algo_names
    from benchmarks.protocol.tasks import TASKS, get_task

    def key(task: str, algo: str) -> tuple[str, str, str]:
        t = get_task(task)
        return t.game, t.kind, algo

    finished: dict[tuple[str, str, str], list[float]] = {}
    left: list[tuple[str, str, str]] = []
    listed = jobs()
    in_jobs = {(task, algo) for task, algo, _ in listed}
    others = [(t, a) for t in TASKS for a in algo_names() if (t, a) not in in_jobs]
    for task, algo, seeds in [*listed, *((t, a, 0) for t, a in others)]:
        walls = seed_walls(out, task, algo)
        done = [w for w in walls.values() if w is not None]
        finished.setdefault(key(task, algo), []).extend(done)
        if (task, algo, seeds) in selected:
            left += [key(task, algo)] * max(seeds - len(done), 0)
    known = [k for k in left if finished.get(k)]
    seconds = sum(sum(finished[k]) / len(finished[k]) for k in known)
    return len(left), seconds, len(left) - len(known)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.protocol.baselines", description=__doc__.splitlines()[0]
    )
    p.add_argument("--out", default=str(OUT), help="results folder (default benchmarks/results)")
    p.add_argument(
        "--only",
        default="",
        help="run only jobs whose task id or algorithm contains this text (one that starts with a dash: --only=-vs-)",
    )
    p.add_argument("--list", action="store_true", help="list the jobs and their state, run nothing")
    args = p.parse_args(argv)
    from benchmarks.protocol.lock import claim, holder, release
    from ffo_env.cli import main as ffo

    out = Path(args.out)
    selected = [j for j in jobs() if not args.only or args.only in j[0] or args.only in j[1]]
    runs, seconds, unpriced = estimate_left(out, selected)
    if runs:
        print(
            f"{runs} seed runs left: ~{seconds / 3600:.1f} core-hours at the wall time of the finished runs of "
            f"their kind" + (f", and {unpriced} with none finished to price them by" if unpriced else ""),
            flush=True,
        )
    else:
        print(f"every seed run of the {len(selected)} jobs listed is complete", flush=True)
    for task, algo, seeds in selected:
        folder = folder_of(out, task, algo)
        # read again, not taken from the estimate's pass: a driver side by side may have started or finished
        # this job since, and starting it afresh over its folder would be refused
        state = state_of(out, task, algo, seeds)
        print(f"{task:34} {algo:16} {seeds} seeds: {state}", flush=True)
        if args.list or next_run(out, task, algo, seeds) is None:
            continue
        lock_path = folder.parent / f".{algo}.lock"
        lock = claim(lock_path)
        if lock is None:
            print(f"  running in process {holder(lock_path) or '(just ended)'}: skipped", flush=True)
            continue
        try:
            last: list[str] | None = None
            # under the lock, until the job is complete: a job run by hand with fewer seeds takes two steps
            while (argv_run := next_run(out, task, algo, seeds)) is not None:
                if argv_run == last:
                    print(f"job {task} {algo}: {' '.join(argv_run)} left it unfinished; going on", flush=True)
                    break
                last = argv_run
                code = ffo(argv_run)
                if code == INTERRUPTED:  # Ctrl-C or SIGTERM stops the driver, not only the job it was in
                    print(f"job {task} {algo}: interrupted; it resumes where it stopped", flush=True)
                    return INTERRUPTED
                if code != 0:
                    print(
                        f"job {task} {algo} ended with exit code {code}; going on with the next", flush=True
                    )
                    break
        finally:
            release(lock)
    return 0


def run_cli(argv: list[str] | None = None) -> int:
    """:func:`main`, quiet when its reader goes away (``--list | head``). Ctrl-C or SIGTERM stops the driver
    (not only the job it is in) and removes that job's lock; the job resumes where it stopped."""
    import signal
    import threading

    from ffo_env.cli import reader_gone

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # so that `kill` unwinds like Ctrl-C: the job's lock is removed on the way

    on_main = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGTERM, stop) if on_main else None
    try:
        return main(argv)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED
    except DriverError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return reader_gone()
    finally:
        if on_main:
            signal.signal(signal.SIGTERM, signal.SIG_DFL if before is None else before)


if __name__ == "__main__":
    sys.exit(run_cli())
