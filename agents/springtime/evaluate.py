"""Play Springtime bots against each other over fixed seeds and write the result with Wilson intervals.

``python -m agents.springtime.evaluate --french heuristic --german random --games 200 --out r.json``: game
``i`` uses core seed ``first_seed + i``; each bot is seeded :func:`bot_seed` of it and its side.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from typing import Any

from agents.paired import wilson_interval
from agents.springtime import AGENT_NAMES, make_agent
from ffo_env.atomic import atomic_write_text
from ffo_env.springtime.core.game import SCENARIOS, Game


def bot_seed(game_seed: int, side: str) -> int:
    """The seed of ``side``'s bot in the game of core seed ``game_seed``: a hash of both, so that no bot is
    handed a number from which the game's seed, and so every future die and draw, follows (S54, S59). Until
    issue 61 the French bot was seeded with the game's seed itself and the German with it + 10**6."""
    digest = hashlib.blake2b(f"springtime-bot/{side}/{int(game_seed)}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 2


def play(game: Game, french: str, german: str, seed: int) -> tuple[int, str, int]:
    """One game: (winner 0 Allied / 1 Axis, result, decisions)."""
    bots = [
        make_agent(french, "french", bot_seed(seed, "french")),
        make_agent(german, "german", bot_seed(seed, "german")),
    ]
    s = game.new_initial_state(seed)
    n = 0
    while not s.is_terminal():
        s.apply_action(bots[s.current_side].act_state(s))
        n += 1
    return s.winner, s.result, n


def evaluate(
    french: str, german: str, games: int, first_seed: int = 0, scenario: str = "campaign"
) -> dict[str, Any]:
    game = Game(scenario=scenario)
    wins = [0, 0]
    results: dict[str, int] = {}
    decisions = 0
    t0 = time.time()
    for i in range(games):
        w, r, n = play(game, french, german, first_seed + i)
        wins[w] += 1
        results[r] = results.get(r, 0) + 1
        decisions += n
        if (i + 1) % 20 == 0 or i + 1 == games:
            el = time.time() - t0
            eta = el / (i + 1) * (games - i - 1)
            print(f"{french} vs {german}: {i + 1}/{games} games, ETA {eta:.0f}s", file=sys.stderr)
    lo, hi = wilson_interval(wins[0], games)
    return {
        "scenario": scenario,
        "french": french,
        "german": german,
        "seeds": [first_seed, first_seed + games - 1],
        "games": games,
        "french_wins": wins[0],
        "german_wins": wins[1],
        "french_win_rate": wins[0] / games,
        "french_wilson95": [lo, hi],
        "german_wilson95": [1 - hi, 1 - lo],
        "results": dict(sorted(results.items())),
        "mean_decisions": decisions / games,
        "seconds": round(time.time() - t0, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m agents.springtime.evaluate", description=__doc__.split("\n")[0]
    )
    p.add_argument("--french", choices=AGENT_NAMES, default="heuristic", help="the Allied bot")
    p.add_argument("--german", choices=AGENT_NAMES, default="random", help="the Axis bot")
    p.add_argument("--games", type=int, default=200, help="number of games (default 200)")
    p.add_argument("--first-seed", type=int, default=0, help="core seed of the first game (default 0)")
    p.add_argument("--scenario", choices=SCENARIOS, default="campaign")
    p.add_argument("--out", help="write the result as JSON here (else print it)")
    a = p.parse_args(argv)
    if a.games <= 0:
        print(f"error: --games must be positive, got {a.games}", file=sys.stderr)
        return 2
    r = evaluate(a.french, a.german, a.games, a.first_seed, a.scenario)
    text = json.dumps(r, indent=2) + "\n"
    if a.out:
        atomic_write_text(a.out, text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
