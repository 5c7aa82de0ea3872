"""Play France 1940 bots against each other over fixed seeds, in parallel, with Wilson intervals; compare two
bots of one side on paired seeds (exact sign test / McNemar on the discordant seeds).

    python -m agents.france1940.evaluate play --french heuristic --german random --games 200 --out r.jsonl
    python -m agents.france1940.evaluate paired --side german --a heuristic --b expert --opponent heuristic \\
        --games 100 --out p.jsonl
    python -m agents.france1940.evaluate balance --games 10 --out balance.jsonl   # every pair of armies

Game ``i`` uses core seed ``first_seed + i``; each bot is seeded :func:`bot_seed` of it and its side (a hash,
so that no bot is handed a number from which the game's seed, and so its dice, follows). Every finished game
is appended to ``--out`` (JSON lines) at once, so a killed run keeps its games.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agents.france1940 import AGENT_NAMES, make_agent
from agents.paired import sign_test_p, wilson_interval
from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.game import new_state
from ffo_env.france1940.core.options import ALLIED_COLUMNS, GERMAN_COLUMNS
from ffo_env.france1940.core.state import ELIM

SIDES = ("french", "german")
HISTORICAL = ("Hist", "I")  # the historical pair of Orders of Battle (the core's defaults)


def bot_seed(game_seed: int, side: str) -> int:
    """The seed of ``side``'s bot in the game of core seed ``game_seed`` (a hash of both)."""
    digest = hashlib.blake2b(f"france1940-bot/{side}/{int(game_seed)}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 2


Job = tuple[str, str, int, str, str, str]  # french, german, seed, allied_obac, german_obac, options (JSON)


def play(job: Job | tuple[str, str, int, str, str]) -> dict[str, Any]:
    """One game ``(french, german, seed, allied_obac, german_obac[, options as JSON])``: its result row."""
    french, german, seed, a_col, g_col = job[:5]
    extra = json.loads(job[5]) if len(job) > 5 else {}
    s = new_state(seed, None, {**extra, "allied_obac": a_col, "german_obac": g_col})
    bots = [
        make_agent(french, "french", bot_seed(seed, "french")),
        make_agent(german, "german", bot_seed(seed, "german")),
    ]
    t0 = time.perf_counter()
    n = 0
    while not s.is_terminal():
        s.apply_action(bots[s.current_player].act_state(s))
        n += 1
    return {
        "french": french,
        "german": german,
        "seed": seed,
        "allied_obac": a_col,
        "german_obac": g_col,
        **({"options": extra} if extra else {}),
        "winner": SIDES[s.winner],
        "vp_allied": s.vp[ALLIED],
        "vp_german": s.vp[GERMAN],
        "german_lost": sum(1 for u in s.game.side_units[GERMAN] if s.status[u] == ELIM),
        "allied_lost": sum(1 for u in s.game.side_units[ALLIED] if s.status[u] == ELIM),
        "paris": any(e[0] == "paris" for e in s.log),
        "decisions": n,
        "seconds": round(time.perf_counter() - t0, 2),
    }


def _key(r: dict[str, Any]) -> Job:
    opts = json.dumps(r.get("options", {}), sort_keys=True)
    return (r["french"], r["german"], r["seed"], r["allied_obac"], r["german_obac"], opts)


def run(jobs: list[Job], out: str | None, workers: int) -> list[dict[str, Any]]:
    """Play ``jobs`` (in ``workers`` processes), appending each row to ``out`` as it finishes; games already
    in ``out`` (same bots, seed and armies) are read back, not played again (a killed run resumes)."""
    rows: list[dict[str, Any]] = []
    if out and Path(out).exists():
        done = {}
        for line in Path(out).read_text(encoding="utf-8").splitlines():
            try:
                r = json.loads(line)
            except ValueError:  # a blank line, or the last line of a run killed while writing it
                continue
            done[_key(r)] = r
        rows = [done[j] for j in jobs if j in done]
        jobs = [j for j in jobs if j not in done]
    from agents.harness import _GameLog

    total = len(rows) + len(jobs)  # a resumed run counts the games it read back

    # the harness's journal: one line a finished game, flushed and fsynced before the next counts
    fh = _GameLog(Path(out)) if out else None
    try:
        it: Iterable[dict[str, Any]]
        if workers > 1:
            pool = mp.get_context("fork").Pool(workers)
            it = pool.imap_unordered(play, jobs)
        else:
            pool = None
            it = map(play, jobs)
        for row in it:
            rows.append(row)
            if fh:
                fh.append(row)
            if len(rows) % 10 == 0:
                print(f"{len(rows)}/{total} games", file=sys.stderr, flush=True)
        if pool is not None:
            pool.close()
            pool.join()
    finally:
        if fh:
            fh.close()
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Wins of each side with 95 % Wilson intervals, mean VP and losses."""
    n = len(rows)
    gw = sum(1 for r in rows if r["winner"] == "german")
    lo, hi = wilson_interval(gw, n)
    mean = lambda k: round(sum(float(r[k]) for r in rows) / max(1, n), 2)  # noqa: E731
    return {
        "games": n,
        "german_wins": gw,
        "german_win_rate": gw / n if n else 0.0,
        "german_wilson95": [round(lo, 3), round(hi, 3)],
        "french_wins": n - gw,
        "french_wilson95": [round(1 - hi, 3), round(1 - lo, 3)],
        "vp_german_mean": mean("vp_german"),
        "vp_allied_mean": mean("vp_allied"),
        "german_lost_mean": mean("german_lost"),
        "allied_lost_mean": mean("allied_lost"),
        "paris": sum(1 for r in rows if r["paris"]),
        "seconds_mean": mean("seconds"),
    }


def paired(a_rows: list[dict[str, Any]], b_rows: list[dict[str, Any]], side: str) -> dict[str, Any]:
    """Bot B against bot A for ``side`` on the same seeds: wins of each, discordant seeds, exact sign test."""
    a = {r["seed"]: r["winner"] == side for r in a_rows}
    b = {r["seed"]: r["winner"] == side for r in b_rows}
    seeds = sorted(set(a) & set(b))
    b_only = sum(1 for k in seeds if b[k] and not a[k])
    a_only = sum(1 for k in seeds if a[k] and not b[k])
    n = len(seeds)
    wa, wb = sum(a[k] for k in seeds), sum(b[k] for k in seeds)
    return {
        "side": side,
        "seeds": n,
        "a_wins": wa,
        "a_wilson95": [round(x, 3) for x in wilson_interval(wa, n)],
        "b_wins": wb,
        "b_wilson95": [round(x, 3) for x in wilson_interval(wb, n)],
        "b_only": b_only,
        "a_only": a_only,
        "sign_test_p": sign_test_p(b_only, a_only),
    }


def _jobs(
    french: str, german: str, first: int, games: int, a_col: str, g_col: str, options: str = "{}"
) -> list[Job]:
    return [(french, german, first + i, a_col, g_col, options) for i in range(games)]


def _options(items: list[str]) -> str:
    """``KEY=VALUE`` items as the JSON of a mapping (checked against RulesOptions)."""
    from ffo_env.france1940.core.options import RulesOptions

    out: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep:
            raise ValueError(f"--option {item!r}: expected KEY=VALUE")
        try:
            out[key] = json.loads(text)
        except json.JSONDecodeError:
            out[key] = text
    RulesOptions.from_dict(out)  # an unknown option or a bad value is one clear error here
    return json.dumps(out, sort_keys=True)


def read_rows(paths: list[str]) -> list[dict[str, Any]]:
    """The game rows of JSON-lines files written by ``--out``."""
    rows = []
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if line.strip():
                rows.append(json.loads(line))
    return rows


def report(rows: list[dict[str, Any]]) -> str:
    """A Markdown table of every (bots, armies) group of ``rows``: German wins with the Wilson interval."""
    groups: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    for r in rows:
        opts = "".join(f" {k}={v}" for k, v in sorted(r.get("options", {}).items()))
        groups.setdefault((r["french"], r["german"], r["allied_obac"], r["german_obac"] + opts), []).append(r)
    lines = [
        "| Allied bot | German bot | armies | games | German wins | 95 % Wilson | German VP | Allied VP "
        "| German units lost | Allied units lost | Paris | s/game |",
        "|---|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for (f, g, ac, gc), sel in sorted(groups.items()):
        s = summary(sel)
        lo, hi = s["german_wilson95"]
        lines.append(
            f"| {f} | {g} | {ac}/{gc} | {s['games']} | {s['german_wins']} ({s['german_win_rate']:.2f}) "
            f"| [{lo:.2f}, {hi:.2f}] | {s['vp_german_mean']:.1f} | {s['vp_allied_mean']:.1f} "
            f"| {s['german_lost_mean']:.1f} | {s['allied_lost_mean']:.1f} | {s['paris']} | {s['seconds_mean']:.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m agents.france1940.evaluate", description=__doc__.split("\n")[0]
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("play", "paired", "balance"):
        q = sub.add_parser(name)
        q.add_argument("--games", type=int, default=200, help="games (per pair of armies with balance)")
        q.add_argument("--first-seed", type=int, default=0, help="core seed of the first game")
        q.add_argument("--workers", type=int, default=1, help="processes")
        q.add_argument("--out", help="append each game's row here (JSON lines)")
        q.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="a further rules option of every game (RulesOptions field; VALUE read as JSON if it can be)",
        )
        if name != "balance":
            q.add_argument("--allied-obac", choices=ALLIED_COLUMNS, default=HISTORICAL[0])
            q.add_argument("--german-obac", choices=GERMAN_COLUMNS, default=HISTORICAL[1])
    sub.choices["play"].add_argument("--french", choices=AGENT_NAMES, default="heuristic")
    sub.choices["play"].add_argument("--german", choices=AGENT_NAMES, default="random")
    pp = sub.choices["paired"]
    pp.add_argument("--side", choices=SIDES, required=True, help="the side whose two bots are compared")
    pp.add_argument("--a", choices=AGENT_NAMES, default="heuristic", help="baseline bot of --side")
    pp.add_argument("--b", choices=AGENT_NAMES, default="expert", help="candidate bot of --side")
    pp.add_argument("--opponent", choices=AGENT_NAMES, default="heuristic", help="the other side's bot")
    bp = sub.choices["balance"]
    bp.add_argument("--bot", choices=AGENT_NAMES, default="expert", help="the bot of both sides")
    rp = sub.add_parser("report", help="Markdown table of finished games")
    rp.add_argument("files", nargs="+", help="JSON-lines files written by --out")
    a = p.parse_args(argv)
    if a.cmd == "report":
        print(report(read_rows(a.files)))
        return 0
    if a.games <= 0 or a.workers <= 0:
        print("error: --games and --workers must be positive", file=sys.stderr)
        return 2
    try:
        opts = _options(a.option)
    except (ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    if a.cmd == "play":
        rows = run(
            _jobs(a.french, a.german, a.first_seed, a.games, a.allied_obac, a.german_obac, opts),
            a.out,
            a.workers,
        )
        res: dict[str, Any] = {"french": a.french, "german": a.german, **summary(rows)}
    elif a.cmd == "paired":

        def pair(bot: str) -> tuple[str, str]:
            return (bot, a.opponent) if a.side == "french" else (a.opponent, bot)

        fa, ga = pair(a.a)
        fb, gb = pair(a.b)
        jobs = _jobs(fa, ga, a.first_seed, a.games, a.allied_obac, a.german_obac, opts)
        jobs += _jobs(fb, gb, a.first_seed, a.games, a.allied_obac, a.german_obac, opts)
        rows = run(jobs, a.out, a.workers)
        a_rows = [r for r in rows if (r["french"], r["german"]) == (fa, ga)]
        b_rows = [r for r in rows if (r["french"], r["german"]) == (fb, gb)]
        res = {"a": a.a, "b": a.b, "opponent": a.opponent, **paired(a_rows, b_rows, a.side)}
    else:
        jobs = []
        for ac in ALLIED_COLUMNS:
            for gc in GERMAN_COLUMNS:
                jobs += _jobs(a.bot, a.bot, a.first_seed, a.games, ac, gc, opts)
        rows = run(jobs, a.out, a.workers)
        res = {"bot": a.bot, "pairs": {}}
        for ac in ALLIED_COLUMNS:
            for gc in GERMAN_COLUMNS:
                sel = [r for r in rows if (r["allied_obac"], r["german_obac"]) == (ac, gc)]
                res["pairs"][f"{ac}/{gc}"] = summary(sel)
    res["wall_seconds"] = round(time.time() - t0, 1)
    print(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
