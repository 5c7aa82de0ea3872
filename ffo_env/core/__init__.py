"""What every game's rules core shares: the game's own seeded die (:mod:`.dice`, R37) and the error a bad
game data file raises (:mod:`.errors`). Pure Python, no numpy.

France Fights On's rules core, which lived here before issue 62, is :mod:`ffo_env.ffo.core`; its old module
names (``ffo_env.core.state`` ...) still import, as the same modules, through :mod:`ffo_env._moved`.
"""
