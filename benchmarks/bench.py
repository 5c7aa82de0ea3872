"""Measure the speed of the rules core, the environments and training, against PettingZoo peers.

Runs on one core (the process is pinned to one CPU and torch to one thread), after a
warm-up, over several repeats; reports the median and the spread (min-max) of each figure.
``chess_v6`` and ``connect_four_v3`` from PettingZoo classic are measured in the same run
under the same random legal play, so the ratio to them holds on a noisy machine.

    ffo bench                     # everything, prints a table, writes bench.json
    python benchmarks/bench.py --quick --out /tmp/bench.json
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ffo_env.core.game import Game, RulesOptions


def _pin_one_core() -> str:
    try:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[-1]})
        return f"pinned to cpu {cpus[-1]}"
    except (AttributeError, OSError):
        return "not pinned (sched_setaffinity unavailable)"


def _repeat(fn: Callable[[float], tuple[int, float]], seconds: float, repeats: int, warmup: float) -> dict[str, Any]:
    """Run ``fn(seconds) -> (count, elapsed)`` repeatedly; rates per second with median and spread."""
    if warmup > 0:
        fn(warmup)
    rates = []
    for _ in range(repeats):
        gc.collect()
        n, dt = fn(seconds)
        rates.append(n / dt if dt > 0 else 0.0)
    return {"median": statistics.median(rates), "min": min(rates), "max": max(rates), "repeats": rates}


# ------------------------------------------------------------------ the core


def core_random(seconds: float, seed0: int = 0) -> tuple[dict[str, float], float]:
    """Random legal play on the core: (decisions, games) in ``seconds``."""
    import random

    game = Game(options=RulesOptions(setup="random"))
    rng = random.Random(seed0)
    decisions = 0
    games = 0
    t0 = time.perf_counter()
    seed = seed0
    while time.perf_counter() - t0 < seconds:
        s = game.new_initial_state(seed)
        seed += 1
        while not s.is_terminal():
            legal = s.legal_actions()
            s.apply_action(legal[rng.randrange(len(legal))])
            decisions += 1
        games += 1
    return {"decisions": decisions, "games": games}, time.perf_counter() - t0


# ---------------------------------------------------------- AEC environments


def aec_random(make_env: Callable[[], Any], seconds: float, seed: int = 0) -> tuple[int, float]:
    """Steps of random legal play through an AEC env, reading the observation and mask every step."""
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
            mask = obs["action_mask"]
            legal = np.flatnonzero(mask)
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


def _chess_env() -> Any:
    from pettingzoo.classic import chess_v6

    return chess_v6.env()


def _c4_env() -> Any:
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


def single_agent_random(seconds: float, seed: int = 0) -> tuple[int, float]:
    """Learner steps of the single-agent wrapper (random learner vs random opponent)."""
    from agents import RandomAgent
    from ffo_env.envs.single_agent import FFOSingleAgentEnv

    env = FFOSingleAgentEnv(side="french", opponent=RandomAgent(seed=seed))
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = 0
    episode = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        legal = np.flatnonzero(env.action_masks())
        _obs, _r, term, trunc, _info = env.step(int(legal[rng.integers(legal.size)]))
        steps += 1
        if term or trunc:
            episode += 1
            env.reset(seed=seed + episode)
    return steps, time.perf_counter() - t0


# -------------------------------------------------------------------- memory


def memory(n_envs: int, steps: int = 300) -> float:
    """Peak traced Python memory (MiB) of ``n_envs`` environments created, reset and stepped."""
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
    for pkg in ("ffo_env", "numpy", "gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib", "chess"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def _machine() -> dict[str, Any]:
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"platform": platform.platform(), "cpu": cpu, "cores": os.cpu_count(), "machine": platform.machine()}


def run_bench(seconds: float = 3.0, repeats: int = 3, warmup: float = 1.0, skip_train: bool = False,
              skip_peers: bool = False, train_config: str | None = None, progress: bool = True) -> dict[str, Any]:
    pin = _pin_one_core()
    results: dict[str, Any] = {}

    def say(msg: str) -> None:
        if progress:
            print(msg, file=sys.stderr, flush=True)

    say("core: random play ...")
    core_runs = []

    def core_fn(sec: float) -> tuple[int, float]:
        counts, dt = core_random(sec)
        core_runs.append((counts, dt))
        return counts["decisions"], dt

    results["core_decisions_per_s"] = _repeat(core_fn, seconds, repeats, warmup)
    game_rates = [c["games"] / dt for c, dt in core_runs[-repeats:]]
    results["core_games_per_s"] = {"median": statistics.median(game_rates), "min": min(game_rates),
                                   "max": max(game_rates), "repeats": game_rates}
    say("AEC env: random play with observations and masks ...")
    results["aec_steps_per_s"] = _repeat(lambda s: aec_random(_ffo_env, s), seconds, repeats, warmup)
    say("single-agent wrapper ...")
    results["single_agent_steps_per_s"] = _repeat(single_agent_random, seconds, repeats, warmup)
    say("memory ...")
    results["memory_mib"] = {"one_env": memory(1), "eight_envs": memory(8)}
    if not skip_peers:
        say("peers: chess_v6, connect_four_v3 ...")
        results["chess_v6_steps_per_s"] = _repeat(lambda s: aec_random(_chess_env, s), seconds, repeats, warmup)
        results["connect_four_v3_steps_per_s"] = _repeat(lambda s: aec_random(_c4_env, s), seconds, repeats, warmup)
        results["ratio_aec_to_chess_v6"] = (results["aec_steps_per_s"]["median"]
                                            / results["chess_v6_steps_per_s"]["median"])
        results["ratio_aec_to_connect_four_v3"] = (results["aec_steps_per_s"]["median"]
                                                   / results["connect_four_v3_steps_per_s"]["median"])
    if not skip_train:
        say("MaskablePPO training samples/s ...")
        results["train"] = train_samples(max(10.0, seconds * repeats), train_config)
    return {
        "format": "ffo-bench",
        "version": 1,
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "settings": {"seconds": seconds, "repeats": repeats, "warmup": warmup, "affinity": pin},
        "versions": _versions(),
        "machine": _machine(),
        "results": results,
    }


def format_table(report: dict[str, Any]) -> str:
    r = report["results"]
    rows = [("figure", "median", "min", "max")]

    def rate(name: str, key: str) -> None:
        if key in r:
            v = r[key]
            rows.append((name, f"{v['median']:,.0f}", f"{v['min']:,.0f}", f"{v['max']:,.0f}"))

    rate("core decisions/s (random play)", "core_decisions_per_s")
    if "core_games_per_s" in r:
        v = r["core_games_per_s"]
        rows.append(("core full games/s", f"{v['median']:.2f}", f"{v['min']:.2f}", f"{v['max']:.2f}"))
    rate("AEC env steps/s (obs + mask)", "aec_steps_per_s")
    rate("single-agent wrapper steps/s", "single_agent_steps_per_s")
    rate("chess_v6 steps/s (same run)", "chess_v6_steps_per_s")
    rate("connect_four_v3 steps/s (same run)", "connect_four_v3_steps_per_s")
    w = max(len(x[0]) for x in rows)
    lines = [f"{a:<{w}}  {b:>10}  {c:>10}  {d:>10}" for a, b, c, d in rows]
    if "ratio_aec_to_chess_v6" in r:
        lines.append(f"AEC / chess_v6 = {r['ratio_aec_to_chess_v6']:.2f}x; "
                     f"AEC / connect_four_v3 = {r['ratio_aec_to_connect_four_v3']:.2f}x")
    if "memory_mib" in r:
        m = r["memory_mib"]
        lines.append(f"peak traced memory: {m['one_env']:.1f} MiB for 1 env, {m['eight_envs']:.1f} MiB for 8 envs")
    if "train" in r:
        t = r["train"]
        lines.append(f"MaskablePPO: {t['samples_per_s']:,.0f} samples/s ({t['timesteps']} samples in {t['seconds']:.1f} s, "
                     f"config {t['config']})")
    return "\n".join(lines)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement repeat (default 3)")
    p.add_argument("--repeats", type=int, default=3, help="repeats per figure; the median is reported (default 3)")
    p.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds before each figure (default 1)")
    p.add_argument("--quick", action="store_true", help="short run: 1 s x 2 repeats, no training figure")
    p.add_argument("--skip-train", action="store_true", help="skip the MaskablePPO samples/s figure")
    p.add_argument("--skip-peers", action="store_true", help="skip chess_v6 / connect_four_v3")
    p.add_argument("--train-config", default=None, help="training config for the samples/s figure "
                   "(default configs/train_quick.yaml)")
    p.add_argument("--out", default="bench.json", help="where to write the JSON report (default bench.json)")


def run(args: argparse.Namespace) -> int:
    if args.quick:
        args.seconds, args.repeats, args.warmup, args.skip_train = 1.0, 2, 0.5, True
    report = run_bench(args.seconds, args.repeats, args.warmup, args.skip_train, args.skip_peers, args.train_config)
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(format_table(report))
    print(f"report written to {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench", description=__doc__.strip().splitlines()[0])
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
