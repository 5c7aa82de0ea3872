"""Crash-safe, weights-only training checkpoints: what ``ffo train --resume`` restores.

A checkpoint of one side is two files in ``<run>/checkpoints/``:

- ``<side>-<timesteps>.pt``: tensors only (policy weights, optimizer state, torch RNG state), written with
  ``torch.save`` and read back with ``torch.load(weights_only=True)``: loading it runs no code;
- ``<side>.json``: the manifest (format, side, timesteps, update count, network and observation spec, the
  name, size and SHA-256 of the ``.pt`` it points to).

Both are written atomically (:mod:`ffo_env.atomic`), the weights first and the manifest last, and the
previous weights file is deleted only after the new manifest is in place: a run killed at any moment
leaves a manifest that points to complete weights, so a resume loses at most one checkpoint interval.

SB3's own ``.zip`` checkpoints (``MaskablePPO.save``) are cloudpickle archives: loading one can run code
from the file. Runs written before this format are refused unless the user opts in (``--trust-pickle``).
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

from ffo_env.atomic import atomic_write_bytes, atomic_write_text
from training.run_folder import (
    checkpoint_manifest_name,
    checkpoint_weights_glob,
    checkpoint_weights_name,
    legacy_checkpoint_name,
)

FORMAT = "ffo-checkpoint"
VERSION = 1
MAX_BYTES = 512 * 1024 * 1024  # far above any network the config ranges allow; refuses absurd files unread


class CheckpointError(ValueError):
    """A checkpoint that cannot be resumed from; the message names the file and what to do."""


def manifest_path(ckpt_dir: Path, side: str) -> Path:
    return ckpt_dir / checkpoint_manifest_name(side)


def legacy_zip(ckpt_dir: Path, side: str) -> Path:
    return ckpt_dir / legacy_checkpoint_name(side)


def has_checkpoint(ckpt_dir: Path, side: str) -> bool:
    return manifest_path(ckpt_dir, side).exists() or legacy_zip(ckpt_dir, side).exists()


def _network_meta(model: Any) -> dict[str, Any]:
    from agents.policy_net import NETWORK_VERSION

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
    import torch

    from agents.policy import spec_hash

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
        "format": FORMAT,
        "version": VERSION,
        "side": side,
        "num_timesteps": steps,
        "n_updates": int(getattr(model, "_n_updates", 0)),
        "weights": weights.name,
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "observation_spec_hash": spec_hash(),
        "network": _network_meta(model),
    }
    path = manifest_path(ckpt_dir, side)
    atomic_write_text(path, json.dumps(manifest, indent=1) + "\n")
    for old in ckpt_dir.glob(checkpoint_weights_glob(side)):  # only now is the older one unreferenced
        if old.name != weights.name:
            old.unlink(missing_ok=True)
    return path


def read_manifest(ckpt_dir: Path, side: str) -> dict[str, Any]:
    path = manifest_path(ckpt_dir, side)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise CheckpointError(f"{path}: cannot read: {e}") from e
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(
            f"{path}: not valid JSON ({e}); delete the checkpoints folder to restart the side from scratch"
        ) from e
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not an {FORMAT} manifest")
    if manifest.get("version") != VERSION:
        raise CheckpointError(
            f"{path}: checkpoint format version {manifest.get('version')!r}, this installation "
            f"reads version {VERSION}"
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


def load_checkpoint(model: Any, ckpt_dir: Path, side: str) -> dict[str, Any]:
    """Restore a freshly built ``model`` (same config) from the checkpoint of ``side``; returns the manifest.

    Raises :class:`CheckpointError` (and leaves ``model`` unchanged) if anything does not match."""
    import torch

    from agents.policy import spec_hash

    manifest = read_manifest(ckpt_dir, side)
    path = manifest_path(ckpt_dir, side)
    if manifest.get("observation_spec_hash") != spec_hash():
        raise CheckpointError(
            f"{path}: written for observation spec {manifest.get('observation_spec_hash')}, this "
            f"installation's is {spec_hash()}; the run cannot be resumed on this version"
        )
    mine = _network_meta(model)
    theirs = manifest.get("network")
    if theirs != mine:
        raise CheckpointError(
            f"{path}: network {theirs!r} differs from the one this run's config builds {mine!r}; "
            "resume with the run's own config.yaml (without --set on policy.*)"
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
    try:
        model.policy.load_state_dict(payload["policy"])
        model.policy.optimizer.load_state_dict(payload["optimizer"])
    except (RuntimeError, ValueError, KeyError, TypeError) as e:
        model.policy.load_state_dict(backup)
        raise CheckpointError(f"{weights}: weights do not fit the network: {e}") from e
    if isinstance(payload.get("torch_rng"), torch.Tensor):
        torch.set_rng_state(payload["torch_rng"])
    model.num_timesteps = manifest["num_timesteps"]
    model._n_updates = manifest["n_updates"]
    return manifest


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
