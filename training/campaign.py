"""A training campaign with its learning curve (issue 60): ``ffo train`` with a ``curve:`` section.

    ffo train --config configs/campaign.yaml --out runs      # start
    ffo train --resume runs/campaign-20261128-053000          # continue, in a later session or after a kill

The schedule is :func:`training.train.train`'s (each round trains every side in ``sides`` for its steps
against the opponent pool, whose ``snapshots`` are the other side's earlier rounds), run **one round at a
time**: round ``k`` starts from the checkpoint that round ``k - 1`` ended with, its envs, opponents and
sampling seeded by ``seed + ROUND_SEED_STRIDE * k``, and no checkpoint is written inside a round. A run killed
at any moment therefore resumes by playing its unfinished round again from that round's start, and reaches
the same weights, snapshots and curve as a run that was never interrupted (``tests/test_campaign.py``). Only
the unfinished round's work is lost.

The curve (``curve/`` in the run folder): the start policies (``<side>_init`` or ``<side>_pretrain``; for a
side trained from scratch, the untrained network its first round starts from, ``curve/untrained-<side>.pt``) and,
after every ``curve.every`` rounds and after the last, each side's snapshot plays ``curve.games`` games against
``curve.opponent`` of the other side, on the same seeds (``curve.seed`` on) at every point, through the
evaluation harness (a killed evaluation resumes where it stopped). ``curve/curve.csv`` / ``curve.json`` /
``curve.md`` hold one row per side and point: the side's PPO decisions so far, wins, the win rate with its
Wilson 95 % interval, the mean French VP, and each point paired with the start on the same seeds (the seeds
won only at the point / only at the start with the exact sign test, the mean change of the French VP). ``curve/rounds.csv`` holds each round's wall seconds, decisions and
the machine's load average when it ended, so that costs can be read off rounds that ran alone.
"""

from __future__ import annotations

import csv
import io
import os
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ffo_env.atomic import atomic_write_text
from ffo_env.games import game_info
from training.config import TrainConfig
from training.envs import other_side
from training.run_folder import RunFolder

# round k's seed is seed + ROUND_SEED_STRIDE * k: every round plays other games than the last (the plain
# schedule reseeds its envs alike in every round)
ROUND_SEED_STRIDE = 1009
# larger than any round: a checkpoint inside a round would let a resume start mid-round, on other random numbers
NO_CHECKPOINT_INSIDE_A_ROUND = 2**62
CURVE_DIR = "curve"
Train = Callable[..., Any]  # training.train.train(cfg, run, resume=, progress_bar=, trust_pickle=)
# training.train.export_untrained(cfg, run, side, path): a from-scratch side's first network, as a policy file
ExportUntrained = Callable[[TrainConfig, RunFolder, str, Path], None]


def round_config(cfg: TrainConfig, k: int) -> TrainConfig:
    """The config that trains round ``k`` (the rounds before it are done): its own seed, no mid-round
    checkpoint."""
    return replace(
        cfg,
        rounds=k + 1,
        seed=cfg.seed + ROUND_SEED_STRIDE * k,
        checkpoint_every=NO_CHECKPOINT_INSIDE_A_ROUND,
    )


def _has_start_policy(cfg: TrainConfig, side: str) -> bool:
    """Whether the side's first round starts from a policy (DAgger's result or ``init_policy``), not from a
    new network."""
    return side in cfg.init_policy or (bool(cfg.pretrain.teacher) and side in cfg.pretrain.sides)


def untrained_path(run_root: Path, side: str) -> Path:
    """Where a campaign keeps the untrained network of a side trained from scratch (outside ``snapshots/``:
    it joins no opponent pool)."""
    return run_root / CURVE_DIR / f"untrained-{side}.pt"


def _points(cfg: TrainConfig, progress: dict[str, Any], run: RunFolder) -> list[tuple[str, str, str]]:
    """(side, point name, snapshot path relative to the run) of every evaluation point whose snapshot exists,
    in order: the start policy, then the rounds on the curve."""
    points: list[tuple[str, str, str]] = []
    for side in cfg.sides:
        snaps = progress["snapshots"].get(side, [])
        by_stem = {Path(s).stem: s for s in snaps}
        for start in (f"{side}_pretrain", f"{side}_init"):
            if start in by_stem:
                points.append((side, "start", by_stem[start]))
                break
        else:
            untrained = untrained_path(run.root, side)
            if not _has_start_policy(cfg, side) and untrained.exists():
                points.append((side, "start", run.relative(untrained)))
        for k in range(cfg.rounds):
            on_curve = (k + 1) % cfg.curve.every == 0 or k + 1 == cfg.rounds
            stem = f"{side}_r{k}"
            if on_curve and stem in by_stem:
                points.append((side, f"r{k}", by_stem[stem]))
    return points


def _point_dir(run: RunFolder, side: str, point: str) -> Path:
    return run.root / CURVE_DIR / f"{point}-{side}"


def evaluate_point(
    cfg: TrainConfig, run: RunFolder, side: str, point: str, snapshot: str, progress: bool
) -> None:
    """Play the point's games (or the ones a killed evaluation left) into ``curve/<point>-<side>/``."""
    from agents.harness import run_tournament

    me = f"policy:{run.resolve(snapshot)}"
    opp = cfg.curve.opponent
    pairing = (me, opp) if side == "french" else (opp, me)
    out = _point_dir(run, side, point)
    run_tournament(
        pairings=[pairing],
        games=cfg.curve.games,
        seed=cfg.curve.seed,
        setup=cfg.setup,
        workers=cfg.curve.workers,
        out=out,
        progress=progress,
        resume=(out / "tournament.json").exists(),  # a killed evaluation: play only the missing games
        game=cfg.game,
    )
    done = out / "point.done"
    atomic_write_text(done, f"{snapshot}\n")


def curve_rows(cfg: TrainConfig, run: RunFolder) -> list[dict[str, Any]]:
    """One row per finished evaluation point, read from the games on disk."""
    import json

    from agents.harness import read_games
    from agents.paired import wilson_interval

    figure = game_info(cfg.game).figure  # the French VP, Springtime's Morale, France 1940's VP margin
    progress = run.read_progress()
    rows: list[dict[str, Any]] = []
    starts: dict[str, dict[int, dict[str, Any]]] = {}  # side -> seed -> the start point's game
    for side, point, snapshot in _points(cfg, progress, run):
        out = _point_dir(run, side, point)
        if not (out / "point.done").exists():
            continue
        games = read_games(out)
        if point == "start":
            starts[side] = {int(g["seed"]): g for g in games}
        wins = sum(1 for g in games if g.get("winner") == side)
        lo, hi = wilson_interval(wins, len(games))
        meta_path = run.resolve(snapshot).with_suffix(".json")
        meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {}
        scores = [float(g[figure]) for g in games if g.get(figure) is not None]
        rows.append(
            {
                "side": side,
                "point": point,
                "decisions": int(meta.get("extra", {}).get("timesteps", 0)) if point != "start" else 0,
                "opponent": f"{other_side(side)} {cfg.curve.opponent}",
                "games": len(games),
                "wins": wins,
                "win_rate": round(wins / len(games), 4) if games else 0.0,
                "wilson_low": round(lo, 4),
                "wilson_high": round(hi, 4),
                f"mean_french_{figure}": round(sum(scores) / len(scores), 3) if scores else None,
                "seeds": f"{cfg.curve.seed}-{cfg.curve.seed + cfg.curve.games - 1}",
                "snapshot": snapshot,
                **(
                    _paired_with_start(side, starts[side], games, figure)
                    if point != "start" and side in starts
                    else {}
                ),
            }
        )
    return rows


def paired_keys(figure: str) -> tuple[str, ...]:
    """A curve row's columns of the pairing with the start; ``figure`` is the game's
    (:attr:`ffo_env.games.GameInfo.figure`: France Fights On's ``vp`` gives ``vp_change``)."""
    return ("paired_games", "after_only", "before_only", "sign_p", f"{figure}_change", f"{figure}_change_se")


def _paired_with_start(
    side: str, start: dict[int, dict[str, Any]], games: list[dict[str, Any]], figure: str = "vp"
) -> dict[str, Any]:
    """A point against the start on the seeds both played (every seed, once both are complete): the seeds only
    the point won / only the start won with the exact sign test on them, and the mean change of the game's
    figure (the French VP, the final French Morale, the Allied VP margin) with its standard error (the games
    differ only by the snapshot, so the pairing removes the dice)."""
    from agents.paired import Outcome, paired_comparison, score_for

    score = score_for(figure)
    point = {int(g["seed"]): g for g in games}
    seeds = point.keys() & start.keys()

    # a game that ended with no figure (none in the suite's games so far) leaves the change unmeasured
    measured = all(rows[s].get(figure) is not None for rows in (start, point) for s in seeds)

    def outcomes(rows: dict[int, dict[str, Any]]) -> dict[int, Outcome]:
        return {s: Outcome(rows[s].get("winner") == side, float(rows[s].get(figure) or 0.0)) for s in seeds}

    result = paired_comparison(outcomes(start), outcomes(point), side, score=score)  # A = start, B = point
    wins, change = result["win_rate_difference"], result[f"{score.key}_difference"]
    return {
        "paired_games": result["games"],
        "after_only": wins["seeds_won_by_b_only"],
        "before_only": wins["seeds_won_by_a_only"],
        "sign_p": round(wins["mcnemar_exact_p"], 4),
        f"{figure}_change": round(change[f"french_{score.key}_b_minus_a"], 3) if measured else None,
        f"{figure}_change_se": round(change["se"], 3) if measured else None,
    }


def _sign_p_text(p: float) -> str:
    """The sign test's p as stored (4 decimals): one that rounds to 0 is below 0.0001, not 0."""
    return "p < 0.0001" if p == 0 else f"p = {p:.2g}"


def write_curve(cfg: TrainConfig, run: RunFolder) -> list[dict[str, Any]]:
    from agents.paired import score_for

    rows = curve_rows(cfg, run)
    figure = game_info(cfg.game).figure
    label = score_for(figure).label  # "French VP", "final French Morale", "Allied VP margin (...)"
    short = label.split(" (")[0]
    folder = run.root / CURVE_DIR
    folder.mkdir(exist_ok=True)
    run.write_json(folder / "curve.json", {"run": run.name, "curve": cfg.curve.__dict__, "points": rows})
    buf = io.StringIO()
    if rows:
        paired = paired_keys(figure)
        fields = [k for k in rows[0] if k not in paired] + list(paired)
        w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n", restval="")
        w.writeheader()
        w.writerows(rows)
    atomic_write_text(folder / "curve.csv", buf.getvalue())
    lines = [
        f"# Learning curve of {run.name}",
        "",
        f"Each point: {cfg.curve.games} games against the other side's `{cfg.curve.opponent}`, seeds "
        f"{cfg.curve.seed}-{cfg.curve.seed + cfg.curve.games - 1}, setup {cfg.setup}; Wilson 95 % intervals. "
        "Paired with the start on the same seeds: the seeds won only at the point / only at the start, with the "
        f"exact sign test on them, and the mean change of the {label} (± its standard error).",
        "",
        f"| side | point | PPO decisions | wins | win rate [95 %] | mean {short} | paired with the start |",
        "|---|---|---:|---:|---|---:|---|",
    ]
    for r in rows:
        change = r.get(f"{figure}_change")
        paired_text = (
            f"{r['after_only']} / {r['before_only']}, {_sign_p_text(r['sign_p'])}"
            + (f"; {short} {change:+.2f} ± {r[f'{figure}_change_se']:.2f}" if change is not None else "")
            if "sign_p" in r
            else ""
        )
        lines.append(
            f"| {r['side']} | {r['point']} | {r['decisions']:,} | {r['wins']}/{r['games']} | "
            f"{r['win_rate']:.3f} [{r['wilson_low']:.3f}, {r['wilson_high']:.3f}] | "
            f"{r[f'mean_french_{figure}']} | {paired_text} |"
        )
    atomic_write_text(folder / "curve.md", "\n".join(lines) + "\n")
    return rows


def _log_round(run: RunFolder, k: int, progress: dict[str, Any]) -> None:
    """Append round ``k``'s cost (wall seconds and decisions of each side, the load average) to rounds.csv."""
    path = run.root / CURVE_DIR / "rounds.csv"
    path.parent.mkdir(exist_ok=True)
    seconds = progress.get("seconds", {})
    text = (
        path.read_text(encoding="utf-8") if path.exists() else "round,side,seconds,decisions,load1,load5,at\n"
    )
    done = {tuple(line.split(",")[:2]) for line in text.splitlines()[1:]}
    load1, load5, _ = os.getloadavg()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for side, ts in progress.get("timesteps", {}).items():
        key = f"r{k}:{side}"
        if key in seconds and (str(k), side) not in done:
            text += f"{k},{side},{seconds[key]},{ts},{load1:.2f},{load5:.2f},{stamp}\n"
    atomic_write_text(path, text)


def run_campaign(
    cfg: TrainConfig,
    run: RunFolder,
    train: Train,
    progress_bar: bool = True,
    trust_pickle: bool = False,
    untrained: ExportUntrained | None = None,
) -> None:
    """Train round by round with ``train`` (:func:`training.train.train`, handed in by its caller so that this
    module does not import the schedule that dispatches to it) and evaluate the curve's points as their
    snapshots appear; resumable. ``untrained`` (:func:`training.train.export_untrained`) writes the start
    point of a side trained from scratch (also when a run of an earlier version, which had none, resumes)."""
    run.make_folders()
    progress = run.read_progress() if run.progress_path.exists() else None
    starts = [f"pretrain:{s}" for s in cfg.pretrain.sides if cfg.pretrain.teacher] + [
        f"init:{s}" for s in cfg.init_policy
    ]
    if progress is None or any(
        key not in progress["done"] for key in starts if key.split(":")[1] in cfg.sides
    ):
        # the start stages alone, so that round 0, like every round, begins from a checkpoint on disk
        train(replace(cfg, rounds=0), run, resume=True, progress_bar=progress_bar, trust_pickle=trust_pickle)
    for side in cfg.sides:
        path = untrained_path(run.root, side)
        if untrained is not None and not _has_start_policy(cfg, side) and not path.exists():
            untrained(round_config(cfg, 0), run, side, path)  # round 0's config and seed: its first network
    for k in range(cfg.rounds):
        progress = run.read_progress() if run.progress_path.exists() else None
        if progress is None or any(f"r{k}:{s}" not in progress["done"] for s in cfg.sides):
            started = time.perf_counter()
            train(
                round_config(cfg, k), run, resume=True, progress_bar=progress_bar, trust_pickle=trust_pickle
            )
            progress = run.read_progress()
            _log_round(run, k, progress)
            print(f"round {k + 1}/{cfg.rounds} done in {time.perf_counter() - started:.0f} s", flush=True)
        for side, point, snapshot in _points(cfg, progress, run):
            if not (_point_dir(run, side, point) / "point.done").exists():
                evaluate_point(cfg, run, side, point, snapshot, progress_bar)
                for row in write_curve(cfg, run):
                    if (row["side"], row["point"]) == (side, point):
                        print(
                            f"curve {side} {point}: {row['wins']}/{row['games']} = {row['win_rate']:.3f} "
                            f"[{row['wilson_low']:.3f}, {row['wilson_high']:.3f}] against {row['opponent']}",
                            flush=True,
                        )
    write_curve(cfg, run)
