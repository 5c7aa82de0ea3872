"""``ppo_mlp_compact``: PPO with an MLP on the compact observation, as CleanRL's ``ppo.py`` writes it.

The same algorithm and defaults as CleanRL's ``ppo.py`` (vwxyzjn/cleanrl): ``Agent`` with two hidden layers
of 64 tanh units for the actor and for the critic, orthogonal initialisation (gain sqrt 2, actor head 0.01,
critic head 1), Adam (eps 1e-5) at 2.5e-4 annealed linearly to 0 over the run's budget, 4 envs x 128 steps a
rollout, gamma 0.99, GAE lambda 0.95, 4 minibatches, 4 epochs, advantage normalisation, clipped surrogate
(0.2) and clipped value loss, entropy 0.01, value 0.5, gradient norm 0.5. One addition, CleanRL's own for
gym-microrts (``ppo_gridnet.py``'s ``CategoricalMasked``): illegal actions get logit -1e8, so the policy only
samples legal ones. Observation: the game's one flat vector (the registry's ``vector_observation``: France Fights
On's ``compact``, ``ffo_env/French-compact-v0``; Springtime for Hitler's ``flat``, 1,351 floats,
``ffo_env/Springtime-French-flat-v0``), encoded by the game's benchmark part (``encode_vector``). Evaluation plays
the argmax over the legal actions (:class:`benchmarks.protocol.algos.LogitsAgent`).
"""

from __future__ import annotations

import io
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.protocol.algos import AlgoSpec, Context, Learner, LogitsAgent, register
from ffo_env.atomic import atomic_write_bytes

ARGS = {
    "learning_rate": 2.5e-4,
    "anneal_lr": True,
    "num_envs": 4,
    "num_steps": 128,
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "num_minibatches": 4,
    "update_epochs": 4,
    "norm_adv": True,
    "clip_coef": 0.2,
    "clip_vloss": True,
    "ent_coef": 0.01,
    "vf_coef": 0.5,
    "max_grad_norm": 0.5,
    "hidden": 64,
}
FORMAT = "compact"  # the name of the observation in the registry (each game reads its own flat vector)


def _agent_net(n_obs: int, n_actions: int) -> Any:
    import torch
    from torch import nn

    def layer_init(layer: Any, std: float = float(np.sqrt(2)), bias_const: float = 0.0) -> Any:
        torch.nn.init.orthogonal_(layer.weight, std)
        torch.nn.init.constant_(layer.bias, bias_const)
        return layer

    h = int(ARGS["hidden"])

    class Agent(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.critic = nn.Sequential(
                layer_init(nn.Linear(n_obs, h)),
                nn.Tanh(),
                layer_init(nn.Linear(h, h)),
                nn.Tanh(),
                layer_init(nn.Linear(h, 1), std=1.0),
            )
            self.actor = nn.Sequential(
                layer_init(nn.Linear(n_obs, h)),
                nn.Tanh(),
                layer_init(nn.Linear(h, h)),
                nn.Tanh(),
                layer_init(nn.Linear(h, n_actions), std=0.01),
            )

        def get_value(self, x: Any) -> Any:
            return self.critic(x)

        def get_action_and_value(self, x: Any, mask: Any, action: Any = None) -> tuple[Any, Any, Any, Any]:
            logits = self.actor(x)
            logits = torch.where(mask, logits, torch.tensor(-1e8))  # CategoricalMasked
            probs = torch.distributions.Categorical(logits=logits)
            if action is None:
                action = probs.sample()
            p_log_p = probs.logits * probs.probs
            entropy = -torch.where(mask, p_log_p, torch.tensor(0.0)).sum(-1)
            return action, probs.log_prob(action), entropy, self.critic(x)

    return Agent()


class CleanRLLearner(Learner):
    """``ppo_mlp_compact``; with ``reward="shaped"`` and ``evaluation="sample"`` (games offering
    ``shaped_reward``) ``ppo_mlp_compact_shaped``, which trains on the env's shaped reward, is evaluated with its policy sampled,
    and is scored, like every learner, by its win rate."""

    def __init__(self, ctx: Context, reward: str = "win", evaluation: str = "greedy") -> None:
        import torch

        from benchmarks.protocol.envs import make_env
        from benchmarks.protocol.games import bench_of
        from ffo_env.games import game_info

        self.bench = bench_of(ctx.task.game)
        self.bench.check_vector()
        self.format = game_info(ctx.task.game).vector_observation
        torch.set_num_threads(1)
        torch.manual_seed(ctx.seed)
        super().__init__(ctx)
        self.reward = reward
        self.evaluation = evaluation
        # the spaces only; in self-play the opponent (the other side's learner) may not exist yet
        probe_opponent = None if ctx.task.kind == "selfplay" else ctx.opponent(0)
        probe: Any = make_env(ctx.task, ctx.side, probe_opponent, self.format, ctx.seed)
        self.n_obs = int(np.prod(probe.observation_space.shape))
        self.n_actions = int(probe.action_space.n)
        self.net = _agent_net(self.n_obs, self.n_actions)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=float(ARGS["learning_rate"]), eps=1e-5)
        self.steps = 0  # learner decisions used (CleanRL's global_step)
        self.batch = int(ARGS["num_envs"]) * int(ARGS["num_steps"])

    @property
    def decisions(self) -> int:
        return self.steps

    def encode(self, state: Any) -> np.ndarray:
        """The flat observation of ``state`` for the learner's side (the env's own encoder)."""
        return np.asarray(self.bench.encode_vector(state, self.ctx.side))

    def agent(self) -> Any:
        return LogitsAgent(self.encode, self.net.actor, sample=self.evaluation == "sample")

    def learn(self, until: int, segment: int) -> None:
        import torch

        from benchmarks.protocol.algo_sb3 import segment_seed
        from benchmarks.protocol.envs import make_env

        if self.steps >= until:
            return
        ctx = self.ctx
        a = ARGS
        seed = segment_seed(ctx.seed, segment)
        torch.manual_seed(seed)
        n_envs, n_steps = int(a["num_envs"]), int(a["num_steps"])
        envs: list[Any] = [
            make_env(ctx.task, ctx.side, ctx.opponent(seed * 10 + r), self.format, seed * 10 + r, self.reward)
            for r in range(n_envs)
        ]
        next_obs = np.stack([e.reset(seed=seed * 10 + r)[0] for r, e in enumerate(envs)]).astype(np.float32)
        next_mask = np.stack([e.action_masks() for e in envs]).astype(bool)  # Springtime's masks are int8
        next_done = np.zeros(n_envs, dtype=np.float32)
        obs = np.zeros((n_steps, n_envs, self.n_obs), dtype=np.float32)
        masks = np.zeros((n_steps, n_envs, self.n_actions), dtype=bool)
        actions = np.zeros((n_steps, n_envs), dtype=np.int64)
        logprobs = np.zeros((n_steps, n_envs), dtype=np.float32)
        rewards = np.zeros((n_steps, n_envs), dtype=np.float32)
        dones = np.zeros((n_steps, n_envs), dtype=np.float32)
        values = np.zeros((n_steps, n_envs), dtype=np.float32)
        total_updates = max(1, -(-ctx.budget // self.batch))
        while self.steps < until:
            if a["anneal_lr"]:
                update = self.steps // self.batch
                frac = max(0.0, 1.0 - update / total_updates)
                self.opt.param_groups[0]["lr"] = frac * float(a["learning_rate"])
            for step in range(n_steps):
                self.steps += n_envs
                obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
                with torch.no_grad():
                    act, logp, _, value = self.net.get_action_and_value(
                        torch.as_tensor(next_obs), torch.as_tensor(next_mask)
                    )
                values[step] = value.flatten().numpy()
                actions[step], logprobs[step] = act.numpy(), logp.numpy()
                for r, e in enumerate(envs):
                    o, rew, term, trunc, _ = e.step(int(actions[step, r]))
                    rewards[step, r] = rew
                    next_done[r] = float(term or trunc)
                    if term or trunc:
                        o, _ = e.reset()
                    next_obs[r] = o
                    next_mask[r] = e.action_masks()
            self._update(obs, masks, actions, logprobs, rewards, dones, values, next_obs, next_done)

    def _update(self, obs: Any, masks: Any, actions: Any, logprobs: Any, rewards: Any, dones: Any,
                values: Any, next_obs: Any, next_done: Any) -> None:  # fmt: skip
        import torch
        from torch import nn

        a = ARGS
        n_steps = int(a["num_steps"])
        with torch.no_grad():
            next_value = self.net.get_value(torch.as_tensor(next_obs)).flatten().numpy()
        advantages = np.zeros_like(rewards)
        lastgaelam = 0.0
        for t in reversed(range(n_steps)):
            if t == n_steps - 1:
                nextnonterminal, nextvalues = 1.0 - next_done, next_value
            else:
                nextnonterminal, nextvalues = 1.0 - dones[t + 1], values[t + 1]
            delta = rewards[t] + float(a["gamma"]) * nextvalues * nextnonterminal - values[t]
            lastgaelam = delta + float(a["gamma"]) * float(a["gae_lambda"]) * nextnonterminal * lastgaelam
            advantages[t] = lastgaelam
        returns = advantages + values
        b_obs = torch.as_tensor(obs.reshape(-1, self.n_obs))
        b_masks = torch.as_tensor(masks.reshape(-1, self.n_actions))
        b_actions = torch.as_tensor(actions.reshape(-1))
        b_logprobs = torch.as_tensor(logprobs.reshape(-1))
        b_adv = torch.as_tensor(advantages.reshape(-1))
        b_returns = torch.as_tensor(returns.reshape(-1))
        b_values = torch.as_tensor(values.reshape(-1))
        mb = self.batch // int(a["num_minibatches"])
        gen = np.random.default_rng(self.steps)
        for _epoch in range(int(a["update_epochs"])):
            inds = gen.permutation(self.batch)
            for start in range(0, self.batch, mb):
                i = torch.as_tensor(inds[start : start + mb])
                _, newlogprob, entropy, newvalue = self.net.get_action_and_value(
                    b_obs[i], b_masks[i], b_actions[i]
                )
                logratio = newlogprob - b_logprobs[i]
                ratio = logratio.exp()
                adv = b_adv[i]
                if a["norm_adv"]:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                clip = float(a["clip_coef"])
                pg_loss = torch.max(-adv * ratio, -adv * torch.clamp(ratio, 1 - clip, 1 + clip)).mean()
                newvalue = newvalue.view(-1)
                if a["clip_vloss"]:
                    v_unclipped = (newvalue - b_returns[i]) ** 2
                    v_clipped = b_values[i] + torch.clamp(newvalue - b_values[i], -clip, clip)
                    v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - b_returns[i]) ** 2).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[i]) ** 2).mean()
                loss = pg_loss - float(a["ent_coef"]) * entropy.mean() + v_loss * float(a["vf_coef"])
                self.opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(self.net.parameters(), float(a["max_grad_norm"]))
                self.opt.step()

    def save(self, folder: Path) -> None:
        import torch

        buf = io.BytesIO()
        payload = {
            "net": self.net.state_dict(),
            "opt": self.opt.state_dict(),
            "steps": torch.tensor(self.steps),
        }
        torch.save(payload, buf)
        atomic_write_bytes(folder / f"{self.ctx.side}-cleanrl.pt", buf.getvalue())

    def load(self, folder: Path) -> None:
        import torch

        payload = torch.load(folder / f"{self.ctx.side}-cleanrl.pt", map_location="cpu", weights_only=True)
        self.net.load_state_dict(payload["net"])
        self.opt.load_state_dict(payload["opt"])
        self.steps = int(payload["steps"])


register(
    AlgoSpec(
        "ppo_mlp_compact",
        "PPO with a 64x64 tanh MLP on the compact observation, CleanRL ppo.py's defaults, masked logits",
        True,
        FORMAT,
        CleanRLLearner,
        hyperparameters=dict(ARGS),
    )
)
register(
    AlgoSpec(
        "ppo_mlp_compact_shaped",
        "ppo_mlp_compact trained on the env's shaped reward (Springtime: potential from French Morale), its policy "
        "sampled in evaluation; scored by the task's win rate",
        True,
        FORMAT,
        partial(CleanRLLearner, reward="shaped", evaluation="sample"),
        hyperparameters=dict(ARGS),  # with the game's reward settings (its benchmark part's hyperparameters)
        needs="shaped_reward",
    )
)
