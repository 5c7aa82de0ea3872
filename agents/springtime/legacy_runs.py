"""Run folders of ``training/springtime/``, Springtime for Hitler's own pipeline before issue 62, read by the one
training pipeline (``ffo train --resume RUN_DIR``).

That pipeline's ``config.yaml`` had the sections ``imitation`` (DAgger), ``ppo`` (with ``rounds``,
``steps_per_round``, ``checkpoint_every``, ``n_envs`` and ``opponents``, ``self`` the other side's latest
policy) and ``eval`` (``first_seed``, ``compare_imitation``); :func:`translate_config` gives the same run in
:class:`training.config.TrainConfig`'s keys (``imitation`` -> ``pretrain``, the PPO schedule at the top level,
``self`` -> ``snapshots`` with ``snapshot_keep: 1``, so the opponent is still the other side's latest policy).
Its ``progress.json`` named the stages ``imitation:<side>:<i>``, ``ppo:<side>:r<r>`` (rounds from 1),
``export`` and ``eval:<kind>:<side>:<opponent>``; :func:`translate_progress` gives ``pretrain:<side>`` (when
every DAgger iteration was done; an unfinished imitation stage starts again), ``r<r-1>:<side>``, and drops
the export and the evaluation, which the shared pipeline does at the end of every run. Its snapshots
(``<side>_pretrain``, ``<side>_r1`` ...), checkpoints (``springtime-checkpoint``) and policies keep their
files: the translated progress says ``legacy.snapshot_round_offset: 1`` so that later rounds go on naming
their snapshots from ``r<rounds done + 1>``.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["OLD_DEFAULTS", "is_legacy_config", "translate_config", "translate_progress"]

# the defaults of training/springtime/config.py (a key missing from an old file had these values)
OLD_DEFAULTS: dict[str, Any] = {
    "run_name": "springtime",
    "seed": 0,
    "sides": ["french", "german"],
    "torch_threads": 1,
    "policy": {"net_arch": [128, 128], "activation": "tanh"},
    "imitation": {
        "teacher": "heuristic",
        "decisions": 20_000,
        "iterations": 2,
        "beta": 0.5,
        "epochs": 4,
        "batch_size": 256,
        "learning_rate": 1e-3,
        "value_coef": 0.5,
        "opponents": {"random": 0.5, "heuristic": 0.5},
    },
    "ppo": {
        "rounds": 2,
        "steps_per_round": 20_000,
        "checkpoint_every": 5_000,
        "n_envs": 2,
        "learning_rate": 1e-4,
        "n_steps": 512,
        "batch_size": 256,
        "n_epochs": 4,
        "gamma": 0.999,
        "gae_lambda": 0.95,
        "clip_range": 0.2,
        "ent_coef": 0.005,
        "vf_coef": 0.5,
        "max_grad_norm": 0.5,
        "opponents": {"random": 0.3, "heuristic": 0.4, "self": 0.3},
    },
    "eval": {
        "games": 40,
        "opponents": ["random", "heuristic"],
        "first_seed": 1_000_000,
        "compare_imitation": True,
    },
}
SCHEDULE = ("rounds", "steps_per_round", "checkpoint_every", "n_envs")


def is_legacy_config(raw: Any) -> bool:
    """Is ``raw`` a config mapping in the old pipeline's shape (an ``imitation`` section, or the PPO schedule
    inside ``ppo``)?"""
    if not isinstance(raw, dict):
        return False
    ppo = raw.get("ppo")
    return "imitation" in raw or (isinstance(ppo, dict) and any(k in ppo for k in SCHEDULE))


def _section(raw: dict[str, Any], name: str) -> dict[str, Any]:
    given = raw.get(name, {})
    if not isinstance(given, dict):  # the shared loader reports the key and the file
        return {}
    return {**OLD_DEFAULTS[name], **given}


def translate_config(raw: dict[str, Any]) -> dict[str, Any] | None:
    """``raw`` in :class:`training.config.TrainConfig`'s keys if it is in the old shape, else None. Unknown keys
    of the old sections are kept where they were, so that the shared loader names them."""
    if not is_legacy_config(raw):
        return None
    im, ppo, ev = _section(raw, "imitation"), _section(raw, "ppo"), _section(raw, "eval")
    out: dict[str, Any] = {
        k: raw.get(k, OLD_DEFAULTS[k]) for k in ("run_name", "seed", "sides", "torch_threads")
    }
    out["game"] = raw.get("game", "springtime")
    out["policy"] = _section(raw, "policy")
    for key in SCHEDULE:
        out[key] = ppo.pop(key)
    opponents = ppo.pop("opponents")
    if isinstance(opponents, dict):  # `self`: the other side's latest policy -> its last snapshot
        opponents = {("snapshots" if k == "self" else k): v for k, v in opponents.items()}
    out["opponents"] = opponents
    out["snapshot_keep"] = 1
    out["ppo"] = ppo
    teacher = im.get("teacher", "")
    out["pretrain"] = {**im, "workers": 1} if teacher else {"teacher": ""}
    first_seed = ev.pop("first_seed")
    del first_seed  # the shared evaluation plays the harness's seeds (run seed + 10000)
    ev["compare_start"] = ev.pop("compare_imitation")
    ev["games"] = max(1, ev["games"]) if isinstance(ev.get("games"), int) else ev.get("games")
    ev["workers"] = 1
    out["eval"] = ev
    extra = sorted(set(raw) - {"game", "imitation", "ppo", "eval", "policy", *out})
    for key in extra:  # reported as unknown by the shared loader
        out[key] = raw[key]
    return out


IMITATION = re.compile(r"imitation:(french|german):(\d+)")
PPO = re.compile(r"ppo:(french|german):r(\d+)")


def translate_progress(progress: dict[str, Any], cfg: Any) -> dict[str, Any] | None:
    """``progress`` of the old pipeline in the shared pipeline's stage keys (``cfg``: the run's translated
    :class:`training.config.TrainConfig`), or None if it is not the old pipeline's."""
    done = progress.get("done", [])
    if "legacy" in progress or not any(
        isinstance(k, str)
        and (IMITATION.fullmatch(k) or PPO.fullmatch(k) or k == "export" or k.startswith("eval:"))
        for k in done
    ):
        return None
    new_done: list[str] = []
    for key in done:
        m = IMITATION.fullmatch(str(key))
        if m and int(m.group(2)) == cfg.pretrain.iterations:
            new_done.append(f"pretrain:{m.group(1)}")
            continue
        m = PPO.fullmatch(str(key))
        if m:
            new_done.append(f"r{int(m.group(2)) - 1}:{m.group(1)}")
    out = dict(progress)
    out["done"] = new_done
    out["legacy"] = {"pipeline": "training.springtime", "snapshot_round_offset": 1, "done": list(done)}
    return out
