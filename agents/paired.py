"""Paired comparison of two agents of one side against the same opponent on the same seeds (``ffo compare``).

Game ``i`` of every pairing of a tournament has the same seed (:mod:`agents.harness`): the same setup draws
and dice stream, and the opponent's own seed. So agent A's game on seed ``s`` and agent B's game on seed ``s``
differ only by A and B, and the comparison is made seed by seed:

- each agent's win rate with its 95 % Wilson score interval;
- the difference of win rates ``p_B - p_A`` (the mean over seeds of ``win_B - win_A``), its standard error
  and 95 % normal interval;
- the exact McNemar test (a two-sided sign test on the discordant seeds: those won by exactly one of the
  two): under "A and B are equally strong" each discordant seed is B's with probability 1/2;
- the paired difference of the game's score (:class:`Score`: France Fights On's French victory points, or
  Springtime for Hitler's final French Morale, which has no VP; and the same signed for the side compared:
  for the German side a lower French score is better) with its standard error and 95 % normal interval.

Pure Python (no numpy, no torch): the numbers can be checked by hand (tests/test_paired.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Z95 = 1.959963984540054


def wilson_interval(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """95 % Wilson score interval of a binomial proportion (``(0, 1)`` for ``n == 0``)."""
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def sign_test_p(b_only: int, a_only: int) -> float:
    """Two-sided exact p-value of the sign test (exact McNemar): ``b_only`` seeds won by B alone and ``a_only``
    by A alone, each of the ``b_only + a_only`` discordant seeds B's with probability 1/2 under the null.
    ``2 * P(X <= min)`` for ``X ~ Binomial(n, 1/2)``, capped at 1; 1.0 without discordant seeds."""
    if b_only < 0 or a_only < 0:
        raise ValueError(f"counts must be >= 0, got {b_only} and {a_only}")
    n = b_only + a_only
    if n == 0:
        return 1.0
    k = min(b_only, a_only)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def mean_and_se(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` and its standard error (sample standard deviation / sqrt(n); 0 for n < 2)."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


@dataclass(frozen=True)
class Score:
    """What the paired score difference compares; more is better for the French side in every game."""

    key: str  # the result's keys: french_<key>_mean, <key>_difference.french_<key>_b_minus_a
    label: str  # in the summary's table and lines
    unit: str  # after a signed difference
    column: str = ""  # its header in a tournament's table (``ffo eval``)
    note: str = ""  # after the label where a comparison names its score (``ffo compare``'s "score")


VP = Score("vp", "French VP", "VP", "VP")  # France Fights On: the French victory points at the end
MORALE = Score(
    "morale", "final French Morale", "Morale", "Morale", " (no VP)"
)  # Springtime for Hitler (no VP; Morale 0 loses, 16.1.1)
VP_MARGIN = Score(
    "vp_margin", "Allied VP margin (3 x Allied VP - German VP)", "VP", "3A-G"
)  # France 1940: the German needs 25 VP and three times the Allied VP
SCORES = (VP, MORALE, VP_MARGIN)


def score_for(figure: str) -> Score:
    """The score of a game's figure (:attr:`ffo_env.games.GameInfo.figure`: ``vp``, ``morale``,
    ``vp_margin``); a figure with no score here is one clear error."""
    for s in SCORES:
        if s.key == figure:
            return s
    raise ValueError(f"no paired score for the figure {figure!r}; known: {', '.join(s.key for s in SCORES)}")


def game_score(game: str) -> Score:
    """The paired score of the suite's game ``game``: the score of its figure
    (:attr:`ffo_env.games.GameInfo.figure`)."""
    from ffo_env.games import game_info

    return score_for(game_info(game).figure)


@dataclass(frozen=True)
class Outcome:
    """One game of the compared side: did it win, and the game's score at the end (``vp``: the French VP, or
    in a game without VP the :class:`Score` the comparison is given, e.g. the final French Morale)."""

    won: bool
    vp: float


def paired_comparison(
    a: Mapping[int, Outcome],
    b: Mapping[int, Outcome],
    side: str,
    names: tuple[str, str] = ("A", "B"),
    score: Score = VP,
) -> dict[str, Any]:
    """Compare B with A, seed by seed (``a`` and ``b`` map a game seed to the compared side's outcome; both must
    hold the same seeds; ``score`` names what an outcome's number is). Returns a JSON-ready mapping (see the
    module docstring)."""
    if side not in ("french", "german"):
        raise ValueError(f"side must be 'french' or 'german', got {side!r}")
    if set(a) != set(b):
        only = sorted(set(a) ^ set(b))
        raise ValueError(f"the two agents did not play the same seeds (seeds of one only: {only[:10]})")
    if not a:
        raise ValueError("no games to compare")
    seeds = sorted(a)
    n = len(seeds)
    sign = 1.0 if side == "french" else -1.0
    wins_a = sum(a[s].won for s in seeds)
    wins_b = sum(b[s].won for s in seeds)
    b_only = sum(b[s].won and not a[s].won for s in seeds)
    a_only = sum(a[s].won and not b[s].won for s in seeds)
    diff, diff_se = mean_and_se([float(b[s].won) - float(a[s].won) for s in seeds])
    vp_diff, vp_se = mean_and_se([b[s].vp - a[s].vp for s in seeds])

    def agent(name: str, wins: int, outcomes: Mapping[int, Outcome]) -> dict[str, Any]:
        lo, hi = wilson_interval(wins, n)
        return {
            "name": name,
            "wins": wins,
            "win_rate": wins / n,
            "wilson95": [lo, hi],
            f"french_{score.key}_mean": sum(outcomes[s].vp for s in seeds) / n,
        }

    return {
        "side": side,
        "games": n,
        "seeds": [seeds[0], seeds[-1]] if seeds == list(range(seeds[0], seeds[-1] + 1)) else seeds,
        "a": agent(names[0], wins_a, a),
        "b": agent(names[1], wins_b, b),
        "win_rate_difference": {
            "b_minus_a": diff,
            "se": diff_se,
            "ci95": [diff - Z95 * diff_se, diff + Z95 * diff_se],
            "seeds_won_by_b_only": b_only,
            "seeds_won_by_a_only": a_only,
            "seeds_won_by_both": sum(a[s].won and b[s].won for s in seeds),
            "seeds_won_by_neither": sum(not a[s].won and not b[s].won for s in seeds),
            "mcnemar_exact_p": sign_test_p(b_only, a_only),
        },
        f"{score.key}_difference": {
            f"french_{score.key}_b_minus_a": vp_diff,
            "se": vp_se,
            "ci95": [vp_diff - Z95 * vp_se, vp_diff + Z95 * vp_se],
            # for the compared side: a higher French score is better for the French, worse for the German
            "gain_for_side": sign * vp_diff,
        },
    }


def summary_text(result: Mapping[str, Any]) -> str:
    """A readable Markdown summary of :func:`paired_comparison`'s result, in the units of its score."""
    score = next((sc for sc in SCORES if f"{sc.key}_difference" in result), VP)
    a, b, d, v = result["a"], result["b"], result["win_rate_difference"], result[f"{score.key}_difference"]
    n = result["games"]
    seeds = result["seeds"]
    seed_text = f"{seeds[0]}..{seeds[1]}" if len(seeds) == 2 and n > 2 else ", ".join(map(str, seeds))
    opponent = result.get("opponent")
    lines = [
        f"# Paired comparison, {result['side']} side" + (f", against {opponent}" if opponent else ""),
        "",
        f"{n} games each on the same seeds ({seed_text}).",
        "",
        f"| agent | wins | win rate | 95 % Wilson | mean {score.label} |",
        "|---|---:|---:|---|---:|",
    ]
    for label, x in (("A", a), ("B", b)):
        lo, hi = x["wilson95"]
        lines.append(
            f"| {label}: `{x['name']}` | {x['wins']}/{n} | {x['win_rate']:.3f} | [{lo:.3f}, {hi:.3f}] | "
            f"{x[f'french_{score.key}_mean']:.2f} |"
        )
    lo, hi = d["ci95"]
    vlo, vhi = v["ci95"]
    lines += [
        "",
        f"- win rate B - A: {d['b_minus_a']:+.3f} (se {d['se']:.3f}, 95 % [{lo:+.3f}, {hi:+.3f}])",
        f"- seeds won by B only: {d['seeds_won_by_b_only']}, by A only: {d['seeds_won_by_a_only']}, by both: "
        f"{d['seeds_won_by_both']}, by neither: {d['seeds_won_by_neither']}",
        f"- exact McNemar (sign test on the discordant seeds): p = {_p(d['mcnemar_exact_p'])}",
        f"- {score.label} B - A: {v[f'french_{score.key}_b_minus_a']:+.2f} (se {v['se']:.2f}, 95 % "
        f"[{vlo:+.2f}, {vhi:+.2f}]); for the {result['side']} side that is {v['gain_for_side']:+.2f} {score.unit}",
        "",
    ]
    return "\n".join(lines)


def _p(p: float) -> str:
    return f"{p:.2g}" if p < 0.001 else f"{p:.4f}"
