"""Every algorithm ``ffo benchmark run`` knows, by name: the built-in ones and any a script registered.

The built-in learners (:mod:`~benchmarks.protocol.algo_bots`, :mod:`~benchmarks.protocol.algo_sb3`,
:mod:`~benchmarks.protocol.algo_cleanrl`) register themselves with :func:`benchmarks.protocol.algos.register`
when imported; this module imports them before it answers. It is apart from :mod:`benchmarks.protocol.algos`
(the interface a learner is written against) so that the interface does not import the learners that import
it: no import cycle, at import time or inside a function, in ``benchmarks/protocol/``
(``tests/test_package_layout.py``).
"""

from __future__ import annotations

from benchmarks.protocol import algo_bots, algo_cleanrl, algo_sb3  # noqa: F401  (they register on import)
from benchmarks.protocol.algos import ALGOS, AlgoError, AlgoSpec


def get_algo(name: str) -> AlgoSpec:
    """The algorithm called ``name``, or one :class:`~benchmarks.protocol.algos.AlgoError` naming the known
    ones."""
    spec = ALGOS.get(name)
    if spec is None:
        raise AlgoError(
            f"unknown algorithm {name!r}; expected one of {', '.join(sorted(ALGOS))} (an algorithm of your own "
            "is known only to a process that registered it: run and resume it through your script, see "
            "docs/tutorials/own_algorithm.md)"
        )
    return spec


def algo_names() -> list[str]:
    """The names of every algorithm known to this process, sorted."""
    return sorted(ALGOS)
