"""Training figures of ``ffo bench``: MaskablePPO samples/s and behaviour-cloning fit samples/s."""

from __future__ import annotations

from typing import Any


def train_samples(seconds_budget: float, config: str | None) -> dict[str, Any]:
    """MaskablePPO samples/s with the default (quick) training config, on one core."""
    import torch

    torch.set_num_threads(1)
    return measure_training_speed(config=config, seconds=seconds_budget)


def imitation_samples(seconds_budget: float, config: str | None) -> dict[str, Any]:
    """Behaviour-cloning fit samples/s (the imitation warm start's fitting step) with the same config, on one
    core; the teacher's decisions it fits are gathered first and not timed."""
    import torch

    from training.imitation import measure_imitation_speed

    torch.set_num_threads(1)
    return measure_imitation_speed(config=config, seconds=seconds_budget)


def measure_training_speed(config: str | None = None, seconds: float = 20.0) -> dict[str, Any]:
    """MaskablePPO samples/s with a config (default: the quick one), single dummy env, for ``bench``."""
    import tempfile
    import time
    from pathlib import Path

    from training.config import load_config
    from training.model import build_model, build_vec_env
    from training.train import DEFAULT_CONFIG

    cfg = load_config(config or DEFAULT_CONFIG)
    cfg.n_envs = 1
    cfg.vec_env = "dummy"
    cfg.opponents = {"random": 1.0}
    cfg.ppo.batch_size = min(cfg.ppo.batch_size, cfg.ppo.n_steps)
    with tempfile.TemporaryDirectory() as tmp:
        env = build_vec_env(cfg, "french", [])
        model = build_model(cfg, env, Path(tmp) / "tb", cfg.seed)
        model.learn(total_timesteps=cfg.ppo.n_steps)  # warm-up: one rollout + one update
        t0 = time.perf_counter()
        n0 = model.num_timesteps
        while time.perf_counter() - t0 < seconds:
            model.learn(total_timesteps=cfg.ppo.n_steps, reset_num_timesteps=False)
        dt = time.perf_counter() - t0
        n = model.num_timesteps - n0
        env.close()
    return {"samples_per_s": n / dt, "timesteps": n, "seconds": dt,
            "config": str(config or DEFAULT_CONFIG.relative_to(DEFAULT_CONFIG.parent.parent))}
