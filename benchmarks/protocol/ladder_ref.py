"""The frozen reference ladders of the self-play tasks (one per game of the suite), and a learner's Elo against
them.

The reference ratings are those of the project's ladder regenerated on 2026-11-25 (README, *The ladder*:
``ffo ladder --agents random,pass,heuristic:cautious,heuristic,heuristic:aggressive,expert,pretrained
--games 50 --workers 2``, 2,450 games, seeds 0-49, random setup, ffo-engine-2, reconstruction-v3). They are
frozen: a learner is rated against them without refitting them, as gym-microrts rates agents against the
fixed ratings of its scripted bots. The model is the ladder's (:mod:`agents.ladder`): a Bradley-Terry model of
the French result, ``P(French wins) = 1 / (1 + 10 ** ((g - f) / 400))``, with the same wide normal prior (sd
1,000 Elo around the ladder's mean 0) and 95% intervals from the normal approximation of the posterior.
"""

from __future__ import annotations

import math

# agent -> (rating as French, rating as German), Elo points, centred on the ladder's mean
REFERENCE_LADDER: dict[str, tuple[float, float]] = {
    "random": (-833.0, -1906.0),
    "heuristic": (592.0, 573.0),
    "expert": (749.0, 718.0),
}
LADDER_SOURCE = "ffo ladder of 2026-11-25 (README, The ladder): 50 games a pairing, seeds 0-49"
# Springtime for Hitler's own ladder (docs/results/springtime_bots.md, *Ladder*: ``ffo ladder --game springtime
# --agents random,pass,heuristic,expert --games 20 --seed 0 --workers 2``, 320 games, seeds 0-19,
# springtime-core-1, sfh-reconstruction-v1), the same model and prior; frozen as FFO's is
SPRINGTIME_LADDER: dict[str, tuple[float, float]] = {
    "random": (-234.0, -1154.0),
    "heuristic": (649.0, 574.0),
    "expert": (746.0, 806.0),
}
SPRINGTIME_LADDER_SOURCE = (
    "ffo ladder --game springtime of 2026-11-26 (docs/results/springtime_bots.md, Ladder): 20 games a pairing, "
    "seeds 0-19"
)
LADDERS = {"ffo": REFERENCE_LADDER, "springtime": SPRINGTIME_LADDER}


def reference_ladder(game: str) -> dict[str, tuple[float, float]]:
    """The frozen reference ratings of ``game``'s self-play task: ``agent -> (as French, as German)``."""
    return LADDERS[game]


ELO = 400.0 / math.log(10.0)
PRIOR_SD = 1000.0


def rate_one(results: list[tuple[float, float, int]]) -> tuple[float, float, float]:
    """The rating of one agent on one side, ``(elo, lo, hi)``, from ``(opponent rating, score, games)`` rows,
    where ``score`` is the agent's wins (draws half) against an opponent of that frozen rating."""
    x = 0.0  # the agent's rating in Elo
    hess = -1.0 / PRIOR_SD**2
    for _ in range(200):  # Newton on the concave log posterior
        grad = -x / PRIOR_SD**2
        hess = -1.0 / PRIOR_SD**2
        for opp, score, games in results:
            p = 1.0 / (1.0 + 10.0 ** ((opp - x) / 400.0))
            grad += (score - games * p) / ELO
            hess -= games * p * (1.0 - p) / ELO**2
        step = max(-200.0, min(200.0, grad / hess))  # Newton, damped: a far start would overshoot
        x -= step
        if abs(step) < 1e-9:
            break
    sd = math.sqrt(-1.0 / hess)
    return x, x - 1.959963984540054 * sd, x + 1.959963984540054 * sd
