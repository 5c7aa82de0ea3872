"""France Fights On's network part of the SB3 learners (:class:`benchmarks.protocol.algo_sb3.SB3Part`): the
project's ``HexPolicy`` built by :func:`training.model.build_model` with :class:`training.config.TrainConfig`'s
defaults (2 envs, rollouts of 2 x 512 decisions, 4 epochs, batch 256, lr 3e-4, gamma 0.999) on the dict
observation, evaluated as :class:`agents.ffo.policy.PolicyAgent`, checkpointed by :mod:`training.checkpoint`;
DAgger through the training pipeline's imitation fit (:func:`training.imitation.fit`) on a window of the most
recent labels; ``init="pretrained"`` starts from the side's shipped policy (``maskable_ppo_pretrained``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.protocol.algo_sb3 import DaggerLearner, SB3Learner, SB3Part

N_ENVS = 2
DAGGER: dict[str, Any] = {
    "teacher": "expert",
    "keep_fraction": 0.5,  # consecutive decisions are near-duplicates: keep half, see more games
    "window": 4_000,  # labelled decisions kept (the most recent; ~110 kB each)
    "epochs": 4,
    "batch_size": 64,
    "learning_rate": 1e-3,
    "value_coef": 0.5,
    "gamma": 0.999,
}


def _config(seed: int, network: dict[str, Any] | None = None) -> Any:
    """``maskable_ppo``'s training config; ``network`` (a policy's metadata ``network``) sets its sizes."""
    from training.config import PolicyConfig, TrainConfig

    cfg = TrainConfig(seed=seed, n_envs=N_ENVS, vec_env="dummy")
    if network is not None:
        cfg.policy = PolicyConfig(
            cnn_dim=int(network["cnn_dim"]),
            channels=int(network["channels"]),
            spatial=int(network["spatial"]),
            net_arch=[int(w) for w in network["net_arch"]["vf"]],
        )
    return cfg


def _hyperparameters(network: dict[str, Any] | None = None) -> dict[str, Any]:
    from dataclasses import asdict

    cfg = _config(0, network)
    return {"ppo": asdict(cfg.ppo), "policy": asdict(cfg.policy), "n_envs": N_ENVS}


def hyperparameters(name: str) -> dict[str, Any]:
    """The hyperparameters a France Fights On result records for the algorithm ``name`` (beside its spec's)."""
    if name in ("maskable_ppo", "untrained"):
        return _hyperparameters()
    if name == "dagger_expert":
        return {**DAGGER, **_hyperparameters(), "dagger": dict(DAGGER)}
    if name == "maskable_ppo_pretrained":
        from agents.ffo.pretrained import pretrained_metadata

        metas = {s: pretrained_metadata(s) for s in ("french", "german")}  # one network for both sides
        start = {s: f"pretrained ({m.get('extra', {}).get('run', '?')})" for s, m in metas.items()}
        return {**_hyperparameters(metas["french"]["network"]), "init": start}
    return {}


class HexPart(SB3Part):
    observation = "dict"
    n_envs = N_ENVS

    def build(self, learner: SB3Learner, init: str | None) -> Any:
        from training.model import build_model

        ctx = learner.ctx
        shipped = None
        if init == "pretrained":  # RL from the shipped imitation policy (issue 39), value head included
            from agents.ffo.pretrained import load_pretrained

            shipped = load_pretrained(ctx.side)
        elif init is not None:
            raise ValueError(f"unknown start {init!r} of France Fights On's network")
        learner.cfg = _config(ctx.seed, None if shipped is None else shipped.meta["network"])
        model = build_model(learner.cfg, learner.vec_env(0), ctx.workdir / "tb", ctx.seed)
        if shipped is not None:
            model.policy.load_state_dict(shipped.policy.state_dict())
        return model

    def callback(self, learner: SB3Learner) -> Any:
        from training.train import threads_callback

        return threads_callback(learner.cfg)

    def agent(self, learner: SB3Learner, sample: bool) -> Any:
        from agents.ffo.policy import PolicyAgent

        return PolicyAgent(learner.model.policy, learner.ctx.side, {"extra": {"run": "benchmark"}})

    def save(self, learner: SB3Learner, folder: Path) -> None:
        from training.checkpoint import save_checkpoint

        save_checkpoint(learner.model, folder, learner.ctx.side)

    def load(self, learner: SB3Learner, folder: Path) -> None:
        from training.checkpoint import load_checkpoint

        load_checkpoint(learner.model, folder, learner.ctx.side)

    def dagger_file(self, side: str) -> str:
        return f"{side}-dagger-data.npz"

    def dagger_fit(self, learner: DaggerLearner, seed: int) -> None:
        from training.imitation import Dataset, fit

        kept = 0
        for i in range(len(learner.parts) - 1, -1, -1):  # the most recent `window` decisions
            kept += len(learner.parts[i]["action"])
            if kept >= DAGGER["window"]:
                learner.parts = learner.parts[i:]
                break
        data = Dataset()
        for p in learner.parts:
            data.add(p)
        if data.n:
            fit(
                learner.model.policy,
                data,
                np.arange(data.n),
                DAGGER["epochs"],
                DAGGER["batch_size"],
                DAGGER["learning_rate"],
                DAGGER["value_coef"],
                seed=seed,
                progress=False,
            )

    def dagger_collect(self, learner: DaggerLearner, n: int, beta: float, seed: int) -> dict[str, np.ndarray]:
        """Play ``n`` learner decisions; keep each with probability ``keep_fraction``, labelled with the
        teacher's action and the discounted return from there (none for a game the budget cuts short)."""
        from agents import make_agent
        from training.imitation import OBS_KEYS

        ctx = learner.ctx
        rng = np.random.default_rng(seed)
        env: Any = learner.bench.make_env(ctx.task, ctx.side, ctx.opponent(seed * 10), "dict", seed)
        teacher = make_agent(str(DAGGER["teacher"]), ctx.side, seed=seed, game=ctx.task.game)
        student = learner.agent()
        rows: dict[str, list[Any]] = {k: [] for k in (*OBS_KEYS, "mask", "action", "ret", "has_return")}
        obs, _ = env.reset(seed=seed)
        rewards: list[float] = []
        kept: list[tuple[int, int]] = []
        gamma = float(DAGGER["gamma"])
        for _ in range(n):
            mask = env.action_masks()
            a_teacher = int(teacher.act_state(env.unwrapped.game_state))
            if rng.random() < float(DAGGER["keep_fraction"]):
                for k in OBS_KEYS:
                    rows[k].append(obs[k])
                rows["mask"].append(mask)
                rows["action"].append(a_teacher)
                rows["ret"].append(0.0)
                rows["has_return"].append(False)
                kept.append((len(rows["action"]) - 1, len(rewards)))
            a = a_teacher if rng.random() < beta else student.act(obs, mask)
            obs, r, term, trunc, _info = env.step(a)
            rewards.append(float(r))
            if term or trunc:
                ret = np.zeros(len(rewards) + 1)
                for j in range(len(rewards) - 1, -1, -1):
                    ret[j] = rewards[j] + gamma * ret[j + 1]
                for row, j in kept:
                    rows["ret"][row] = ret[j]
                    rows["has_return"][row] = bool(term)
                obs, _ = env.reset()
                rewards, kept = [], []
        space = env.observation_space.spaces
        out = {k: np.asarray(rows[k], dtype=space[k].dtype).reshape(-1, *space[k].shape) for k in OBS_KEYS}
        out["mask"] = np.asarray(rows["mask"], dtype=bool).reshape(-1, env.action_space.n)
        out["action"] = np.asarray(rows["action"], dtype=np.int64)
        out["ret"] = np.asarray(rows["ret"], dtype=np.float32)
        out["has_return"] = np.asarray(rows["has_return"], dtype=bool)
        return out


PART = HexPart()
