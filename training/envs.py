"""The training environments of one side, built in the process that steps them: for :mod:`training.model`
(``dummy`` and ``subproc`` runs), the pipelined rollout worker (:mod:`training.pipeline`), the imitation stage
and ``ffo bench``. Apart from :mod:`training.model` so that the rollout worker can build its envs without
importing the model that imports it."""

from __future__ import annotations

from typing import Any

from ffo_env.games import SIDES, game_info
from training.config import TrainConfig, spec_of


def other_side(side: str) -> str:
    """The other side's name (every game of the suite has the two sides of ``ffo_env.games.SIDES``)."""
    return SIDES[1 - SIDES.index(side)]


def side_index(side: str) -> int:
    return SIDES.index(side)


def make_env_fn(cfg: TrainConfig, side: str, pool: Any, rank: int) -> Any:
    """A picklable factory of one training environment (used by SubprocVecEnv)."""

    def _init() -> Any:
        pool.reseed(cfg.seed * 1000 + rank)
        options = spec_of(cfg).env_kwargs(cfg.setup, cfg.reward, cfg.max_steps)
        env: Any = game_info(cfg.game).single_agent_env(side=side, opponent_sampler=pool, **options)
        if cfg.ppo.teacher_coef > 0:
            from agents.registry import make_agent
            from training.teacher_labels import TeacherLabelEnv

            seed = cfg.seed * 1000 + rank + 500_000  # the teacher's own generator, apart from the env's
            env = TeacherLabelEnv(env, make_agent(cfg.ppo.teacher, side, seed=seed, game=cfg.game), seed)
        env.reset(seed=cfg.seed * 1000 + rank)
        return env

    return _init


def build_local_vec_env(cfg: TrainConfig, side: str, snapshots: list[str]) -> Any:
    """``cfg.n_envs`` envs of ``side`` against opponents drawn from ``cfg.opponents`` and the last
    ``cfg.snapshot_keep`` of ``snapshots``: in this process, or in spawned ones with ``vec_env: subproc``."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    from training.opponents import OpponentPool

    fns = []
    for rank in range(cfg.n_envs):
        pool = OpponentPool(
            other_side(side),
            cfg.opponents,
            snapshots[-cfg.snapshot_keep :],
            seed=cfg.seed + rank,
            game=cfg.game,
        )
        fns.append(make_env_fn(cfg, side, pool, rank))
    vec: Any
    if cfg.vec_env == "subproc" and cfg.n_envs > 1:
        vec = SubprocVecEnv(fns, start_method="spawn")
    else:
        vec = DummyVecEnv(fns)
    monitored = VecMonitor(vec, info_keywords=("winner", *spec_of(cfg).monitor_keys, "opponent"))
    if cfg.ppo.teacher_coef > 0:
        from training.teacher_labels import TeacherLabelsVecEnv

        return TeacherLabelsVecEnv(monitored)
    return monitored
