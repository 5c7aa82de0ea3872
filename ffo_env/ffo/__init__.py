"""France Fights On (World at War #39): the suite's first game, in its own package (issue 62).

:mod:`.interface` holds what the registry (:mod:`ffo_env.games`) reaches of the game. The rules core, data,
encoding, rendering and env modules join this package as the refactor of issue 62 moves them (the plan:
``docs/guide/suite_layout.md``).
"""
