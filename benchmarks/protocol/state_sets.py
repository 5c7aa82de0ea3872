"""The file format every game's saved start states share (``benchmarks/<package>/states.py`` makes and checks a
game's own states): a gzipped JSON document ``{"format": ..., "version": ..., "states": [...], ...}`` written
with sorted keys and no gzip timestamp, so the same document gives the same bytes (the fingerprint hashes
them)."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def encode(doc: dict[str, Any]) -> bytes:
    """Deterministic bytes: sorted keys, gzip with no timestamp or file name."""
    raw = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    return gzip.compress(raw, compresslevel=9, mtime=0)


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_state_set(path: Path, fmt: str, version: int, error: type[ValueError]) -> dict[str, Any]:
    """The document of a state-set file of format ``fmt`` and ``version``, its shape checked; one ``error``
    naming the file (the game's states module checks the states themselves)."""
    try:
        doc = json.loads(gzip.decompress(path.read_bytes()))
    except (OSError, EOFError, ValueError) as e:
        raise error(f"{path}: not a gzipped JSON state set ({e})") from e
    if not isinstance(doc, dict) or doc.get("format") != fmt or doc.get("version") != version:
        raise error(f"{path}: expected format {fmt!r} version {version}")
    states = doc.get("states")
    if not isinstance(states, list) or not states:
        raise error(f"{path}: 'states' must be a non-empty list")
    return doc


def check_states(
    path: Path,
    doc: dict[str, Any],
    data: str,
    load_one: Callable[[Any], Any],
    state_error: type[Exception],
    error: type[ValueError],
) -> list[Any]:
    """The core states of a state set's document ``doc`` (from :func:`load_state_set`), each made by the game's
    own checked loader ``load_one`` (which raises ``state_error``); the set must have been made on the game data
    ``data`` the installation plays. One ``error`` naming the file and, for a bad state, its index."""
    if doc.get("data") != data:
        raise error(f"{path}: made on game data {doc.get('data')!r}, this game plays {data!r}")
    out = []
    for i, d in enumerate(doc["states"]):
        try:
            out.append(load_one(d))
        except state_error as e:
            raise error(f"{path}: state {i}: {e}") from e
    return out
