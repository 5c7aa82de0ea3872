"""Measure the speed of the rules core, the environments and training, against PettingZoo peers.

Runs on one core (the process is pinned to one CPU and torch to one thread), after a
warm-up, over several repeats; reports the median and the spread (min-max) of each figure.
``chess_v6`` and ``connect_four_v3`` from PettingZoo classic are measured in the same run
under the same random legal play, interleaved with the France Fights On AEC env repeat by
repeat (the ratio is taken per repeat), so the ratio to them holds on a noisy machine.
The load average before and after the run is part of the report.

    ffo bench                     # everything, prints a table, writes bench.json
    ffo bench --quick             # 1 s x 2 repeats, no training figure
    python benchmarks/bench.py --quick --out /tmp/bench.json
    ffo bench --quick --profile   # also: where the time of one AEC step goes (bench.profile.txt)
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import platform
import pstats
import random
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ffo_env.core.game import Game, RulesOptions

FORMAT, VERSION = "ffo-bench", 2


def _pin_one_core() -> tuple[str, Any]:
    """Pin the process to its last allowed CPU; returns (description, previous affinity)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[-1]})
        return f"pinned to cpu {cpus[-1]}", set(cpus)
    except (AttributeError, OSError):
        return "not pinned (sched_setaffinity unavailable)", None


def _unpin(previous: Any) -> None:
    if previous:
        try:
            os.sched_setaffinity(0, previous)
        except (AttributeError, OSError):
            pass


def _stats(rates: list[float]) -> dict[str, Any]:
    return {"median": statistics.median(rates), "min": min(rates), "max": max(rates), "repeats": rates}


def _repeat(
    fn: Callable[[float], tuple[int, float]], seconds: float, repeats: int, warmup: float
) -> dict[str, Any]:
    """Run ``fn(seconds) -> (count, elapsed)`` repeatedly; rates per second with median and spread."""
    if warmup > 0:
        fn(warmup)
    rates = []
    for _ in range(repeats):
        gc.collect()
        n, dt = fn(seconds)
        rates.append(n / dt if dt > 0 else 0.0)
    return _stats(rates)


def _interleaved(
    fns: dict[str, Callable[[float], tuple[int, float]]], seconds: float, repeats: int, warmup: float
) -> dict[str, list[float]]:
    """Like :func:`_repeat` for several figures, one repeat of each in turn (same machine load)."""
    if warmup > 0:
        for fn in fns.values():
            fn(warmup)
    out: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            gc.collect()
            n, dt = fn(seconds)
            out[k].append(n / dt if dt > 0 else 0.0)
    return out


# ------------------------------------------------------------------ the core


def core_random(seconds: float, seed0: int = 0) -> tuple[dict[str, int], float]:
    """Random legal play on the core: (decisions, games) in ``seconds``.

    Decisions are counted continuously; ``games`` counts the games finished in the time."""
    game = Game(options=RulesOptions(setup="random"))
    rng = random.Random(seed0)
    decisions = 0
    games = 0
    seed = seed0
    s = game.new_initial_state(seed)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        if s.is_terminal():
            games += 1
            seed += 1
            s = game.new_initial_state(seed)
            continue
        legal = s.legal_actions()
        s.apply_action(legal[rng.randrange(len(legal))])
        decisions += 1
    return {"decisions": decisions, "games": games}, time.perf_counter() - t0


# ---------------------------------------------------------- AEC environments


def aec_random(make_env: Callable[[], Any], seconds: float, seed: int = 0) -> tuple[int, float]:
    """Steps of random legal play through an AEC env, reading the observation and mask every step
    (``last()`` + ``step()``: what a PettingZoo training loop does)."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = 0
    episode = 0
    env.reset(seed=seed)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, _r, term, trunc, _info = env.last()
        if term or trunc:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(legal.size)])
        env.step(action)
        steps += 1
        if not env.agents:
            episode += 1
            env.reset(seed=seed + episode)
    return steps, time.perf_counter() - t0


def _ffo_env() -> Any:
    import ffo_env

    return ffo_env.env()


def _ffo_raw_env() -> Any:
    import ffo_env

    return ffo_env.raw_env()


def _chess_env() -> Any:
    from pettingzoo.classic import chess_v6

    return chess_v6.env()


def _c4_env() -> Any:
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


PEERS: dict[str, Callable[[], Any]] = {"chess_v6": _chess_env, "connect_four_v3": _c4_env}


def single_agent_random(seconds: float, seed: int = 0) -> tuple[int, float]:
    """Learner steps of the single-agent wrapper (random learner vs random opponent; the
    opponent's decisions are extra and not counted)."""
    from ffo_env.envs.single_agent import FFOSingleAgentEnv

    env = FFOSingleAgentEnv(side="french", opponent=None)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        legal = np.flatnonzero(env.action_masks())
        _obs, _r, term, trunc, _info = env.step(int(legal[rng.integers(legal.size)]))
        steps += 1
        if term or trunc:
            env.reset()
    return steps, time.perf_counter() - t0


# -------------------------------------------------------------------- memory


def memory(n_envs: int, steps: int = 300) -> float:
    """Peak traced Python + numpy memory (MiB) of ``n_envs`` environments created, reset and stepped."""
    import ffo_env

    gc.collect()
    tracemalloc.start()
    envs = [ffo_env.env() for _ in range(n_envs)]
    rng = np.random.default_rng(0)
    for i, env in enumerate(envs):
        env.reset(seed=i)
        for _ in range(steps):
            obs, _r, term, trunc, _info = env.last()
            action = None if (term or trunc) else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            if not env.agents:
                env.reset(seed=i + 1000)
    _cur, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del envs
    return peak / 2**20


# ------------------------------------------------------------------ profile


# (label, module, owner attribute path, method): timed per AEC step by step_breakdown; nested
# entries are included in their parents' time
_TIMED = (
    ("core: State.apply_action", "ffo_env.core.state", "State", "apply_action"),
    ("core: State.legal_actions", "ffo_env.core.state", "State", "legal_actions"),
    ("core: supply flood (any caller)", "ffo_env.core.state", None, "flood_bits"),
    ("env: raw_env.observe (obs + mask)", "ffo_env.envs.aec", "raw_env", "observe"),
    ("encoder: encode", "ffo_env.encoding.observation", "ObservationEncoder", "encode"),
    ("encoder: _sync (shared unit data)", "ffo_env.encoding.observation", "ObservationEncoder", "_sync"),
    ("encoder: _derive_shared", "ffo_env.encoding.observation", "ObservationEncoder", "_derive_shared"),
    ("encoder: _view (per-viewer buffers)", "ffo_env.encoding.observation", "ObservationEncoder", "_view"),
    ("encoder: _fill_view", "ffo_env.encoding.observation", "ObservationEncoder", "_fill_view"),
    (
        "encoder: _supplied (core supply masks)",
        "ffo_env.encoding.observation",
        "ObservationEncoder",
        "_supplied",
    ),
)


def step_breakdown(seconds: float, seed: int = 0) -> dict[str, Any]:
    """Microseconds per AEC step spent in the main functions (timing wrappers, no profiler).

    Nested figures are part of their parents'; ``other`` is the AEC loop minus ``apply_action``
    and ``observe`` (PettingZoo wrappers, rewards, the benchmark's own random choice)."""
    import importlib

    acc: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    patched: list[tuple[Any, str, Any]] = []
    pc = time.perf_counter

    def timed(label: str, f: Callable[..., Any]) -> Callable[..., Any]:
        def w(*a: Any, **k: Any) -> Any:
            t0 = pc()
            try:
                return f(*a, **k)
            finally:
                acc[label] += pc() - t0
                calls[label] += 1

        return w

    for label, module, owner, name in _TIMED:
        mod = importlib.import_module(module)
        obj = getattr(mod, owner) if owner else mod
        f = getattr(obj, name, None)
        if f is None:
            continue
        patched.append((obj, name, f))
        setattr(obj, name, timed(label, f))
    try:
        steps, dt = aec_random(_ffo_env, seconds, seed)
    finally:
        for obj, name, f in reversed(patched):
            setattr(obj, name, f)
    per = {label: acc[label] / steps * 1e6 for label, *_ in _TIMED if label in acc}
    total = dt / steps * 1e6
    per["other (wrappers, rewards, bench loop)"] = (
        total - per.get("core: State.apply_action", 0.0) - per.get("env: raw_env.observe (obs + mask)", 0.0)
    )
    return {
        "steps": steps,
        "us_per_step_total": total,
        "us_per_step": per,
        "calls_per_step": {label: calls[label] / steps for label, *_ in _TIMED if label in calls},
        "note": "timing wrappers add ~0.3 us per call; nested figures are included in their parents'",
    }


def profile_aec(seconds: float, path: Path, profiler: str = "cprofile") -> dict[str, Any]:
    """Profile the AEC loop: a text report (and a .prof file for cProfile) next to ``path``."""
    text = io.StringIO()
    out: dict[str, Any] = {"profiler": profiler}
    bd = step_breakdown(seconds)
    out["breakdown"] = bd
    text.write(f"AEC env, random play, {bd['steps']} steps: {bd['us_per_step_total']:.1f} us per step\n\n")
    text.write("per-step breakdown (timing wrappers; nested figures are included in their parents'):\n")
    for label, us in bd["us_per_step"].items():
        text.write(f"  {label:<42} {us:8.1f} us  ({bd['calls_per_step'].get(label, 0):.2f} calls/step)\n")
    text.write("\n")
    if profiler == "pyinstrument":
        from pyinstrument import Profiler

        prof = Profiler(interval=0.0002)
        prof.start()
        steps, _dt = aec_random(_ffo_env, seconds)
        prof.stop()
        text.write(prof.output_text(unicode=False, color=False, show_all=False))
        html = path.with_suffix(".html")
        html.write_text(prof.output_html(), encoding="utf-8")
        out["html"] = str(html)
    else:
        pr = cProfile.Profile()
        pr.enable()
        steps, _dt = aec_random(_ffo_env, seconds)
        pr.disable()
        prof_path = path.with_suffix(".prof")
        pr.dump_stats(str(prof_path))
        out["prof"] = str(prof_path)
        text.write(f"cProfile of {steps} AEC steps (times include the profiler's overhead)\n")
        for key in ("tottime", "cumulative"):
            s = io.StringIO()
            pstats.Stats(pr, stream=s).strip_dirs().sort_stats(key).print_stats(25)
            text.write(f"\n---- sorted by {key}\n{s.getvalue()}")
    path.write_text(text.getvalue(), encoding="utf-8")
    out["report"] = str(path)
    return out


# ------------------------------------------------------------------ training


def train_samples(seconds_budget: float, config: str | None) -> dict[str, Any]:
    """MaskablePPO samples/s with the default (quick) training config, on one core."""
    import torch

    from training.train import measure_training_speed

    torch.set_num_threads(1)
    return measure_training_speed(config=config, seconds=seconds_budget)


# --------------------------------------------------------------------- main


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {"python": platform.python_version()}
    for pkg in (
        "ffo_env",
        "numpy",
        "gymnasium",
        "pettingzoo",
        "torch",
        "stable_baselines3",
        "sb3_contrib",
        "chess",
    ):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def _loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def _machine() -> dict[str, Any]:
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "platform": platform.platform(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "machine": platform.machine(),
    }


def run_bench(
    seconds: float = 3.0,
    repeats: int = 3,
    warmup: float = 1.0,
    skip_train: bool = False,
    skip_peers: bool = False,
    train_config: str | None = None,
    progress: bool = True,
    memory_steps: int = 300,
    pin: bool = True,
) -> dict[str, Any]:
    """All figures; returns the JSON-ready report (see :func:`format_table`)."""
    load_before = _loadavg()
    pin_desc, previous = _pin_one_core() if pin else ("not pinned (pin=False)", None)
    results: dict[str, Any] = {}
    t_start = time.perf_counter()

    def say(msg: str) -> None:
        if progress:
            print(msg, file=sys.stderr, flush=True)

    try:
        say("core: random play ...")
        core_runs: list[tuple[dict[str, int], float]] = []

        def core_fn(sec: float) -> tuple[int, float]:
            counts, dt = core_random(sec)
            core_runs.append((counts, dt))
            return counts["decisions"], dt

        results["core_decisions_per_s"] = _repeat(core_fn, seconds, repeats, warmup)
        results["core_games_per_s"] = _stats([c["games"] / dt for c, dt in core_runs[-repeats:]])
        figures: dict[str, Callable[[float], tuple[int, float]]] = {
            "aec": lambda s: aec_random(_ffo_env, s),
            "aec_raw": lambda s: aec_random(_ffo_raw_env, s),
        }
        peers_ok: list[str] = []
        if not skip_peers:
            for name, make in PEERS.items():
                try:
                    make().close()
                except Exception as e:  # noqa: BLE001 - a missing optional peer must not stop the bench
                    results[f"{name}_steps_per_s"] = {"error": f"{type(e).__name__}: {e}"}
                    continue
                figures[name] = (lambda mk: lambda s: aec_random(mk, s))(make)
                peers_ok.append(name)
        say(f"AEC env with observations and masks, interleaved with {', '.join(peers_ok) or 'no peers'} ...")
        rates = _interleaved(figures, seconds, repeats, warmup)
        results["aec_steps_per_s"] = _stats(rates["aec"])
        results["aec_raw_steps_per_s"] = _stats(rates["aec_raw"])
        for name in peers_ok:
            results[f"{name}_steps_per_s"] = _stats(rates[name])
            ratios = [a / p for a, p in zip(rates["aec"], rates[name], strict=True) if p > 0]
            results[f"ratio_aec_to_{name}"] = statistics.median(ratios)
            results[f"ratio_aec_to_{name}_spread"] = [min(ratios), max(ratios)]
        say("single-agent wrapper ...")
        results["single_agent_steps_per_s"] = _repeat(single_agent_random, seconds, repeats, warmup)
        say("memory ...")
        results["memory_mib"] = {
            "one_env": memory(1, memory_steps),
            "eight_envs": memory(8, memory_steps),
            "steps_per_env": memory_steps,
        }
        if not skip_train:
            say("MaskablePPO training samples/s ...")
            results["train"] = train_samples(max(10.0, seconds * repeats), train_config)
    finally:
        _unpin(previous)
    return {
        "format": FORMAT,
        "version": VERSION,
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "settings": {"seconds": seconds, "repeats": repeats, "warmup": warmup, "affinity": pin_desc},
        "versions": _versions(),
        "machine": {**_machine(), "loadavg_before": load_before, "loadavg_after": _loadavg()},
        "wall_seconds": time.perf_counter() - t_start,
        "results": results,
    }


def format_table(report: dict[str, Any]) -> str:
    r = report["results"]
    rows = [("figure", "median", "min", "max")]

    def rate(name: str, key: str, fmt: str = ",.0f") -> None:
        v = r.get(key)
        if v and "median" in v:
            rows.append((name, f"{v['median']:{fmt}}", f"{v['min']:{fmt}}", f"{v['max']:{fmt}}"))
        elif v and "error" in v:
            rows.append((name, "n/a", "", v["error"][:40]))

    rate("core decisions/s (random play)", "core_decisions_per_s")
    rate("core full games/s", "core_games_per_s", ".2f")
    rate("AEC env() steps/s (obs + mask)", "aec_steps_per_s")
    rate("AEC raw_env steps/s (obs + mask)", "aec_raw_steps_per_s")
    rate("single-agent wrapper steps/s", "single_agent_steps_per_s")
    rate("chess_v6 steps/s (same run)", "chess_v6_steps_per_s")
    rate("connect_four_v3 steps/s (same run)", "connect_four_v3_steps_per_s")
    w = max(len(x[0]) for x in rows)
    lines = [f"{a:<{w}}  {b:>10}  {c:>10}  {d:>10}" for a, b, c, d in rows]
    for peer in PEERS:
        k = f"ratio_aec_to_{peer}"
        if k in r:
            lo, hi = r[f"{k}_spread"]
            lines.append(f"AEC / {peer} = {r[k]:.2f}x (per repeat {lo:.2f}-{hi:.2f})")
    if "memory_mib" in r:
        m = r["memory_mib"]
        lines.append(
            f"peak traced memory: {m['one_env']:.1f} MiB for 1 env, {m['eight_envs']:.1f} MiB for 8 envs"
        )
    if "train" in r:
        t = r["train"]
        lines.append(
            f"MaskablePPO: {t['samples_per_s']:,.0f} samples/s ({t['timesteps']} samples in {t['seconds']:.1f} s, "
            f"config {t['config']})"
        )
    m = report.get("machine", {})
    s = report.get("settings", {})
    lines.append(
        f"{s.get('seconds')} s x {s.get('repeats')} repeats, {s.get('affinity')}; load average "
        f"{m.get('loadavg_before')} before, {m.get('loadavg_after')} after; {m.get('cpu')}"
    )
    return "\n".join(lines)


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
    p.add_argument("--quick", action="store_true", help="short run: 1 s x 2 repeats, no training figure")
    p.add_argument("--skip-train", action="store_true", help="skip the MaskablePPO samples/s figure")
    p.add_argument("--skip-peers", action="store_true", help="skip chess_v6 / connect_four_v3")
    p.add_argument(
        "--train-config",
        default=None,
        help="training config for the samples/s figure (default configs/train_quick.yaml)",
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
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
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
