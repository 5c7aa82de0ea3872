"""``ffo bench`` (speed) and the benchmark protocol (``benchmarks.protocol``, with each game's part in
``benchmarks.<game>``). Importing it installs the old import paths' hook (:mod:`ffo_env._moved`), so that
``benchmarks.protocol.springtime`` and ``benchmarks.protocol.states`` still answer for one release."""

from ffo_env._moved import install

install()
