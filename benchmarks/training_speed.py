"""Training figures of ``ffo bench``: MaskablePPO samples/s and behaviour-cloning fit samples/s."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def train_samples(seconds_budget: float, config: str | None) -> dict[str, Any]:
    """MaskablePPO samples/s with the default (quick) training config on the bench's one core: rollout and
    update one after the other in one process (a ``pipelined`` config is measured with its envs in the
    learner process, ``dummy``), one torch thread in the updates (the rollouts keep the config's
    ``torch_threads``, which ``build_model`` sets)."""
    return measure_training_speed(config=config, seconds=seconds_budget, learner_threads=1, one_process=True)


def train_samples_pipelined(seconds_budget: float, config: str | None) -> dict[str, Any]:
    """MaskablePPO samples/s with the config's envs in a rollout worker that collects the next rollout while
    the learner updates (``vec_env: pipelined``, training/pipeline.py): the learner and the worker each on a
    core. Call it unpinned."""
    return measure_training_speed(
        config=config, seconds=seconds_budget, learner_threads=1, vec_env="pipelined"
    )


def imitation_samples(seconds_budget: float, config: str | None) -> dict[str, Any]:
    """Behaviour-cloning fit samples/s (the imitation warm start's fitting step) with the same config, on one
    core; the teacher's decisions it fits are gathered first and not timed."""
    import torch

    from training.imitation import measure_imitation_speed

    torch.set_num_threads(1)
    return measure_imitation_speed(config=config, seconds=seconds_budget)


def train_samples_all_cores(seconds_budget: float, config: str | None) -> dict[str, Any]:
    """MaskablePPO samples/s with the gradient steps on every core the process may use (the rollout keeps
    ``torch_threads``): what ``ffo train`` does with ``learner_threads: 0`` on an otherwise idle machine.
    Call it unpinned."""
    return measure_training_speed(config=config, seconds=seconds_budget, learner_threads=0)


def measure_training_speed(
    config: str | None = None,
    seconds: float = 20.0,
    learner_threads: int | None = None,
    vec_env: str | None = None,
    one_process: bool = False,
) -> dict[str, Any]:
    """MaskablePPO samples/s with a config (default: the quick one) as users train with it: its n_envs,
    vec env, n_steps, batch size and epochs; only the opponents are replaced by ``random`` (the opponent's
    moves are the env's cost, not training's). Whole rollout + update cycles after one warm-up cycle;
    process CPU seconds are reported beside wall seconds (on a shared machine the wall figure also holds
    other jobs' time). ``learner_threads`` (default: the config's; 0: every core) are torch's threads in the
    updates, as ``ffo train`` sets them. ``vec_env`` replaces the config's; ``one_process`` measures a
    pipelined config with its envs in the learner process. With a rollout worker the CPU seconds are the
    learner's and the worker's."""
    import tempfile
    import time

    from training.config import learner_threads as learner_threads_of
    from training.config import load_config
    from training.model import build_model, build_vec_env
    from training.train import DEFAULT_CONFIG, threads_callback

    cfg = load_config(config or DEFAULT_CONFIG)
    cfg.opponents = {"random": 1.0}
    if vec_env is not None:
        cfg.vec_env = vec_env
    if one_process and cfg.vec_env == "pipelined":
        cfg.vec_env = "dummy"
    if learner_threads is not None:
        cfg.learner_threads = learner_threads
    threads = threads_callback(cfg)
    per_rollout = cfg.ppo.n_steps * cfg.n_envs
    with tempfile.TemporaryDirectory() as tmp:
        env = build_vec_env(cfg, "french", [])
        model = build_model(cfg, env, Path(tmp) / "tb", cfg.seed)
        model.learn(total_timesteps=per_rollout, callback=threads)  # warm-up: one rollout + one update
        worker = getattr(env, "worker_pid", None)
        t0, c0, w0 = time.perf_counter(), time.process_time(), _cpu_seconds_of(worker)
        n0 = model.num_timesteps
        while time.perf_counter() - t0 < seconds:
            model.learn(total_timesteps=per_rollout, reset_num_timesteps=False, callback=threads)
        dt, learner_cpu = time.perf_counter() - t0, time.process_time() - c0
        worker_cpu = _cpu_seconds_of(worker) - w0
        cpu = learner_cpu + worker_cpu
        n = model.num_timesteps - n0
        env.close()
    return {
        "samples_per_s": n / dt,
        "samples_per_cpu_s": n / cpu if cpu > 0 else 0.0,
        "timesteps": n,
        "seconds": dt,
        "cpu_seconds": cpu,
        "learner_cpu_seconds": learner_cpu,
        "worker_cpu_seconds": worker_cpu,
        "n_envs": cfg.n_envs,
        "vec_env": cfg.vec_env,
        "n_steps": cfg.ppo.n_steps,
        "batch_size": cfg.ppo.batch_size,
        "n_epochs": cfg.ppo.n_epochs,
        "torch_threads": cfg.torch_threads,
        "learner_threads": learner_threads_of(cfg),
        "config": str(config or DEFAULT_CONFIG.relative_to(DEFAULT_CONFIG.parents[2])),
    }


def _cpu_seconds_of(pid: int | None) -> float:
    """User + system CPU seconds of a child process so far (Linux ``/proc``; 0 elsewhere or for no pid)."""
    import os

    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
