"""Crash-safe, weights-only training checkpoints of every game: what ``ffo train --resume`` restores.

The file pair, its atomic writing and its checked reading are the suite's (:mod:`training.checkpoint_io`):
``<run>/checkpoints/<side>-<timesteps>.pt`` (tensors only, read with ``torch.load(weights_only=True)``) and
``<side>.json`` (manifest). What is a game's here comes from its training hook
(:meth:`agents.network_spec.NetworkSpec.checkpoint_kind`, ``checkpoint_checks``): the format name
(``ffo-checkpoint``, ``springtime-checkpoint``) and what a resume must find unchanged, the observation spec
hash and the network. The game is the model's (``model.game``, set by :func:`training.model.build_model`) or
the ``game`` argument; France Fights On's by default, as before there was a choice.

SB3's own ``.zip`` checkpoints (``MaskablePPO.save``) are cloudpickle archives: loading one can run code
from the file. Runs written before this format are refused unless the user opts in (``--trust-pickle``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.network_spec import NetworkSpec, network_of
from ffo_env.games import DEFAULT_GAME
from training.checkpoint_io import MAX_BYTES, CheckpointError, CheckpointKind, restore, write_checkpoint
from training.checkpoint_io import read_manifest as _read_manifest
from training.run_folder import checkpoint_manifest_name, legacy_checkpoint_name


def kind_of(spec: NetworkSpec) -> CheckpointKind:
    return CheckpointKind(*spec.checkpoint_kind())


KIND = kind_of(network_of(DEFAULT_GAME))  # the default game's (the names of this module before issue 62)
FORMAT = KIND.format
VERSION = KIND.version

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


def _spec(model: Any, game: str | None) -> NetworkSpec:
    return network_of(game or getattr(model, "game", None) or DEFAULT_GAME)


def save_checkpoint(model: Any, ckpt_dir: Path, side: str, game: str | None = None) -> Path:
    """Write ``model``'s learner state for ``side``; returns the manifest path."""
    spec = _spec(model, game)
    checks = {key: value for key, (value, _why) in spec.checkpoint_checks(model).items()}
    return write_checkpoint(model, ckpt_dir, side, kind_of(spec), checks)


def read_manifest(ckpt_dir: Path, side: str, game: str = DEFAULT_GAME) -> dict[str, Any]:
    return _read_manifest(ckpt_dir, side, kind_of(network_of(game)))


def load_checkpoint(model: Any, ckpt_dir: Path, side: str, game: str | None = None) -> dict[str, Any]:
    """Restore a freshly built ``model`` (same config) from the checkpoint of ``side``; returns the manifest.

    Raises :class:`CheckpointError` (and leaves ``model`` unchanged) if anything does not match."""
    spec = _spec(model, game)
    return restore(
        model,
        ckpt_dir,
        side,
        kind_of(spec),
        spec.checkpoint_checks(model),
        optional=spec.checkpoint_optional,
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
