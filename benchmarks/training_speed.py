"""Training figures of ``ffo bench``: MaskablePPO samples/s and behaviour-cloning fit samples/s."""

from __future__ import annotations

from typing import Any


def train_samples(seconds_budget: float, config: str | None) -> dict[str, Any]:
    """MaskablePPO samples/s with the default (quick) training config, on one core."""
    import torch

    from training.train import measure_training_speed

    torch.set_num_threads(1)
    return measure_training_speed(config=config, seconds=seconds_budget)


def imitation_samples(seconds_budget: float, config: str | None) -> dict[str, Any]:
    """Behaviour-cloning fit samples/s (the imitation warm start's fitting step) with the same config, on one
    core; the teacher's decisions it fits are gathered first and not timed."""
    import torch

    from training.imitation import measure_imitation_speed

    torch.set_num_threads(1)
    return measure_imitation_speed(config=config, seconds=seconds_budget)
