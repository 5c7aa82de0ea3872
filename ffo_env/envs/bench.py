"""Throughput of the environments: ``python -m ffo_env.envs.bench [--seconds 5] [--profile]``.

Random legal play. Reports decisions/s of the core alone, AEC env steps/s with the
acting agent's full observation and mask every step (``last()`` + ``step()``), and
single-agent env steps/s (learner steps; the random opponent's decisions are extra).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

import numpy as np

from ffo_env.core.game import Game, RulesOptions
from ffo_env.envs.aec import env as make_env
from ffo_env.envs.aec import raw_env
from ffo_env.envs.single_agent import FFOSingleAgentEnv


def bench_core(seconds: float) -> float:
    g = Game(options=RulesOptions(setup="random"))
    rng = random.Random(0)
    s = g.new_initial_state(0)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        if s.is_terminal():
            s = g.new_initial_state(n)
        s.apply_action(rng.choice(s.legal_actions()))
        n += 1
    return n / (time.perf_counter() - t0)


def bench_aec(seconds: float, wrapped: bool = True) -> float:
    e = make_env() if wrapped else raw_env()
    rng = np.random.default_rng(0)
    e.reset(seed=0)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, rew, term, trunc, info = e.last()
        if term or trunc:
            e.reset()
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.integers(legal.size)]))
        n += 1
    return n / (time.perf_counter() - t0)


def bench_single(seconds: float) -> float:
    e = FFOSingleAgentEnv()
    rng = np.random.default_rng(0)
    e.reset(seed=0)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        legal = np.flatnonzero(e.action_masks())
        _, _, term, trunc, _ = e.step(int(legal[rng.integers(legal.size)]))
        if term or trunc:
            e.reset()
        n += 1
    return n / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement")
    ap.add_argument("--profile", action="store_true", help="cProfile the wrapped AEC loop")
    a = ap.parse_args(argv)
    print(f"core alone          {bench_core(a.seconds):8.0f} decisions/s")
    print(f"AEC raw  obs+mask   {bench_aec(a.seconds, wrapped=False):8.0f} steps/s")
    print(f"AEC env() obs+mask  {bench_aec(a.seconds):8.0f} steps/s")
    print(f"single-agent        {bench_single(a.seconds):8.0f} learner steps/s")
    if a.profile:
        pr = cProfile.Profile()
        pr.enable()
        bench_aec(a.seconds)
        pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
