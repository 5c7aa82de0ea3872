"""The critic warm-up of a PPO stage (``ppo.critic_warmup``): the first rollouts of a side's PPO stage fit the
critic alone, so that the first policy updates do not follow the advantages of a critic fitted to other returns
(an imitation policy's). Game-neutral: it reads the network through sb3's policy attributes."""

from __future__ import annotations

from typing import Any


def rollouts_before(model: Any) -> int:
    """Rollouts the model had learned from before the one in its buffer (``num_timesteps`` already counts it;
    the same after a resume, since it counts the side's timesteps of every round)."""
    return max(0, model.num_timesteps // (model.n_steps * model.n_envs) - 1)


def in_critic_warmup(model: Any) -> bool:
    return rollouts_before(model) < getattr(model, "critic_warmup", 0)


def critic_update(model: Any) -> None:
    """One rollout of ``ppo.critic_warmup``: ``n_epochs`` passes of the value loss alone, with a gradient into
    the critic's own weights only (:func:`_critic_values`), so every weight the policy uses stays as it was
    (checked in ``tests/test_campaign.py``). Cheaper than a PPO update: no forward pass of the policy's head."""
    import numpy as np
    import torch
    from stable_baselines3.common.utils import explained_variance
    from torch.nn import functional as F

    policy = model.policy
    policy.set_training_mode(True)
    model._update_learning_rate(policy.optimizer)
    shared = policy.features_extractor
    if (
        not hasattr(shared, "summary")
        and policy.share_features_extractor
        and any(True for _ in shared.parameters())
    ):
        # NetworkSpec.critic_apart keeps such a config out; a network built another way must not get here
        raise ValueError(
            "ppo.critic_warmup: this network's critic reads features whose weights the policy uses"
        )
    value_losses: list[float] = []
    for _epoch in range(model.n_epochs):
        for data in model.rollout_buffer.get(model.batch_size):
            values = _critic_values(policy, data.observations)
            value_loss = F.mse_loss(data.returns, values)
            value_losses.append(value_loss.item())
            policy.optimizer.zero_grad()
            (model.vf_coef * value_loss).backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), model.max_grad_norm)
            policy.optimizer.step()
        model._n_updates += 1
    buf = model.rollout_buffer
    log = model.logger
    log.record("train/value_loss", np.mean(value_losses))
    log.record("train/explained_variance", explained_variance(buf.values.flatten(), buf.returns.flatten()))
    log.record("train/critic_warmup", 1)
    log.record("train/n_updates", model._n_updates, exclude="tensorboard")


def _critic_values(policy: Any, observations: Any) -> Any:
    """The critic's values with a gradient into the critic's own weights only. The hex network's critic reads
    the board summary of the shared features, taken without a gradient; an MLP (sb3's, a game's flat
    observation) has its own critic body over a features extractor without weights (``FlattenExtractor``;
    :func:`critic_update` refuses any other)."""
    import torch

    fe = policy.features_extractor
    if hasattr(fe, "summary"):
        with torch.no_grad():
            summary = fe.summary(observations)
        return policy.value_net(policy.mlp_extractor.value_body(summary)).flatten()
    return policy.predict_values(observations).flatten()
