"""Timing helpers of ``ffo bench``: pin to one core, repeat a measurement, interleave several."""

from __future__ import annotations

import gc
import os
import statistics
from collections.abc import Callable
from typing import Any


def _pin_one_core() -> tuple[str, Any]:
    """Pin the process to its last allowed CPU; returns (description, previous affinity)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[-1]})
        return f"pinned to cpu {cpus[-1]}", set(cpus)
    except (AttributeError, OSError):
        return "not pinned (sched_setaffinity unavailable)", None


def _unpin(previous: Any) -> None:
    if previous:
        try:
            os.sched_setaffinity(0, previous)
        except (AttributeError, OSError):
            pass


def _stats(rates: list[float]) -> dict[str, Any]:
    return {"median": statistics.median(rates), "min": min(rates), "max": max(rates), "repeats": rates}


def _repeat(
    fn: Callable[[float], tuple[int, float]], seconds: float, repeats: int, warmup: float
) -> dict[str, Any]:
    """Run ``fn(seconds) -> (count, elapsed)`` repeatedly; rates per second with median and spread."""
    if warmup > 0:
        fn(warmup)
    rates = []
    for _ in range(repeats):
        gc.collect()
        n, dt = fn(seconds)
        rates.append(n / dt if dt > 0 else 0.0)
    return _stats(rates)


def _interleaved(
    fns: dict[str, Callable[[float], tuple[int, float]]], seconds: float, repeats: int, warmup: float
) -> dict[str, list[float]]:
    """Like :func:`_repeat` for several figures, one repeat of each in turn (same machine load)."""
    if warmup > 0:
        for fn in fns.values():
            fn(warmup)
    out: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            gc.collect()
            n, dt = fn(seconds)
            out[k].append(n / dt if dt > 0 else 0.0)
    return out
