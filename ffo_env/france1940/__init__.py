"""*France, 1940* (J. F. Dunnigan, Avalon Hill 1972) and its BEF variant: the third game of the suite.

The rules core is :mod:`ffo_env.france1940.core` (pure Python + numpy); the reconstructed map, counters
and tables ship as data in ``ffo_env/france1940/data/``.
"""
