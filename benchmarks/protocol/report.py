"""``ffo benchmark report``: pool result files, compute the statistics, write ``report.json``, ``report.md``
(an overview and the tables), ``points.csv`` (every evaluation point of every run) and plots.

Pooling rules: results of one task are pooled only if they ran on the same task version and fingerprint
(:mod:`benchmarks.protocol.tasks`); two versions of one task, or one id with two fingerprints, are refused
with one error naming both files. A run (task, algorithm, seed, budget) may appear once.

Per task and algorithm: the final score of each run, its IQM with a 95% stratified-bootstrap interval, the
mean, and the learning curve (IQM and interval at each evaluation point, against the learner's decisions and
against wall seconds, with each run's own curve drawn thin beside it; a row of another budget dashed, on a
symlog decisions axis when the budgets are 5 or more times apart). Rows are keyed by the algorithm, with ``@long`` or ``@<budget>`` when the run was
not on the task's short track. One-side tasks also get a normalised score, ``(score - random) / (expert -
random)`` with the mean scores of the ``random`` and ``expert`` rows of the same task in the pooled results
(absent when either row is missing), and for a learning algorithm its change from point 0
(:func:`benchmarks.protocol.stats.change_from_start`: the mean score of its complete runs' evaluation games at
point 0 and at the end, paired game by game, with a sign-flip p-value; the games of every point are the same
games, seeds and starts, so the pairs line up). Across the benchmark tasks (those that count) of each game of the suite
the normalised final scores are aggregated per algorithm (IQM, median, mean, optimality gap, each with its
interval, and the performance profile), and every pair of learning algorithms gets the probability of
improvement on the tasks both ran. The games are aggregated apart (``report["aggregate"][game]``): a report
over both games' results has two aggregates, never one IQM over France Fights On and Springtime tasks.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.protocol import stats
from benchmarks.protocol.policy_row import is_policy_row
from benchmarks.protocol.results import ENV_NAME, ResultError, find_results, load_result, step_rows
from ffo_env.atomic import atomic_write_bytes, atomic_write_text

REFERENCE_ALGOS = ("random", "untrained", "pretrained", "expert")  # rows that do not learn


def game_title(game: str) -> str:
    """The registry's title of ``game`` (the name itself for one the registry does not know)."""
    from ffo_env.games import GAMES

    return GAMES[game].title if game in GAMES else game


TAUS = [round(x, 2) for x in np.linspace(0.0, 1.2, 25)]
# a learner's row joins its game's aggregate (IQM, profiles, probability of improvement) only with at least this
# many complete runs on the task: with one or two, the bootstrap over runs gives intervals of no width (one run
# made P(maskable_ppo@long > maskable_ppo) 1.00 [1.00, 1.00]; issue 60). Its own task table still shows it.
MIN_AGGREGATE_RUNS = 3


def _is_reference(key: str) -> bool:
    """A row that does not learn: a reference algorithm, or a policy file's ``policy:LABEL`` row."""
    return key in REFERENCE_ALGOS or is_policy_row(key)


def _row_key(algo: str, run: dict[str, Any], task: Any) -> str:
    budget = run["run_meta"]["budget"]
    if _is_reference(algo) or task is None or budget == task.short_budget:
        return algo
    return f"{algo}@long" if budget == task.long_budget else f"{algo}@{budget}"


def _learns(key: str) -> bool:
    """Whether a report row (``algo`` or ``algo@track``) is a learning algorithm, not a reference row."""
    return not _is_reference(key.split("@")[0])


def _apart(a: str, b: str) -> bool:
    """Whether results of task ids ``a`` and ``b`` (two versions of one task) may share a report, each reported as
    its own task: one of them is superseded in this installation (:data:`benchmarks.protocol.tasks.SUPERSEDED`)."""
    from benchmarks.protocol.tasks import SUPERSEDED, TASKS

    return a != b and (a in SUPERSEDED or b in SUPERSEDED) and a in TASKS and b in TASKS


def pool(paths: list[Path]) -> dict[str, Any]:
    """``{task_id: {"fingerprint": fp, "rows": {key: [(file, run), ...]}, "meta": {file: meta}}}`` after the checks."""
    from benchmarks.protocol.tasks import TASKS

    files = find_results(paths)
    pooled: dict[str, Any] = {}
    # task name -> version id -> (fingerprint, the first file of it)
    seen_versions: dict[str, dict[str, tuple[str, Path]]] = {}
    seen_runs: dict[tuple[str, str, int, int], Path] = {}
    for f in files:
        doc = load_result(f)
        for task_id, algos in doc[ENV_NAME].items():
            name = task_id.rsplit("/v", 1)[0]
            for algo, runs in algos.items():
                for run in runs.values():
                    meta = run["run_meta"]
                    fp = str(meta["fingerprint"])
                    if meta["task"] != task_id:
                        raise ResultError(f"{f}: a run under {task_id} says its task is {meta['task']}")
                    for old_id, (old_fp, old_f) in seen_versions.get(name, {}).items():
                        # a version this installation marks superseded is reported apart, beside its successor;
                        # any other mix of versions, or one id with two fingerprints, is refused
                        if (old_id == task_id and old_fp == fp) or _apart(old_id, task_id):
                            continue
                        what = "versions" if old_id != task_id else "fingerprints"
                        raise ResultError(
                            f"refusing to pool {task_id} (fingerprint {fp}, {f}) with {old_id} (fingerprint "
                            f"{old_fp}, {old_f}): different task {what} measure different things"
                        )
                    seen_versions.setdefault(name, {}).setdefault(task_id, (fp, f))
                    key = (task_id, algo, int(meta["seed"]), int(meta["budget"]))
                    if key in seen_runs:
                        raise ResultError(
                            f"{task_id} {algo} seed {meta['seed']} (budget {meta['budget']}) is in both "
                            f"{seen_runs[key]} and {f}; pool each run once"
                        )
                    seen_runs[key] = f
                    entry = pooled.setdefault(task_id, {"fingerprint": fp, "rows": {}, "meta": {}})
                    entry["rows"].setdefault(_row_key(algo, run, TASKS.get(task_id)), []).append((f, run))
                    entry["meta"][str(f)] = doc.get("meta", {})
    if not pooled:
        raise ResultError("no runs in the given results")
    return pooled


def _curve(runs: list[dict[str, Any]], reps: int, seed: int) -> list[dict[str, Any]]:
    """IQM and interval at each evaluation point, over the runs that have reached it (``runs`` says how many)."""
    steps = [step_rows(r) for r in runs]
    out = []
    for j in range(max(len(s) for s in steps)):
        have = [s[j][1] for s in steps if len(s) > j]
        scores = np.array([row["score"][0] for row in have])
        point, lo, hi = stats.interval([scores], reps=reps, seed=seed)
        out.append(
            {
                "point": j,
                "decisions": float(np.mean([row["step_count"] for row in have])),
                "wall_seconds": float(np.mean([row["wall_seconds"] for row in have])),
                "iqm": point,
                "lo": lo,
                "hi": hi,
                "runs": len(scores),
            }
        )
    return out


def _score_name(task: Any, rows: dict[str, list[tuple[Path, dict[str, Any]]]]) -> str:
    """What a task's score is: the mean Elo of self-play, the graded score of a task whose evaluation grades
    each game (its rows keep the win rate apart, ``win_rate``: France 1940's late-game task), else the win
    rate."""
    if task is not None and task.kind == "selfplay":
        return "mean Elo against the frozen ladder"
    for runs in rows.values():
        for _, run in runs:
            for _, row in step_rows(run)[:1]:
                if "win_rate" in row.get("eval", {}):
                    return "graded score"
    return "win rate"


def _final(run: dict[str, Any]) -> float:
    return float(run["absolute_metrics"]["score"][0])


def p_text(p: float) -> str:
    """A p-value as a reader wants it: two decimals, three below 0.01, a bound below 0.001."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}" if p < 0.01 else f"p = {p:.2f}"


def _per_game(row: dict[str, Any]) -> list[float] | None:
    """The evaluation games' scores of one point of a one-opponent run, or None (not recorded)."""
    ev = row.get("eval")
    opponents = ev.get("opponents") if isinstance(ev, dict) else None
    if not isinstance(opponents, dict) or len(opponents) != 1:
        return None
    only = next(iter(opponents.values()))
    games = only.get("per_game") if isinstance(only, dict) else None
    if not isinstance(games, list) or not games or not all(isinstance(x, int | float) for x in games):
        return None
    return [float(x) for x in games]


def _from_start(done: list[dict[str, Any]]) -> dict[str, Any] | None:
    """:func:`stats.change_from_start` over the complete runs, or None when a run lacks a point 0 or its
    games' scores, or the runs' games do not line up."""
    start, final = [], []
    for run in done:
        steps = step_rows(run)
        if len(steps) < 2 or steps[0][1].get("step_count") != 0:
            return None
        first, last = _per_game(steps[0][1]), _per_game(steps[-1][1])
        if first is None or last is None or len(first) != len(last):
            return None
        start.append(first)
        final.append(last)
    if not start or len({len(g) for g in start}) != 1:
        return None
    return stats.change_from_start(np.array(start), np.array(final))


def make_report(
    paths: list[Path], out: Path, reps: int = 2000, seed: int = 0, game: str | None = None
) -> dict[str, Any]:
    """Pool the results under ``paths`` (only the tasks of ``game`` if given: a game of the registry, the
    id's first part) and write the report into ``out``."""
    from benchmarks.protocol.tasks import TASKS

    pooled = pool(paths)
    if game is not None:
        pooled = {t: e for t, e in pooled.items() if t.split("/")[0] == game}
        if not pooled:
            raise ResultError(f"no result of a {game} task under {', '.join(str(p) for p in paths)}")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file, not a folder")
    report: dict[str, Any] = {"format": "ffo-benchmark-report", "version": 2, "tasks": {}, "inputs": []}
    lines: list[str] = []
    normalised: dict[str, dict[str, np.ndarray]] = {}  # algo -> task -> normalised final scores
    for task_id in sorted(pooled):
        entry = pooled[task_id]
        task = TASKS.get(task_id)
        rows = entry["rows"]
        # final scores: complete runs only (a run still under way has no final score yet)
        finals = {
            k: np.array([_final(r) for _, r in v if r["run_meta"].get("complete", False)])
            for k, v in rows.items()
        }
        ref_lo = float(finals["random"].mean()) if finals.get("random", np.array([])).size else None
        ref_hi = float(finals["expert"].mean()) if finals.get("expert", np.array([])).size else None
        can_norm = task is not None and task.kind != "selfplay" and ref_lo is not None and ref_hi is not None
        can_norm = can_norm and ref_hi != ref_lo
        t_out: dict[str, Any] = {
            "fingerprint": entry["fingerprint"],
            "kind": None if task is None else task.kind,
            "counts": None if task is None else task.counted,
            "superseded_by": None if task is None else task.superseded_by,
            "score": _score_name(task, rows),
            "normalisation": {"random": ref_lo, "expert": ref_hi} if can_norm else None,
            "algorithms": {},
        }
        lines.append(f"{task_id} (fingerprint {entry['fingerprint']})")
        for key in sorted(rows):
            runs = [r for _, r in rows[key]]
            done = [r for r in runs if r["run_meta"].get("complete", False)]
            vals = finals[key]
            a_out: dict[str, Any] = {
                "runs": len(done),
                "runs_in_progress": len(runs) - len(done),
                "seeds": [r["run_meta"]["seed"] for r in done],
                "budget": runs[0]["run_meta"]["budget"],
                "final_scores": vals.tolist(),
                "final": None,
                "wall_seconds": float(np.mean([step_rows(r)[-1][1]["wall_seconds"] for r in done or runs])),
                "decisions": float(np.mean([step_rows(r)[-1][1]["step_count"] for r in done or runs])),
                "complete": len(done) == len(runs),
                "aggregated": False,  # whether its normalised finals are in the game's aggregate
                "curve": _curve(runs, reps, seed),
                # each run's own points, drawn thin beside the IQM: with few runs the IQM can hide a
                # minority of runs that learn (or fail)
                "run_curves": [
                    [[row["step_count"], row["wall_seconds"], row["score"][0]] for _, row in step_rows(r)]
                    for r in runs
                ],
            }
            text = f"  {key:24} runs {len(done):2}"
            if vals.size:
                point, lo, hi = stats.interval([vals], reps=reps, seed=seed)
                a_out["final"] = {"iqm": point, "lo": lo, "hi": hi, "mean": float(vals.mean())}
                text += f"  final IQM {point:8.3f} [{lo:8.3f}, {hi:8.3f}]"
            else:
                text += "  no complete run yet" + " " * 25
            if vals.size and can_norm and ref_lo is not None and ref_hi is not None:
                norm = (vals - ref_lo) / (ref_hi - ref_lo)
                npoint, nlo, nhi = stats.interval([norm], reps=reps, seed=seed)
                a_out["normalised"] = {"iqm": npoint, "lo": nlo, "hi": nhi, "values": norm.tolist()}
                few = _learns(key) and len(done) < MIN_AGGREGATE_RUNS
                a_out["aggregated"] = bool(task is not None and task.counted and not few)
                if a_out["aggregated"]:
                    normalised.setdefault(key, {})[task_id] = norm
                elif few:
                    text += f"  (not in the aggregate: {len(done)} complete runs < {MIN_AGGREGATE_RUNS})"
            # a learner's change from its own point 0, game by game: does training move it at all (a policy
            # started from the shipped one, or an untrained network whose bias already wins some games)?
            a_out["from_start"] = _from_start(done) if _learns(key) and t_out["kind"] != "selfplay" else None
            if a_out["from_start"] is not None:
                c = a_out["from_start"]
                text += f"  from point 0 {c['change']:+.3f} ({p_text(c['p'])})"
            t_out["algorithms"][key] = a_out
            lines.append(
                text
                + f"  {a_out['decisions']:>11,.0f} decisions  {a_out['wall_seconds']:>8,.0f} s"
                + ("" if a_out["complete"] else f"  ({a_out['runs_in_progress']} in progress)")
            )
        report["tasks"][task_id] = t_out
        report["inputs"].extend({"file": f, "meta": m} for f, m in entry["meta"].items())
    # one aggregate per game of the suite: the tasks of two games are not samples of one population, so
    # their normalised scores are never pooled into one IQM, profile or probability of improvement
    report["aggregate"] = {
        g: _aggregate(
            {a: {t: v for t, v in by.items() if _game(t) == g} for a, by in normalised.items()},
            reps,
            seed,
            lines,
            g,
        )
        for g in sorted({_game(t) for t in report["tasks"]})
    }
    out.mkdir(parents=True, exist_ok=True)
    report["plots"] = _plots(report, normalised, out)
    report["text"] = "\n".join(lines) + "\n"
    atomic_write_text(out / "report.json", json.dumps(report, indent=1) + "\n")
    atomic_write_text(out / "report.md", markdown(report))
    atomic_write_text(out / "points.csv", points_csv(pooled))
    return report


POINT_COLUMNS = (
    "task", "fingerprint", "algorithm", "seed", "budget", "complete", "point", "decisions", "wall_seconds", "score"
)  # fmt: skip


def points_csv(pooled: dict[str, Any]) -> str:
    """Every evaluation point of every pooled run, one row each (long format), for a user's own plots and
    statistics (pandas, rliable, a spreadsheet): the numbers the report's curves are drawn from."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(POINT_COLUMNS)
    for task_id in sorted(pooled):
        entry = pooled[task_id]
        for key in sorted(entry["rows"]):
            runs = sorted((r for _, r in entry["rows"][key]), key=lambda r: int(r["run_meta"]["seed"]))
            for run in runs:
                meta = run["run_meta"]
                for j, (_, row) in enumerate(step_rows(run)):
                    w.writerow(
                        (task_id, entry["fingerprint"], key, meta["seed"], meta["budget"],
                         int(bool(meta.get("complete", False))), j, row["step_count"], row["wall_seconds"],
                         row["score"][0])
                    )  # fmt: skip
    return buf.getvalue()


def markdown(report: dict[str, Any]) -> str:
    """The report's tables in Markdown (an overview, one table per task, then the aggregate), for a paper or a
    docs page."""
    md = _markdown_overview(report)
    for task_id, t in report["tasks"].items():
        unit = {"mean Elo against the frozen ladder": "mean Elo"}.get(t["score"], t["score"])
        status = ""
        if t.get("superseded_by"):
            status = f", superseded by `{t['superseded_by']}`: not in the aggregate"
        elif t.get("counts") is False:
            status = ", reference only: not in the aggregate"
        md.append(f"**`{task_id}`** (fingerprint `{t['fingerprint']}`{status})\n")
        md.append(
            f"| algorithm | runs | decisions | final {unit}: IQM [95% CI] | normalised IQM | "
            "change from point 0 (p) | wall s a run |"
        )
        md.append("|---|---:|---:|---|---:|---|---:|")
        for key, a in t["algorithms"].items():
            f = a["final"]
            digits = _digits(t)
            norm = f"{a['normalised']['iqm']:.2f}" if "normalised" in a else "–"
            final = (
                "–" if f is None else f"{f['iqm']:.{digits}f} [{f['lo']:.{digits}f}, {f['hi']:.{digits}f}]"
            )
            more = "" if a["complete"] else f" (+{a['runs_in_progress']} in progress)"
            if _learns(key) and "normalised" in a and a["runs"] < MIN_AGGREGATE_RUNS and t.get("counts"):
                norm += f" (not in the aggregate: < {MIN_AGGREGATE_RUNS} complete runs)"
            c = a.get("from_start")
            moved = (
                "–"
                if c is None
                else f"{c['start']:.3f} → {c['final']:.3f}: {c['change']:+.3f} ({p_text(c['p'])})"
            )
            md.append(
                f"| `{key}` | {a['runs']}{more} | {a['decisions']:,.0f} | {final} | {norm} | {moved} | "
                f"{a['wall_seconds']:,.0f} |"
            )
        md.append("")
    for game, game_agg in report["aggregate"].items():
        md.extend(_markdown_aggregate(game, game_agg))
    return "\n".join(md) + "\n"


def _digits(t: dict[str, Any]) -> int:
    """Decimals of a task's scores in the tables: whole Elo points on a self-play task, a win rate to 3."""
    return 0 if t["kind"] == "selfplay" else 3


def _overview_cell(t: dict[str, Any], a: dict[str, Any] | None) -> str:
    if a is None:
        return "–"
    runs = f"{a['runs']}" + (f"+{a['runs_in_progress']}" if a["runs_in_progress"] else "")
    if a["final"] is None:
        return f"– ({runs})"
    return f"{a['final']['iqm']:.{_digits(t)}f} ({runs})"


def _markdown_overview(report: dict[str, Any]) -> list[str]:
    """One row per current task, one column per algorithm: the final IQM and the runs behind it. The first
    table a reader looks for ("what does each method reach on each task?"); a superseded task version is left
    out, since its row would sit beside its successor's as if they were two tasks."""
    tasks = {k: t for k, t in report["tasks"].items() if not t.get("superseded_by")}
    if not tasks:
        return []
    present = {key for t in tasks.values() for key in t["algorithms"]}
    policy_rows = sorted(a for a in present if is_policy_row(a))  # beside the references: they do not learn
    algos = (
        [a for a in REFERENCE_ALGOS if a in present]
        + policy_rows
        + sorted(present - set(REFERENCE_ALGOS) - set(policy_rows))
    )
    md = [
        "**Overview**: each algorithm's final score on each current task, the IQM over its complete runs (win "
        "rate; on a self-play task the mean Elo against the frozen ladder; on a graded task the graded score), with the number of runs in brackets "
        "(+ those still in progress); – not run. The tables below give the intervals, the normalised score, the "
        "change from point 0 and the wall time.\n",
        "| task | " + " | ".join(f"`{a}`" for a in algos) + " |",
        "|---|" + "---:|" * len(algos),
    ]
    for task_id, t in tasks.items():
        note = " (reference only)" if t.get("counts") is False else ""
        cells = [_overview_cell(t, t["algorithms"].get(a)) for a in algos]
        md.append(f"| `{task_id}`{note} | " + " | ".join(cells) + " |")
    md.append("")
    return md


def _markdown_aggregate(game: str, aggregate: dict[str, Any]) -> list[str]:
    md: list[str] = []
    agg = aggregate["normalised_final"]
    if agg:
        md.append(
            f"**Normalised final score over the {game_title(game)} benchmark tasks** (random 0, expert 1)\n"
        )
        md.append("| algorithm | tasks | IQM [95% CI] | median | mean | optimality gap |")
        md.append("|---|---:|---|---:|---:|---:|")
        for algo, r in agg.items():
            iq = r["iqm"]
            md.append(
                f"| `{algo}` | {len(r['tasks'])} | {iq['value']:.2f} [{iq['lo']:.2f}, {iq['hi']:.2f}] | "
                f"{r['median']['value']:.2f} | {r['mean']['value']:.2f} | {r['optimality_gap']['value']:.2f} |"
            )
        md.append("")
    poi = aggregate["probability_of_improvement"]
    if poi:
        md.append("| claim | P(X > Y) [95% CI] | tasks |")
        md.append("|---|---|---:|")
        for k, v in poi.items():
            md.append(f"| {k} | {v['value']:.2f} [{v['lo']:.2f}, {v['hi']:.2f}] | {len(v['tasks'])} |")
        md.append("")
    return md


def _game(task_id: str) -> str:
    """The game of the suite a task id belongs to (its first part)."""
    return task_id.split("/")[0]


def _aggregate(
    normalised: dict[str, dict[str, np.ndarray]], reps: int, seed: int, lines: list[str], game: str
) -> dict[str, Any]:
    """The aggregate over the benchmark tasks of ONE game (``normalised`` holds only that game's tasks)."""
    normalised = {a: by for a, by in normalised.items() if by}
    if any(_game(t) != game for by in normalised.values() for t in by):
        raise ValueError(f"the aggregate of {game} was given another game's task")
    agg: dict[str, Any] = {"normalised_final": {}, "profiles": {}, "probability_of_improvement": {}}
    if not normalised:
        return agg
    lines.append(f"normalised final score over the {game} benchmark tasks (random 0, expert 1)")
    for algo, by_task in sorted(normalised.items()):
        tasks = [by_task[t] for t in sorted(by_task)]
        row: dict[str, Any] = {"tasks": sorted(by_task)}
        for name, func in (
            ("iqm", stats.iqm),
            ("median", stats.aggregate_median),
            ("mean", stats.aggregate_mean),
            ("optimality_gap", stats.optimality_gap),
        ):
            p, lo, hi = stats.interval(tasks, func, reps=reps, seed=seed)
            row[name] = {"value": p, "lo": lo, "hi": hi}
        agg["normalised_final"][algo] = row
        prof, plo, phi = stats.profile_interval(tasks, TAUS, reps=reps, seed=seed)
        agg["profiles"][algo] = {
            "tau": TAUS,
            "fraction": prof.tolist(),
            "lo": plo.tolist(),
            "hi": phi.tolist(),
        }
        iq = row["iqm"]
        lines.append(
            f"  {algo:24} IQM {iq['value']:.3f} [{iq['lo']:.3f}, {iq['hi']:.3f}] on {len(tasks)} tasks"
        )
    learners = [a for a in sorted(normalised) if _learns(a)]
    for x in learners:
        for y in learners:
            if x == y:
                continue
            common = sorted(set(normalised[x]) & set(normalised[y]))
            if not common:
                continue
            p, lo, hi = stats.probability_of_improvement(
                [normalised[x][t] for t in common], [normalised[y][t] for t in common], reps=reps, seed=seed
            )
            agg["probability_of_improvement"][f"{x} > {y}"] = {
                "value": p,
                "lo": lo,
                "hi": hi,
                "tasks": common,
            }
            lines.append(f"  P({x} > {y}) = {p:.3f} [{lo:.3f}, {hi:.3f}] on {len(common)} tasks")
    return agg


def _save_png(fig: Any, path: Path) -> None:
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    atomic_write_bytes(path, buf.getvalue())


def _plots(report: dict[str, Any], normalised: dict[str, Any], out: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for task_id, t in report["tasks"].items():
        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        for key, a in t["algorithms"].items():
            c = a["curve"]
            for ax, x_key in zip(axes, ("decisions", "wall_seconds"), strict=True):
                if len(c) == 1:  # a reference row: a horizontal line
                    ax.axhline(c[0]["iqm"], linestyle="--", linewidth=1, label=key, color=_color(key))
                    continue
                xs = [p[x_key] for p in c]
                style = _linestyle(key)
                ax.plot(xs, [p["iqm"] for p in c], marker="o", markersize=3, label=key, color=_color(key),
                        linestyle=style)  # fmt: skip
                col = 0 if x_key == "decisions" else 1
                for run in a.get("run_curves", []):
                    ax.plot([q[col] for q in run], [q[2] for q in run], linewidth=0.7, alpha=0.35,
                            color=_color(key), linestyle=style)  # fmt: skip
                ax.fill_between(xs, [p["lo"] for p in c], [p["hi"] for p in c], alpha=0.2, color=_color(key))
        ylabel = "mean Elo (frozen ladder)" if t["kind"] == "selfplay" else f"{t['score']} (IQM, 95% CI)"
        axes[0].set_xlabel("learner decisions")
        axes[1].set_xlabel("wall seconds (training + evaluation)")
        ends = [a["curve"][-1]["decisions"] for a in t["algorithms"].values() if len(a["curve"]) > 1]
        linthresh = budget_scale(ends)
        if linthresh is not None:  # a short and a long track: the short one would be squeezed into a corner
            axes[0].set_xscale("symlog", linthresh=linthresh, linscale=2.0)
            axes[0].set_xlim(0, max(ends) * 1.1)
        for ax in axes:
            ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _pos: _thousands(v)))
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
        axes[1].legend(fontsize=8, loc="best")
        fig.suptitle(task_id)
        name = task_id.replace("/", "_") + ".png"
        _save_png(fig, out / name)
        plt.close(fig)
        written.append(name)
    games = report["aggregate"]
    for game, game_agg in games.items():
        profiles = game_agg["profiles"]
        if not profiles:
            continue
        fig, ax = plt.subplots(figsize=(6, 4))
        for algo, p in profiles.items():
            ax.plot(p["tau"], p["fraction"], label=algo, color=_color(algo))
            ax.fill_between(p["tau"], p["lo"], p["hi"], alpha=0.2, color=_color(algo))
        ax.set_xlabel("normalised score tau")
        ax.set_ylabel("fraction of runs with score > tau")
        ax.set_title(f"{game_title(game)} benchmark tasks")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        name = profile_file(game, len(games))
        _save_png(fig, out / name)
        plt.close(fig)
        written.append(name)
    return written


def profile_file(game: str, games: int) -> str:
    """The performance profile's file: ``performance_profile.png`` in a report of one game, else one file a
    game, ``performance_profile_<game>.png``."""
    return "performance_profile.png" if games == 1 else f"performance_profile_{game}.png"


_COLORS = {
    "random": "#7f7f7f",
    "untrained": "#bcbd22",
    "expert": "#000000",
    "maskable_ppo": "#1f77b4",
    "ppo_mlp_compact": "#ff7f0e",
    "dagger_expert": "#2ca02c",
    "maskable_ppo_shaped": "#d62728",
    "ppo_mlp_compact_shaped": "#8c564b",
}


def _color(key: str) -> str:
    return _COLORS.get(key.split("@")[0], "#9467bd")


def _linestyle(key: str) -> str:
    """Another budget of the same algorithm (``maskable_ppo@long``): its colour, dashed."""
    return "--" if "@" in key else "-"


def budget_scale(ends: list[float]) -> float | None:
    """The linear range of a symlog x axis (the shortest run's end) when the task's learner rows end at budgets
    5 or more times apart, else None (a linear axis)."""
    positive = [e for e in ends if e > 0]
    if not positive or max(positive) < 5 * min(positive):
        return None
    return min(positive)


def _thousands(v: float) -> str:
    """An axis tick: 20000 as 20k, 1500000 as 1.5M."""
    for div, unit in ((1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return f"{v / div:g}{unit}"
    return f"{v:g}"
