"""Tune a scripted bot's parameters against the other side's bot by the cross-entropy method.

``python -m agents.ffo.bot_tuning --side german --out runs/tune_german`` searches the parameters of
:class:`~agents.ffo.german_heuristic.GermanParams` (or ``FrenchParams``) within the ranges the bot
configuration validates (``agents.ffo.botconfig``; a parameter without an upper bound is searched up to
its default plus three times its size, ``--range KEY=LO:HI`` overrides). Each generation samples
``--population`` parameter sets around the current mean (the first one is the mean itself) and plays
every one of them against the opponent on the *same* game seeds (common random numbers: the
differences between candidates are not drowned in the dice). The fitness is low-noise: the mean
victory-point margin of the tuned side, clipped to ``--cap`` (a game already lost or won by a lot
says little), plus ``--win-weight`` times the win rate. The mean moves to the best ``--elite``
fraction. At the end the final mean and the starting parameters are played on ``--holdout`` seeds
never used in the search, and the paired difference is reported.

Writes (atomically, after every generation): ``log.json`` (every candidate, its parameters, fitness,
wins and mean VP), ``candidates.csv``, and at the end ``result.json`` and ``<side>_tuned.yaml`` (a
bot configuration file, loadable with ``make_agent(..., config=PATH)``). Deterministic given
``--seed``.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from agents.harness import agent_seed, wilson_interval
from ffo_env.atomic import atomic_write_text
from ffo_env.ffo.core.game import SETUP_MODES
from ffo_env.ffo.core.sides import SIDE_NAMES, Side

DOC_ONLY = frozenset({"aggression"})  # labels, not behaviour


@dataclass(frozen=True)
class Dim:
    """One searched parameter: numeric (``lo``..``hi``, ``integer``) or categorical (``choices``)."""

    name: str
    kind: str  # "float", "int" or "cat"
    lo: float = 0.0
    hi: float = 1.0
    choices: tuple[Any, ...] = ()


def params_class(side: str) -> type:
    if side == "french":
        from agents.ffo.french_heuristic import FrenchParams

        return FrenchParams
    from agents.ffo.german_heuristic import GermanParams

    return GermanParams


def search_space(
    cls: type,
    only: Sequence[str] = (),
    fixed: Sequence[str] = (),
    ranges: dict[str, tuple[float, float]] | None = None,
) -> list[Dim]:
    """The searched dimensions of a parameter dataclass: its fields' validated ranges (see module doc)."""
    ranges = ranges or {}
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for name in [*only, *fixed, *ranges]:
        if name not in fields:
            raise ValueError(f"unknown parameter {name!r}; known: {', '.join(sorted(fields))}")
    dims = []
    for name, f in fields.items():
        if name in DOC_ONLY or name in fixed or (only and name not in only):
            continue
        d, meta = f.default, dict(f.metadata)
        if isinstance(d, bool):
            dims.append(Dim(name, "cat", choices=(True, False)))
        elif isinstance(d, str):
            dims.append(Dim(name, "cat", choices=tuple(meta.get("choices") or (d,))))
        else:
            size = max(1.0, abs(float(d)))
            lo = float(meta["min"]) if meta.get("min") is not None else float(d) - 3 * size
            hi = float(meta["max"]) if meta.get("max") is not None else float(d) + 3 * size
            if name in ranges:
                r_lo, r_hi = ranges[name]
                lo, hi = max(lo, r_lo), min(hi, r_hi)
                if lo > hi:
                    raise ValueError(f"--range {name}: {r_lo}:{r_hi} lies outside the valid range")
            dims.append(Dim(name, "int" if isinstance(d, int) else "float", lo, hi))
    return dims


class CEM:
    """Cross-entropy search over numeric dimensions (normal, in [0, 1] coordinates) and categorical ones."""

    def __init__(self, dims: list[Dim], start: Any, rng: random.Random, sigma: float = 0.2) -> None:
        self.dims, self.rng = dims, rng
        self.mean: dict[str, float] = {}
        self.std: dict[str, float] = {}
        self.probs: dict[str, list[float]] = {}
        for d in dims:
            v = getattr(start, d.name)
            if d.kind == "cat":
                k = len(d.choices)
                self.probs[d.name] = [0.7 if c == v else 0.3 / max(1, k - 1) for c in d.choices]
            else:
                self.mean[d.name] = (float(v) - d.lo) / (d.hi - d.lo) if d.hi > d.lo else 0.0
                self.std[d.name] = sigma

    def value(self, d: Dim, x: float) -> float | int:
        v = d.lo + min(1.0, max(0.0, x)) * (d.hi - d.lo)
        return int(round(v)) if d.kind == "int" else round(v, 3)

    def center(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for d in self.dims:
            if d.kind == "cat":
                p = self.probs[d.name]
                out[d.name] = d.choices[max(range(len(p)), key=lambda i: (p[i], -i))]
            else:
                out[d.name] = self.value(d, self.mean[d.name])
        return out

    def sample(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for d in self.dims:
            if d.kind == "cat":
                out[d.name] = self.rng.choices(d.choices, weights=self.probs[d.name])[0]
            else:
                out[d.name] = self.value(d, self.rng.gauss(self.mean[d.name], self.std[d.name]))
        return out

    def update(self, elite: list[dict[str, Any]], smoothing: float = 0.7, min_std: float = 0.03) -> None:
        for d in self.dims:
            if d.kind == "cat":
                freq = [sum(e[d.name] == c for e in elite) / len(elite) for c in d.choices]
                old = self.probs[d.name]
                self.probs[d.name] = [
                    smoothing * f + (1 - smoothing) * o for f, o in zip(freq, old, strict=True)
                ]
            else:
                xs = [(e[d.name] - d.lo) / (d.hi - d.lo) if d.hi > d.lo else 0.0 for e in elite]
                m = statistics.fmean(xs)
                s = statistics.pstdev(xs) if len(xs) > 1 else self.std[d.name]
                self.mean[d.name] = smoothing * m + (1 - smoothing) * self.mean[d.name]
                self.std[d.name] = max(min_std, smoothing * s + (1 - smoothing) * self.std[d.name])


# ------------------------------------------------------------------ games


def make_bot(side: str, params: Any, seed: int) -> Any:
    if side == "french":
        from agents.ffo.french_heuristic import FrenchHeuristic

        return FrenchHeuristic(params, seed=seed)
    from agents.ffo.german_heuristic import GermanHeuristic

    return GermanHeuristic(params, seed=seed)


def play(
    side: str, params: Any, opponent: Callable[[str, int], Any], seed: int, setup: str = "random"
) -> int:
    """French VP of one game on ``seed`` (agent seeds as in ``ffo eval``: 2*seed+1, 2*seed+2)."""
    from ffo_env.ffo.env import make_game

    state = make_game(setup).new_initial_state(seed)
    other = Side.of(side).other.agent
    agents = {side: make_bot(side, params, agent_seed(seed, side))}
    agents[other] = opponent(other, agent_seed(seed, other))
    for a in agents.values():
        a.reset(None)
    while not state.is_terminal():
        state.apply_action(agents[state.current_agent].act_state(state))
    return int(state.vp)


def margin(side: str, vp: int, victory_vp: int) -> float:
    """The tuned side's VP margin: positive when it wins (rule 4.3: ``victory_vp`` or more is French)."""
    m = vp - (victory_vp - 0.5)
    return m if side == "french" else -m


def fitness(side: str, vps: Sequence[int], victory_vp: int, cap: float, win_weight: float) -> float:
    ms = [margin(side, v, victory_vp) for v in vps]
    return statistics.fmean(max(-cap, min(cap, m)) for m in ms) + win_weight * sum(m > 0 for m in ms) / len(
        ms
    )


# ------------------------------------------------------------------ the run


def _opponent(name: str) -> Callable[[str, int], Any]:
    from agents.registry import make_agent

    return lambda side, seed: make_agent(name, side, seed=seed)


def _with(base: Any, values: dict[str, Any]) -> Any:
    return dataclasses.replace(base, **values)


def _write_json(path: Path, doc: Any) -> None:
    atomic_write_text(path, json.dumps(doc, indent=1, sort_keys=True) + "\n")


def _csv(rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    keys = sorted({k for r in rows for k in r})
    w = csv.DictWriter(buf, fieldnames=keys)
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def tuned_yaml(side: str, values: dict[str, Any], note: str) -> str:
    doc = {"version": 1, "side": side, "description": note, "params": values}
    return yaml.safe_dump(doc, sort_keys=False)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from agents.ffo.botconfig import load_params
    from ffo_env.ffo.env import make_game

    side = args.side
    cls = params_class(side)
    start = load_params(args.start or f"{side}_heuristic", cls, side)
    ranges = {}
    for item in args.range or []:
        try:
            k, r = item.split("=", 1)
            lo, hi = (float(x) for x in r.split(":", 1))
        except ValueError:
            raise ValueError(f"--range {item!r}: expected KEY=LO:HI") from None
        ranges[k] = (lo, hi)
    dims = search_space(cls, args.only or (), args.fix or (), ranges)
    rng = random.Random(args.seed)
    cem = CEM(dims, start, rng, args.sigma)
    victory = make_game(args.setup).scenario.tables.victory_vp
    opp = _opponent(args.opponent)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log: dict[str, Any] = {
        "args": vars(args),
        "dims": [dataclasses.asdict(d) for d in dims],
        "generations": [],
    }
    rows: list[dict[str, Any]] = []
    t_start = time.perf_counter()
    seed_base = args.seed * 1_000_003 % 900_000 + 100_000  # search seeds; hold-out seeds lie below 100,000
    for gen in range(args.generations):
        seeds = [seed_base + gen * args.games + i for i in range(args.games)]
        cands = [cem.center()] + [cem.sample() for _ in range(args.population - 1)]
        scored = []
        for ci, values in enumerate(cands):
            params = _with(start, values)
            vps = [play(side, params, opp, s, args.setup) for s in seeds]
            fit = fitness(side, vps, victory, args.cap, args.win_weight)
            wins = sum(margin(side, v, victory) > 0 for v in vps)
            scored.append((fit, ci, values))
            rows.append(
                {
                    "generation": gen,
                    "candidate": ci,
                    "fitness": round(fit, 4),
                    "wins": wins,
                    "games": len(vps),
                    "mean_vp": round(statistics.fmean(vps), 3),
                    **values,
                }
            )
            print(
                f"gen {gen} cand {ci:2d}/{len(cands)} fitness {fit:7.3f} wins {wins}/{len(vps)} "
                f"mean VP {statistics.fmean(vps):5.2f}  [{time.perf_counter() - t_start:.0f}s]",
                file=sys.stderr,
                flush=True,
            )
        scored.sort(key=lambda t: (-t[0], t[1]))
        n_elite = max(2, int(round(args.elite * len(scored))))
        cem.update([v for _f, _i, v in scored[:n_elite]], args.smoothing)
        log["generations"].append(
            {
                "generation": gen,
                "seeds": [seeds[0], seeds[-1]],
                "center_fitness": next(f for f, i, _v in scored if i == 0),
                "best_fitness": scored[0][0],
                "best": scored[0][2],
                "new_center": cem.center(),
            }
        )
        log["elapsed_s"] = round(time.perf_counter() - t_start, 1)
        _write_json(out / "log.json", log)
        atomic_write_text(out / "candidates.csv", _csv(rows))
    final = cem.center()
    holdout = [args.seed * 7919 % 50_000 + i for i in range(args.holdout)]
    result: dict[str, Any] = {
        "side": side,
        "opponent": args.opponent,
        "tuned": final,
        "start": {d.name: getattr(start, d.name) for d in dims},
        "holdout_seeds": [holdout[0], holdout[-1]] if holdout else [],
    }
    if holdout:
        per = {}
        for label, params in (("start", start), ("tuned", _with(start, final))):
            vps = [play(side, params, opp, s, args.setup) for s in holdout]
            wins = sum(margin(side, v, victory) > 0 for v in vps)
            lo, hi = wilson_interval(wins, len(vps))
            per[label] = {
                "vps": vps,
                "wins": wins,
                "win_rate": wins / len(vps),
                "wilson": [lo, hi],
                "mean_vp": statistics.fmean(vps),
                "fitness": fitness(side, vps, victory, args.cap, args.win_weight),
            }
            print(
                f"hold-out {label}: wins {wins}/{len(vps)} [{lo:.3f}, {hi:.3f}] mean VP "
                f"{statistics.fmean(vps):.2f}",
                file=sys.stderr,
                flush=True,
            )
        diffs = [
            margin(side, b, victory) - margin(side, a, victory)
            for a, b in zip(per["start"]["vps"], per["tuned"]["vps"], strict=True)
        ]
        se = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else float("nan")
        result["holdout"] = {**per, "paired_margin_gain": statistics.fmean(diffs), "paired_margin_se": se}
    result["elapsed_s"] = round(time.perf_counter() - t_start, 1)
    _write_json(out / "result.json", result)
    note = f"tuned by agents.ffo.bot_tuning against {args.opponent} (seed {args.seed})"
    atomic_write_text(
        out / f"{side}_tuned.yaml", tuned_yaml(side, {**dataclasses.asdict(_with(start, final))}, note)
    )
    return result


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m agents.ffo.bot_tuning", description=__doc__.split("\n\n")[0])
    p.add_argument("--side", choices=SIDE_NAMES, required=True, help="the side whose bot is tuned")
    p.add_argument("--opponent", default="heuristic", help="agent name of the other side (default heuristic)")
    p.add_argument("--start", help="starting bot configuration (name or path; default <side>_heuristic)")
    p.add_argument("--out", required=True, help="output folder (log.json, candidates.csv, result.json, yaml)")
    p.add_argument("--generations", type=int, default=8)
    p.add_argument("--population", type=int, default=12, help="candidates a generation (the mean included)")
    p.add_argument("--games", type=int, default=30, help="games a candidate plays each generation")
    p.add_argument("--holdout", type=int, default=100, help="hold-out games for the final check (0: none)")
    p.add_argument("--elite", type=float, default=0.25, help="fraction of the candidates the mean moves to")
    p.add_argument("--sigma", type=float, default=0.2, help="initial spread, as a fraction of each range")
    p.add_argument("--smoothing", type=float, default=0.7, help="weight of the elite in each update")
    p.add_argument("--cap", type=float, default=8.0, help="VP margins are clipped to +-cap in the fitness")
    p.add_argument("--win-weight", type=float, default=4.0, help="fitness weight of the win rate")
    p.add_argument("--only", nargs="*", help="search only these parameters")
    p.add_argument("--fix", nargs="*", help="keep these parameters at their starting values")
    p.add_argument("--range", nargs="*", help="narrow a search range: KEY=LO:HI")
    p.add_argument(
        "--setup",
        default="random",
        choices=SETUP_MODES,
        help="setup mode of every game (R2; default random, as ffo eval)",
    )
    p.add_argument("--seed", type=int, default=0)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    for k in ("generations", "population", "games"):
        if getattr(args, k) < 1:
            print(f"error: --{k} must be at least 1", file=sys.stderr)
            return 2
    try:
        run(args)
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
