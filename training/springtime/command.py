"""``ffo train --game springtime``: train both sides of Springtime for Hitler into a run folder.

Stages, each recorded in ``progress.json`` as it finishes (a killed run resumes with ``--resume RUN_DIR`` from
the last finished stage, or inside PPO from the last checkpoint):

1. ``imitation:<side>:<i>``: DAgger iteration ``i`` from the scripted teacher (:mod:`.imitation`); its data
   ``pretrain/<side>_data_<i>.npz``, the student ``pretrain/<side>_student.pt``, the report
   ``pretrain/<side>.json``; after the last one the snapshot ``snapshots/<side>_pretrain.pt``;
2. ``ppo:<side>:r<r>``: round ``r`` of MaskablePPO (:mod:`.ppo`) for each side against the opponent mix, with
   checkpoints every ``ppo.checkpoint_every`` decisions; the curve ``ppo/<side>.jsonl`` (one line a
   checkpoint: timesteps, recent win rate and game length, seconds); the snapshot ``snapshots/<side>_r<r>.pt``;
3. ``export``: ``policies/<side>.pt`` + ``.json`` (:mod:`agents.springtime.policy`; play one with
   ``policy:PATH`` and ``--game springtime``);
4. ``eval:<policy>:<side>:<opponent>``: ``eval/results.json``, win rates with Wilson 95 % intervals on fixed
   seeds, for the final policies and (``eval.compare_imitation``) the imitation stage's.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from ffo_env.atomic import atomic_write_text
from training.config import ConfigError
from training.run_folder import RunFolder, RunFolderError
from training.springtime.config import SpringtimeTrainConfig, load_config

DEFAULT_CONFIG = "configs/springtime/train_quick.yaml"
EXPORT = "export"  # the stage that writes the final policies
EVAL_GAME_UNITS = 150  # an evaluation game counts as this many decisions in the ETA


class Meter:
    """Overall progress in decision units, printed with an ETA at the average rate of this process so far."""

    def __init__(self, total: int, done: int, quiet: bool = False) -> None:
        self.total = max(total, 1)
        self.done = done
        self.start_done = done
        self.t0 = time.time()
        self.quiet = quiet
        self.last = 0.0

    def add(self, units: int, what: str, force: bool = False) -> None:
        self.done += units
        now = time.time()
        if self.quiet or (not force and now - self.last < 10):
            return
        self.last = now
        el = now - self.t0
        rate = (self.done - self.start_done) / el if el > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else float("nan")
        pct = 100 * min(self.done, self.total) / self.total
        print(
            f"[springtime] {pct:5.1f}% {what}; {el:.0f}s elapsed, ETA {eta:.0f}s", file=sys.stderr, flush=True
        )


def _units(cfg: SpringtimeTrainConfig) -> dict[str, int]:
    im = cfg.imitation.decisions if cfg.imitation.teacher else 0
    kinds = 1 + int(cfg.eval.compare_imitation and bool(cfg.imitation.teacher) and cfg.ppo.rounds > 0)
    return {
        "imitation": im,  # per side and iteration
        "ppo": cfg.ppo.steps_per_round,  # per side and round
        "eval": cfg.eval.games * EVAL_GAME_UNITS * len(cfg.eval.opponents) * kinds,  # per side
    }


def _units_done(cfg: SpringtimeTrainConfig, progress: dict[str, Any]) -> tuple[int, int]:
    u = _units(cfg)
    sides = cfg.sides
    total = len(sides) * (
        u["imitation"] * (cfg.imitation.iterations if cfg.imitation.teacher else 0)
        + u["ppo"] * cfg.ppo.rounds
        + u["eval"]
    )
    done = 0
    for key in progress["done"]:
        if key.startswith("imitation:"):
            done += u["imitation"]
        elif key.startswith("eval:"):
            done += cfg.eval.games * EVAL_GAME_UNITS
    done += sum(min(int(progress["timesteps"].get(s, 0)), u["ppo"] * cfg.ppo.rounds) for s in sides)
    return total, done


def _overrides(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise ConfigError(f"--set expects KEY=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        try:
            out[k.strip()] = yaml.safe_load(v)
        except yaml.YAMLError as e:
            raise ConfigError(f"--set {item}: the value is not valid YAML ({e})") from None
    return out


def command(args: Any) -> int:
    """The ``ffo train --game springtime`` entry point (``args`` as parsed by ``ffo train``)."""
    from ffo_env.resources import config_file

    try:
        overrides = _overrides(list(args.set or []))
        if args.resume:
            run = RunFolder.locate(args.resume)
            cfg = load_config(run.config_path, overrides)
            progress = run.read_progress() if run.progress_path.exists() else _new_progress()
        else:
            cfg = load_config(config_file(args.config), overrides)
            run = RunFolder.create(Path(args.out), cfg.run_name)
            progress = _new_progress()
    except (ConfigError, RunFolderError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    run.record_start(cfg.to_dict(), cfg.seed)
    run.make_folders()
    run.write_progress(progress)
    print(f"[springtime] run folder {run.root}", file=sys.stderr, flush=True)
    try:
        return _train(
            cfg, run, progress, no_eval=bool(args.no_eval), quiet=bool(getattr(args, "no_progress", False))
        )
    except RunFolderError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


def _rate(stats: dict[str, float]) -> str:
    return (
        f"{stats['win_rate']:.2f} over {stats['games']:.0f} games" if stats else "n/a (no game finished yet)"
    )


def _new_progress() -> dict[str, Any]:
    progress = RunFolder.new_progress()
    progress["seconds"] = {}
    return progress


def _timed(progress: dict[str, Any], stage: str, t0: float) -> None:
    progress.setdefault("seconds", {})
    progress["seconds"][stage] = round(progress["seconds"].get(stage, 0.0) + time.time() - t0, 1)


def _train(
    cfg: SpringtimeTrainConfig, run: RunFolder, progress: dict[str, Any], no_eval: bool, quiet: bool
) -> int:
    import torch

    from agents.springtime.policy import load_policy

    torch.set_num_threads(cfg.torch_threads)
    total, done = _units_done(cfg, progress)
    meter = Meter(total, done, quiet)
    latest: dict[str, Any] = {}  # side -> its newest frozen policy (the other side's "self" opponent)
    for side in ("french", "german"):
        snaps = run.snapshot_paths(progress, side)
        if snaps:
            latest[side] = load_policy(snaps[-1], deterministic=False)
    if cfg.imitation.teacher:
        for side in cfg.sides:
            _imitation(cfg, run, progress, side, meter, latest)
    models: dict[str, Any] = {}
    for r in range(1, cfg.ppo.rounds + 1):
        for side in cfg.sides:
            key = f"ppo:{side}:r{r}"
            if key in progress["done"]:
                continue
            _ppo_round(cfg, run, progress, side, r, meter, latest, models)
    if EXPORT not in progress["done"]:
        _export_final(cfg, run, progress, models)
    if not no_eval and cfg.eval.games > 0:
        _evaluate(cfg, run, progress, meter)
    secs = progress.get("seconds", {})
    print(
        f"[springtime] done: {run.policies}; {sum(secs.values()):.0f}s of training and evaluation in all",
        file=sys.stderr,
    )
    print(run.root)
    return 0


def _imitation(
    cfg: SpringtimeTrainConfig,
    run: RunFolder,
    progress: dict[str, Any],
    side: str,
    meter: Meter,
    latest: dict[str, Any],
) -> None:
    import torch

    from agents.springtime.policy import build_policy, export_policy, load_policy
    from training.springtime import imitation as im

    ic = cfg.imitation
    keys = [f"imitation:{side}:{i}" for i in range(1, ic.iterations + 1)]
    if all(k in progress["done"] for k in keys):
        return
    pre = run.stage_dir("pretrain")
    pre.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(cfg.seed + (0 if side == "french" else 7))
    policy = build_policy(cfg.policy.net_arch, cfg.policy.activation, optimizer_class=torch.optim.Adam)
    optimizer = torch.optim.Adam(policy.parameters(), lr=ic.learning_rate)
    student_path = run.pretrain_student(side)
    report_path = run.pretrain_report(side)
    report: dict[str, Any] = {"side": side, "teacher": ic.teacher, "iterations": []}
    if student_path.exists():  # a resumed run: continue from the last finished iteration's student
        policy.load_state_dict(load_policy(student_path).policy.state_dict())
        report = run.read_json(report_path, "the imitation report")
    parts: list[dict[str, Any]] = []
    for i, key in enumerate(keys, start=1):
        data_path = pre / f"{side}_data_{i}.npz"
        if key in progress["done"]:
            parts.append(im.load_data(data_path))
            continue
        t0 = time.time()
        student = None
        if i > 1:
            student = load_policy(student_path)
        seed = cfg.seed * 1000 + i * 10 + (0 if side == "french" else 1)
        base = meter.done

        def tick(n: int, base: int = base, i: int = i) -> None:
            meter.done = base
            meter.add(n, f"imitation {side} iteration {i}/{ic.iterations}: {n}/{ic.decisions} decisions")

        data, stats = im.collect(
            side, ic.teacher, student, ic.beta if i > 1 else 1.0, ic.decisions, ic.opponents, seed, tick
        )
        meter.done = base + ic.decisions
        im.save_data(data_path, data)
        parts.append(data)
        fit = im.fit(policy, optimizer, im.concat(parts), ic.epochs, ic.batch_size, ic.value_coef, seed)
        export_policy(
            policy, student_path, side, cfg.policy.net_arch, cfg.policy.activation, {"run": run.name}
        )
        entry = {
            "iteration": i,
            **stats,
            **fit,
            "beta": ic.beta if i > 1 else 1.0,
            "wall_seconds": round(time.time() - t0, 1),
        }
        report["iterations"].append(entry)
        run.write_json(report_path, report)
        progress["done"].append(key)
        _timed(progress, "imitation", t0)
        if i == ic.iterations:
            snap = run.snapshot(side, "pretrain")
            export_policy(
                policy,
                snap,
                side,
                cfg.policy.net_arch,
                cfg.policy.activation,
                {"run": run.name, "stage": "imitation"},
            )
            run.add_snapshot(progress, side, snap)
            latest[side] = load_policy(snap, deterministic=False)
        run.write_progress(progress)
        meter.add(
            0,
            f"imitation {side} iteration {i}: accuracy {fit['accuracy']:.3f}, "
            f"learner won {stats['learner_wins']}/{stats['games']} games",
            force=True,
        )


def _ppo_round(
    cfg: SpringtimeTrainConfig,
    run: RunFolder,
    progress: dict[str, Any],
    side: str,
    r: int,
    meter: Meter,
    latest: dict[str, Any],
    models: dict[str, Any],
) -> None:
    from agents.springtime.policy import export_policy, load_policy
    from training.springtime import ppo
    from training.springtime.opponents import MixOpponent

    other = "german" if side == "french" else "french"
    model = models.get(side)
    if model is None:
        opp = MixOpponent(other, cfg.ppo.opponents, lambda: latest.get(other))
        seed = cfg.seed + (0 if side == "french" else 1) + int(progress["timesteps"].get(side, 0))
        model = ppo.make_model(cfg, side, opp, seed)
        if run.checkpoint_manifest(side).exists():
            ppo.load_checkpoint(model, run, side)
        else:
            snaps = run.snapshot_paths(progress, side)
            if snaps:  # warm start from the imitation stage
                start = load_policy(snaps[-1]).policy.state_dict()
                model.policy.load_state_dict(start)
        models[side] = model
    target = r * cfg.ppo.steps_per_round
    curve = run.stage_dir("ppo") / f"{side}.jsonl"
    curve.parent.mkdir(parents=True, exist_ok=True)
    while model.num_timesteps < target:
        before = int(model.num_timesteps)
        t1 = time.time()
        model.learn(min(cfg.ppo.checkpoint_every, target - before), reset_num_timesteps=False)
        ppo.save_checkpoint(model, run, side)
        progress["timesteps"][side] = int(model.num_timesteps)
        _timed(progress, "ppo", t1)
        run.write_progress(progress)
        stats = ppo.episode_stats(model)
        line = {
            "round": r,
            "timesteps": int(model.num_timesteps),
            **stats,
            "seconds": round(time.time() - t1, 1),
        }
        previous = curve.read_text(encoding="utf-8") if curve.exists() else ""
        atomic_write_text(curve, previous + json.dumps(line) + "\n")
        meter.add(
            int(model.num_timesteps) - before,
            f"ppo {side} round {r}/{cfg.ppo.rounds}: {model.num_timesteps}/{target} decisions, "
            f"recent win rate {_rate(stats)}",
            force=True,
        )
    snap = run.snapshot(side, r)
    export_policy(
        model.policy,
        snap,
        side,
        cfg.policy.net_arch,
        cfg.policy.activation,
        {"run": run.name, "stage": f"ppo r{r}", "timesteps": int(model.num_timesteps)},
    )
    run.add_snapshot(progress, side, snap)
    latest[side] = load_policy(snap, deterministic=False)
    progress["done"].append(f"ppo:{side}:r{r}")
    run.write_progress(progress)


def _export_final(
    cfg: SpringtimeTrainConfig, run: RunFolder, progress: dict[str, Any], models: dict[str, Any]
) -> None:
    """``policies/<side>.pt``: the side's last PPO snapshot (or its imitation policy when ``ppo.rounds`` is 0)."""
    from agents.springtime.policy import export_policy, load_policy

    for side in cfg.sides:
        snaps = run.snapshot_paths(progress, side)
        if not snaps:
            raise RunFolderError(f"{run.progress_path}: the {side} side has no policy to export")
        agent = load_policy(snaps[-1])
        extra = {
            **agent.meta.get("extra", {}),
            "run": run.name,
            "seed": cfg.seed,
            "timesteps": int(progress["timesteps"].get(side, 0)),
            "imitation": {
                "teacher": cfg.imitation.teacher,
                "iterations": cfg.imitation.iterations,
                "decisions": cfg.imitation.decisions,
            }
            if cfg.imitation.teacher
            else None,
            "from_snapshot": Path(snaps[-1]).name,
        }
        export_policy(agent.policy, run.policy(side), side, cfg.policy.net_arch, cfg.policy.activation, extra)
    progress["done"].append(EXPORT)
    run.write_progress(progress)
    del models


def _evaluate(cfg: SpringtimeTrainConfig, run: RunFolder, progress: dict[str, Any], meter: Meter) -> None:
    """Each final policy (and the imitation stage's, to see what PPO added) against each bot, both sides."""
    from agents.springtime.policy import load_policy
    from training.springtime.evaluate import play_games

    ev = cfg.eval
    kinds = {"final": run.policy}
    if ev.compare_imitation and cfg.imitation.teacher and cfg.ppo.rounds > 0:
        kinds["imitation"] = lambda side: run.snapshot(side, "pretrain")
    results: dict[str, Any] = (
        run.read_json(run.eval_results, "the evaluation so far") if run.eval_results.exists() else {}
    )
    results.setdefault("pairings", [])
    for kind, path_of in kinds.items():
        for side in cfg.sides:
            for opponent in ev.opponents:
                key = f"eval:{kind}:{side}:{opponent}"
                if key in progress["done"]:
                    continue
                t0 = time.time()
                agent = load_policy(path_of(side))
                base = meter.done

                def tick(n: int, base: int = base, what: str = f"eval {kind} {side} vs {opponent}") -> None:
                    meter.done = base
                    meter.add(n * EVAL_GAME_UNITS, f"{what}: {n}/{ev.games} games")

                res = play_games(agent, side, opponent, ev.games, ev.first_seed, tick)
                results["pairings"].append({"policy": kind, **res})
                run.write_json(run.eval_results, results)
                progress["done"].append(key)
                _timed(progress, "eval", t0)
                run.write_progress(progress)
                lo, hi = res["wilson95"]
                print(
                    f"[springtime] {kind} {side} vs {opponent}: {res['wins']}/{res['games']} wins "
                    f"({res['win_rate']:.2f}, Wilson 95% {lo:.2f}-{hi:.2f})",
                    file=sys.stderr,
                    flush=True,
                )
