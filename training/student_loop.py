"""The student loop shared by the ``ffo train`` methods that improve a policy by fitting it to labels of its own
play (``training.expert_iteration``, ``training.self_imitation``): each iteration plays (the method's part),
saves the iteration's labels, fits the student on every iteration's labels so far, exports it, and records a
progress row; a finished iteration is not redone, so a killed run resumes at the first unfinished one.

Stage folders in the run folder (:class:`training.run_folder.RunFolder`): ``students/<side>_it<i>.pt`` and
``data/<side>_it<i>.npz``; the last student is exported to ``policies/<side>.pt``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from training.run_folder import RunFolder

OBS_KEYS = ("planes", "globals", "units")
LABEL_KEYS = (*OBS_KEYS, "mask", "action", "changed")  # a labelled decision, as fit_student reads it
STUDENTS = "students"  # stage folders of these methods (RunFolder.stage_dir)
DATA = "data"


def load_student(student: str, side: str) -> Any:
    """The student policy agent: ``pretrained`` (the shipped policy of ``side``) or a policy ``.pt`` of that side."""
    if student == "pretrained":
        from agents.ffo.pretrained import load_pretrained

        return load_pretrained(side)
    from agents.ffo.policy import load_policy

    agent = load_policy(student)
    if agent.side != side:
        raise ValueError(f"{student}: a {agent.side} policy, not a {side} one")
    return agent


class Export:
    """What :func:`agents.ffo.policy.export_policy` reads of a model: its policy and action space."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.action_space = policy.action_space


class FitSettings(Protocol):
    """What :func:`fit_student` reads of a run's config (every method of this module's loop)."""

    changed_weight: int
    epochs: int
    batch_size: int
    learning_rate: float


def fit_student(
    policy: Any, parts: list[dict[str, np.ndarray]], cfg: FitSettings, seed: int
) -> dict[str, float]:
    """Cross-entropy passes over every iteration's decisions (changed ones ``changed_weight`` times)."""
    from training.imitation import Dataset, fit

    data = Dataset()
    for part in parts:
        n = len(part["action"])
        if n == 0:
            continue
        data.add(
            {
                **{k: part[k] for k in (*OBS_KEYS, "mask", "action")},
                "ret": np.zeros(n, dtype=np.float32),
                "has_return": np.zeros(n, dtype=bool),  # no value target: the critic is left as it is
            }
        )
    if data.n == 0:
        return {"loss_pi": float("nan"), "samples": 0}
    changed = np.concatenate([p["changed"] for p in parts if len(p["action"])])
    idx = np.concatenate([np.arange(data.n)] + [np.flatnonzero(changed)] * (cfg.changed_weight - 1))
    losses = fit(
        policy, data, idx, cfg.epochs, cfg.batch_size, cfg.learning_rate, 0.0, seed=seed, progress=False
    )
    return {"loss_pi": losses["loss_pi"], "samples": int(len(idx)), "changed": int(changed.sum())}


def save_npz(
    path: Path,
    parts: list[dict[str, np.ndarray]],
    keys: tuple[str, ...] = (*OBS_KEYS, "mask", "action", "changed"),
) -> None:
    import io

    from ffo_env.atomic import atomic_write_bytes

    nonempty = [p for p in parts if len(p["action"])]
    merged = {k: np.concatenate([p[k] for p in nonempty]) for k in keys} if nonempty else {}
    buf = io.BytesIO()
    np.savez_compressed(buf, **merged)  # type: ignore[arg-type]
    atomic_write_bytes(path, buf.getvalue())


class LoopSettings(FitSettings, Protocol):
    """What :func:`train_side` reads of a run's config besides :class:`FitSettings`."""

    seed: int
    iterations: int
    init_policy: str


@dataclass
class Played:
    """One iteration's play, returned by a method's ``play_iteration(it, student)``: its labels (one or more
    parts with ``keys``), the progress row's measures, the student's export metadata, and ``summary``, what
    the line printed when the iteration is done says of the play (the loop adds the fit and the times)."""

    parts: list[dict[str, np.ndarray]]
    row: dict[str, Any]
    summary: str
    extra: dict[str, Any] = field(default_factory=dict)
    keys: tuple[str, ...] = LABEL_KEYS


def train_side(
    cfg: LoopSettings,
    side: str,
    folder: RunFolder,
    progress: dict[str, Any],
    method: str,
    play_iteration: Callable[[int, str], Played],
    final_extra: Callable[[list[dict[str, Any]]], dict[str, Any]] | None = None,
) -> Path:
    """All iterations for ``side``; returns the exported last student (``policies/<side>.pt``).
    ``final_extra(rows)`` adds to its metadata from the progress rows of the iterations done."""
    import torch

    from agents.ffo.policy import export_policy

    torch.set_num_threads(1)
    student = cfg.init_policy if cfg.init_policy == "pretrained" else str(Path(cfg.init_policy))
    rows = progress.setdefault(side, [])
    parts: list[dict[str, np.ndarray]] = []
    for it in range(cfg.iterations):
        pt = folder.stage_dir(STUDENTS) / f"{side}_it{it}.pt"
        data_file = folder.stage_dir(DATA) / f"{side}_it{it}.npz"
        if pt.exists() and data_file.exists() and any(r["iteration"] == it for r in rows):
            with np.load(data_file, allow_pickle=False) as z:
                parts.append({k: z[k] for k in z.files})
            student = str(pt)
            continue
        t0 = time.perf_counter()
        played = play_iteration(it, student)
        t_play = time.perf_counter() - t0
        parts.extend(played.parts)
        data_file.parent.mkdir(parents=True, exist_ok=True)
        save_npz(data_file, played.parts, played.keys)
        agent = load_student(student, side)
        t1 = time.perf_counter()
        losses = fit_student(agent.policy, parts, cfg, seed=cfg.seed + it)
        t_fit = time.perf_counter() - t1
        agent.policy.set_training_mode(False)
        export_policy(
            Export(agent.policy), pt, side, extra={"method": method, "iteration": it, **played.extra}
        )
        student = str(pt)
        row: dict[str, Any] = {
            "iteration": it,
            **played.row,
            **losses,
            "play_s": round(t_play, 1),
            "fit_s": round(t_fit, 1),
        }
        # the long list of games last, where a reader of progress.json expects it
        row["game_rows"] = row.pop("game_rows", [])
        rows.append(row)
        folder.write_json(folder.progress_path, progress)
        print(
            f"{played.summary}; fit on {losses.get('samples', 0)} samples (loss {losses['loss_pi']:.3f}); "
            f"{t_play:.0f} s playing + {t_fit:.0f} s fitting",
            flush=True,
        )
    final = folder.policy(side)
    agent = load_student(student, side)
    done = [r for r in rows if r["iteration"] < cfg.iterations]
    extra = {"method": method, "iterations": cfg.iterations, "init_policy": cfg.init_policy}
    export_policy(
        Export(agent.policy), final, side, extra={**extra, **(final_extra(done) if final_extra else {})}
    )
    return final
