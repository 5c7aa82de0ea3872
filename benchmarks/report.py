"""The ``ffo bench`` report: every figure in one run, machine and versions, and the printed table."""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks.env_memory import env_churn_rss_mib
from benchmarks.env_speed import (
    PEERS,
    _default_env,
    _default_raw_env,
    aec_random,
    bot_play,
    core_random,
    gym_id_random,
    single_agent_random,
    suite_aec_env,
    suite_core_random,
    suite_flat_id,
)
from benchmarks.timing import _interleaved, _pin_one_core, _repeat, _stats, _unpin
from benchmarks.traced_memory import memory
from benchmarks.training_speed import (
    imitation_samples,
    train_samples,
    train_samples_all_cores,
    train_samples_pipelined,
)
from ffo_env.games import DEFAULT_GAME, GAME_NAMES, game_info

# version 4: the Springtime for Hitler figures (springtime_*), every version-3 field unchanged;
# version 6: the same figures for every other game of the suite's registry (france1940_*), by one loop
FORMAT, VERSION = "ffo-bench", 6
# the games measured beside France Fights On (whose rows carry no prefix): every other game of the registry
OTHER_GAMES = tuple(g for g in GAME_NAMES if g != DEFAULT_GAME)
BOTS = (
    "heuristic",
    "expert",
)  # the scripted opponents of the benchmark tasks and the ladder (report version 5)


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


def _games_per_s(runs: list[tuple[dict[str, int], float]], seconds: float) -> dict[str, Any]:
    """Full games a second over the repeats; when no repeat finished a game (a France 1940 game of random play
    is longer than a 3 s repeat) the figure is not measured, not 0: an ``error`` naming why."""
    if not any(c["games"] for c, _dt in runs):
        return {"error": f"no game finished within a {seconds:g} s repeat"}
    return _stats([c["games"] / dt for c, dt in runs])


def _pipelines(train_config: str | None) -> bool:
    """Whether the training config's game offers ``vec_env: pipelined`` (its network part's ``vec_envs``)."""
    from agents.network_spec import network_of
    from training.config import DEFAULT_CONFIG, load_config

    return "pipelined" in network_of(load_config(train_config or DEFAULT_CONFIG).game).vec_envs


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
    skip_games: Sequence[str] = (),
) -> dict[str, Any]:
    """All figures; returns the JSON-ready report (see :func:`format_table`).

    Every game of :data:`OTHER_GAMES` not in ``skip_games`` gets the same rows, keyed by its name: random
    play on its core (``<game>_core_decisions_per_s``, ``<game>_core_games_per_s``), its AEC env interleaved
    with France Fights On's and the peers (``<game>_aec_steps_per_s``, ``ratio_<game>_aec_to_<peer>``) and
    its French ``-flat-v0`` Gymnasium id (``<game>_flat_steps_per_s``)."""
    unknown = sorted(set(skip_games) - set(OTHER_GAMES))
    if unknown:
        raise ValueError(
            f"skip_games: {unknown} not among the games measured beside {DEFAULT_GAME}: {list(OTHER_GAMES)}"
        )
    games = [g for g in OTHER_GAMES if g not in skip_games]
    load_before = _loadavg()
    pin_desc, previous = _pin_one_core() if pin else ("not pinned (pin=False)", None)
    results: dict[str, Any] = {}
    t_start = time.perf_counter()
    train_budget = max(10.0, seconds * repeats)  # seconds of each training figure

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
        results["core_games_per_s"] = _games_per_s(core_runs[-repeats:], seconds)
        for game in games:
            say(f"{game_info(game).title} core: random play ...")
            game_runs: list[tuple[dict[str, int], float]] = []

            def game_core_fn(sec: float, game: str = game, runs: list[Any] = game_runs) -> tuple[int, float]:
                counts, dt = suite_core_random(game, sec)
                runs.append((counts, dt))
                return counts["decisions"], dt

            results[f"{game}_core_decisions_per_s"] = _repeat(game_core_fn, seconds, repeats, warmup)
            results[f"{game}_core_games_per_s"] = _games_per_s(game_runs[-repeats:], seconds)
        figures: dict[str, Callable[[float], tuple[int, float]]] = {
            "aec": lambda s: aec_random(_default_env, s),
            "aec_raw": lambda s: aec_random(_default_raw_env, s),
        }
        for game in games:
            figures[f"{game}_aec"] = (lambda mk: lambda s: aec_random(mk, s))(suite_aec_env(game))
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
        others = [*(game_info(g).title for g in games), *peers_ok]
        say(f"AEC env with observations and masks, interleaved with {', '.join(others) or 'no peers'} ...")
        rates = _interleaved(figures, seconds, repeats, warmup)
        results["aec_steps_per_s"] = _stats(rates["aec"])
        results["aec_raw_steps_per_s"] = _stats(rates["aec_raw"])
        for game in games:
            results[f"{game}_aec_steps_per_s"] = _stats(rates[f"{game}_aec"])
            # per repeat, against the default game's env in the same process: holds under a shared load
            ratios = [a / f for a, f in zip(rates[f"{game}_aec"], rates["aec"], strict=True) if f > 0]
            results[f"ratio_{game}_aec_to_{DEFAULT_GAME}_aec"] = statistics.median(ratios)
            results[f"ratio_{game}_aec_to_{DEFAULT_GAME}_aec_spread"] = [min(ratios), max(ratios)]
        for name in peers_ok:
            results[f"{name}_steps_per_s"] = _stats(rates[name])
            for prefix in ("", *(f"{g}_" for g in games)):
                ratios = [a / p for a, p in zip(rates[f"{prefix}aec"], rates[name], strict=True) if p > 0]
                results[f"ratio_{prefix}aec_to_{name}"] = statistics.median(ratios)
                results[f"ratio_{prefix}aec_to_{name}_spread"] = [min(ratios), max(ratios)]
        say("single-agent wrapper ...")
        results["single_agent_steps_per_s"] = _repeat(single_agent_random, seconds, repeats, warmup)
        say("single-agent wrapper, compact observation ...")
        results["single_agent_compact_steps_per_s"] = _repeat(
            lambda s: single_agent_random(s, observation_format="compact"), seconds, repeats, warmup
        )
        for bot in BOTS:
            say(f"{bot} bot playing both sides ...")
            results[f"bot_{bot}_decisions_per_s"] = _repeat(partial(bot_play, bot), seconds, repeats, warmup)
        for game in games:
            flat_id = suite_flat_id(game)
            say(f"{game_info(game).title} Gymnasium env ({flat_id}, random opponent) ...")
            results[f"{game}_flat_steps_per_s"] = _repeat(
                partial(gym_id_random, flat_id), seconds, repeats, warmup
            )
        say("memory ...")
        results["memory_mib"] = {
            "one_env": memory(1, memory_steps),
            "eight_envs": memory(8, memory_steps),
            "steps_per_env": memory_steps,
        }
        say("env churn memory (1,000 envs created, reset, closed) ...")
        results["env_churn_rss_mib"] = env_churn_rss_mib(1000)
        if not skip_train:
            say("MaskablePPO training samples/s ...")
            results["train"] = train_samples(train_budget, train_config)
            say("imitation (behaviour cloning) fit samples/s ...")
            results["imitation_fit"] = imitation_samples(train_budget, train_config)
    finally:
        _unpin(previous)
    if not skip_train:
        from training.config import usable_cores

        if usable_cores() > 1:
            say("MaskablePPO training samples/s, updates on every core ...")
            results["train_all_cores"] = train_samples_all_cores(train_budget, train_config)
            if _pipelines(train_config):  # a rollout worker process exists for France Fights On's envs only
                say("MaskablePPO training samples/s, rollouts pipelined in a worker process ...")
                results["train_pipelined"] = train_samples_pipelined(train_budget, train_config)
        r_single = results["single_agent_steps_per_s"]["median"]
        for key in ("train", "train_all_cores", "train_pipelined"):
            if key in results and r_single > 0:
                results[f"ratio_{key}_to_single_agent"] = results[key]["samples_per_s"] / r_single
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
    rate("single-agent wrapper steps/s, compact obs", "single_agent_compact_steps_per_s")
    for bot in BOTS:
        rate(f"{bot} bot decisions/s (both sides)", f"bot_{bot}_decisions_per_s")
    for game in OTHER_GAMES:
        title = game_info(game).title
        rate(f"{title} core decisions/s (random play)", f"{game}_core_decisions_per_s")
        rate(f"{title} core full games/s", f"{game}_core_games_per_s", ".2f")
        rate(f"{title} AEC env() steps/s (obs + mask)", f"{game}_aec_steps_per_s")
        rate(f"{title} Gymnasium flat env steps/s", f"{game}_flat_steps_per_s")
    rate("chess_v6 steps/s (same run)", "chess_v6_steps_per_s")
    rate("connect_four_v3 steps/s (same run)", "connect_four_v3_steps_per_s")
    w = max(len(x[0]) for x in rows)
    lines = [f"{a:<{w}}  {b:>10}  {c:>10}  {d:>10}" for a, b, c, d in rows]
    for peer in PEERS:
        k = f"ratio_aec_to_{peer}"
        if k in r:
            lo, hi = r[f"{k}_spread"]
            lines.append(f"AEC / {peer} = {r[k]:.2f}x (per repeat {lo:.2f}-{hi:.2f})")
    for game in OTHER_GAMES:
        k = f"ratio_{game}_aec_to_{DEFAULT_GAME}_aec"
        if k in r:
            lo, hi = r[f"{k}_spread"]
            lines.append(
                f"{game_info(game).title} AEC / {game_info(DEFAULT_GAME).title} AEC = {r[k]:.2f}x "
                f"(per repeat {lo:.2f}-{hi:.2f})"
            )
        for peer in PEERS:
            k = f"ratio_{game}_aec_to_{peer}"
            if k in r:
                lo, hi = r[f"{k}_spread"]
                lines.append(
                    f"{game_info(game).title} AEC / {peer} = {r[k]:.2f}x (per repeat {lo:.2f}-{hi:.2f})"
                )
    if "memory_mib" in r:
        m = r["memory_mib"]
        lines.append(
            f"peak traced memory: {m['one_env']:.1f} MiB for 1 env, {m['eight_envs']:.1f} MiB for 8 envs"
        )
    if "env_churn_rss_mib" in r:
        lines.append(
            f"RSS growth after 1,000 envs created, reset and closed: {r['env_churn_rss_mib']:.1f} MiB"
        )
    if "train" in r:
        t = r["train"]
        setup = f"{t['n_envs']} {t['vec_env']} envs, " if "n_envs" in t else ""
        cpu = f", {t['samples_per_cpu_s']:,.0f} per CPU second" if "samples_per_cpu_s" in t else ""
        lines.append(
            f"MaskablePPO: {t['samples_per_s']:,.0f} samples/s{cpu} ({t['timesteps']} samples in "
            f"{t['seconds']:.1f} s, {setup}config {t['config']})"
        )
        if "ratio_train_to_single_agent" in r:
            lines.append(
                f"MaskablePPO samples/s / single-agent wrapper steps/s = {r['ratio_train_to_single_agent']:.2f}"
            )
    if "train_all_cores" in r:
        t = r["train_all_cores"]
        lines.append(
            f"MaskablePPO, updates on {t['learner_threads']} cores: {t['samples_per_s']:,.0f} samples/s "
            f"({t['timesteps']} samples in {t['seconds']:.1f} s); / single-agent wrapper steps/s = "
            f"{r.get('ratio_train_all_cores_to_single_agent', 0.0):.2f}"
        )
    if "train_pipelined" in r:
        t = r["train_pipelined"]
        lines.append(
            f"MaskablePPO, rollouts pipelined in a worker (vec_env: pipelined, 2 cores): "
            f"{t['samples_per_s']:,.0f} samples/s, {t['samples_per_cpu_s']:,.0f} per CPU second of both "
            f"({t['timesteps']} samples in {t['seconds']:.1f} s); / single-agent wrapper steps/s = "
            f"{r.get('ratio_train_pipelined_to_single_agent', 0.0):.2f}"
        )
    if "imitation_fit" in r:
        t = r["imitation_fit"]
        lines.append(
            f"imitation fit: {t['samples_per_s']:,.0f} samples/s ({t['samples']} samples in {t['seconds']:.1f} s, "
            f"batch {t['batch_size']}, config {t['config']})"
        )
    m = report.get("machine", {})
    s = report.get("settings", {})
    lines.append(
        f"{s.get('seconds')} s x {s.get('repeats')} repeats, {s.get('affinity')}; load average "
        f"{m.get('loadavg_before')} before, {m.get('loadavg_after')} after; {m.get('cpu')}"
    )
    return "\n".join(lines)
