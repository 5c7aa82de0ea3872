"""Play trained Springtime policies against the scripted bots on fixed core seeds (Wilson 95 % intervals).

Game ``i`` of a pairing uses core seed ``first_seed + i``; the policy plays argmax over the legal actions;
the bot and the policy agent are seeded by :func:`agents.springtime.evaluate.bot_seed` of that seed and their
side (until issue 61: the bot ``first_seed + i + 10**6`` and the policy agent the game's seed itself, from which
an agent could compute every future die). The same seeds serve every policy, so two policies of a run
(the imitation stage's and the final one) are compared on the same games.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from agents.harness import play_out
from agents.paired import wilson_interval
from agents.springtime import make_agent
from agents.springtime.evaluate import bot_seed
from ffo_env.springtime.core.game import Game


def play_games(
    agent: Any,
    side: str,
    opponent: str,
    games: int,
    first_seed: int,
    report: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """``agent`` (``act_state``) as ``side`` against the Springtime bot ``opponent``: wins and interval."""
    me = 0 if side == "french" else 1
    other = "german" if side == "french" else "french"
    game = Game()
    wins = 0
    outcomes: list[int] = []
    t0 = time.time()
    for i in range(games):
        seed = first_seed + i
        bot = make_agent(opponent, other, bot_seed(seed, other))
        if hasattr(agent, "reset"):
            agent.reset(bot_seed(seed, side))
        s = game.new_initial_state(seed)
        play_out(s, {side: agent, other: bot})
        won = int(s.winner == me)
        wins += won
        outcomes.append(won)
        if report is not None:
            report(i + 1)
    lo, hi = wilson_interval(wins, games) if games else (0.0, 1.0)
    return {
        "side": side,
        "opponent": opponent,
        "games": games,
        "seeds": [first_seed, first_seed + games - 1],
        "wins": wins,
        "win_rate": wins / games if games else None,
        "wilson95": [round(lo, 4), round(hi, 4)],
        "outcomes": "".join(map(str, outcomes)),
        "seconds": round(time.time() - t0, 1),
    }
