"""The policies shipped with ffo_env: the agent name ``pretrained``.

``agents/ffo/pretrained_policies/<side>.pt`` + ``<side>.json`` are ordinary policy files
(:mod:`agents.ffo.policy`: a weights-only ``state_dict`` and its metadata), written by
``ffo release RUN_DIR`` from a finished ``ffo train --config configs/ffo/train_release.yaml`` run. The
metadata's ``extra.release`` holds what the model card (``MODEL_CARD.md`` beside them, and
``docs/results/model_card.md``) reports: the training command,
config and seed, the wall time of each stage and the final evaluation's win rates with 95 % Wilson
intervals.

``make_agent("pretrained", side)`` loads the file of the side asked for, like ``heuristic`` picks the
side's bot; loading checks the engine, game data and observation spec exactly as for any policy
file and says what to do when they differ.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agents.ffo.policy import PolicyAgent, PolicyLoadError, load_policy
from ffo_env.ffo.core.sides import SIDE_NAMES

PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained_policies"


def pretrained_path(side: str, directory: Path | None = None) -> Path:
    """The ``.pt`` file of the shipped policy for ``side``."""
    if side not in SIDE_NAMES:
        raise ValueError(f"side must be 'french' or 'german', got {side!r}")
    return (directory or PRETRAINED_DIR) / f"{side}.pt"


def pretrained_metadata(side: str, directory: Path | None = None) -> dict[str, Any]:
    """The shipped policy's metadata (``<side>.json``), without loading its weights."""
    meta_path = pretrained_path(side, directory).with_suffix(".json")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise PolicyLoadError(_missing(side, directory)) from e
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise PolicyLoadError(f"{meta_path}: cannot read the pretrained policy's metadata ({e})") from e
    if not isinstance(meta, dict):
        raise PolicyLoadError(f"{meta_path}: not an ffo-policy metadata file")
    return meta


def _missing(side: str, directory: Path | None) -> str:
    return (
        f"no pretrained {side} policy in {directory or PRETRAINED_DIR} (the package data is missing); "
        "reinstall ffo_env, or train one with 'ffo train --config configs/ffo/train_release.yaml' and "
        "install it with 'ffo release RUN_DIR'"
    )


def load_pretrained(
    side: str, deterministic: bool = True, directory: Path | None = None, threads: int | None = 1
) -> PolicyAgent:
    """The shipped policy of ``side`` as an agent (``make_agent("pretrained", side)``; ``threads``:
    :class:`agents.ffo.policy.PolicyAgent`)."""
    pt = pretrained_path(side, directory)
    if not pt.exists() or not pt.with_suffix(".json").exists():
        raise PolicyLoadError(_missing(side, directory))
    try:
        agent = load_policy(pt, deterministic=deterministic, threads=threads)
    except PolicyLoadError as e:
        # the generic advice ("retrain") is not what a user of the shipped file can act on
        raise PolicyLoadError(
            f"the pretrained {side} policy does not fit this installation: {e}. The shipped policies "
            "are retrained whenever the rules engine, game data or observation changes; reinstall the "
            "ffo_env release they came with, or reproduce them with "
            "'ffo train --config configs/ffo/train_release.yaml' and 'ffo release RUN_DIR'"
        ) from e
    if agent.side != side:
        raise PolicyLoadError(f"{pt}: the pretrained {side} policy file holds a {agent.side} policy")
    agent.name = "pretrained"
    return agent
