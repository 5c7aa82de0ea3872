"""The non-zero entries of a rollout's observation planes, which the PPO update's minibatches carry instead of
the planes: found by the learner (:mod:`training.model`) or by the pipelined rollout worker
(:mod:`training.pipeline`), which both import it."""

from __future__ import annotations

from typing import Any


def planes_reader_of(policy: Any) -> Any:
    """The policy's :class:`~agents.ffo.network.HexFeatures` when it reads a batch's planes as their non-zero
    entries (only :class:`~agents.ffo.network.HexPolicy` hands its extractor the observation as it comes; SB3's
    other policies preprocess every key by the observation space, which has no entries key), else None."""
    from agents.ffo.network import HexPolicy

    return policy.features_extractor if isinstance(policy, HexPolicy) else None


def plane_entries_of(reader: Any, planes: Any, chunk: int = 256) -> Any:
    """``(4, E)`` int64: the non-zero entries of the non-map planes of ``planes`` ``(samples, C, cols, rows)``
    uint8 (numpy) as rows sample, plane, cell, value, ordered by sample (``HexFeatures.sparse_planes``), what
    the update's minibatches carry instead of the planes. ``chunk`` samples at a time: the search's
    temporaries stay small."""
    import torch

    rows = torch.from_numpy(planes)
    chunks = []
    for start in range(0, rows.shape[0], chunk):
        part = reader.sparse_planes(rows[start : start + chunk])
        part[0] += start  # sample numbers of the whole array
        chunks.append(part)
    return torch.cat(chunks, dim=1)
