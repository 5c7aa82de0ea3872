"""What the benchmark protocol needs of Springtime for Hitler (issue 41), the suite's second game.

The protocol's modules are written for any game of the suite and call here for a task whose id starts with
``springtime/`` (:attr:`benchmarks.protocol.tasks.Task.game`):

- the fingerprint's inputs (:func:`fingerprint_inputs`): the core's engine version, the bytes of the game's
  data files, the observation layout of :mod:`ffo_env.springtime.encoding`, the task's definition and a
  probe of every bot the task uses (:func:`bot_probe`);
- the start of an evaluation game (:func:`eval_start`: the campaign scenario, standard rules, game seed
  ``EVAL_SEED_BASE + i``) and the training env (:func:`make_env`: :class:`SpringtimeSingleAgentEnv`);
- ``maskable_ppo`` and ``untrained`` on this game (:class:`SpringtimePPOLearner`): sb3-contrib
  ``MaskablePPO("MlpPolicy")`` on the flat observation (1,351 floats), SB3's default MLP (two layers of 64
  tanh units for the actor and the critic), with the rollout settings of the FFO rows (2 envs x 512
  decisions, 4 epochs, batch 256, lr 3e-4, gamma 0.999); evaluation plays the argmax over the legal actions.
"""

from __future__ import annotations

import hashlib
import io
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.protocol.algo_sb3 import DaggerSteps
from benchmarks.protocol.algos import Context, Learner
from ffo_env.atomic import atomic_write_bytes

GAME = "springtime"
SIDES = ("french", "german")
PPO: dict[str, Any] = {
    "policy": "MlpPolicy",
    "observation": "flat",
    "n_envs": 2,
    "n_steps": 512,
    "batch_size": 256,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "gamma": 0.999,
    "gae_lambda": 0.95,
    "ent_coef": 0.0,
    "net_arch": "SB3 default (64, 64) tanh, separate actor and critic",
    "reward": "win",
    "evaluation": "greedy",
}
# the shaped reward's scale: the French potential (Morale / 30) from 30 to 0 is worth this many wins
SHAPING_SCALE = 0.5  # the env's default: Morale 30 -> 0 is worth half a win
EVALUATIONS = ("greedy", "sample")
# maskable_ppo_shaped: MaskablePPO's settings with the shaped training reward (docs/experiments/2026-11-26-springtime-rl.md)
SHAPED: dict[str, Any] = {
    **PPO,
    "ent_coef": 0.01,  # rescued 1 of 3 collapsing seeds in the experiments; no other single change did more
    "reward": "shaped",
    "shaping_scale": SHAPING_SCALE,
    "evaluation": "sample",
}


# ------------------------------------------------------------------ fingerprint


def _data_hash() -> dict[str, str]:
    from ffo_env.springtime.core.data import DATA_DIR, DATA_VERSION

    h = hashlib.sha256()
    for p in sorted(DATA_DIR.iterdir()):
        if p.is_file():
            h.update(p.name.encode() + b"\0" + p.read_bytes())
    return {"version": DATA_VERSION, "sha256": h.hexdigest()[:16]}


def observation_spec_hash() -> str:
    """A hash of the observation layout (the game interface's,
    :func:`ffo_env.springtime.interface.observation_spec_hash`)."""
    from ffo_env.springtime.interface import observation_spec_hash as spec_hash

    return spec_hash()


@lru_cache(maxsize=32)
def bot_probe(name: str, probe_decisions: int = 300) -> str:
    """A hash of ``name``'s decisions over the first ``probe_decisions`` decisions of a fixed game (seed 0),
    the bot playing both sides: any change to the bot's play there changes it."""
    from agents.springtime import make_agent
    from ffo_env.games import game_info

    state = game_info(GAME).new_state(0)
    bots = {side: make_agent(name, side, seed=1) for side in SIDES}
    h = hashlib.sha256()
    for _ in range(probe_decisions):
        if state.is_terminal():
            break
        a = int(bots[SIDES[state.current_player]].act_state(state))
        h.update(a.to_bytes(2, "little"))
        state.apply_action(a)
    return h.hexdigest()[:16]


def fingerprint_inputs(task: Any) -> dict[str, Any]:
    from ffo_env.springtime.core.game import ENGINE_VERSION

    inputs = {
        "game": GAME,
        "engine": ENGINE_VERSION,
        "data": _data_hash(),
        "observation": observation_spec_hash(),
        "task": task.definition(),
        "bots": {name: bot_probe(name) for name in task.bots()},
    }
    if task.kind == "selfplay":  # the frozen ratings the score is measured against are part of the task
        from benchmarks.protocol.ladder_ref import SPRINGTIME_LADDER

        inputs["ladder"] = {k: list(v) for k, v in sorted(SPRINGTIME_LADDER.items())}
    return inputs


def run_meta() -> dict[str, Any]:
    """The game's versions a result records (``meta`` of a result file)."""
    from ffo_env.springtime.core.data import DATA_VERSION
    from ffo_env.springtime.core.game import ENGINE_VERSION

    return {
        "game": GAME,
        "engine": ENGINE_VERSION,
        "data": DATA_VERSION,
        "observation_spec": observation_spec_hash(),
    }


# ------------------------------------------------------------------ games and envs


def eval_start(seed: int) -> Any:
    """A new campaign game (standard rules) with game seed ``seed``."""
    from ffo_env.games import game_info

    return game_info(GAME).new_state(seed)


def make_env(side: str, opponent: Any, observation_format: str, seed: int, reward: str = "win") -> Any:
    """The training env of ``side`` against ``opponent`` (an agent object), reset with ``seed``. The
    observation is the flat vector for ``flat`` and ``compact`` (1,351 floats: already compact) and the
    ``{"observation", "action_mask"}`` dict for ``dict``. ``reward``: ``"win"`` (the task's +1/-1 at the end)
    or ``"shaped"`` (the env's potential-based shaping from French Morale, :data:`SHAPING_SCALE`; a training
    choice of an algorithm: the task's score stays the win rate)."""
    from ffo_env.springtime.env import SpringtimeSingleAgentEnv

    fmt = "dict" if observation_format == "dict" else "flat"
    kwargs: dict[str, Any] = {}
    if reward != "win":
        kwargs = {"reward": reward, "shaping_scale": SHAPING_SCALE}
    env = SpringtimeSingleAgentEnv(side=side, opponent=opponent, observation_format=fmt, **kwargs)
    env.reset(seed=seed)
    return env


def encode(state: Any, side: str) -> np.ndarray:
    """The flat observation of ``state`` for ``side`` (the env's own encoder)."""
    from ffo_env.springtime.encoding import encode as encode_obs

    return encode_obs(state, SIDES.index(side))


def winner(state: Any) -> str | None:
    return SIDES[int(state.winner)] if int(state.winner) >= 0 else None


def final_figure(state: Any) -> int:
    """The figure a game's row averages besides its result: the final French Morale (rule 17)."""
    return int(state.morale)


# ------------------------------------------------------------------ MaskablePPO


class _Greedy:
    """A MaskablePPO policy as an agent on the flat observation: the argmax over the legal actions, or with
    ``sample`` a draw from the policy's distribution over them (from a generator seeded by :meth:`reset`,
    which the evaluation calls with a seed fixed by the game and the run)."""

    def __init__(self, learner: SpringtimePPOLearner, sample: bool = False) -> None:
        self.learner = learner
        self.sample = sample
        self.rng = np.random.default_rng(0)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act_state(self, state: Any) -> int:
        import torch

        policy: Any = self.learner.model.policy
        obs = torch.as_tensor(encode(state, self.learner.ctx.side)).unsqueeze(0)
        legal = state.legal_actions()
        with torch.inference_mode():
            logits = policy.get_distribution(obs).distribution.logits[0].numpy().astype(np.float64)
        if not self.sample:
            return int(legal[int(np.argmax(logits[legal]))])
        z = logits[legal] - logits[legal].max()
        p = np.exp(z)
        return int(legal[int(self.rng.choice(len(legal), p=p / p.sum()))])


class SpringtimePPOLearner(Learner):
    """``maskable_ppo`` (and, with ``learns=False``, ``untrained``) on a Springtime task; ``reward`` and
    ``evaluation`` make its variants (``maskable_ppo_shaped``: the shaped training reward, the policy sampled
    in evaluation)."""

    def __init__(
        self, ctx: Context, learns: bool = True, reward: str = "win", evaluation: str = "greedy"
    ) -> None:
        import torch
        from sb3_contrib import MaskablePPO

        if evaluation not in EVALUATIONS:
            raise ValueError(f"evaluation must be one of {EVALUATIONS}, got {evaluation!r}")
        torch.set_num_threads(1)
        super().__init__(ctx)
        self.learns = learns
        self.reward = reward
        self.evaluation = evaluation
        self.settings = SHAPED if reward == "shaped" else PPO
        self.model = MaskablePPO(
            PPO["policy"],
            self._spaces_env() if ctx.task.kind == "selfplay" else self._vec_env(0),
            n_steps=int(PPO["n_steps"]),
            batch_size=int(PPO["batch_size"]),
            n_epochs=int(PPO["n_epochs"]),
            learning_rate=float(PPO["learning_rate"]),
            gamma=float(PPO["gamma"]),
            gae_lambda=float(PPO["gae_lambda"]),
            ent_coef=float(self.settings["ent_coef"]),
            seed=ctx.seed,
            device="cpu",
            verbose=0,
        )

    def _spaces_env(self) -> Any:
        """An env for the model's spaces only (learning replaces it): in self-play the opponent is the other
        side's learner, which may not exist yet, and a campaign opens with an Axis decision, so the French env
        could not be reset against it here."""
        from stable_baselines3.common.vec_env import DummyVecEnv

        n = int(PPO["n_envs"])
        return DummyVecEnv(
            [partial(make_env, self.ctx.side, None, "flat", self.ctx.seed + r) for r in range(n)]
        )

    def _vec_env(self, segment: int) -> Any:
        from stable_baselines3.common.vec_env import DummyVecEnv

        from benchmarks.protocol.algo_sb3 import segment_seed

        ctx = self.ctx
        base = segment_seed(ctx.seed, segment) * 10
        return DummyVecEnv(
            [
                partial(make_env, ctx.side, ctx.opponent(base + r), "flat", base + r, self.reward)
                for r in range(int(PPO["n_envs"]))
            ]
        )

    @property
    def decisions(self) -> int:
        return int(self.model.num_timesteps)

    def learn(self, until: int, segment: int) -> None:
        from benchmarks.protocol.algo_sb3 import segment_seed

        remaining = until - self.decisions
        if not self.learns or remaining <= 0:
            return
        # as for FFO: each interval from fresh envs seeded by (seed, segment), so a resumed run replays it
        self.model.set_env(self._vec_env(segment), force_reset=True)
        self.model.set_random_seed(segment_seed(self.ctx.seed, segment))
        self.model.learn(remaining, reset_num_timesteps=False)

    def agent(self) -> Any:
        return _Greedy(self, sample=self.evaluation == "sample")

    def save(self, folder: Path) -> None:
        import torch

        buf = io.BytesIO()
        payload = {
            "policy": self.model.policy.state_dict(),
            "optimizer": self.model.policy.optimizer.state_dict(),
            "num_timesteps": torch.tensor(self.model.num_timesteps),
        }
        torch.save(payload, buf)
        atomic_write_bytes(folder / f"{self.ctx.side}-springtime-ppo.pt", buf.getvalue())

    def load(self, folder: Path) -> None:
        import torch

        path = folder / f"{self.ctx.side}-springtime-ppo.pt"
        payload = torch.load(path, map_location="cpu", weights_only=True)
        self.model.policy.load_state_dict(payload["policy"])
        self.model.policy.optimizer.load_state_dict(payload["optimizer"])
        self.model.num_timesteps = int(payload["num_timesteps"])


# ------------------------------------------------------------------ DAgger

# dagger_expert on this game: the FFO rows' DAgger settings (benchmarks.protocol.algo_sb3.DAGGER) into the
# MlpPolicy of maskable_ppo; a Springtime observation is 1,351 float16 (2.7 kB), so every labelled decision
# of the run is kept (DAgger's aggregate; FFO keeps a window of 4,000 for memory)
DAGGER_SETTINGS: dict[str, Any] = {
    "teacher": "expert",
    "keep_fraction": 0.5,
    "epochs": 4,
    "batch_size": 64,
    "learning_rate": 1e-3,
    "value_coef": 0.5,
    "beta": "0.5 ** (segment - 1): the teacher's share of the moves played while collecting",
    "network": PPO["net_arch"],
}


_DAGGER_KEYS = ("obs", "mask", "label", "ret")


def _dagger_fit(
    policy: Any,
    optimizer: Any,
    data: dict[str, np.ndarray],
    epochs: int,
    batch_size: int,
    value_coef: float,
    seed: int,
) -> dict[str, float]:
    """Minimise ``-log pi(label | obs, mask) + value_coef * (V(obs) - ret)^2`` over ``data``; returns the last
    epoch's mean losses and the accuracy of the argmax against the labels.

    The fit of ``training/springtime/imitation.py`` as it was when this task's committed results were made
    (main at 66c8867), kept here unchanged until the benchmark's learners share one DAgger path (issue 62,
    step 7): the shared pipeline's ``training.imitation.fit`` takes a ``Dataset``, not these arrays."""
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


class SpringtimeDaggerLearner(DaggerSteps, SpringtimePPOLearner):
    """``dagger_expert`` on a Springtime task: DAgger imitation of the side's ``expert`` bot (Ross et al.
    2011) into the network of ``maskable_ppo``. Each interval of the budget plays ``n`` learner decisions
    against the task's opponent, from envs seeded by (seed, segment) as the PPO rows; each decision is
    played by the teacher with probability ``0.5 ** (segment - 1)`` (all of them in the first interval),
    else by the student's argmax, and a ``keep_fraction`` of them is labelled with the teacher's move and
    the game's result (+1/-1 for the learner; none for a game the interval cuts short). Then
    ``epochs`` passes of :func:`_dagger_fit` over every label so far."""

    def _fit(self, seed: int) -> None:
        import torch

        data = {k: np.concatenate([p[k] for p in self.parts]) for k in _DAGGER_KEYS}
        known = data["ret"] == data["ret"]  # NaN marks a label without a result
        if len(data["label"]):
            policy: Any = self.model.policy
            opt = torch.optim.Adam(policy.parameters(), lr=float(DAGGER_SETTINGS["learning_rate"]))
            _dagger_fit(
                policy,
                opt,
                {**data, "ret": np.where(known, data["ret"], 0.0).astype(np.float32)},
                int(DAGGER_SETTINGS["epochs"]),
                int(DAGGER_SETTINGS["batch_size"]),
                float(DAGGER_SETTINGS["value_coef"]),
                seed=seed,
            )

    def _collect(self, n: int, beta: float, seed: int) -> dict[str, np.ndarray]:
        from agents.springtime import make_agent
        from ffo_env.springtime.core.actions import N_ACTIONS

        ctx = self.ctx
        rng = np.random.default_rng(seed)
        env: Any = make_env(ctx.side, ctx.opponent(seed * 10), "flat", seed)
        teacher = make_agent(str(DAGGER_SETTINGS["teacher"]), ctx.side, seed)
        student = _Greedy(self)
        obs_rows: list[np.ndarray] = []
        masks: list[np.ndarray] = []
        labels: list[int] = []
        rets: list[float] = []
        pending: list[int] = []  # rows of the game in play, whose result is not known yet
        obs, _ = env.reset(seed=seed)
        for _ in range(n):
            state = env.unwrapped.game_state
            a_teacher = int(teacher.act_state(state))
            if rng.random() < float(DAGGER_SETTINGS["keep_fraction"]):
                mask = np.asarray(env.action_masks(), dtype=bool)  # the env's own, as the FFO learner keeps
                obs_rows.append(np.asarray(obs, dtype=np.float16))
                masks.append(mask)
                labels.append(a_teacher)
                rets.append(float("nan"))
                pending.append(len(labels) - 1)
            a = a_teacher if rng.random() < beta else student.act_state(state)
            obs, _r, term, trunc, _info = env.step(a)
            if term or trunc:
                won = winner(env.unwrapped.game_state) == ctx.side
                result = (1.0 if won else -1.0) if term else float("nan")
                for row in pending:
                    rets[row] = result
                pending = []
                obs, _ = env.reset()
                teacher.reset(int(rng.integers(2**31)))
        return {
            "obs": np.asarray(obs_rows, dtype=np.float16).reshape(-1, len(obs)),
            "mask": np.asarray(masks, dtype=bool).reshape(-1, N_ACTIONS),
            "label": np.asarray(labels, dtype=np.int16),
            "ret": np.asarray(rets, dtype=np.float32),
        }

    def save(self, folder: Path) -> None:
        from benchmarks.protocol.algo_sb3 import save_parts

        self.model.num_timesteps = self._decisions  # the checkpoint records the decisions used
        super().save(folder)
        save_parts(folder / f"{self.ctx.side}-springtime-dagger-data.npz", self.parts)

    def load(self, folder: Path) -> None:
        from benchmarks.protocol.algo_sb3 import load_parts

        super().load(folder)
        self._decisions = int(self.model.num_timesteps)
        self.parts = load_parts(folder / f"{self.ctx.side}-springtime-dagger-data.npz")
