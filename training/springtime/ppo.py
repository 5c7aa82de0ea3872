"""MaskablePPO on one side of Springtime for Hitler, and its weights-only checkpoints.

The learner plays :class:`ffo_env.springtime.env.SpringtimeSingleAgentEnv` (flat observation, action masks
through ``action_masks()``) against a :class:`training.springtime.opponents.MixOpponent`, in a
``DummyVecEnv`` of ``n_envs`` (one process: the policy call is one batch).

A checkpoint of a side is the suite's file pair (:mod:`training.checkpoint_io`: ``checkpoints/<side>-<steps>.pt``
with the policy and optimizer state and torch RNG, read with ``torch.load(weights_only=True)``, beside the
manifest ``checkpoints/<side>.json``, written atomically, weights first). What is Springtime's here: the
format ``springtime-checkpoint`` and what a resume must find unchanged, the observation layout's hash and the
network (:func:`agents.springtime.policy.network_meta`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.springtime.policy import network_meta, spec_hash
from training.checkpoint_io import CheckpointError, CheckpointKind, restore, write_checkpoint
from training.ppo_settings import ppo_kwargs
from training.run_folder import RunFolder
from training.springtime.config import SpringtimeTrainConfig
from training.springtime.opponents import MixOpponent

FORMAT = "springtime-checkpoint"
# the first Springtime manifests had no version and no network: they are read as version 1, unchecked network
KIND = CheckpointKind(FORMAT, 1, unversioned_ok=True)

__all__ = ["FORMAT", "CheckpointError", "episode_stats", "load_checkpoint", "make_model", "save_checkpoint"]


def make_model(cfg: SpringtimeTrainConfig, side: str, opponent: MixOpponent, seed: int) -> Any:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from ffo_env.springtime.env import SpringtimeSingleAgentEnv

    # one opponent object per env: each draws its own bot per game
    opponents = [opponent] + [
        MixOpponent(
            opponent.side, dict(zip(opponent.names, opponent.weights, strict=True)), opponent.self_policy
        )
        for _ in range(cfg.ppo.n_envs - 1)
    ]

    def env_with(opp: MixOpponent) -> Callable[[], Any]:
        return lambda: Monitor(SpringtimeSingleAgentEnv(side=side, opponent=opp, observation_format="flat"))

    venv = DummyVecEnv([env_with(opp) for opp in opponents])
    venv.seed(seed)
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.policy.activation]
    return MaskablePPO(
        "MlpPolicy",
        venv,
        **ppo_kwargs(cfg.ppo),
        policy_kwargs={
            "net_arch": {"pi": list(cfg.policy.net_arch), "vf": list(cfg.policy.net_arch)},
            "activation_fn": act,
        },
        seed=seed,
        device="cpu",
        verbose=0,
    )


def _network(model: Any) -> dict[str, Any]:
    """The network of ``model`` as a policy file describes it (the layer widths of its actor, activation)."""
    arch = model.policy.net_arch
    widths = arch["pi"] if isinstance(arch, dict) else arch
    return network_meta(list(widths), model.policy.activation_fn.__name__.lower())


def save_checkpoint(model: Any, run: RunFolder, side: str) -> Path:
    checks = {"observation_spec_hash": spec_hash(), "network": _network(model)}
    return write_checkpoint(model, run.checkpoints, side, KIND, checks)


def load_checkpoint(model: Any, run: RunFolder, side: str) -> int:
    """Restore ``model`` (built from the run's config) from the checkpoint of ``side``; returns its timesteps."""
    restore(
        model,
        run.checkpoints,
        side,
        KIND,
        {
            "observation_spec_hash": (
                spec_hash(),
                "written for another observation layout: the run cannot be resumed on this version",
            ),
            "network": (_network(model), "resume with the run's own config.yaml (without --set on policy.*)"),
        },
        optional=("network",),
    )
    return int(model.num_timesteps)


def episode_stats(model: Any) -> dict[str, float]:
    """Win rate and length of the learner's recent games (SB3's ``ep_info_buffer``: the last 100)."""
    buf = list(model.ep_info_buffer or [])
    if not buf:
        return {}
    return {
        "games": len(buf),
        "win_rate": sum(1 for e in buf if e["r"] > 0) / len(buf),
        "mean_length": sum(e["l"] for e in buf) / len(buf),
    }
