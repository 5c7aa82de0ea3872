"""A CleanRL-style single-file masked PPO on the flat observation of France Fights On.

    python examples/cleanrl_masked_ppo.py --env-id ffo_env:ffo_env/French-flat-v0 --total-timesteps 50000

Readable top to bottom, in the manner of CleanRL's ``ppo.py``: the env comes from ``gymnasium.make`` with
nothing but its id (the ``ffo_env:`` prefix imports the package that registers it), the network is an MLP
built on ``observation_space.shape``, and the only addition to plain PPO is the action mask, read from
``info["action_mask"]`` (also available as the env's ``action_masks()``): illegal logits are set to a large
negative number before sampling. Without the mask the script still runs: an illegal action ends the
episode with -1 (PettingZoo's classic convention), which PPO learns to avoid.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import time
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from torch.distributions.categorical import Categorical


@dataclass
class Args:
    env_id: str = "ffo_env:ffo_env/French-flat-v0"
    """the gymnasium id (a flat id: the observation is a 1-D Box)"""
    total_timesteps: int = 50_000
    """learner decisions to train on"""
    num_envs: int = 2
    """parallel environments (gymnasium SyncVectorEnv)"""
    num_steps: int = 256
    """rollout length per environment"""
    learning_rate: float = 2.5e-4
    """Adam learning rate"""
    gamma: float = 0.999
    """discount factor (games are hundreds of decisions long)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    num_minibatches: int = 4
    """minibatches per update"""
    update_epochs: int = 4
    """passes over each rollout"""
    clip_coef: float = 0.2
    """PPO clip range"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    hidden: int = 64
    """width of the two hidden layers"""
    seed: int = 1
    """seed of everything"""
    use_mask: bool = True
    """mask illegal actions (from info["action_mask"])"""


def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass (what tyro shows as --help in CleanRL)."""
    import ast
    import inspect

    body = ast.parse(inspect.getsource(cls)).body[0].body  # type: ignore[attr-defined]
    docs = {}
    for a, b in zip(body, body[1:], strict=False):
        if isinstance(a, ast.AnnAssign) and isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant):
            docs[a.target.id] = str(b.value.value)  # type: ignore[union-attr]
    return docs


def parse_args() -> Args:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    docs = field_docs(Args)
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        help_text = f"{docs.get(f.name, '')} (default: {f.default})"
        if str(f.type) == "bool":
            p.add_argument(
                flag, type=lambda s: s.lower() in ("1", "true", "yes"), default=f.default, help=help_text
            )
        else:
            cast = {"int": int, "float": float, "str": str}[str(f.type)]
            p.add_argument(flag, type=cast, default=f.default, help=help_text)
    return Args(**vars(p.parse_args()))


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_dim: int, n_actions: int, hidden: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_dim, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, n_actions), std=0.01),
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        logits = self.actor(x)
        logits = torch.where(mask, logits, torch.tensor(-1e8))  # the only change to plain PPO
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def main() -> None:
    args = parse_args()
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_iterations = max(1, args.total_timesteps // batch_size)

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    # SAME_STEP autoreset: the observation and info["action_mask"] after an episode ends are the next
    # episode's, so the mask always belongs to the observation it is used with
    envs = gym.vector.SyncVectorEnv(
        [lambda: gym.make(args.env_id) for _ in range(args.num_envs)],
        autoreset_mode=gym.vector.AutoresetMode.SAME_STEP,
    )
    assert isinstance(envs.single_action_space, gym.spaces.Discrete), "only discrete action spaces"
    obs_dim = int(np.prod(envs.single_observation_space.shape))
    n_actions = int(envs.single_action_space.n)
    agent = Agent(obs_dim, n_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros((args.num_steps, args.num_envs, obs_dim))
    masks = torch.zeros((args.num_steps, args.num_envs, n_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    global_step, episodes, wins, start = 0, 0, 0, time.time()
    next_obs_np, info = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs_np, dtype=torch.float32)
    next_mask = (
        torch.as_tensor(info["action_mask"].astype(bool))
        if args.use_mask
        else torch.ones((args.num_envs, n_actions), dtype=torch.bool)
    )
    next_done = torch.zeros(args.num_envs)

    for iteration in range(1, num_iterations + 1):
        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step], actions[step], logprobs[step] = value.flatten(), action, logprob
            next_obs_np, reward, term, trunc, info = envs.step(action.numpy())
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            next_done = torch.as_tensor(np.logical_or(term, trunc), dtype=torch.float32)
            next_obs = torch.as_tensor(next_obs_np, dtype=torch.float32)
            if args.use_mask:
                next_mask = torch.as_tensor(info["action_mask"].astype(bool))
            for i in np.flatnonzero(np.logical_or(term, trunc)):
                episodes += 1
                wins += int(reward[i] > 0)

        with torch.no_grad():  # generalized advantage estimation
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                nextnonterminal = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                nextvalues = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
                advantages[t] = lastgaelam
            returns = advantages + values

        b_obs, b_masks = obs.reshape(-1, obs_dim), masks.reshape(-1, n_actions)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
        b_inds = np.arange(batch_size)
        for _epoch in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for s in range(0, batch_size, minibatch_size):
                mb = b_inds[s : s + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb], b_masks[mb], b_actions[mb]
                )
                ratio = (newlogprob - b_logprobs[mb]).exp()
                mb_adv = b_advantages[mb]
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(
                    -mb_adv * ratio, -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                ).mean()
                v_loss = 0.5 * ((newvalue.view(-1) - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        sps = int(global_step / (time.time() - start))
        print(
            json.dumps(
                {
                    "iteration": iteration,
                    "global_step": global_step,
                    "episodes": episodes,
                    "win_rate": round(wins / episodes, 3) if episodes else None,
                    "SPS": sps,
                }
            ),
            flush=True,
        )
    envs.close()


if __name__ == "__main__":
    main()
