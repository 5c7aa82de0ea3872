"""Training of French and German policies with sb3-contrib MaskablePPO (self-play with an opponent pool)."""

from ffo_env._moved import install

install()  # the old import paths of modules moved by issue 62 (training.search_teacher -> agents.ffo.search)
