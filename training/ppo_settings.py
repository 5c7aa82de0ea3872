"""The MaskablePPO hyperparameters that both games' training configs name alike (``ppo.learning_rate`` ...
``ppo.max_grad_norm``, ``ppo.normalize_advantage``), handed to sb3-contrib in one place for France Fights On's model
(:func:`training.model.build_model`) and Springtime for Hitler's (:func:`training.springtime.ppo.make_model`)."""

from __future__ import annotations

from typing import Any

__all__ = ["PPO_KEYS", "ppo_kwargs"]

PPO_KEYS = (
    "learning_rate",
    "n_steps",
    "batch_size",
    "n_epochs",
    "gamma",
    "gae_lambda",
    "clip_range",
    "ent_coef",
    "vf_coef",
    "max_grad_norm",
    "normalize_advantage",
)


def ppo_kwargs(section: Any) -> dict[str, Any]:
    """The keyword arguments of ``MaskablePPO(...)`` that a config's ``ppo`` section sets."""
    return {key: getattr(section, key) for key in PPO_KEYS}
