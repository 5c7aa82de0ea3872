"""The project's SB3 learners as benchmark algorithms, one of each for every game (issue 62: one benchmark path):

- ``maskable_ppo``: sb3-contrib MaskablePPO with the game's network (France Fights On: ``HexPolicy`` built by
  :func:`training.model.build_model` with :class:`training.config.TrainConfig`'s defaults on the dict
  observation; Springtime for Hitler: SB3's ``MlpPolicy`` on its flat observation), rollouts of 2 x 512
  decisions, 4 epochs, batch 256, lr 3e-4, gamma 0.999;
- ``dagger_expert``: DAgger imitation of the side's ``expert`` bot into the same network; the learner's
  decisions are the ones it plays while collecting labels (teacher's move with probability
  ``0.5 ** (segment - 1)``, its own argmax otherwise), against the task's own opponent from the task's starts;
- ``untrained``: that network as initialised (seeded), argmax over the legal actions: the check that a task
  is not solved before any training;
- ``maskable_ppo_pretrained`` (games offering ``pretrained_init``) and ``maskable_ppo_shaped`` (games offering
  ``shaped_reward``).

One :class:`SB3Learner` and one :class:`DaggerLearner` serve every game; what differs is the game's *network
part* (:class:`SB3Part`), which its benchmark package gives as ``sb3_part()``: how the model is built, the
observation it reads, the agent that is evaluated, the checkpoint files, and the DAgger collection and fit.
:class:`MlpPart` is the part of a game whose learners read one flat vector (SB3's ``MlpPolicy``): a new game
with such an observation needs no network code of its own, only its settings.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.protocol.algos import AlgoSpec, Context, Learner, LogitsAgent, register
from ffo_env.atomic import atomic_write_bytes


def segment_seed(seed: int, segment: int) -> int:
    return seed * 1_000 + segment


class SB3Part:
    """A game's network part of the SB3 learners (see the module docstring). Subclasses implement each method;
    the learner is passed in, so a part holds settings only."""

    observation = "dict"  # the env's observation_format the model reads
    n_envs = 2

    def build(self, learner: SB3Learner, init: str | None) -> Any:
        """The model (``learner.vec_env(0)`` gives its training envs); ``init="pretrained"`` starts it from the
        game's shipped policy of the side."""
        raise NotImplementedError

    def callback(self, learner: SB3Learner) -> Any:
        return None

    def agent(self, learner: SB3Learner, sample: bool) -> Any:
        raise NotImplementedError

    def save(self, learner: SB3Learner, folder: Path) -> None:
        raise NotImplementedError

    def load(self, learner: SB3Learner, folder: Path) -> None:
        raise NotImplementedError

    def dagger_file(self, side: str) -> str:
        raise NotImplementedError

    def dagger_collect(self, learner: DaggerLearner, n: int, beta: float, seed: int) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def dagger_fit(self, learner: DaggerLearner, seed: int) -> None:
        raise NotImplementedError


class SB3Learner(Learner):
    """``maskable_ppo`` (``learns=False``: ``untrained``) of any game: a MaskablePPO model built by the game's
    network part; ``reward`` (``"shaped"``: the env's shaped training reward) and ``evaluation`` (``"sample"``:
    the policy sampled in evaluation) make its variants, ``init="pretrained"`` ``maskable_ppo_pretrained``."""

    def __init__(
        self,
        ctx: Context,
        learns: bool = True,
        reward: str = "win",
        evaluation: str = "greedy",
        init: str | None = None,
    ) -> None:
        import torch

        from benchmarks.protocol.games import bench_of

        if evaluation not in EVALUATIONS:
            raise ValueError(f"evaluation must be one of {EVALUATIONS}, got {evaluation!r}")
        if init is not None:
            _check_start(ctx, init)
        torch.set_num_threads(1)
        super().__init__(ctx)
        self.bench = bench_of(ctx.task.game)
        self.part: SB3Part = self.bench.sb3_part()
        self.learns = learns
        self.reward = reward
        self.evaluation = evaluation
        self.cfg: Any = None  # a part's training config, where it has one (France Fights On's TrainConfig)
        self.model = self.part.build(self, init)

    def vec_env(self, segment: int) -> Any:
        """The training envs of interval ``segment``: fresh envs seeded by (seed, segment), so a resumed run
        replays the interval."""
        from stable_baselines3.common.vec_env import DummyVecEnv

        ctx = self.ctx
        base = segment_seed(ctx.seed, segment) * 10
        fns: list[Callable[[], Any]] = [
            partial(
                self.bench.make_env,
                ctx.task,
                ctx.side,
                ctx.opponent(base + r),
                self.part.observation,
                base + r,
                self.reward,
            )
            for r in range(self.part.n_envs)
        ]
        return DummyVecEnv(fns)

    @property
    def decisions(self) -> int:
        return int(self.model.num_timesteps)

    def learn(self, until: int, segment: int) -> None:
        remaining = until - self.decisions
        if not self.learns or remaining <= 0:
            return
        # each interval starts from fresh envs and seeds fixed by (seed, segment): a run resumed from the
        # checkpoint at the interval's start replays it exactly
        self.model.set_env(self.vec_env(segment), force_reset=True)
        self.model.set_random_seed(segment_seed(self.ctx.seed, segment))
        self.model.learn(remaining, reset_num_timesteps=False, callback=self.part.callback(self))

    def agent(self) -> Any:
        return self.part.agent(self, sample=self.evaluation == "sample")

    def save(self, folder: Path) -> None:
        self.part.save(self, folder)

    def load(self, folder: Path) -> None:
        self.part.load(self, folder)


EVALUATIONS = ("greedy", "sample")
STARTS = {"pretrained": "pretrained_init"}  # a network's start other than a fresh one -> the feature it needs


def _check_start(ctx: Context, init: str) -> None:
    """Refuse a start the task's game does not offer, naming the games that do."""
    from benchmarks.protocol.games import bench_of, games_offering
    from ffo_env.games import game_info

    feature = STARTS.get(init)
    if feature is None:
        raise ValueError(f"unknown start {init!r} of a network; expected one of {', '.join(STARTS)}")
    if feature not in bench_of(ctx.task.game).FEATURES:
        titles = " or ".join(game_info(g).title for g in games_offering(feature))
        raise ValueError(f"maskable_ppo_{init} runs {titles}'s tasks, not {ctx.task.id}")


class DaggerLearner(SB3Learner):
    """``dagger_expert`` of any game: DAgger (Ross et al. 2011). Each interval of the budget plays ``n`` learner
    decisions from envs seeded by (seed, segment), each played by the teacher with probability
    ``0.5 ** (segment - 1)`` (all of them in the first interval), and appends their labels to ``parts``; then
    the network part's fit trains on the labels kept."""

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
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
        self.parts.append(self.part.dagger_collect(self, n, 0.5 ** max(segment - 1, 0), seed))
        self.part.dagger_fit(self, seed)
        self._decisions = until

    def save(self, folder: Path) -> None:
        self.model.num_timesteps = self._decisions  # the checkpoint records the decisions used
        super().save(folder)
        save_parts(folder / self.part.dagger_file(self.ctx.side), self.parts)

    def load(self, folder: Path) -> None:
        super().load(folder)
        self._decisions = int(self.model.num_timesteps)
        self.parts = load_parts(folder / self.part.dagger_file(self.ctx.side))


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


# ------------------------------------------------------------------ the part of a flat-vector game


class MlpPart(SB3Part):
    """The network part of a game whose learners read one flat vector: sb3-contrib ``MaskablePPO("MlpPolicy")``
    (SB3's default MLP: two layers of 64 tanh units for the actor and for the critic) with ``settings["ppo"]``,
    evaluated by :class:`benchmarks.protocol.algos.LogitsAgent` over the game's ``encode_vector``; checkpoints
    ``<side>-<package>-ppo.pt``. DAgger keeps every labelled decision (float16 observations), each labelled with
    the teacher's move and the learner's result of a finished game (+1/-1; NaN for a game the interval cuts
    short), and fits with :func:`fit_arrays`."""

    observation = "flat"

    def __init__(self, package: str, settings: dict[str, Any]) -> None:
        self.package = package
        self.settings = settings  # "ppo", "shaped" (optional), "dagger"
        self.n_envs = int(settings["ppo"]["n_envs"])

    def ppo(self, reward: str) -> dict[str, Any]:
        return dict(self.settings["shaped"] if reward == "shaped" else self.settings["ppo"])

    def _spaces_env(self, learner: SB3Learner) -> Any:
        """An env for the model's spaces only (learning replaces it): in self-play the opponent is the other
        side's learner, which may not exist yet, and a game may open with the other side's decision, so the env
        could not be reset against it here."""
        from stable_baselines3.common.vec_env import DummyVecEnv

        ctx = learner.ctx
        return DummyVecEnv(
            [
                partial(learner.bench.make_env, ctx.task, ctx.side, None, self.observation, ctx.seed + r)
                for r in range(self.n_envs)
            ]
        )

    def build(self, learner: SB3Learner, init: str | None) -> Any:
        from sb3_contrib import MaskablePPO

        if init is not None:
            raise ValueError(f"{learner.ctx.task.id}: no {init!r} start for this game's network")
        s = self.ppo(learner.reward)
        env = self._spaces_env(learner) if learner.ctx.task.kind == "selfplay" else learner.vec_env(0)
        return MaskablePPO(
            s["policy"],
            env,
            n_steps=int(s["n_steps"]),
            batch_size=int(s["batch_size"]),
            n_epochs=int(s["n_epochs"]),
            learning_rate=float(s["learning_rate"]),
            gamma=float(s["gamma"]),
            gae_lambda=float(s["gae_lambda"]),
            ent_coef=float(s["ent_coef"]),
            seed=learner.ctx.seed,
            device="cpu",
            verbose=0,
        )

    def agent(self, learner: SB3Learner, sample: bool) -> Any:
        side = learner.ctx.side

        def logits(obs: Any) -> Any:
            policy: Any = learner.model.policy
            return policy.get_distribution(obs).distribution.logits

        return LogitsAgent(partial(learner.bench.encode_vector, side=side), logits, sample=sample)

    def _file(self, side: str) -> str:
        return f"{side}-{self.package}-ppo.pt"

    def save(self, learner: SB3Learner, folder: Path) -> None:
        import torch

        model = learner.model
        buf = io.BytesIO()
        payload = {
            "policy": model.policy.state_dict(),
            "optimizer": model.policy.optimizer.state_dict(),
            "num_timesteps": torch.tensor(model.num_timesteps),
        }
        torch.save(payload, buf)
        atomic_write_bytes(folder / self._file(learner.ctx.side), buf.getvalue())

    def load(self, learner: SB3Learner, folder: Path) -> None:
        import torch

        payload = torch.load(folder / self._file(learner.ctx.side), map_location="cpu", weights_only=True)
        learner.model.policy.load_state_dict(payload["policy"])
        learner.model.policy.optimizer.load_state_dict(payload["optimizer"])
        learner.model.num_timesteps = int(payload["num_timesteps"])

    def dagger_file(self, side: str) -> str:
        return f"{side}-{self.package}-dagger-data.npz"

    def dagger_collect(self, learner: DaggerLearner, n: int, beta: float, seed: int) -> dict[str, np.ndarray]:
        from agents import make_agent

        ctx = learner.ctx
        dagger = self.settings["dagger"]
        rng = np.random.default_rng(seed)
        env: Any = learner.bench.make_env(ctx.task, ctx.side, ctx.opponent(seed * 10), self.observation, seed)
        teacher = make_agent(str(dagger["teacher"]), ctx.side, seed, game=ctx.task.game)
        student = self.agent(learner, sample=False)
        obs_rows: list[np.ndarray] = []
        masks: list[np.ndarray] = []
        labels: list[int] = []
        rets: list[float] = []
        pending: list[int] = []  # rows of the game in play, whose result is not known yet
        obs, _ = env.reset(seed=seed)
        for _ in range(n):
            state = env.unwrapped.game_state
            a_teacher = int(teacher.act_state(state))
            if rng.random() < float(dagger["keep_fraction"]):
                mask = np.asarray(env.action_masks(), dtype=bool)  # the env's own
                obs_rows.append(np.asarray(obs, dtype=np.float16))
                masks.append(mask)
                labels.append(a_teacher)
                rets.append(float("nan"))
                pending.append(len(labels) - 1)
            a = a_teacher if rng.random() < beta else student.act_state(state)
            obs, _r, term, trunc, _info = env.step(a)
            if term or trunc:
                won = learner.bench.winner(env.unwrapped.game_state) == ctx.side
                result = (1.0 if won else -1.0) if term else float("nan")
                for row in pending:
                    rets[row] = result
                pending = []
                obs, _ = env.reset()
                teacher.reset(int(rng.integers(2**31)))
        return {
            "obs": np.asarray(obs_rows, dtype=np.float16).reshape(-1, len(obs)),
            "mask": np.asarray(masks, dtype=bool).reshape(-1, int(env.action_space.n)),
            "label": np.asarray(labels, dtype=np.int16),
            "ret": np.asarray(rets, dtype=np.float32),
        }

    def dagger_fit(self, learner: DaggerLearner, seed: int) -> None:
        import torch

        dagger = self.settings["dagger"]
        data = {k: np.concatenate([p[k] for p in learner.parts]) for k in ("obs", "mask", "label", "ret")}
        known = data["ret"] == data["ret"]  # NaN marks a label without a result
        if len(data["label"]):
            policy: Any = learner.model.policy
            opt = torch.optim.Adam(policy.parameters(), lr=float(dagger["learning_rate"]))
            fit_arrays(
                policy,
                opt,
                {**data, "ret": np.where(known, data["ret"], 0.0).astype(np.float32)},
                int(dagger["epochs"]),
                int(dagger["batch_size"]),
                float(dagger["value_coef"]),
                seed=seed,
            )


def fit_arrays(
    policy: Any,
    optimizer: Any,
    data: dict[str, np.ndarray],
    epochs: int,
    batch_size: int,
    value_coef: float,
    seed: int,
) -> dict[str, float]:
    """Minimise ``-log pi(label | obs, mask) + value_coef * (V(obs) - ret)^2`` over ``data`` (arrays ``obs``,
    ``mask``, ``label``, ``ret``); returns the last epoch's mean losses and the accuracy of the argmax against
    the labels.

    The fit Springtime for Hitler's committed ``dagger_expert`` results were made with (the fit of
    ``training/springtime/imitation.py`` at main 66c8867), unchanged so that they stay reproducible; the
    training pipeline's :func:`training.imitation.fit` takes a ``Dataset`` of dict observations instead."""
    import torch

    n = len(data["label"])
    gen = np.random.default_rng(seed)
    obs = torch.as_tensor(data["obs"])  # float16, converted batch by batch
    masks = torch.as_tensor(data["mask"])
    labels = torch.as_tensor(data["label"].astype(np.int64))
    rets = torch.as_tensor(data["ret"])
    policy.set_training_mode(True)
    out: dict[str, float] = {}
    for _ in range(epochs):
        order = torch.as_tensor(gen.permutation(n))
        tot_pi = tot_v = correct = 0.0
        for i in range(0, n, batch_size):
            idx = order[i : i + batch_size]
            x = obs[idx].float()
            values, log_prob, _ = policy.evaluate_actions(x, labels[idx], action_masks=masks[idx])
            loss_pi = -log_prob.mean()
            loss_v = torch.nn.functional.mse_loss(values.flatten(), rets[idx])
            loss = loss_pi + value_coef * loss_v
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            with torch.no_grad():
                dist = policy.get_distribution(x, action_masks=masks[idx].numpy())
                correct += float((dist.distribution.probs.argmax(dim=1) == labels[idx]).sum())
            tot_pi += loss_pi.item() * len(idx)
            tot_v += loss_v.item() * len(idx)
        out = {"policy_loss": tot_pi / n, "value_loss": tot_v / n, "accuracy": correct / n}
    policy.set_training_mode(False)
    return out


# ------------------------------------------------------------------ the registry's entries


register(
    AlgoSpec(
        "maskable_ppo",
        "sb3-contrib MaskablePPO with the project's network (training.model.build_model, TrainConfig defaults)",
        True,
        "dict",
        SB3Learner,
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
        partial(SB3Learner, init="pretrained"),
        hyperparameters={"source": "training.config.TrainConfig defaults", "init": "pretrained"},
        needs="pretrained_init",
    )
)
register(
    AlgoSpec(
        "dagger_expert",
        "DAgger imitation of the side's expert bot into the project's network (training.imitation.fit; "
        "on a flat-vector game into maskable_ppo's MlpPolicy, benchmarks.protocol.algo_sb3.fit_arrays)",
        True,
        "dict",
        DaggerLearner,
    )
)
register(
    AlgoSpec(
        "maskable_ppo_shaped",
        "maskable_ppo trained on the env's shaped reward (Springtime: potential from French Morale), its policy "
        "sampled in evaluation; scored by the task's win rate",
        True,
        "flat",
        partial(SB3Learner, reward="shaped", evaluation="sample"),
        needs="shaped_reward",
    )
)
register(
    AlgoSpec(
        "untrained",
        "the project's network as initialised (seeded), argmax over the legal actions (reference row)",
        False,
        "dict",
        partial(SB3Learner, learns=False),
    )
)


def hyperparameters_of(name: str, game: str) -> dict[str, Any]:
    """The hyperparameters a result records for ``name`` in ``game`` (its benchmark part's)."""
    from benchmarks.protocol.games import bench_of

    return bench_of(game).hyperparameters(name)
