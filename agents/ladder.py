"""The ladder: every agent against every agent on both sides, and one rating table with intervals.

    ffo ladder                                              # the scripted ladder, 40 games per pairing
    ffo ladder --agents random,heuristic,policy:runs/x/policies/french.pt --games 200
    ffo ladder --resume runs/ladder-20261123-101500        # continue a killed ladder
    ffo ladder --resume runs/ladder-20261123-101500 --add pretrained   # a new agent joins a ladder
    ffo ladder --game springtime --games 200                 # Springtime for Hitler's bots

The games are an ``ffo eval`` round robin (each agent as French against each agent as German, itself
included; a policy file or a one-side bot such as ``french_expert`` plays only its own side and gets no
rating for the other), with the same seeds, partial results and ``--resume``. ``--add`` gives a ladder more
agents: the games it has are kept (a game is fixed by its two agents and its seed) and only the new
pairings are played.

The ratings are a Bradley-Terry model of the French result,
``P(French wins) = 1 / (1 + 10 ** ((g - f) / 400))``, with one Elo-scale rating per agent and side (``f`` as
French, ``g`` as German), fitted by maximum a posteriori (a wide normal prior, sd 1,000, keeps 200-0
results finite) and centred so that the mean of all ratings (both sides) is 0; an agent's French rating
minus its German rating shows the side's advantage. Intervals are 95% credible intervals of each rating's
difference from that mean, from the normal (Laplace) approximation of the posterior: unlike a bootstrap,
they stay honest when a pairing ends 200-0. (Anchoring at one agent, e.g. ``random``, would give every
rating that agent's uncertainty, which is large when it never wins.)

``--game springtime`` rates the bots of Springtime for Hitler (default agents ``random,pass,heuristic,expert``);
the tournament folder records its game, and ``ladder.json`` and ``ladder.md`` name it.

Writes ``ladder.json``, ``ladder.csv`` and ``ladder.md`` (the table, for a README) beside the tournament
files, and prints the table.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from ffo_env.atomic import atomic_write_text, new_unique_dir
from ffo_env.games import DEFAULT_GAME, SIDES, refuse_game_options

ELO = 400.0 / np.log(10.0)  # Elo points per unit of log-odds
PRIOR_SD = 1000.0 / ELO


def ladder_agents(game: str = DEFAULT_GAME) -> str:
    """The agents of ``ffo ladder`` without ``--agents``: the game's ``LADDER_AGENTS``
    (``agents.<package>``), or else every agent name of the game."""
    from agents.registry import game_agents

    module = game_agents(game)
    return str(getattr(module, "LADDER_AGENTS", ",".join(module.AGENT_NAMES)))


def __getattr__(name: str) -> Any:
    """``DEFAULT_AGENTS`` (the default game's ladder agents) and ``GAME_DEFAULT_AGENTS`` (other games'): the
    names before issue 62, kept one release."""
    from ffo_env.games import GAME_NAMES

    if name == "DEFAULT_AGENTS":
        return ladder_agents()
    if name == "GAME_DEFAULT_AGENTS":
        return {g: ladder_agents(g) for g in GAME_NAMES if g != DEFAULT_GAME}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def fit_ratings(results: list[tuple[str, str, int, int]]) -> dict[str, tuple[float, float, float]]:
    """Elo-scale ratings with 95% intervals, ``{"<agent>@french": (elo, lo, hi), "<agent>@german": ...}``, from
    ``(french, german, french_wins, games)`` rows, relative to the mean of all ratings."""
    fr = sorted({r[0] for r in results})
    ge = sorted({r[1] for r in results})
    fi = {a: i for i, a in enumerate(fr)}
    gi = {a: len(fr) + i for i, a in enumerate(ge)}
    n = len(fr) + len(ge)
    rows = np.array([(fi[f], gi[g], w, m) for f, g, w, m in results], dtype=float).reshape(-1, 4)
    a, b, wins, games = rows[:, 0].astype(int), rows[:, 1].astype(int), rows[:, 2], rows[:, 3]
    x = np.zeros(n)
    hess = -np.eye(n) / PRIOR_SD**2
    for _ in range(100):  # Newton's method on the log posterior: concave, converges in a few steps
        p = 1.0 / (1.0 + np.exp(-(x[a] - x[b])))
        resid = wins - games * p
        grad = -x / PRIOR_SD**2
        np.add.at(grad, a, resid)
        np.add.at(grad, b, -resid)
        w = games * p * (1.0 - p)
        hess = -np.eye(n) / PRIOR_SD**2
        np.add.at(hess, (a, a), -w)
        np.add.at(hess, (b, b), -w)
        np.add.at(hess, (a, b), w)
        np.add.at(hess, (b, a), w)
        step = np.linalg.solve(hess, grad)
        x -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    cov = np.linalg.inv(-hess)
    ref = np.full(n, 1.0 / n)  # rating = x_i - mean(x): the model only determines differences
    out = {}
    for name, i in [*((f"{f}@french", fi[f]) for f in fr), *((f"{g}@german", gi[g]) for g in ge)]:
        c = -ref.copy()
        c[i] += 1.0
        mid = float(c @ x) * ELO
        sd = float(np.sqrt(max(c @ cov @ c, 0.0))) * ELO
        out[name] = (mid, mid - 1.959963984540054 * sd, mid + 1.959963984540054 * sd)
    return out


def ladder_table(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per agent: ratings and intervals per side, mean rating, games and win rate per side."""
    results = [
        (p["french"], p["german"], int(p["french_wins"]), int(p["games"])) for p in summary["pairings"]
    ]
    fitted = fit_ratings(results)
    agents = list(dict.fromkeys([r[0] for r in results] + [r[1] for r in results]))
    rows = []
    for agent in agents:
        row: dict[str, Any] = {"agent": agent}
        sides = []
        for side in SIDES:
            key = f"{agent}@{side}"
            mine = [p for p in summary["pairings"] if p[side] == agent]
            won = sum(int(p[f"{side}_wins"]) for p in mine)
            played = sum(int(p["games"]) for p in mine)
            row[f"{side}_games"] = played
            row[f"{side}_win_rate"] = round(won / played, 4) if played else None
            if key in fitted:
                mid, lo, hi = fitted[key]
                row[f"{side}_elo"], row[f"{side}_lo95"], row[f"{side}_hi95"] = (
                    round(mid, 1),
                    round(lo, 1),
                    round(hi, 1),
                )
                sides.append(mid)
            else:
                row[f"{side}_elo"] = row[f"{side}_lo95"] = row[f"{side}_hi95"] = None
        row["mean_elo"] = round(sum(sides) / len(sides), 1) if sides else None
        rows.append(row)
    rows.sort(key=lambda r: -(r["mean_elo"] if r["mean_elo"] is not None else -1e9))
    return rows


COLUMNS = (
    "agent",
    "mean_elo",
    "french_elo",
    "french_lo95",
    "french_hi95",
    "french_win_rate",
    "french_games",
    "german_elo",
    "german_lo95",
    "german_hi95",
    "german_win_rate",
    "german_games",
)


def _fmt(v: Any, digits: int = 0) -> str:
    if v is None:
        return "–"
    return f"{v:,.{digits}f}" if isinstance(v, float) else str(v)


def markdown(rows: list[dict[str, Any]], summary: dict[str, Any]) -> str:
    cfg = summary["config"]
    game = cfg.get("game", DEFAULT_GAME)
    played = f"setup {cfg['setup']}" if game == DEFAULT_GAME else f"game {game}"  # the line as it always was
    lines = [
        f"Ladder: {cfg['games_per_pairing']} games per pairing (seeds {cfg['seeds']}, {played}, "
        f"{cfg.get('engine', '?')}, {cfg.get('data_version', '?')}). Elo scale, mean of all ratings = 0; "
        "[95% interval]; win rate over all its games on that side.",
        "",
        "| agent | mean | as French | [95%] | French win rate | as German | [95%] | German win rate |",
        "|---|---:|---:|---|---:|---:|---|---:|",
    ]
    for r in rows:
        fci = f"[{_fmt(r['french_lo95'])}, {_fmt(r['french_hi95'])}]" if r["french_elo"] is not None else "–"
        gci = f"[{_fmt(r['german_lo95'])}, {_fmt(r['german_hi95'])}]" if r["german_elo"] is not None else "–"
        lines.append(
            f"| `{r['agent']}` | {_fmt(r['mean_elo'])} | {_fmt(r['french_elo'])} | {fci} | "
            f"{_fmt(r['french_win_rate'], 3)} | {_fmt(r['german_elo'])} | {gci} | "
            f"{_fmt(r['german_win_rate'], 3)} |"
        )
    return "\n".join(lines) + "\n"


def write_ladder(out: Path, rows: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=COLUMNS)
    w.writeheader()
    w.writerows(rows)
    atomic_write_text(out / "ladder.csv", buf.getvalue())
    atomic_write_text(out / "ladder.md", markdown(rows, summary))
    doc = {
        "game": summary["config"].get("game", DEFAULT_GAME),
        "model": "Bradley-Terry on the French result, one rating per agent and side, MAP with a normal prior "
        "(sd 1000 Elo), centred on the mean of all ratings; 95% intervals from the posterior's normal "
        "approximation",
        "config": summary["config"],
        "ratings": rows,
    }
    atomic_write_text(out / "ladder.json", json.dumps(doc, indent=1) + "\n")


def add_arguments(p: argparse.ArgumentParser) -> None:
    from agents.harness import add_run_arguments

    p.add_argument(
        "--agents",
        default=None,
        help="comma-separated agent names (default: the game's ladder agents, LADDER_AGENTS of its agents "
        "package, or else all its agents)",
    )
    add_run_arguments(
        p,
        what="ladder",
        games=40,
        seed_help="seed of the first game of every pairing",
        out_help="output folder (default: a new runs/ladder-<timestamp>)",
        resume_help="continue the killed ladder in DIR (finished games are kept)",
    )
    p.add_argument(
        "--add",
        metavar="AGENTS",
        help="with --resume DIR: comma-separated agents that join the ladder in DIR; its games are kept and "
        "only the new pairings are played",
    )


def _agent_names(text: str, option: str, game: str = DEFAULT_GAME) -> list[str]:
    from agents.harness import is_game_agent_name, unknown_agent

    names = [a.strip() for a in text.split(",") if a.strip()]
    if len(set(names)) != len(names):
        raise ValueError(f"{option} {text!r} names an agent twice")
    for n in names:
        if not is_game_agent_name(n, game):
            raise unknown_agent(n, game)
    return names


def run(args: argparse.Namespace) -> int:
    from agents import harness

    if args.resume:
        if args.force or (args.out is not None and Path(args.out) != Path(args.resume)):
            raise ValueError(
                "--resume DIR continues the ladder in DIR as it was started: no --out or --force"
            )
        harness._resume_args(args)
        pairings = args.pairing_list
        names = list(dict.fromkeys([*(f for f, _ in pairings), *(g for _, g in pairings)]))
        if sorted(pairings) != sorted(harness.round_robin(names, args.game)):
            raise ValueError(
                f"{args.resume}: not a ladder (its pairings are not a round robin of its agents)"
            )
        if args.add:
            added = _agent_names(args.add, "--add", args.game)
            again = [n for n in added if n in names]
            if again:
                raise ValueError(f"--add {args.add!r}: {again[0]!r} is in the ladder already")
            names += added
            pairings = harness.round_robin(names, args.game)
            harness.extend_tournament(Path(args.resume), pairings)
        args.agents = ",".join(names)
    else:
        if args.add:
            raise ValueError("--add AGENTS joins agents to a ladder: give the ladder with --resume DIR")
        refuse_game_options(args)
        if args.agents is None:
            args.agents = ladder_agents(args.game)
        names = _agent_names(args.agents, "--agents", args.game)
        if len(names) < 2:
            raise ValueError(f"--agents {args.agents!r}: a ladder needs at least two agents")
        harness.check_both_sides_played(names, f"--agents {args.agents!r}", args.game)
        pairings = harness.round_robin(names, args.game)
    if args.games < 1 or args.workers < 1:
        raise ValueError(f"--games and --workers must be >= 1, got {args.games} and {args.workers}")
    out = (
        Path(args.out)
        if args.out is not None
        else new_unique_dir("runs", f"ladder-{time.strftime('%Y%m%d-%H%M%S')}")
    )
    summary = harness.run_tournament(
        pairings,
        games=args.games,
        seed=args.seed,
        workers=args.workers,
        setup=args.setup,
        out=out,
        progress=not args.no_progress,
        cli_args={"command": "ladder", "agents": args.agents},
        resume=bool(args.resume),
        overwrite=args.force,
        game=args.game,
    )
    rows = ladder_table(summary)
    write_ladder(out, rows, summary)
    print(markdown(rows, summary))
    print(
        f"written to {out}/ (ladder.md, ladder.csv, ladder.json, and the tournament's results.json, games.csv)"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agents.ladder", description=__doc__.strip().splitlines()[0])
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
