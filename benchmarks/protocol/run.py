"""``ffo benchmark run``: one algorithm on one task, ``--seeds`` runs, evaluated at fixed points of the budget.

A run folder holds ``plan.json`` (what was asked: task, fingerprint, algorithm, budget, seeds, evaluation
points and games, the command), ``results.json`` (:mod:`benchmarks.protocol.results`, rewritten atomically
after every evaluation) and per seed ``seed-<k>/progress.json`` with the learner's checkpoint of the last
evaluation point (``seed-<k>/point-<j>/``). A killed run continues with ``--resume DIR``: each seed restarts
from its last evaluated point's checkpoint, and every interval is seeded by (seed, interval), so the resumed
run trains on the same games as an uninterrupted one would.

Evaluation points: ``--evals E`` points at 0, 1/(E-1), ..., 1 of the budget (reference algorithms, which do
not learn, are evaluated once, at 0). Self-play splits the budget evenly between the two sides.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.protocol import policy_row
from benchmarks.protocol.algo_table import get_algo
from benchmarks.protocol.algos import AlgoSpec, Context, Learner
from benchmarks.protocol.lock import RUN_LOCK
from benchmarks.protocol.results import (
    ENV_NAME,
    RESULTS,
    ResultError,
    new_document,
    run_meta_common,
)
from benchmarks.protocol.tasks import Task, check_current, get_task
from ffo_env.atomic import atomic_write_text

PLAN = "plan.json"
PLAN_FORMAT = "ffo-benchmark-plan"
MAX_BUDGET = 100_000_000
MAX_SEEDS = 100
MAX_EVALS = 50
MAX_EVAL_GAMES = 1_000


def eval_targets(budget: int, evals: int, learns: bool) -> list[int]:
    if not learns:
        return [0]
    return [round(budget * i / (evals - 1)) for i in range(evals)]


def make_plan(
    task_id: str,
    algo: str,
    budget: int | None,
    track: str | None,
    seeds: int,
    first_seed: int,
    evals: int,
    eval_games: int | None,
    command: list[str],
    policies: list[str] | None = None,
    label: str | None = None,
) -> dict[str, Any]:
    """The checked plan of a new run; a ValueError names the bad input. ``policies`` and ``label`` are the
    ``policy`` row's files and name (:mod:`benchmarks.protocol.policy_row`)."""
    task = get_task(task_id)
    spec = get_algo(algo)
    if algo != policy_row.ALGO and (policies or label):
        raise ValueError("--policy and --label go with --algo policy (a trained policy file's reference row)")
    if task.kind not in spec.kinds:
        raise ValueError(f"algorithm {algo} cannot run the {task.kind} task {task.id}")
    if task.game not in spec.game_list():
        raise ValueError(
            f"algorithm {algo} cannot run {task.id}: it is written for {', '.join(spec.game_list())} tasks only"
        )
    if budget is None:  # the task's short track unless --track long
        budget = task.long_budget if track == "long" else task.short_budget
    if not 1 <= budget <= MAX_BUDGET:
        raise ValueError(f"--budget must be in 1..{MAX_BUDGET:,} learner decisions, got {budget}")
    if not 1 <= seeds <= MAX_SEEDS:
        raise ValueError(f"--seeds must be in 1..{MAX_SEEDS}, got {seeds}")
    if not 0 <= first_seed <= 1_000_000:
        raise ValueError(f"--first-seed must be in 0..1000000, got {first_seed}")
    if not 2 <= evals <= MAX_EVALS:
        raise ValueError(f"--evals must be in 2..{MAX_EVALS}, got {evals}")
    games = task.eval_games if eval_games is None else eval_games
    if not 1 <= games <= MAX_EVAL_GAMES:
        raise ValueError(f"--eval-games must be in 1..{MAX_EVAL_GAMES}, got {games}")
    named = "short" if budget == task.short_budget else "long" if budget == task.long_budget else "custom"
    extra = policy_row.plan_policies(task, policies, label) if algo == policy_row.ALGO else {}
    return {
        "format": PLAN_FORMAT,
        "version": 1,
        "task": task.id,
        "fingerprint": check_current(task),
        "algorithm": algo,
        "budget": budget,
        "track": named,
        "seeds": list(range(first_seed, first_seed + seeds)),
        "targets": eval_targets(budget, evals, spec.learns),
        "eval_games": games,
        "command": command,
        **extra,
    }


def read_plan(folder: Path) -> dict[str, Any]:
    path = folder / PLAN
    if folder.exists() and not folder.is_dir():
        raise ResultError(f"{folder}: not a folder; --resume takes a benchmark run folder")
    try:
        plan = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise ResultError(f"{folder}: no {PLAN}; not a benchmark run folder") from e
    except (OSError, ValueError) as e:
        raise ResultError(f"{path}: cannot read ({e}); the file is damaged") from e
    if not isinstance(plan, dict) or plan.get("format") != PLAN_FORMAT:
        raise ResultError(f"{path}: not a benchmark plan (expected format {PLAN_FORMAT!r})")
    for key in ("task", "fingerprint", "algorithm", "budget", "seeds", "targets", "eval_games"):
        if key not in plan:
            raise ResultError(f"{path}: missing {key!r}")
    return plan


def _opponent_factory(task: Task, side: str, learners: dict[str, Learner]) -> Any:
    from agents import make_agent

    other = "german" if side == "french" else "french"
    if task.kind == "selfplay":
        return lambda rank: _Live(learners, other)  # the other side's current policy
    name = str(task.opponent)
    return lambda rank: make_agent(name, other, seed=rank, game=task.game)


class _Live:
    """Self-play's opponent: the other side's learner as it is now (looked up when it first plays, since the
    two learners are made one after the other)."""

    name = "self-play"

    def __init__(self, learners: dict[str, Learner], side: str) -> None:
        self.learners = learners
        self.side = side
        self._agent: Any = None

    def reset(self, seed: int | None = None) -> None:
        if self._agent is not None and hasattr(self._agent, "reset"):
            self._agent.reset(seed)

    def act_state(self, state: Any) -> int:
        if self._agent is None:
            self._agent = self.learners[self.side].agent()
        return int(self._agent.act_state(state))


def _learners(
    task: Task, spec: AlgoSpec, seed: int, budget: int, workdir: Path, policies: dict[str, str]
) -> dict[str, Learner]:
    learners: dict[str, Learner] = {}
    per_side = budget // len(task.sides())
    for k, side in enumerate(task.sides()):
        ctx = Context(
            task, side, seed * 2 + k, per_side, workdir, _opponent_factory(task, side, learners), policies
        )
        learners[side] = spec.make(ctx)
    return learners


def _last_point(seed_folder: Path, rows: int) -> Path:
    """The checkpoint folder a seed with ``rows`` evaluated points resumes from."""
    return seed_folder / f"point-{rows - 1}"


def run_seed(
    folder: Path,
    plan: dict[str, Any],
    seed: int,
    on_point: Any = None,
    on_decisions: Any = None,
    notice: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Run (or continue) one seed; returns its progress (rows of evaluated points). ``notice`` tells the
    user of a seed that has to run again (its checkpoint is gone)."""
    from benchmarks.protocol.evaluate import evaluate

    task = get_task(plan["task"])
    spec = get_algo(plan["algorithm"])
    sdir = folder / f"seed-{seed}"
    sdir.mkdir(parents=True, exist_ok=True)
    prog_path = sdir / "progress.json"
    progress: dict[str, Any] = {"rows": [], "resumed": 0, "complete": False}
    if prog_path.exists():
        try:
            progress = json.loads(prog_path.read_text(encoding="utf-8"))
            progress["rows"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ResultError(f"{prog_path}: cannot read ({e}); the file is damaged") from e
        if progress.get("complete"):
            return progress
        progress["resumed"] = int(progress.get("resumed", 0)) + 1
    rows: list[dict[str, Any]] = progress["rows"]
    if rows and spec.learns and not _last_point(sdir, len(rows)).is_dir():
        # checkpoints stay local (benchmarks/results/.gitignore): a folder copied or cloned without them
        # keeps its progress but not the weights to go on from; the seed is run again from point 0, which
        # trains on the same games since every interval is seeded by (seed, interval)
        notice(
            f"{sdir}: the checkpoint of point {len(rows) - 1} (point-{len(rows) - 1}/) is missing; "
            f"running seed {seed} again from point 0"
        )
        progress["restarted"] = int(progress.get("restarted", 0)) + 1
        rows.clear()
    learners = _learners(task, spec, seed, plan["budget"], sdir, policy_row.context_files(plan))
    if rows and spec.learns:
        point = _last_point(sdir, len(rows))
        try:
            for learner in learners.values():
                learner.load(point)
        except Exception as e:  # torch and the learners raise several unrelated types for a damaged file
            first_line = (str(e).splitlines() or [""])[0]  # torch's messages run to a dozen lines
            raise ResultError(
                f"{point}: cannot load the checkpoint ({type(e).__name__}: {first_line}); "
                f"remove {sdir} to run seed {seed} again"
            ) from e
    targets: list[int] = plan["targets"]
    wall0 = rows[-1]["wall_seconds"] if rows else 0.0
    train0 = rows[-1]["train_seconds"] if rows else 0.0
    t_start = time.perf_counter()
    train_s = 0.0
    for j in range(len(rows), len(targets)):
        t0 = time.perf_counter()
        before = sum(learner.decisions for learner in learners.values())
        for learner in learners.values():
            learner.learn(targets[j] // len(learners), j)
        train_s += time.perf_counter() - t0
        used = sum(learner.decisions for learner in learners.values())
        if on_decisions is not None:
            on_decisions(used - before)
        t1 = time.perf_counter()
        agents = {side: learner.agent() for side, learner in learners.items()}
        ev = evaluate(task, agents, plan["eval_games"], run_seed=seed)
        eval_s = time.perf_counter() - t1
        win_rate = ev.get("win_rate", ev["score"])
        row = {
            "step_count": used,
            "target": targets[j],
            "score": [ev["score"]],
            "win_rate": [win_rate],
            "wall_seconds": round(wall0 + time.perf_counter() - t_start, 2),
            "train_seconds": round(train0 + train_s, 2),
            "eval_seconds": round(eval_s, 2),
            "eval": ev,
        }
        if spec.learns:
            point = sdir / f"point-{j}"
            for learner in learners.values():
                learner.save(point)
        rows.append(row)
        progress["complete"] = j == len(targets) - 1
        atomic_write_text(prog_path, json.dumps(progress, indent=1) + "\n")
        for old in sdir.glob("point-*"):  # only now is the older checkpoint unreferenced
            if old.name != f"point-{j}":
                shutil.rmtree(old, ignore_errors=True)
        if on_point is not None:
            on_point(seed, j, row)
    return progress


def write_results(folder: Path, plan: dict[str, Any]) -> dict[str, Any]:
    """Rebuild ``results.json`` from the seeds' progress files (atomically)."""
    from benchmarks.protocol.games import bench_of

    spec = get_algo(plan["algorithm"])
    game = get_task(plan["task"]).game
    doc = new_document(plan.get("meta") or run_meta_common(plan.get("command", []), game))
    runs: dict[str, Any] = {}
    for seed in plan["seeds"]:
        path = folder / f"seed-{seed}" / "progress.json"
        if not path.exists():
            continue
        progress = json.loads(path.read_text(encoding="utf-8"))
        rows = progress["rows"]
        if not rows:
            continue
        run: dict[str, Any] = {
            "run_meta": {
                "task": plan["task"],
                "fingerprint": plan["fingerprint"],
                "algorithm": policy_row.row_name(plan),
                "observation": spec.observation_in(game),
                "seed": seed,
                "budget": plan["budget"],
                "track": plan.get("track", "custom"),
                "eval_games": plan["eval_games"],
                "hyperparameters": {
                    **spec.hyperparameters,
                    **bench_of(game).hyperparameters(spec.name),
                    **({"policy_files": plan["policies"]} if "policies" in plan else {}),
                },
                "complete": bool(progress.get("complete")),
                "resumed": int(progress.get("resumed", 0)),
                "restarted": int(progress.get("restarted", 0)),
            }
        }
        for j, row in enumerate(rows):
            run[f"step_{j}"] = row
        run["absolute_metrics"] = {"score": rows[-1]["score"], "win_rate": rows[-1]["win_rate"]}
        runs[f"seed_{seed}"] = run
    doc[ENV_NAME] = {plan["task"]: {policy_row.row_name(plan): runs}}
    atomic_write_text(folder / RESULTS, json.dumps(doc, indent=1) + "\n")
    return doc


def check_new(folder: Path) -> None:
    """A new run needs ``folder`` not to exist or to be empty but for its run lock (nothing is overwritten)."""
    if folder.exists() and (not folder.is_dir() or any(p.name != RUN_LOCK for p in folder.iterdir())):
        what = (
            "holds a benchmark run; continue it with --resume" if (folder / PLAN).exists() else "is not empty"
        )
        raise ValueError(f"{folder} {what} (nothing was changed)")


def start(plan: dict[str, Any], folder: Path) -> None:
    """Claim ``folder`` for a new run (see :func:`check_new`; the caller holds its run lock) and write the
    plan."""
    check_new(folder)
    plan["meta"] = run_meta_common(plan.get("command", []), get_task(plan["task"]).game)
    atomic_write_text(folder / PLAN, json.dumps(plan, indent=1) + "\n")


def check_resumable(folder: Path) -> dict[str, Any]:
    plan = read_plan(folder)
    task = get_task(plan["task"])
    fp = check_current(task)
    if fp != plan["fingerprint"]:
        raise ResultError(
            f"{folder}: the run was made on task fingerprint {plan['fingerprint']}, this installation's {task.id} "
            f"is {fp}; it cannot be continued here"
        )
    get_algo(plan["algorithm"])
    policy_row.check_unchanged(plan, folder)
    return plan


def execute(folder: Path, plan: dict[str, Any], progress_bar: bool = True) -> dict[str, Any]:
    """Run every seed of ``plan`` in ``folder`` (continuing what is there), with a progress bar and ETA."""
    from tqdm import tqdm

    total = len(plan["seeds"]) * len(plan["targets"])
    learns = get_algo(plan["algorithm"]).learns
    # Points done before this call start the bar (tqdm's ``initial``) rather than being counted as it runs:
    # counted as progress, a resumed run's first minutes showed hundreds of points a second and an ETA of
    # seconds for hours of work.
    done = sum(_rows_done(folder, seed, learns) for seed in plan["seeds"])
    bar = tqdm(
        total=total,
        initial=done,
        desc=f"{plan['task']} {policy_row.row_name(plan)}",
        unit="eval",
        disable=not progress_bar,
    )

    def on_point(seed: int, j: int, row: dict[str, Any]) -> None:
        bar.update(1)
        bar.set_postfix(seed=seed, decisions=row["step_count"], score=f"{row['score'][0]:.3f}")
        write_results(folder, plan)

    try:
        for seed in plan["seeds"]:
            run_seed(folder, plan, seed, on_point=on_point, notice=bar.write)
    finally:
        bar.close()
    return write_results(folder, plan)


def _rows_done(folder: Path, seed: int, learns: bool) -> int:
    """The points of ``seed`` that will not be run again (for the progress bar)."""
    path = folder / f"seed-{seed}" / "progress.json"
    if not path.exists():
        return 0
    try:
        progress = json.loads(path.read_text(encoding="utf-8"))
        rows = len(progress["rows"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0
    resumable = not learns or progress.get("complete") or _last_point(path.parent, rows).is_dir()
    return rows if resumable else 0
