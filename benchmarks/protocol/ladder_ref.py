"""The frozen reference ladders of the self-play tasks (one per game of the suite, its benchmark part's ``LADDER``:
:data:`benchmarks.ffo.LADDER`, :data:`benchmarks.springtime.LADDER`), and a learner's Elo against them.

The reference ratings are those of each game's ladder (France Fights On's regenerated on 2026-11-25). They are
frozen: a learner is rated against them without refitting them, as gym-microrts rates agents against the
fixed ratings of its scripted bots. The model is the ladder's (:mod:`agents.ladder`): a Bradley-Terry model of
the French result, ``P(French wins) = 1 / (1 + 10 ** ((g - f) / 400))``, with the same wide normal prior (sd
1,000 Elo around the ladder's mean 0) and 95% intervals from the normal approximation of the posterior.
"""

from __future__ import annotations

import math


def reference_ladder(game: str) -> dict[str, tuple[float, float]]:
    """The frozen reference ratings of ``game``'s self-play task: ``agent -> (as French, as German)`` (its
    benchmark part's ``LADDER``)."""
    from benchmarks.protocol.games import bench_of

    return dict(bench_of(game).LADDER)


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
