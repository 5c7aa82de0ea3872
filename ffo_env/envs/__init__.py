"""Environments of the suite: the PettingZoo AEC env, its turn-based parallel view and the one-side
Gymnasium env, written once for every game (:mod:`ffo_env.envs.suite_aec`,
:mod:`ffo_env.envs.suite_single_agent`) over a per-game adapter (:mod:`ffo_env.envs.adapter`).
France Fights On's: :mod:`ffo_env.ffo.env`, :mod:`ffo_env.ffo.single_agent` and its adapter
(:mod:`ffo_env.ffo.adapter`); Springtime for Hitler's: :mod:`ffo_env.springtime.env`. Also the
flat observation layout (:mod:`ffo_env.ffo.encoding.flat`), the Gymnasium ids (:mod:`ffo_env.envs.registration`),
opt-in wrappers (:mod:`ffo_env.envs.wrappers`) and the OpenSpiel game (:mod:`ffo_env.ffo.openspiel_game`)."""
