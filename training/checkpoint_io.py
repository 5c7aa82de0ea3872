"""Resumable, weights-only learner checkpoints of every game of the suite: the file pair, written atomically
and read back with every check, for France Fights On's trainer (:mod:`training.checkpoint`) and Springtime for
Hitler's (:mod:`training.springtime.ppo`).

A checkpoint of one side is two files in the run's ``checkpoints/`` folder:

- ``<side>-<timesteps>.pt``: tensors only (policy weights, optimizer state, torch RNG state), written with
  ``torch.save`` into memory and read back with ``torch.load(weights_only=True)``: loading it runs no code;
- ``<side>.json``: the manifest (format and version, side, timesteps, update count, the name, size and
  SHA-256 of the ``.pt`` it points to, and what the game checks on resume: its observation spec hash and its
  network description).

The weights are written first and the manifest last (:mod:`ffo_env.atomic`), and the previous weights file
is deleted only after the new manifest is in place: a run killed at any moment leaves a manifest that points
to complete weights, so a resume loses at most one checkpoint interval. What differs between the games (the
format name, how a network is described) is passed in by the game's module.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.policy_io import with_article
from ffo_env.atomic import atomic_write_bytes, atomic_write_text
from training.run_folder import checkpoint_manifest_name, checkpoint_weights_glob, checkpoint_weights_name

MAX_BYTES = 512 * 1024 * 1024  # far above any network the config ranges allow; refuses absurd files unread

__all__ = ["MAX_BYTES", "CheckpointError", "CheckpointKind", "read_manifest", "restore", "write_checkpoint"]


class CheckpointError(ValueError):
    """A checkpoint that cannot be resumed from; the message names the file and what to do."""


@dataclass(frozen=True)
class CheckpointKind:
    """What a game's checkpoints say of themselves: the manifest's ``format`` and ``version``, and whether
    manifests written before the version field existed are read as version ``version`` (Springtime's first
    checkpoints had none)."""

    format: str
    version: int
    unversioned_ok: bool = False


def write_checkpoint(
    model: Any, ckpt_dir: Path, side: str, kind: CheckpointKind, checks: Mapping[str, Any]
) -> Path:
    """Write ``model``'s learner state for ``side``; ``checks`` (e.g. ``observation_spec_hash``, ``network``)
    go into the manifest and must be the same on resume. Returns the manifest path."""
    import torch

    ckpt_dir.mkdir(parents=True, exist_ok=True)
    steps = int(model.num_timesteps)
    weights = ckpt_dir / checkpoint_weights_name(side, steps)
    payload = {
        "policy": model.policy.state_dict(),
        "optimizer": model.policy.optimizer.state_dict(),
        "torch_rng": torch.get_rng_state(),
    }
    buf = io.BytesIO()
    torch.save(payload, buf)
    data = buf.getvalue()
    atomic_write_bytes(weights, data)
    manifest = {
        "format": kind.format,
        "version": kind.version,
        "side": side,
        "num_timesteps": steps,
        "n_updates": int(getattr(model, "_n_updates", 0)),
        "weights": weights.name,
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        **checks,
    }
    path = ckpt_dir / checkpoint_manifest_name(side)
    atomic_write_text(path, json.dumps(manifest, indent=1) + "\n")
    for old in ckpt_dir.glob(checkpoint_weights_glob(side)):  # only now is the older one unreferenced
        if old.name != weights.name:
            old.unlink(missing_ok=True)
    return path


def read_manifest(ckpt_dir: Path, side: str, kind: CheckpointKind) -> dict[str, Any]:
    """The manifest of ``side``'s checkpoint, its fields checked (types, ranges, a weights file in the same
    folder); one :class:`CheckpointError` naming the file and the field otherwise."""
    path = ckpt_dir / checkpoint_manifest_name(side)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise CheckpointError(f"{path}: cannot read: {e}") from e
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(
            f"{path}: not valid JSON ({e}); delete the checkpoints folder to restart the side from scratch"
        ) from e
    if not isinstance(manifest, dict) or manifest.get("format") != kind.format:
        raise CheckpointError(f"{path}: not {with_article(kind.format)} manifest")
    version = manifest.get("version", kind.version if kind.unversioned_ok else None)
    if version != kind.version:
        raise CheckpointError(
            f"{path}: checkpoint format version {manifest.get('version')!r}, this installation "
            f"reads version {kind.version}"
        )
    if manifest.get("side") != side:
        raise CheckpointError(f"{path}: holds side {manifest.get('side')!r}, expected {side!r}")
    for key, typ in (
        ("num_timesteps", int),
        ("n_updates", int),
        ("weights", str),
        ("bytes", int),
        ("sha256", str),
    ):
        if not isinstance(manifest.get(key), typ) or isinstance(manifest.get(key), bool):
            raise CheckpointError(f"{path}: {key}: expected {typ.__name__}, got {manifest.get(key)!r}")
    name = manifest["weights"]
    if Path(name).name != name or not name.startswith(f"{side}-") or not name.endswith(".pt"):
        raise CheckpointError(
            f"{path}: weights: expected a file name '{side}-<steps>.pt' in the same folder, got {name!r}"
        )
    if not 0 < manifest["bytes"] <= MAX_BYTES:
        raise CheckpointError(f"{path}: bytes: expected 1..{MAX_BYTES}, got {manifest['bytes']}")
    return manifest


def restore(
    model: Any,
    ckpt_dir: Path,
    side: str,
    kind: CheckpointKind,
    checks: Mapping[str, tuple[Any, str]],
    optional: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Restore a freshly built ``model`` from the checkpoint of ``side``; returns the manifest.

    ``checks`` maps a manifest field to (this run's value, what to say when the file's differs); a field in
    ``optional`` is checked only when the manifest has it (written by a later version of the game's trainer).
    Raises :class:`CheckpointError` (and leaves ``model`` unchanged) if anything does not match."""
    import torch

    manifest = read_manifest(ckpt_dir, side, kind)
    path = ckpt_dir / checkpoint_manifest_name(side)
    for key, (mine, advice) in checks.items():
        if key in optional and key not in manifest:
            continue
        if manifest.get(key) != mine:
            raise CheckpointError(
                f"{path}: {key} {manifest.get(key)!r} differs from this run's {mine!r}; {advice}"
            )
    weights = ckpt_dir / manifest["weights"]
    try:
        size = weights.stat().st_size
    except OSError as e:
        raise CheckpointError(f"{weights}: missing ({e}); the checkpoint is incomplete") from e
    if size != manifest["bytes"]:
        raise CheckpointError(f"{weights}: {size} bytes, the manifest says {manifest['bytes']}")
    data = weights.read_bytes()
    if hashlib.sha256(data).hexdigest() != manifest["sha256"]:
        raise CheckpointError(f"{weights}: SHA-256 differs from the manifest's; the file is damaged")
    try:
        payload = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises several unrelated types for a damaged file
        raise CheckpointError(f"{weights}: not a weights-only checkpoint ({type(e).__name__}: {e})") from e
    if not isinstance(payload, dict) or not {"policy", "optimizer"} <= set(payload):
        raise CheckpointError(f"{weights}: expected the keys policy and optimizer")
    backup = {k: v.clone() for k, v in model.policy.state_dict().items()}
    optimizer_backup = model.policy.optimizer.state_dict()
    try:
        model.policy.load_state_dict(payload["policy"])
        model.policy.optimizer.load_state_dict(payload["optimizer"])
    except (RuntimeError, ValueError, KeyError, TypeError) as e:
        model.policy.load_state_dict(backup)
        model.policy.optimizer.load_state_dict(optimizer_backup)
        raise CheckpointError(f"{weights}: weights do not fit the network: {e}") from e
    if isinstance(payload.get("torch_rng"), torch.Tensor):
        torch.set_rng_state(payload["torch_rng"])
    model.num_timesteps = manifest["num_timesteps"]
    model._n_updates = manifest["n_updates"]
    return manifest
