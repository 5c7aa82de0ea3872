"""Crash-safe, weights-only training checkpoints of France Fights On: what ``ffo train --resume`` restores.

The file pair, its atomic writing and its checked reading are the suite's (:mod:`training.checkpoint_io`):
``<run>/checkpoints/<side>-<timesteps>.pt`` (tensors only, read with ``torch.load(weights_only=True)``) and
``<side>.json`` (manifest). What is France Fights On's here: the format name ``ffo-checkpoint`` and what a
resume must find unchanged, the observation spec hash (:func:`agents.ffo.policy.spec_hash`) and the network
(:data:`agents.ffo.network.NETWORK_VERSION`, policy class, sizes).

SB3's own ``.zip`` checkpoints (``MaskablePPO.save``) are cloudpickle archives: loading one can run code
from the file. Runs written before this format are refused unless the user opts in (``--trust-pickle``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from training.checkpoint_io import MAX_BYTES, CheckpointError, CheckpointKind, restore, write_checkpoint
from training.checkpoint_io import read_manifest as _read_manifest
from training.run_folder import checkpoint_manifest_name, legacy_checkpoint_name

FORMAT = "ffo-checkpoint"
VERSION = 1
KIND = CheckpointKind(FORMAT, VERSION)

__all__ = [
    "FORMAT",
    "MAX_BYTES",
    "VERSION",
    "CheckpointError",
    "has_checkpoint",
    "legacy_zip",
    "load_checkpoint",
    "load_legacy_zip",
    "manifest_path",
    "read_manifest",
    "refuse_legacy",
    "save_checkpoint",
]


def manifest_path(ckpt_dir: Path, side: str) -> Path:
    return ckpt_dir / checkpoint_manifest_name(side)


def legacy_zip(ckpt_dir: Path, side: str) -> Path:
    return ckpt_dir / legacy_checkpoint_name(side)


def has_checkpoint(ckpt_dir: Path, side: str) -> bool:
    return manifest_path(ckpt_dir, side).exists() or legacy_zip(ckpt_dir, side).exists()


def _network_meta(model: Any) -> dict[str, Any]:
    from agents.ffo.network import NETWORK_VERSION

    fe = model.policy.features_extractor
    net_arch = model.policy.net_arch
    if not isinstance(net_arch, dict):
        net_arch = {"pi": list(net_arch), "vf": list(net_arch)}
    return {
        "version": NETWORK_VERSION,
        "policy": type(model.policy).__name__,
        "parameters": int(sum(p.numel() for p in model.policy.parameters())),
        "features_extractor_kwargs": {
            k: getattr(fe, k)
            for k in ("cnn_dim", "channels", "spatial")
            if isinstance(getattr(fe, k, None), int)
        },
        "net_arch": {"pi": list(net_arch["pi"]), "vf": list(net_arch["vf"])},
    }


def save_checkpoint(model: Any, ckpt_dir: Path, side: str) -> Path:
    """Write ``model``'s learner state for ``side``; returns the manifest path."""
    from agents.ffo.policy import spec_hash

    checks = {"observation_spec_hash": spec_hash(), "network": _network_meta(model)}
    return write_checkpoint(model, ckpt_dir, side, KIND, checks)


def read_manifest(ckpt_dir: Path, side: str) -> dict[str, Any]:
    return _read_manifest(ckpt_dir, side, KIND)


def load_checkpoint(model: Any, ckpt_dir: Path, side: str) -> dict[str, Any]:
    """Restore a freshly built ``model`` (same config) from the checkpoint of ``side``; returns the manifest.

    Raises :class:`CheckpointError` (and leaves ``model`` unchanged) if anything does not match."""
    from agents.ffo.policy import spec_hash

    return restore(
        model,
        ckpt_dir,
        side,
        KIND,
        {
            "observation_spec_hash": (
                spec_hash(),
                "the observation spec changed: the run cannot be resumed on this version",
            ),
            "network": (
                _network_meta(model),
                "this run's config builds another network: resume with the run's own config.yaml (without "
                "--set on policy.*)",
            ),
        },
    )


def load_legacy_zip(path: Path, env: Any, device: str) -> Any:
    """An SB3 ``.zip`` (cloudpickle) checkpoint: only with the user's explicit ``--trust-pickle``."""
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(path, env=env, device=device)


def refuse_legacy(path: Path) -> CheckpointError:
    return CheckpointError(
        f"{path}: an SB3 .zip checkpoint (cloudpickle): loading it can run code stored in the file. This run was "
        "written by an older ffo_env; if you trust where it came from, resume with --trust-pickle (the next "
        "checkpoint is written in the weights-only format), otherwise start a new run"
    )
