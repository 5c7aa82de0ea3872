"""The ``policy`` reference row: a trained policy file measured on a task like any other row (issue 60: the RL
campaign's policies join the benchmark).

    ffo benchmark run --task ffo/german-vs-expert/v1 --algo policy --policy runs/<run>/policies/german.pt \\
        --label campaign-a --seeds 3 --out benchmarks/results/german-vs-expert/v1/policy-campaign-a

``--policy FILE`` names the file (with its ``.json`` beside it, where the format has one) of a one-side task's side; a self-play task takes ``--policy french=FILE
--policy german=FILE``. The plan records each file's path and sha256, a resumed run refuses a file whose bytes
changed, and the results' row is ``policy:LABEL`` (``--label``, default the file's name without ``.pt``), a
reference row of the report: it does not learn, and it is never pooled into a learner's aggregate.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from benchmarks.protocol.task import Task

ALGO = "policy"
ROW_PREFIX = "policy:"
_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,47}")


def is_policy_row(key: str) -> bool:
    """Whether a report row (``policy:LABEL``, maybe with ``@track``) is a policy file's reference row."""
    return key.startswith(ROW_PREFIX)


def row_name(plan: dict[str, Any]) -> str:
    """The row a run's results are filed under: the algorithm, or ``policy:LABEL`` for a policy file."""
    return f"{ROW_PREFIX}{plan['label']}" if plan["algorithm"] == ALGO else str(plan["algorithm"])


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _fingerprints(p: Path) -> dict[str, str]:
    """The sha256 of a policy file and of its metadata file beside it (``NAME.json``, when the format has one)."""
    out = {"path": str(p), "sha256": _sha256(p)}
    meta = p.with_suffix(".json")
    if meta.is_file():
        out["metadata_sha256"] = _sha256(meta)
    return out


def _side_files(task: Task, given: list[str]) -> dict[str, str]:
    sides = task.sides()
    out: dict[str, str] = {}
    for item in given:
        side, sep, path = item.partition("=")
        if not sep:  # a bare FILE: the side of a one-side task
            if len(sides) != 1:
                raise ValueError(
                    f"{task.id} is played by both sides: give --policy french=FILE --policy german=FILE"
                )
            side, path = sides[0], item
        if side not in sides:
            raise ValueError(
                f"--policy {item}: {task.id}'s learner plays {' and '.join(sides)}, not {side!r}"
            )
        if side in out:
            raise ValueError(f"--policy: two files for the {side} side")
        out[side] = path
    missing = [s for s in sides if s not in out]
    if missing:
        raise ValueError(
            f"--algo policy needs a --policy file for the {' and '.join(missing)} side of {task.id}"
        )
    return out


def plan_policies(task: Task, given: list[str] | None, label: str | None) -> dict[str, Any]:
    """The plan's ``policies`` (side -> path and sha256) and ``label``, each file loaded once as an agent of the
    task's game and side so that a wrong file is refused before the run starts; one ValueError naming it."""
    from agents import make_agent

    if not given:
        raise ValueError("--algo policy needs --policy FILE (the trained policy file to measure)")
    files = _side_files(task, given)
    if label is None:
        label = Path(next(iter(files.values()))).name.removesuffix(".pt")
    if not _LABEL.fullmatch(label):
        raise ValueError(
            f"--label {label!r}: 1-48 letters, digits, '_', '.' or '-', starting with a letter or digit"
        )
    policies: dict[str, dict[str, str]] = {}
    for side, path in files.items():
        p = Path(path)
        if not p.is_file():
            raise ValueError(f"--policy {path}: no such file")
        try:
            make_agent(f"policy:{path}", side, seed=0, game=task.game)
        except (ValueError, OSError) as e:
            raise ValueError(f"--policy {path}: not a {task.game} policy of the {side} side ({e})") from e
        policies[side] = _fingerprints(p)
    return {"policies": policies, "label": label}


def context_files(plan: dict[str, Any]) -> dict[str, str]:
    """side -> the policy file a ``policy`` run plays (empty for any other algorithm)."""
    return {side: str(f["path"]) for side, f in (plan.get("policies") or {}).items()}


def check_unchanged(plan: dict[str, Any], where: Path) -> None:
    """A resumed ``policy`` run plays the very files it started with: one ValueError if one is gone or changed."""
    for side, f in (plan.get("policies") or {}).items():
        p = Path(f["path"])
        if not p.is_file():
            raise ValueError(
                f"{where}: the {side} policy file {p} of this run is gone; it cannot be continued"
            )
        if _fingerprints(p) != f:
            raise ValueError(
                f"{where}: the {side} policy file {p} (or its .json) changed since the run started (sha256 "
                f"{f['sha256'][:12]}...); measure the new file in a new run"
            )
