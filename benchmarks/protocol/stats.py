"""The statistics rliable recommends (Agarwal et al. 2021, google-research/rliable), in numpy.

Scores are given per task as a list of 1-D arrays, one value per run (``tasks[m][n]``: run ``n`` of task
``m``); tasks may have different numbers of runs (rliable's ``(num_runs x num_tasks)`` matrix is the case
where they all have the same number, and then every function here gives rliable's value).

- :func:`iqm`: interquartile mean of all runs of all tasks: ``scipy.stats.trim_mean(x, 0.25)``, which drops
  ``int(0.25 * n)`` values at each end of the sorted scores;
- :func:`aggregate_median` / :func:`aggregate_mean`: median / mean over tasks of the per-task mean score;
  :func:`optimality_gap`: ``gamma - mean(min(score, gamma))``;
- :func:`interval`: a point estimate and its stratified-bootstrap percentile interval: each replicate draws
  every task's runs with replacement within that task (rliable's ``StratifiedBootstrap``), the interval is
  the ``(1 - size) / 2`` and ``(1 + size) / 2`` percentiles of the replicates' statistic (``percentile``
  method, linear interpolation, as ``arch``'s bootstrap with rliable's default ``method='percentile'``);
- :func:`performance_profile`: the fraction of all runs scoring above each threshold ``tau``
  (rliable's score distribution);
- :func:`probability_of_improvement`: P(X > Y), the Mann-Whitney U statistic of X's runs against Y's over
  ``n_x * n_y`` (a tie counts half), averaged over tasks; its interval resamples X and Y independently within
  each task (rliable's ``StratifiedIndependentBootstrap``);
- :func:`change_from_start`: how far training moved a learner from its own point 0, paired game by game
  over the task's fixed evaluation games, with the two-sided p-value of :func:`sign_flip_p`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

Tasks = Sequence[np.ndarray]


def _as_tasks(tasks: Tasks) -> list[np.ndarray]:
    out = [np.asarray(t, dtype=np.float64).reshape(-1) for t in tasks]
    if not out or any(t.size == 0 for t in out):
        raise ValueError("every task needs at least one run")
    return out


def iqm(tasks: Tasks) -> float:
    x = np.sort(np.concatenate(_as_tasks(tasks)))
    cut = int(0.25 * x.size)
    return float(np.mean(x[cut : x.size - cut]))


def aggregate_mean(tasks: Tasks) -> float:
    return float(np.mean([t.mean() for t in _as_tasks(tasks)]))


def aggregate_median(tasks: Tasks) -> float:
    return float(np.median([t.mean() for t in _as_tasks(tasks)]))


def optimality_gap(tasks: Tasks, gamma: float = 1.0) -> float:
    x = np.concatenate(_as_tasks(tasks))
    return float(gamma - np.mean(np.minimum(x, gamma)))


def _percentiles(stats: np.ndarray, size: float) -> tuple[float, float]:
    lo, hi = np.percentile(stats, [100 * (1 - size) / 2, 100 * (1 + size) / 2])
    return float(lo), float(hi)


def interval(
    tasks: Tasks, func: Callable[[Tasks], float] = iqm, reps: int = 2000, size: float = 0.95, seed: int = 0
) -> tuple[float, float, float]:
    """``(point, lo, hi)``: ``func`` of the scores and its stratified-bootstrap percentile interval."""
    data = _as_tasks(tasks)
    rng = np.random.default_rng(seed)
    stats = np.empty(reps)
    for r in range(reps):
        stats[r] = func([t[rng.integers(0, t.size, t.size)] for t in data])
    return (func(data), *_percentiles(stats, size))


def performance_profile(tasks: Tasks, taus: Sequence[float]) -> np.ndarray:
    x = np.concatenate(_as_tasks(tasks))
    return np.array([float(np.mean(x > tau)) for tau in taus])


def profile_interval(
    tasks: Tasks, taus: Sequence[float], reps: int = 2000, size: float = 0.95, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The performance profile at ``taus`` with pointwise stratified-bootstrap intervals."""
    data = _as_tasks(tasks)
    rng = np.random.default_rng(seed)
    boot = np.empty((reps, len(taus)))
    for r in range(reps):
        boot[r] = performance_profile([t[rng.integers(0, t.size, t.size)] for t in data], taus)
    lo, hi = np.percentile(boot, [100 * (1 - size) / 2, 100 * (1 + size) / 2], axis=0)
    return performance_profile(data, taus), lo, hi


def _poi(x: list[np.ndarray], y: list[np.ndarray]) -> float:
    probs = []
    for a, b in zip(x, y, strict=True):
        greater = np.sum(a[:, None] > b[None, :])
        ties = np.sum(a[:, None] == b[None, :])
        probs.append((greater + 0.5 * ties) / (a.size * b.size))
    return float(np.mean(probs))


def probability_of_improvement(
    x: Tasks, y: Tasks, reps: int = 2000, size: float = 0.95, seed: int = 0
) -> tuple[float, float, float]:
    """``(P(X > Y), lo, hi)`` averaged over tasks (the same tasks in the same order for X and Y)."""
    xs, ys = _as_tasks(x), _as_tasks(y)
    if len(xs) != len(ys):
        raise ValueError(f"X has {len(xs)} tasks and Y {len(ys)}; compare them on the same tasks")
    rng = np.random.default_rng(seed)
    stats = np.empty(reps)
    for r in range(reps):
        stats[r] = _poi(
            [t[rng.integers(0, t.size, t.size)] for t in xs], [t[rng.integers(0, t.size, t.size)] for t in ys]
        )
    return (_poi(xs, ys), *_percentiles(stats, size))


EXACT_FLIPS = 16  # up to 2**16 sign patterns are enumerated; beyond that they are sampled


def sign_flip_p(d: np.ndarray, draws: int = 100_000, seed: int = 0) -> float:
    """Two-sided p-value of the paired sign-flip (permutation) test that the differences ``d`` are centred
    on 0: the fraction of sign patterns of the non-zero differences whose sum is at least as far from 0 as
    the observed one (the observed pattern counts). Exact over all ``2**k`` patterns when ``k <= 16``
    non-zero differences, else ``(1 + hits) / (1 + draws)`` over ``draws`` random patterns (seeded)."""
    x = np.asarray(d, dtype=np.float64).reshape(-1)
    x = x[x != 0]
    if x.size == 0:
        return 1.0
    observed = abs(float(x.sum())) - 1e-9  # sums of the same numbers in another order differ in the last bits
    if x.size <= EXACT_FLIPS:
        signs = 1 - 2 * ((np.arange(2**x.size)[:, None] >> np.arange(x.size)) & 1)
        return float(np.mean(np.abs(signs @ x) >= observed))
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, draws, 10_000):
        signs = rng.choice(np.array([-1.0, 1.0]), size=(min(10_000, draws - start), x.size))
        hits += int(np.sum(np.abs(signs @ x) >= observed))
    return (1 + hits) / (1 + draws)


def change_from_start(start: np.ndarray, final: np.ndarray) -> dict[str, float | int]:
    """``start`` and ``final``: ``(runs, games)`` scores of each run's evaluation games at its point 0 and at
    its last point (game ``g`` is the same game, seeds and start, at both). Each game's change is averaged
    over the runs, ``d[g] = mean_r(final[r, g] - start[r, g])``; returned: the mean start and final scores,
    ``change = mean(d)``, ``games_changed`` (games whose averaged change is not 0) and the sign-flip
    ``p`` of ``d``. It says whether training moved these runs on these games, not how far another run would
    move (the runs are not resampled)."""
    s = np.asarray(start, dtype=np.float64)
    f = np.asarray(final, dtype=np.float64)
    if s.ndim != 2 or s.shape != f.shape or s.size == 0:
        raise ValueError(f"start {s.shape} and final {f.shape} must be the same (runs, games) shape")
    d = (f - s).mean(axis=0)
    return {
        "start": float(s.mean()),
        "final": float(f.mean()),
        "change": float(d.mean()),
        "games": int(d.size),
        "games_changed": int(np.count_nonzero(d)),
        "p": sign_flip_p(d),
    }
