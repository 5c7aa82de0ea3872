"""The result file of a benchmark run: one documented JSON layout, read back with checks.

A run folder (``ffo benchmark run --out DIR``) holds ``results.json``, laid out as marl-eval lays out its
results (environment -> task -> algorithm -> run -> step)::

    {
      "format": "ffo-benchmark-result", "version": 1,
      "meta": {"created": ..., "command": [...], "cpu": ..., "cores": 2, "python": ..., "libraries": {...},
               "engine": "ffo-engine-2", "data": "reconstruction-v3", "observation_spec": ...},
      "ffo_env": {
        "<task id>": {
          "<algorithm>": {
            "seed_<k>": {
              "run_meta": {"task": ..., "fingerprint": ..., "algorithm": ..., "seed": k, "budget": N,
                           "track": "short" | "long" | "custom", "eval_games": G, "hyperparameters": {...},
                           "complete": true, "resumed": 0, "restarted": 0},
              "step_<j>": {"step_count": <learner decisions used>, "win_rate": [w], "score": [s],
                           "wall_seconds": ..., "train_seconds": ..., "eval_seconds": ..., "eval": {...}},
              ...,
              "absolute_metrics": {"win_rate": [w at the last step], "score": [...]}
            }}}}}

``score`` is a one-side task's win rate against its opponent (draws half) and the self-play task's mean
Elo against the frozen ladder; ``win_rate`` is the win rate over all evaluation games. Metric values are
lists (marl-eval's convention: one value per evaluation). Wall seconds run from the start of the seed's
run to the end of that evaluation, training and evaluation together, on the machine ``meta`` names.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

FORMAT = "ffo-benchmark-result"
VERSION = 1
ENV_NAME = "ffo_env"
RESULTS = "results.json"


class ResultError(ValueError):
    """A result file that cannot be read or pooled; the message names the file."""


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def library_versions() -> dict[str, str]:
    from importlib import metadata

    out = {}
    for name in ("numpy", "torch", "gymnasium", "pettingzoo", "stable-baselines3", "sb3-contrib", "ffo_env"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def run_meta_common(command: list[str], game: str | None = None) -> dict[str, Any]:
    """The machine, the libraries and the game's versions (engine, data, observation layout) of a run
    (``game``: the registry's default game if not given)."""
    from ffo_env.games import DEFAULT_GAME, game_info

    game = game or DEFAULT_GAME
    # every game's versions through the registry (issue 62: the same values as the games' former branches here,
    # tests/test_games.py); a result of a game other than the default names it, as Springtime's always did
    versions = game_info(game).versions()
    if game != DEFAULT_GAME:
        versions = {"game": game, **versions}
    return {
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": command,
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "libraries": library_versions(),
        **versions,
    }


def new_document(meta: dict[str, Any]) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "meta": meta, ENV_NAME: {}}


def load_result(path: Path) -> dict[str, Any]:
    """A result document, checked for the layout; one ResultError naming the file and the key."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise ResultError(f"{path}: cannot read ({e})") from e
    except json.JSONDecodeError as e:
        raise ResultError(f"{path}: not valid JSON ({e}); the file is damaged") from e
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ResultError(f"{path}: not a benchmark result (expected format {FORMAT!r})")
    if doc.get("version") != VERSION:
        raise ResultError(
            f"{path}: result format version {doc.get('version')!r}, this reader knows {VERSION}"
        )
    tasks = doc.get(ENV_NAME)
    if not isinstance(tasks, dict):
        raise ResultError(f"{path}: missing the {ENV_NAME!r} mapping")
    for task_id, algos in tasks.items():
        if not isinstance(algos, dict):
            raise ResultError(f"{path}: {ENV_NAME}.{task_id}: expected a mapping of algorithms")
        for algo, runs in algos.items():
            if not isinstance(runs, dict):
                raise ResultError(f"{path}: {task_id}.{algo}: expected a mapping of runs")
            for run_name, run in runs.items():
                _check_run(path, f"{task_id}.{algo}.{run_name}", run)
    return doc


def _check_run(path: Path, where: str, run: Any) -> None:
    if not isinstance(run, dict) or not isinstance(run.get("run_meta"), dict):
        raise ResultError(f"{path}: {where}: expected a run with 'run_meta'")
    meta = run["run_meta"]
    for key in ("task", "fingerprint", "algorithm", "seed", "budget"):
        if key not in meta:
            raise ResultError(f"{path}: {where}.run_meta: missing {key!r}")
    steps = step_rows(run)
    if not steps:
        raise ResultError(f"{path}: {where}: no evaluation step")
    for name, row in steps:
        for key in ("step_count", "score", "win_rate", "wall_seconds"):
            if key not in row:
                raise ResultError(f"{path}: {where}.{name}: missing {key!r}")
        for key in ("score", "win_rate"):
            v = row[key]
            if not (isinstance(v, list) and v and all(isinstance(x, (int, float)) for x in v)):
                raise ResultError(f"{path}: {where}.{name}.{key}: expected a non-empty list of numbers")


def step_rows(run: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The ``step_<j>`` entries of a run in order."""
    rows = []
    for k, v in run.items():
        if k.startswith("step_") and k[5:].isdigit() and isinstance(v, dict):
            rows.append((int(k[5:]), k, v))
    return [(k, v) for _, k, v in sorted(rows)]


def find_results(paths: list[Path]) -> list[Path]:
    """Every ``results.json`` under the given folders (or the files themselves)."""
    out: list[Path] = []
    for p in paths:
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            found = sorted(p.rglob(RESULTS))
            if not found:
                raise ResultError(f"{p}: no {RESULTS} in this folder or below")
            out.extend(found)
        else:
            raise ResultError(f"{p}: no such file or folder")
    return out
