"""The torch intra-op thread count a policy's forward pass runs on.

A policy agent answers one observation at a time: too little work to share between threads. With torch's
default (one thread per core) the threads spin-wait for each other, and beside any other busy process they
cost many times the work: a France 1940 `pretrained` German game against `random` took 51 CPU seconds on two
threads against 4.9 on one, the same 5,861 decisions, with two training runs on the machine's 2 cores
(2026-11-29). Every policy agent of the suite therefore runs its forward pass on one thread by default.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


def check_threads(threads: int | None) -> int | None:
    """``threads`` if it is an integer >= 1 or None; one ValueError otherwise."""
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be an integer >= 1 or None, not {threads!r}")
    return threads


@contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Run the block on ``threads`` torch threads and restore the process's setting after (None: as it is)."""
    if threads is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    if before == threads:
        yield
        return
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)
