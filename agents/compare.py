"""Is agent B stronger than agent A on one side? Paired games against one opponent on the same seeds.

    ffo compare --side french --a pretrained --b policy:runs/<run>/policies/french.pt --opponent expert \\
        --games 400 --out runs/compare-french
    ffo compare --resume runs/compare-french        # a killed comparison plays only its missing games
    ffo compare --side french --a pretrained --b policy:new.pt --opponent expert --games 400 \\
        --a-games runs/eval-baseline --out runs/compare-new   # A's games taken from an earlier tournament

A and B each play ``--games`` games of ``--side`` against ``--opponent``, game ``i`` of both on seed
``--seed + i`` (the same setup, dice stream and opponent seed: :mod:`agents.harness`), in one tournament with
its workers, progress bar, journal and resume. The statistics (:mod:`agents.paired`): each win rate with its
95 % Wilson interval, the difference with the exact McNemar test on the seeds won by only one of the two, and
the paired VP difference with its standard error. Written to ``--out``: ``compare.json``, ``compare.md``, and
the tournament's own files (``results.json``, ``games.csv``, ``games.jsonl``, ...).

``--a-games DIR`` takes A's games from an earlier tournament in ``DIR`` (an ``ffo eval`` or ``ffo compare`` in
which A played the same side against the same opponent, on the same game, data, setup and first seed), so
that each new candidate costs only its own games. A game is fixed by its seed and agents, so the reused games
are the games A would play; the first ``--verify`` of them (default 2) are played again here and must match
exactly (result, VP, turns, decisions), which catches an agent that has changed since (a new ``pretrained``
policy, another policy file at the same path). Seeds ``DIR`` lacks are played.

``--game springtime`` compares bots of Springtime for Hitler; that game has no VP, so the paired score
difference is that of the final French Morale (``compare.json`` names the game and the score).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agents.paired import Outcome, game_score, paired_comparison, summary_text
from agents.registry import agent_sides
from ffo_env.atomic import atomic_write_text, new_unique_dir
from ffo_env.games import DEFAULT_GAME, SIDES, refuse_game_options

COMPARE_JSON = "compare.json"
COMPARE_MD = "compare.md"


def pairings_of(side: str, a: str, b: str, opponent: str) -> list[tuple[str, str]]:
    """The tournament's two (french, german) pairings: A, then B, on ``side`` against ``opponent``."""
    if side == "french":
        return [(a, opponent), (b, opponent)]
    return [(opponent, a), (opponent, b)]


def outcomes(rows: list[dict[str, Any]], pairing: int, side: str) -> dict[int, Outcome]:
    """The game seed -> outcome of ``side`` in the tournament rows of one pairing (the score is the French VP,
    or in a game without VP such as Springtime for Hitler the final French Morale)."""
    return {
        int(r["seed"]): Outcome(
            r["winner"] == side,
            float(r["vp"] if "vp" in r else r["vp_margin"] if "vp_margin" in r else r["morale"]),
        )
        for r in rows
        if r["pairing"] == pairing
    }


def compare_from_plan(plan_pairings: list[list[str]]) -> tuple[str, str, str, str]:
    """``(side, a, b, opponent)`` of a comparison's tournament, from its two pairings (the opponent is the agent
    both pairings share on the other side)."""
    if len(plan_pairings) != 2:
        raise ValueError("not a comparison: its tournament does not have exactly two pairings")
    (f1, g1), (f2, g2) = plan_pairings
    if g1 == g2 and f1 != f2:
        return "french", f1, f2, g1
    if f1 == f2 and g1 != g2:
        return "german", g1, g2, f1
    raise ValueError("not a comparison: its two pairings do not share an opponent")


def add_arguments(p: argparse.ArgumentParser) -> None:
    from agents.harness import add_run_arguments

    p.add_argument("--side", choices=SIDES, help="the side A and B play")
    p.add_argument("--a", metavar="AGENT", help="agent A, the baseline (e.g. pretrained)")
    p.add_argument("--b", metavar="AGENT", help="agent B, the candidate (e.g. policy:PATH)")
    p.add_argument("--opponent", metavar="AGENT", help="the agent both play against (e.g. expert)")
    add_run_arguments(
        p,
        what="comparison",
        games=400,
        seed_help="seed of the first game; game i of A and of B uses seed+i",
        out_help="output folder (default: a new runs/compare-<timestamp>)",
        resume_help="continue the killed comparison in DIR: its agents, games and seed come from DIR",
    )
    p.add_argument(
        "--a-games",
        metavar="DIR",
        help="take A's games from the earlier tournament in DIR (same side, opponent, game, data, setup and "
        "first seed); only B's games and the missing ones are played",
    )
    p.add_argument(
        "--verify",
        type=int,
        default=2,
        metavar="K",
        help="with --a-games: play the first K reused games again and stop unless they match (default 2)",
    )


# what must be equal for a game reused from another tournament to be the game this one would play (the
# seconds it took are not)
SAME_GAME_KEYS = ("french", "german", "seed", "winner", "turn", "decisions", "agent_decisions")


def reuse_games(
    src: Path, pairing: tuple[str, str], args: argparse.Namespace, verify: int, data_version: str
) -> list[dict[str, Any]]:
    """A's games (``pairing``) of the tournament in ``src`` that this comparison would play, numbered as its
    pairing 0; the first ``verify`` of them are played again and must match. Raises ValueError naming what
    differs."""
    from agents import harness

    try:
        old = harness._read_plan(src / harness.TOURNAMENT_FILE)
        rows = harness._read_log(src / harness.GAMES_LOG, old)
    except (OSError, harness.TournamentExists) as e:
        raise ValueError(f"--a-games {src}: {e}") from None
    want = harness.tournament_plan(
        [pairing], args.games, args.seed, args.setup, args.game, data_version=data_version
    )
    for key in ("game", "setup", "data_version", "seed"):
        if old.get(key) != want[key]:
            raise ValueError(
                f"--a-games {src}: its {key} is {old.get(key)!r}, this comparison's is {want[key]!r}"
            )
    if list(pairing) not in old["pairings"]:
        raise ValueError(
            f"--a-games {src}: it has no games of {pairing[0]} (French) vs {pairing[1]} (German)"
        )
    mine = [
        dict(r, pairing=0) for r in rows if (r["french"], r["german"]) == pairing and r["game"] < args.games
    ]
    if not mine:
        raise ValueError(f"--a-games {src}: no finished game of {pairing[0]} vs {pairing[1]} to reuse")
    if verify:
        check = mine[:verify]
        with tempfile.TemporaryDirectory(prefix="ffo-verify-") as tmp:
            harness.run_tournament(
                [pairing], len(check), args.seed, 1, args.setup, tmp, progress=False, game=args.game
            )
            again = harness.read_games(tmp)
        for r in check:
            fresh = next((g for g in again if g["seed"] == r["seed"]), None)
            keys = SAME_GAME_KEYS + tuple(k for k in r if k.startswith("vp") or k == "morale")
            diff = [k for k in keys if fresh is None or fresh.get(k) != r.get(k)]
            if diff:
                raise ValueError(
                    f"--a-games {src}: seed {r['seed']} played again differs in {', '.join(diff)}: "
                    f"{pairing[0]} vs {pairing[1]} is not the tournament it was (a changed agent or policy file?)"
                )
    return mine


def run(args: argparse.Namespace) -> int:
    from agents import harness

    if args.resume:
        if args.force or (args.out is not None and Path(args.out) != Path(args.resume)):
            raise ValueError(
                "--resume DIR continues the comparison in DIR as it was started: no --out or --force"
            )
        if any(getattr(args, k) for k in ("side", "a", "b", "opponent")):
            raise ValueError(
                "--resume DIR takes the side and the agents from DIR: drop --side, --a, --b, --opponent"
            )
        args.save_records, args.html = 0, False
        harness._resume_args(args)
        side, a, b, opponent = compare_from_plan([list(p) for p in args.pairing_list])
    else:
        missing = [f"--{k}" for k in ("side", "a", "b", "opponent") if not getattr(args, k)]
        if missing:
            raise ValueError(f"give {', '.join(missing)} (or --resume DIR)")
        side, a, b, opponent = args.side, args.a.strip(), args.b.strip(), args.opponent.strip()
        if a == b:
            raise ValueError(f"--a and --b are both {a!r}: compare two different agents")
        refuse_game_options(args)
        for option, name in (("--a", a), ("--b", b), ("--opponent", opponent)):
            if not harness.is_game_agent_name(name, args.game):
                raise ValueError(f"{option}: {harness.unknown_agent(name, args.game)}")
        other = "german" if side == "french" else "french"
        for option, name, plays in (("--a", a, side), ("--b", b, side), ("--opponent", opponent, other)):
            if plays not in agent_sides(name, args.game):  # the game's own bots of one side
                raise ValueError(f"{option} {name!r} cannot play the {plays} side")
    if args.games < 1 or args.workers < 1:
        raise ValueError(f"--games and --workers must be >= 1, got {args.games} and {args.workers}")
    out = (
        Path(args.out)
        if args.out is not None
        else new_unique_dir("runs", f"compare-{time.strftime('%Y%m%d-%H%M%S')}")
    )
    pairings = pairings_of(side, a, b, opponent)
    resume = bool(args.resume)
    if getattr(args, "a_games", None):
        if args.resume:
            raise ValueError("--a-games starts a new comparison; a resumed one already holds its games")
        if args.verify < 0:
            raise ValueError(f"--verify must be >= 0, got {args.verify}")
        plan = harness.tournament_plan(pairings, args.games, args.seed, args.setup, args.game)
        if not args.force and (out / harness.TOURNAMENT_FILE).exists():
            harness.start_tournament(out, plan, [])  # refuses it before any game is replayed
        reused = reuse_games(Path(args.a_games), pairings[0], args, args.verify, plan["data_version"])
        harness.start_tournament(out, plan, reused, overwrite=args.force)
        print(
            f"{len(reused)} games of A taken from {args.a_games} "
            f"({min(args.verify, len(reused))} played again: identical)"
        )
        resume = True
    harness.run_tournament(
        pairings,
        games=args.games,
        seed=args.seed,
        workers=args.workers,
        setup=args.setup,
        out=out,
        progress=not args.no_progress,
        cli_args={"command": "compare", "side": side, "a": a, "b": b, "opponent": opponent},
        resume=resume,
        overwrite=args.force,
        game=args.game,
    )
    rows = harness.read_games(out)
    # the game's figure: France Fights On's French VP, Springtime's final French Morale (it has no VP),
    # France 1940's Allied VP margin
    score = game_score(args.game)
    result = paired_comparison(outcomes(rows, 0, side), outcomes(rows, 1, side), side, (a, b), score)
    result = {
        "opponent": opponent,
        **result,
        **({} if args.game == DEFAULT_GAME else {"game": args.game, "score": score.label + score.note}),
        "setup": args.setup,
        "command": getattr(args, "command_line", None) or sys.argv,
    }
    atomic_write_text(out / COMPARE_JSON, json.dumps(result, indent=1) + "\n")
    text = summary_text(result)
    atomic_write_text(out / COMPARE_MD, text)
    print(text)
    print(f"written to {out}/ ({COMPARE_JSON}, {COMPARE_MD}, and the tournament's results.json, games.csv)")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agents.compare", description=__doc__.strip().splitlines()[0])
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
