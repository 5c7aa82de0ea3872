"""MaskablePPO on one side of Springtime for Hitler, and its weights-only checkpoints.

The learner plays :class:`ffo_env.springtime.env.SpringtimeSingleAgentEnv` (flat observation, action masks
through ``action_masks()``) against a :class:`training.springtime.opponents.MixOpponent`, in a
``DummyVecEnv`` of ``n_envs`` (one process: the policy call is one batch).

A checkpoint of a side is ``checkpoints/<side>-<steps>.pt`` (policy and optimizer state, torch RNG; read
with ``torch.load(weights_only=True)``) and ``checkpoints/<side>.json`` (manifest with its SHA-256), written
weights first, manifest last (:mod:`ffo_env.atomic`); the older weights are deleted only after that.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.springtime.policy import spec_hash
from ffo_env.atomic import atomic_write_bytes, atomic_write_text
from training.run_folder import RunFolder, checkpoint_weights_glob, checkpoint_weights_name
from training.springtime.config import SpringtimeTrainConfig
from training.springtime.opponents import MixOpponent

FORMAT = "springtime-checkpoint"


class CheckpointError(ValueError):
    """A checkpoint that cannot be resumed from (the message names the file)."""


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
    p = cfg.ppo
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.policy.activation]
    return MaskablePPO(
        "MlpPolicy",
        venv,
        learning_rate=p.learning_rate,
        n_steps=p.n_steps,
        batch_size=p.batch_size,
        n_epochs=p.n_epochs,
        gamma=p.gamma,
        gae_lambda=p.gae_lambda,
        clip_range=p.clip_range,
        ent_coef=p.ent_coef,
        vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm,
        policy_kwargs={
            "net_arch": {"pi": list(cfg.policy.net_arch), "vf": list(cfg.policy.net_arch)},
            "activation_fn": act,
        },
        seed=seed,
        device="cpu",
        verbose=0,
    )


def save_checkpoint(model: Any, run: RunFolder, side: str) -> Path:
    import torch

    run.checkpoints.mkdir(parents=True, exist_ok=True)
    steps = int(model.num_timesteps)
    weights = run.checkpoints / checkpoint_weights_name(side, steps)
    payload = {
        "policy": model.policy.state_dict(),
        "optimizer": model.policy.optimizer.state_dict(),
        "torch_rng": torch.get_rng_state(),
    }
    buf = io.BytesIO()
    torch.save(payload, buf)  # into memory: the file is written by atomic_write_bytes below
    data = buf.getvalue()
    atomic_write_bytes(weights, data)
    manifest = {
        "format": FORMAT,
        "side": side,
        "num_timesteps": steps,
        "n_updates": int(getattr(model, "_n_updates", 0)),
        "weights": weights.name,
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "observation_spec_hash": spec_hash(),
    }
    path = run.checkpoint_manifest(side)
    atomic_write_text(path, json.dumps(manifest, indent=1) + "\n")
    for old in run.checkpoints.glob(checkpoint_weights_glob(side)):  # only now is the older one unreferenced
        if old.name != weights.name:
            old.unlink(missing_ok=True)
    return path


def load_checkpoint(model: Any, run: RunFolder, side: str) -> int:
    """Restore ``model`` (built from the run's config) from the checkpoint of ``side``; returns its timesteps."""
    import torch

    path = run.checkpoint_manifest(side)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{path}: cannot read the checkpoint manifest ({e})") from e
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or manifest.get("side") != side:
        raise CheckpointError(f"{path}: not a {FORMAT} manifest of the {side} side")
    if manifest.get("observation_spec_hash") != spec_hash():
        raise CheckpointError(
            f"{path}: written for another observation layout; the run cannot be resumed here"
        )
    name = manifest.get("weights")
    if not isinstance(name, str) or Path(name).name != name or not name.startswith(f"{side}-"):
        raise CheckpointError(f"{path}: weights: expected a file name '{side}-<steps>.pt', got {name!r}")
    weights = run.checkpoints / name
    try:
        data = weights.read_bytes()
    except OSError as e:
        raise CheckpointError(f"{weights}: missing ({e}); the checkpoint is incomplete") from e
    if hashlib.sha256(data).hexdigest() != manifest.get("sha256"):
        raise CheckpointError(f"{weights}: SHA-256 differs from the manifest's; the file is damaged")
    try:
        payload = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
        model.policy.load_state_dict(payload["policy"])
        model.policy.optimizer.load_state_dict(payload["optimizer"])
    except Exception as e:  # torch raises several unrelated types for a damaged file
        raise CheckpointError(f"{weights}: does not fit this run's network ({type(e).__name__}: {e})") from e
    if isinstance(payload.get("torch_rng"), torch.Tensor):
        torch.set_rng_state(payload["torch_rng"])
    model.num_timesteps = int(manifest["num_timesteps"])
    model._n_updates = int(manifest.get("n_updates", 0))
    return model.num_timesteps


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
