"""The MaskablePPO model and the training environments of a run: one place that builds both, for
:mod:`training.train`, the imitation stage and ``ffo bench``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from training.config import TrainConfig


def other_side(side: str) -> str:
    return "german" if side == "french" else "french"


def make_env_fn(cfg: TrainConfig, side: str, pool: Any, rank: int) -> Any:
    """A picklable factory of one training environment (used by SubprocVecEnv)."""

    def _init() -> Any:
        from ffo_env.envs.single_agent import FFOSingleAgentEnv

        pool.reseed(cfg.seed * 1000 + rank)
        env = FFOSingleAgentEnv(side=side, opponent_sampler=pool, setup=cfg.setup, reward=cfg.reward,
                             max_steps=cfg.max_steps)
        env.reset(seed=cfg.seed * 1000 + rank)
        return env

    return _init


def build_vec_env(cfg: TrainConfig, side: str, snapshots: list[str]) -> Any:
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    from training.opponents import OpponentPool

    fns = []
    for rank in range(cfg.n_envs):
        pool = OpponentPool(other_side(side), cfg.opponents, snapshots[-cfg.snapshot_keep:], seed=cfg.seed + rank)
        fns.append(make_env_fn(cfg, side, pool, rank))
    if cfg.vec_env == "subproc" and cfg.n_envs > 1:
        vec = SubprocVecEnv(fns, start_method="spawn")
    else:
        vec = DummyVecEnv(fns)
    return VecMonitor(vec, info_keywords=("winner", "vp", "opponent"))


def policy_spec(cfg: TrainConfig) -> tuple[Any, dict[str, Any]]:
    """The policy class and its kwargs for a config (also written into exported policies)."""
    from agents.policy_net import HexFeatures, HexPolicy

    fe = {"cnn_dim": cfg.policy.cnn_dim, "channels": cfg.policy.channels, "spatial": cfg.policy.spatial}
    if cfg.policy.spatial > 0:
        # foreach: one multi-tensor Adam update instead of a loop over the ~40 parameter tensors
        return HexPolicy, {"features_extractor_class": HexFeatures, "features_extractor_kwargs": fe,
                           "net_arch": {"pi": [], "vf": list(cfg.policy.net_arch)},
                           "optimizer_kwargs": {"foreach": True}}
    return "MultiInputPolicy", {"features_extractor_class": HexFeatures, "features_extractor_kwargs": fe,
                                "net_arch": {"pi": list(cfg.policy.net_arch), "vf": list(cfg.policy.net_arch)}}


def build_model(cfg: TrainConfig, env: Any, tb_dir: Path, seed: int) -> Any:
    import torch
    from sb3_contrib import MaskablePPO

    # the env workers take the other cores: torch's OpenMP threads spinning beside them thrash
    torch.set_num_threads(cfg.torch_threads)
    torch.set_flush_denormal(True)  # underflowing gradients of a sharp policy are slow on a CPU
    policy, policy_kwargs = policy_spec(cfg)
    p = cfg.ppo
    return MaskablePPO(
        policy, env, learning_rate=p.learning_rate, n_steps=p.n_steps, batch_size=p.batch_size,
        n_epochs=p.n_epochs, gamma=p.gamma, gae_lambda=p.gae_lambda, clip_range=p.clip_range, ent_coef=p.ent_coef,
        vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, policy_kwargs=policy_kwargs, tensorboard_log=str(tb_dir),
        seed=seed, device=cfg.device, verbose=0,
    )
