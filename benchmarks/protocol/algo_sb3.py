"""The project's network and trainers as benchmark algorithms (they call :mod:`training`, never copy it):

- ``maskable_ppo``: sb3-contrib MaskablePPO with the project's policy network
  (:func:`training.model.build_model` with the defaults of :class:`training.config.TrainConfig`: the
  ``HexPolicy`` network, 2 envs, rollouts of 2 x 512 decisions, 4 epochs, batch 256, lr 3e-4, gamma 0.999);
- ``dagger_expert``: DAgger imitation of the side's ``expert`` bot into the same network
  (:func:`training.imitation.fit`, the loss and fitting of ``ffo train``'s imitation stage); the learner's
  decisions are the ones it plays while collecting labels (teacher's move with probability
  ``0.5 ** (segment - 1)``, its own argmax otherwise), against the task's own opponent from the task's starts;
- ``untrained``: that network as initialised (seeded), argmax over the legal actions: the check that a task
  is not solved before any training.

On a Springtime for Hitler task ``maskable_ppo`` and ``untrained`` are MaskablePPO with SB3's ``MlpPolicy`` on
the flat observation (:mod:`benchmarks.protocol.springtime`), and ``dagger_expert`` imitates the game's
``expert`` into that network (:class:`benchmarks.protocol.springtime.SpringtimeDaggerLearner`).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.protocol.algos import AlgoSpec, Context, Learner, register
from ffo_env.atomic import atomic_write_bytes

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


def segment_seed(seed: int, segment: int) -> int:
    return seed * 1_000 + segment


class SB3Learner(Learner):
    """Holds a MaskablePPO model with the project's network (built by :func:`training.model.build_model`)."""

    def __init__(self, ctx: Context, network: dict[str, Any] | None = None) -> None:
        import torch

        from training.model import build_model

        torch.set_num_threads(1)
        super().__init__(ctx)
        self.cfg = _config(ctx.seed, network)
        self.model = build_model(self.cfg, self._vec_env(0), ctx.workdir / "tb", ctx.seed)

    def _vec_env(self, segment: int) -> Any:
        from stable_baselines3.common.vec_env import DummyVecEnv

        from benchmarks.protocol.envs import make_env

        ctx = self.ctx
        base = segment_seed(ctx.seed, segment) * 10
        fns: list[Callable[[], Any]] = [
            partial(make_env, ctx.task, ctx.side, ctx.opponent(base + r), "dict", base + r)
            for r in range(N_ENVS)
        ]
        return DummyVecEnv(fns)

    @property
    def decisions(self) -> int:
        return int(self.model.num_timesteps)

    def agent(self) -> Any:
        from agents.ffo.policy import PolicyAgent

        return PolicyAgent(self.model.policy, self.ctx.side, {"extra": {"run": "benchmark"}})

    def save(self, folder: Path) -> None:
        from training.checkpoint import save_checkpoint

        save_checkpoint(self.model, folder, self.ctx.side)

    def load(self, folder: Path) -> None:
        from training.checkpoint import load_checkpoint

        load_checkpoint(self.model, folder, self.ctx.side)


class PPOLearner(SB3Learner):
    def learn(self, until: int, segment: int) -> None:
        from training.train import threads_callback

        remaining = until - self.decisions
        if remaining <= 0:
            return
        # each interval starts from fresh envs and seeds fixed by (seed, segment): a run resumed from the
        # checkpoint at the interval's start replays it exactly
        self.model.set_env(self._vec_env(segment), force_reset=True)
        self.model.set_random_seed(segment_seed(self.ctx.seed, segment))
        self.model.learn(remaining, reset_num_timesteps=False, callback=threads_callback(self.cfg))


class PretrainedPPOLearner(PPOLearner):
    """``maskable_ppo_pretrained``: ``maskable_ppo``'s trainer and hyperparameters, started from the shipped
    ``pretrained`` policy of the side (its network sizes and weights, value head included) instead of a
    fresh network: does RL on the task make the shipped imitation policy stronger (issue 39)? Its first
    evaluation point is the shipped policy itself. A resumed run reads its checkpoint over these weights."""

    def __init__(self, ctx: Context) -> None:
        from agents.ffo.pretrained import load_pretrained

        shipped = load_pretrained(ctx.side)
        super().__init__(ctx, network=shipped.meta["network"])
        self.model.policy.load_state_dict(shipped.policy.state_dict())


class DaggerSteps(Learner):
    """DAgger's outer loop, shared by the ``dagger_expert`` learners of both games (Ross et al. 2011): each
    interval of the budget plays ``n`` learner decisions from envs seeded by (seed, segment), each played by
    the teacher with probability ``0.5 ** (segment - 1)`` (all of them in the first interval), and appends
    their labels to ``parts``; then :meth:`_fit` trains on the labels kept. A game's learner supplies
    ``_collect`` and ``_fit`` and comes before its network's learner in the bases."""

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)  # the network's learner, next in the bases
        self.parts: list[dict[str, np.ndarray]] = []
        self._decisions = 0

    @property
    def decisions(self) -> int:
        return self._decisions

    def learn(self, until: int, segment: int) -> None:
        import torch

        n = until - self._decisions
        if n <= 0:
            return
        seed = segment_seed(self.ctx.seed, segment)
        torch.manual_seed(seed)
        self.parts.append(self._collect(n, 0.5 ** max(segment - 1, 0), seed))
        self._fit(seed)
        self._decisions = until

    def _collect(self, n: int, beta: float, seed: int) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def _fit(self, seed: int) -> None:
        raise NotImplementedError


class DaggerLearner(DaggerSteps, SB3Learner):
    def _fit(self, seed: int) -> None:
        from training.imitation import Dataset, fit

        kept = 0
        for i in range(len(self.parts) - 1, -1, -1):  # the most recent `window` decisions
            kept += len(self.parts[i]["action"])
            if kept >= DAGGER["window"]:
                self.parts = self.parts[i:]
                break
        data = Dataset()
        for p in self.parts:
            data.add(p)
        if data.n:
            fit(
                self.model.policy,
                data,
                np.arange(data.n),
                DAGGER["epochs"],
                DAGGER["batch_size"],
                DAGGER["learning_rate"],
                DAGGER["value_coef"],
                seed=seed,
                progress=False,
            )

    def _collect(self, n: int, beta: float, seed: int) -> dict[str, np.ndarray]:
        """Play ``n`` learner decisions; keep each with probability ``keep_fraction``, labelled with the
        teacher's action and the discounted return from there (none for a game the budget cuts short)."""
        from agents import make_agent
        from benchmarks.protocol.envs import make_env
        from training.imitation import OBS_KEYS

        ctx = self.ctx
        rng = np.random.default_rng(seed)
        env: Any = make_env(ctx.task, ctx.side, ctx.opponent(seed * 10), "dict", seed)
        teacher = make_agent(str(DAGGER["teacher"]), ctx.side, seed=seed)
        student = self.agent()
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

    def save(self, folder: Path) -> None:
        self.model.num_timesteps = self._decisions  # the checkpoint records the decisions used
        super().save(folder)
        save_parts(folder / f"{self.ctx.side}-dagger-data.npz", self.parts)

    def load(self, folder: Path) -> None:
        super().load(folder)
        self._decisions = int(self.model.num_timesteps)
        self.parts = load_parts(folder / f"{self.ctx.side}-dagger-data.npz")


def save_parts(path: Path, parts: list[dict[str, np.ndarray]]) -> None:
    """A DAgger learner's labelled data, one dict of arrays per interval, as one ``.npz`` (``i:key``)."""
    buf = io.BytesIO()
    arrays: dict[str, Any] = {f"{i}:{k}": v for i, p in enumerate(parts) for k, v in p.items()}
    np.savez_compressed(buf, **arrays)
    atomic_write_bytes(path, buf.getvalue())


def load_parts(path: Path) -> list[dict[str, np.ndarray]]:
    """What :func:`save_parts` wrote (read without pickle)."""
    parts: dict[int, dict[str, np.ndarray]] = {}
    with np.load(path, allow_pickle=False) as z:
        for key in z.files:
            i, k = key.split(":", 1)
            parts.setdefault(int(i), {})[k] = z[key]
    return [parts[i] for i in sorted(parts)]


class UntrainedLearner(SB3Learner):
    def learn(self, until: int, segment: int) -> None:
        return None


def _ppo(ctx: Context, learns: bool = True) -> Learner:
    if ctx.task.game == "springtime":
        from benchmarks.protocol.springtime import SpringtimePPOLearner

        return SpringtimePPOLearner(ctx, learns=learns)
    return PPOLearner(ctx) if learns else UntrainedLearner(ctx)


def _ppo_pretrained(ctx: Context) -> Learner:
    if ctx.task.game != "ffo":
        raise ValueError(f"maskable_ppo_pretrained runs France Fights On's tasks, not {ctx.task.id}")
    return PretrainedPPOLearner(ctx)


def _dagger(ctx: Context) -> Learner:
    if ctx.task.game == "springtime":
        from benchmarks.protocol.springtime import SpringtimeDaggerLearner

        return SpringtimeDaggerLearner(ctx)
    return DaggerLearner(ctx)


def _ppo_shaped(ctx: Context) -> Learner:
    from benchmarks.protocol.springtime import SHAPED, SpringtimePPOLearner

    return SpringtimePPOLearner(ctx, reward="shaped", evaluation=str(SHAPED["evaluation"]))


register(
    AlgoSpec(
        "maskable_ppo",
        "sb3-contrib MaskablePPO with the project's network (training.model.build_model, TrainConfig defaults)",
        True,
        "dict",
        _ppo,
        hyperparameters={"source": "training.config.TrainConfig defaults"},
    )
)
register(
    AlgoSpec(
        "maskable_ppo_pretrained",
        "maskable_ppo started from the shipped pretrained policy of the side (its network and weights) "
        "instead of a fresh network: what RL on the task adds to the imitation policy",
        True,
        "dict",
        _ppo_pretrained,
        hyperparameters={"source": "training.config.TrainConfig defaults", "init": "pretrained"},
        games=("ffo",),
    )
)
register(
    AlgoSpec(
        "dagger_expert",
        "DAgger imitation of the side's expert bot into the project's network (training.imitation.fit; "
        "on Springtime into maskable_ppo's MlpPolicy, benchmarks.protocol.springtime._dagger_fit)",
        True,
        "dict",
        _dagger,
        hyperparameters=dict(DAGGER),
        games=("ffo", "springtime"),
    )
)
register(
    AlgoSpec(
        "maskable_ppo_shaped",
        "maskable_ppo on Springtime trained on the env's shaped reward (potential from French Morale), its "
        "policy sampled in evaluation; scored by the task's win rate",
        True,
        "flat",
        _ppo_shaped,
        games=("springtime",),
    )
)
register(
    AlgoSpec(
        "untrained",
        "the project's network as initialised (seeded), argmax over the legal actions (reference row)",
        False,
        "dict",
        partial(_ppo, learns=False),
    )
)


def hyperparameters_of(name: str, game: str = "ffo") -> dict[str, Any]:
    """The hyperparameters a result records for ``name`` (in ``game``)."""
    if game == "springtime":
        from benchmarks.protocol.springtime import DAGGER_SETTINGS, PPO, SHAPED

        if name == "dagger_expert":
            return {
                "source": "benchmarks.protocol.springtime.DAGGER_SETTINGS",
                **PPO,
                "dagger": DAGGER_SETTINGS,
            }
        if name == "maskable_ppo_shaped":
            return {"source": "benchmarks.protocol.springtime.SHAPED", **SHAPED}
        return (
            {"source": "benchmarks.protocol.springtime.PPO", **PPO}
            if name in ("maskable_ppo", "untrained")
            else {}
        )
    if name in ("maskable_ppo", "untrained"):
        return _hyperparameters()
    if name == "dagger_expert":
        return {**_hyperparameters(), "dagger": dict(DAGGER)}
    if name == "maskable_ppo_pretrained":
        from agents.ffo.pretrained import pretrained_metadata

        metas = {s: pretrained_metadata(s) for s in ("french", "german")}  # one network for both sides
        start = {s: f"pretrained ({m.get('extra', {}).get('run', '?')})" for s, m in metas.items()}
        return {**_hyperparameters(metas["french"]["network"]), "init": start}
    return {}
