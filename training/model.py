"""The MaskablePPO model and the training environments of a run: one place that builds both, for
:mod:`training.train`, the imitation stage and ``ffo bench``."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any, NamedTuple

from training.config import TrainConfig, spec_of
from training.envs import build_local_vec_env
from training.planes import plane_entries_of, planes_reader_of
from training.ppo_settings import ppo_kwargs


def build_vec_env(cfg: TrainConfig, side: str, snapshots: list[str]) -> Any:
    """The training envs of one side as ``cfg.vec_env`` says (``pipelined``: in a rollout worker process, see
    :mod:`training.pipeline`, whose worker builds its own envs with :func:`training.envs.build_local_vec_env`)."""
    if cfg.vec_env == "pipelined":
        from training.pipeline import PipelinedVecEnv

        return PipelinedVecEnv(cfg, side, snapshots)
    return build_local_vec_env(cfg, side, snapshots)


def policy_spec(cfg: TrainConfig) -> tuple[Any, dict[str, Any]]:
    """The policy class and its kwargs for a config (the game's network, :meth:`NetworkSpec.policy_spec`)."""
    return spec_of(cfg).policy_spec(cfg.policy)


def ppo_classes() -> tuple[type, type]:
    """MaskablePPO and its rollout buffer, with the two changes that speed up a run on a CPU:

    - rollouts run under ``torch.inference_mode`` (no autograd bookkeeping for the policy calls; the
      buffer keeps numpy copies, so nothing from there reaches a gradient);
    - the observations (a sample's planes are ~110 kB) are copied once per minibatch, not three times: SB3
      swaps the whole buffer's axes into a copy, then gathers each minibatch by fancy indexing and copies
      that again into a tensor; here a minibatch is one ``np.take`` from the buffer as filled, which torch
      shares (measured: ~0.4 ms a sample of the update with 8 envs went to those copies)."""
    import numpy as np
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.buffers import (
        MaskableDictRolloutBuffer,
        MaskableDictRolloutBufferSamples,
    )

    from training.critic_warmup import critic_update, in_critic_warmup
    from training.pipeline import PipelinedVecEnv, pipelined_collect
    from training.teacher_labels import TEACHER_KEY

    class FastDictRolloutBuffer(MaskableDictRolloutBuffer):
        observations_flat = False  # flat_observations and plane_entries are this rollout's
        # this rollout's plane entries as plane_entries_of gives them, found by whoever collected it (the
        # pipelined rollout worker, which has a core to spare while the learner updates); None: found here
        shipped_entries: torch.Tensor | None = None

        def reset(self) -> None:
            kept = getattr(self, "observations", None)
            super().reset()
            self.observations_flat = False
            self.behaviour_log_probs = None
            self.shipped_entries = None
            # kickstarting (ppo.teacher_coef): the teacher's move at each sample, from the envs' labels
            self.teacher_actions = (
                None if self.label_source is None else np.full((self.buffer_size, self.n_envs), -1, np.int64)
            )
            # every row is written before it is read, so the last rollout's observation arrays are reused:
            # SB3 allocates fresh zeros (~110 MB for 1024 samples) whose pages the kernel faults in and zeroes
            # again on the first write of every rollout (measured 0.1-0.2 ms a sample of the rollout)
            if kept is not None and all(
                k in kept and kept[k].shape == v.shape and kept[k].dtype == v.dtype
                for k, v in self.observations.items()
            ):
                self.observations = kept

        def add(  # type: ignore[override]
            self,
            obs: dict[str, np.ndarray],
            action: np.ndarray,
            reward: np.ndarray,
            episode_start: np.ndarray,
            value: torch.Tensor,
            log_prob: torch.Tensor,
            action_masks: np.ndarray | None = None,
        ) -> None:
            # DictRolloutBuffer.add and its masked subclass, but each observation goes straight into its row
            # (SB3 first copies it into a temporary array, ~110 kB a sample)
            if action_masks is not None:
                self.action_masks[self.pos] = action_masks.reshape((self.n_envs, self.mask_dims))
            for key, rows in self.observations.items():
                rows[self.pos] = np.asarray(obs[key]).reshape(rows.shape[1:])
            self.actions[self.pos] = np.asarray(action).reshape((self.n_envs, self.action_dim))
            self.rewards[self.pos] = reward
            self.episode_starts[self.pos] = episode_start
            self.values[self.pos] = value.clone().cpu().numpy().flatten()
            self.log_probs[self.pos] = log_prob.clone().cpu().numpy().reshape(self.n_envs)
            if self.teacher_actions is not None:
                # read when the step was sent, so these are the labels of the observations in this row
                self.teacher_actions[self.pos] = self.label_source.labels_of_last_obs
            self.pos += 1
            if self.pos == self.buffer_size:
                self.full = True

        # decoupled PPO (ppo.proximal): the sampling policy's log-probabilities, while log_probs holds the
        # proximal policy's (the learner's weights when the update starts); None in plain PPO
        behaviour_log_probs: np.ndarray | None = None
        # the envs that label every observation with the teacher's move (TeacherLabelsVecEnv), when kickstarting
        label_source: Any = None
        teacher_actions: np.ndarray | None = None

        def get(
            self, batch_size: int | None = None
        ) -> Generator[MaskableDictRolloutBufferSamples, None, None]:
            assert self.full, "the rollout buffer is read only once full"
            total = self.buffer_size * self.n_envs
            indices = np.random.permutation(total)
            if not self.generator_ready:
                names = ["actions", "values", "log_probs", "advantages", "returns", "action_masks"]
                if self.behaviour_log_probs is not None:
                    names.append("behaviour_log_probs")
                if self.teacher_actions is not None:
                    names.append("teacher_actions")
                for name in names:
                    self.__dict__[name] = self.swap_and_flatten(self.__dict__[name])
                self._flat_observations()
                self.generator_ready = True
            for start in range(0, total, batch_size or total):
                yield self._get_samples(indices[start : start + (batch_size or total)])

        def _flat_observations(self) -> None:
            if self.observations_flat:
                return
            total = self.buffer_size * self.n_envs
            # the observations are not swapped (SB3 copies the whole buffer, ~110 kB a sample, to do it):
            # flat sample env * buffer_size + step is row step * n_envs + env of this view
            self.flat_observations = {k: v.reshape(total, *v.shape[2:]) for k, v in self.observations.items()}
            self._sparse_planes(total)
            self.observations_flat = True

        def observations_of_rows(self, start: int, stop: int) -> dict[str, torch.Tensor]:
            """The policy's input for the samples in rows ``start:stop`` of the buffer as filled (row
            step * n_envs + env), as a minibatch carries them (the planes' non-zero entries, found once a
            rollout and reused by the update's minibatches)."""
            self._flat_observations()
            return self._observations(np.arange(start, stop))

        # set by FastMaskablePPO when its policy reads the planes through HexFeatures: the planes' non-zero
        # entries are then found once per rollout instead of once per epoch, and minibatches carry only those
        # (measured per minibatch of 512: ~20 ms to find them, 35-50 ms to copy the dense planes)
        planes_reader: Any = None

        def _sparse_planes(self, total: int) -> None:
            self.plane_entries: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None = None
            if self.planes_reader is None or "planes" not in self.flat_observations:
                return
            entries = self.shipped_entries
            if entries is None:
                entries = plane_entries_of(self.planes_reader, self.flat_observations["planes"])
            counts = torch.bincount(entries[0], minlength=total)
            self.plane_entries = (entries, counts, torch.cumsum(counts, 0) - counts)

        def _entries_of(self, rows: np.ndarray) -> torch.Tensor:
            """The plane entries of the flat observation ``rows``, renumbered 0.. in that order."""
            assert self.plane_entries is not None
            entries, counts, starts = self.plane_entries
            r = torch.from_numpy(rows)
            n = counts[r]
            first = torch.repeat_interleave(starts[r] - (torch.cumsum(n, 0) - n), n)
            picked = entries[:, first + torch.arange(int(n.sum()))]
            picked[0] = torch.repeat_interleave(torch.arange(len(rows)), n)
            return picked

        def _observations(self, rows: np.ndarray) -> dict[str, torch.Tensor]:
            from agents.ffo.network import PLANE_ENTRIES

            sparse = self.plane_entries is not None
            observations = {
                key: torch.from_numpy(np.take(obs, rows, axis=0)).to(self.device)
                for key, obs in self.flat_observations.items()
                if not (sparse and key == "planes")
            }
            if sparse:
                observations[PLANE_ENTRIES] = self._entries_of(rows).to(self.device)
            return observations

        def _get_samples(self, batch_inds: np.ndarray, env: Any = None) -> MaskableDictRolloutBufferSamples:
            idx = np.sort(batch_inds)  # a minibatch is a set: ascending rows read memory in order
            rows = (idx % self.buffer_size) * self.n_envs + idx // self.buffer_size

            def take(a: np.ndarray, i: np.ndarray = idx) -> torch.Tensor:
                return torch.from_numpy(np.take(a, i, axis=0)).to(self.device)

            observations = self._observations(rows)
            if self.teacher_actions is not None:
                observations[TEACHER_KEY] = take(self.teacher_actions).flatten()
            samples = MaskableDictRolloutBufferSamples(
                observations=observations,
                actions=take(self.actions),
                old_values=take(self.values).flatten(),
                old_log_prob=take(self.log_probs).flatten(),
                advantages=take(self.advantages).flatten(),
                returns=take(self.returns).flatten(),
                action_masks=take(self.action_masks).reshape(-1, self.mask_dims),
            )
            if self.behaviour_log_probs is None:
                return samples
            return DecoupledSamples(*samples, behaviour_log_prob=take(self.behaviour_log_probs).flatten())

    class FastMaskablePPO(MaskablePPO):
        def _setup_model(self) -> None:
            super()._setup_model()
            if isinstance(self.rollout_buffer, FastDictRolloutBuffer):
                self.rollout_buffer.planes_reader = planes_reader_of(self.policy)

        def collect_rollouts(
            self, env: Any, callback: Any, rollout_buffer: Any, n_rollout_steps: int, *args: Any, **kw: Any
        ) -> bool:
            if isinstance(env, PipelinedVecEnv):
                return pipelined_collect(self, env, callback, rollout_buffer, n_rollout_steps)
            if getattr(env, "provides_teacher_labels", False) and self.teacher_coef > 0:
                rollout_buffer.label_source = (
                    env  # the buffer's reset, first in SB3's collection, allocates the labels
                )
            with torch.inference_mode():
                return super().collect_rollouts(env, callback, rollout_buffer, n_rollout_steps, *args, **kw)

        # decoupled PPO with the pipelined env's lagged samples (ppo.proximal)
        proximal: bool = False
        # KL(policy || anchor) weight in the loss, and the frozen policy the PPO stage started from
        anchor_kl: float = 0.0
        anchor: Any = None
        # rollouts at the start of the side's PPO stage that fit the critic alone (ppo.critic_warmup)
        critic_warmup: int = 0
        # kickstarting: weight of the cross-entropy on the teacher's moves (ppo.teacher_coef)
        teacher_coef: float = 0.0

        def set_anchor(self, state_dict: dict[str, torch.Tensor] | None = None) -> None:
            """Freeze a copy of the policy (with ``state_dict``'s weights if given) as the anchor."""
            import copy

            anchor = copy.deepcopy(self.policy)
            if state_dict is not None:
                anchor.load_state_dict(state_dict)
            anchor.set_training_mode(False)
            for param in anchor.parameters():
                param.requires_grad_(False)
            self.anchor = anchor

        def train(self) -> None:
            decoupled = getattr(self.rollout_buffer, "behaviour_log_probs", None) is not None
            if in_critic_warmup(self):
                return critic_update(self)
            if (
                not (self.anchor_kl > 0 and self.anchor is not None)
                and not decoupled
                and not self.teacher_coef
            ):
                return super().train()
            return ppo_update(self)

    return FastMaskablePPO, FastDictRolloutBuffer


class DecoupledSamples(NamedTuple):
    """A minibatch of decoupled PPO (``ppo.proximal``): sb3-contrib's fields, ``old_log_prob`` the proximal
    policy's, plus the sampling policy's log-probabilities."""

    observations: Any
    actions: Any
    old_values: Any
    old_log_prob: Any
    advantages: Any
    returns: Any
    action_masks: Any
    behaviour_log_prob: Any


def ppo_update(model: Any) -> None:
    """sb3-contrib 2.9's ``MaskablePPO.train`` (no target KL, no value clipping: the options this project's
    configs cannot set) plus two options: ``anchor_kl`` x KL(policy || anchor) over the legal actions in the
    loss, and decoupled PPO when the minibatches carry the sampling policy's log-probabilities
    (``ppo.proximal``, :class:`DecoupledSamples`).

    Why: fine-tuning an imitation policy with PPO made it steadily worse (the French episode return against
    the scripted bots fell from +0.88 at update 40 to -0.47 at update 130, 1,024 decisions an update; as
    fast with the critic's gradient kept out of the shared features, or with the critic not trained). A
    game is hundreds of decisions long, so an update's policy gradient is mostly noise, and every step of
    noise away from a policy that copies a strong bot is likely a step down. The KL term pulls back toward
    the starting policy unless the returns keep pushing the same way (KL-regularised fine-tuning, as RLHF
    does for the same reason). ``tests/test_model.py`` checks that without either option this update equals
    sb3-contrib's."""
    import numpy as np
    import torch
    from stable_baselines3.common.utils import explained_variance
    from torch.nn import functional as F

    from agents.ffo.network import LegalCategorical
    from training.teacher_labels import TEACHER_KEY, teacher_loss

    policy = model.policy
    policy.set_training_mode(True)
    model._update_learning_rate(policy.optimizer)
    clip_range = model.clip_range(model._current_progress_remaining)
    entropy_losses, pg_losses, value_losses, clip_fractions, anchor_kls, weights = [], [], [], [], [], []
    anchored = model.anchor_kl > 0 and model.anchor is not None
    kickstarted = (
        model.teacher_coef > 0 and getattr(model.rollout_buffer, "teacher_actions", None) is not None
    )
    teacher_ces: list[float] = []
    teacher_agree: list[float] = []
    teacher_labelled: list[float] = []
    approx_kl_divs: list[float] = []
    loss = torch.zeros(())
    for _epoch in range(model.n_epochs):
        approx_kl_divs = []
        for data in model.rollout_buffer.get(model.batch_size):
            actions = data.actions.long().flatten()
            values, log_prob, entropy = policy.evaluate_actions(
                data.observations, actions, action_masks=data.action_masks
            )
            anchor_loss = torch.zeros(())
            if anchored:
                mine = policy.action_dist.distribution
                with torch.no_grad():
                    # HexPolicy's own feature path (SB3's get_distribution preprocesses by the observation
                    # space, which has no plane_entries key)
                    anchor = model.anchor
                    logits = anchor.action_net(
                        anchor.mlp_extractor.forward_actor(anchor.extract_features(data.observations))
                    )
                    theirs = LegalCategorical(logits, data.action_masks)
                kl = legal_kl(mine, theirs) if isinstance(mine, LegalCategorical) else None
                # every decision has a legal action and validate() refuses the flat network with anchor_kl
                assert kl is not None, "ppo.anchor_kl needs HexPolicy and a legal action in every row"
                anchor_loss = kl.mean()
                anchor_kls.append(anchor_loss.item())
            teacher_term = torch.zeros(())
            if kickstarted:
                teacher_term, agree, labelled = teacher_loss(
                    policy.action_dist.distribution, data.observations[TEACHER_KEY]
                )
                teacher_ces.append(teacher_term.item())
                teacher_agree.append(agree)
                teacher_labelled.append(labelled)
            values = values.flatten()
            advantages = data.advantages
            if model.normalize_advantage:
                advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
            # old_log_prob is the proximal policy's in decoupled PPO (ppo.proximal), the sampling policy's
            # otherwise
            ratio = torch.exp(log_prob - data.old_log_prob)
            clipped = torch.min(
                advantages * ratio, advantages * torch.clamp(ratio, 1 - clip_range, 1 + clip_range)
            )
            if isinstance(data, DecoupledSamples):
                # decoupled PPO (Hilton et al. 2022, "Batch size-invariance for policy optimization"): the
                # clipped objective around the proximal policy, weighted by proximal / sampling probability
                # (a constant: the gradient flows through the ratio only)
                weight = torch.exp(data.old_log_prob - data.behaviour_log_prob)
                weights.append(weight.mean().item())
                clipped = weight * clipped
            policy_loss = -clipped.mean()
            pg_losses.append(policy_loss.item())
            clip_fractions.append(torch.mean((torch.abs(ratio - 1) > clip_range).float()).item())
            value_loss = F.mse_loss(data.returns, values)
            value_losses.append(value_loss.item())
            entropy_loss = -torch.mean(entropy)
            entropy_losses.append(entropy_loss.item())
            loss = (
                policy_loss
                + model.ent_coef * entropy_loss
                + model.vf_coef * value_loss
                + model.anchor_kl * anchor_loss  # the terms sb3-contrib's update does not have
                + model.teacher_coef * teacher_term
            )
            with torch.no_grad():
                log_ratio = log_prob - data.old_log_prob
                approx_kl_divs.append(float(torch.mean((torch.exp(log_ratio) - 1) - log_ratio)))
            policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), model.max_grad_norm)
            policy.optimizer.step()
        model._n_updates += 1
    buf = model.rollout_buffer
    log = model.logger
    log.record("train/entropy_loss", np.mean(entropy_losses))
    log.record("train/policy_gradient_loss", np.mean(pg_losses))
    log.record("train/value_loss", np.mean(value_losses))
    log.record("train/approx_kl", np.mean(approx_kl_divs))
    log.record("train/clip_fraction", np.mean(clip_fractions))
    log.record("train/loss", loss.item())
    log.record("train/explained_variance", explained_variance(buf.values.flatten(), buf.returns.flatten()))
    log.record("train/n_updates", model._n_updates, exclude="tensorboard")
    log.record("train/clip_range", clip_range)
    if anchor_kls:
        log.record("train/anchor_kl", np.mean(anchor_kls))
    if weights:
        log.record("train/behaviour_weight", np.mean(weights))
    if teacher_ces:
        log.record("train/teacher_ce", np.mean(teacher_ces))
        log.record("train/teacher_agreement", np.mean(teacher_agree))
        log.record("train/teacher_labelled", np.mean(teacher_labelled))


def legal_kl(mine: Any, theirs: Any) -> Any:
    """KL(mine || theirs) per row, over the legal actions, of two :class:`LegalCategorical` of the same masks
    (``None`` if either fell back to its dense form)."""
    if mine._legal is None or theirs._legal is None:
        return None
    rows, _cols, logp, _lse = mine._legal
    their_logp = theirs._legal[2]
    return logp.new_zeros(mine._legal[3].shape[0]).index_add(0, rows, logp.exp() * (logp - their_logp))


def build_model(cfg: TrainConfig, env: Any, tb_dir: Path, seed: int) -> Any:
    import torch

    # the env workers take the other cores: torch's OpenMP threads spinning beside them thrash
    torch.set_num_threads(cfg.torch_threads)
    torch.set_flush_denormal(True)  # underflowing gradients of a sharp policy are slow on a CPU
    # the masked distribution over 1607 actions is built ~3 times a sample; checking its arguments each time
    # (torch's default) cost ~5 % of an update
    torch.distributions.Distribution.set_default_validate_args(False)
    policy, policy_kwargs = policy_spec(cfg)
    p = cfg.ppo
    ppo, buffer = ppo_classes()
    from gymnasium import spaces

    if not isinstance(env.observation_space, spaces.Dict):
        buffer = None  # a flat observation: sb3-contrib's own buffer (the fast one reads dict observations)
    model = ppo(
        policy,
        env,
        rollout_buffer_class=buffer,
        **ppo_kwargs(p),
        policy_kwargs=policy_kwargs,
        tensorboard_log=str(tb_dir),
        seed=seed,
        device=cfg.device,
        verbose=0,
    )
    model.anchor_kl = p.anchor_kl
    model.critic_warmup = p.critic_warmup
    model.teacher_coef = p.teacher_coef
    model.proximal = p.proximal
    model.game = cfg.game  # whose checkpoints and policy files it writes (training/checkpoint.py)
    return model
