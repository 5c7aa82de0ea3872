"""Where a trained policy's two files are, and what its metadata says before anything is loaded.

A policy is ``<name>.pt`` (weights) beside ``<name>.json`` (metadata); a user may name either file or the
common stem. The loaders (``agents.ffo.policy``, ``agents.ffo.flat_policy``) and the registry (which side a
``policy:PATH`` agent plays) resolve the pair the same way here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["peek_metadata", "policy_paths"]


def policy_paths(path: str | Path) -> tuple[Path, Path]:
    """The ``.pt`` and ``.json`` files of the policy named by ``path`` (either file or their stem)."""
    p = Path(path)
    if p.suffix in (".pt", ".json"):
        p = p.with_suffix("")
    return p.with_suffix(".pt"), p.with_suffix(".json")


def peek_metadata(path: str | Path) -> dict[str, Any] | None:
    """The policy's metadata mapping, or None when it cannot be read or is not a JSON mapping: for a quick
    look (which network, which side); the loaders check it properly and say what is wrong."""
    try:
        meta = json.loads(policy_paths(path)[1].read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None
