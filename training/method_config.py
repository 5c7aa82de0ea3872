"""What the methods that run from one config file into a run folder share (:mod:`training.expert_iteration`,
:mod:`training.self_imitation`): reading and checking their run file, and starting or continuing their run
folder. Each method keeps its own config type, error type and the checks of its own keys."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any, TypeVar

from training.run_folder import RunFolder

SIDES = ("french", "german")
C = TypeVar("C")
Check = tuple[str, bool, str]  # (key, the value is acceptable, what is expected)


def int_in(v: Any, lo: int, hi: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def num_in(v: Any, lo: float, hi: float) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and lo <= v <= hi


def agent_weights(w: Any) -> bool:
    from agents.registry import is_agent_name

    return (
        isinstance(w, dict)
        and bool(w)
        and all(is_agent_name(k) and num_in(v, 0.0, 1e9) for k, v in w.items())
        and sum(w.values()) > 0
    )


def _setup_modes() -> tuple[str, ...]:
    from ffo_env.ffo.core.game import SETUP_MODES

    return tuple(SETUP_MODES)


def read_run_file(
    path: str | Path,
    method: str,
    config_type: type[C],
    error: type[ValueError],
    overrides: dict[str, Any] | None,
) -> tuple[Path, C]:
    """The run file at ``path`` with ``overrides`` applied, as ``config_type``: a readable YAML mapping whose
    ``method`` (if given) is ``method`` and whose every key is a field; otherwise ``error`` naming the file and
    the key."""
    import yaml

    p = Path(path)
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise error(f"{p}: cannot read the config ({e})") from e
    if not isinstance(raw, dict):
        raise error(f"{p}: expected a mapping of settings, got {type(raw).__name__}")
    if raw.pop("method", method) != method:
        raise error(f"{p}: key 'method': expected {method!r}")
    raw.update(overrides or {})
    known = {f.name for f in fields(config_type)}  # type: ignore[arg-type]
    for key in raw:
        if key not in known:
            raise error(f"{p}: unknown key {key!r}; known: {', '.join(sorted(known))}")
    return p, config_type(**raw)


def common_checks(cfg: Any) -> list[Check]:
    """The checks of the keys every such method has: sides, the loop's sizes, the fit and the opponents."""
    return [
        (
            "sides",
            isinstance(cfg.sides, list) and bool(cfg.sides) and set(cfg.sides) <= set(SIDES),
            "french and/or german",
        ),
        ("iterations", int_in(cfg.iterations, 1, 1000), "an integer in [1, 1000]"),
        ("games", int_in(cfg.games, 1, 100_000), "an integer in [1, 100000]"),
        ("workers", int_in(cfg.workers, 1, 64), "an integer in [1, 64]"),
        ("seed", int_in(cfg.seed, 0, 2**31 - 1), "an integer in [0, 2**31 - 1]"),
        ("keep_unchanged", num_in(cfg.keep_unchanged, 0.0, 1.0), "a number in [0, 1]"),
        ("changed_weight", int_in(cfg.changed_weight, 1, 100), "an integer in [1, 100]"),
        ("epochs", int_in(cfg.epochs, 1, 100), "an integer in [1, 100]"),
        ("batch_size", int_in(cfg.batch_size, 1, 65_536), "an integer in [1, 65536]"),
        ("learning_rate", num_in(cfg.learning_rate, 1e-8, 1.0), "a number in [1e-8, 1]"),
        (
            "opponents",
            agent_weights(cfg.opponents),
            "a mapping of agent names to weights >= 0, summing to > 0",
        ),
        ("setup", cfg.setup in _setup_modes(), f"one of {', '.join(_setup_modes())}"),
        (
            "init_policy",
            isinstance(cfg.init_policy, str) and bool(cfg.init_policy),
            "'pretrained' or a .pt path",
        ),
    ]


def enforce(path: Path, cfg: Any, checks: list[Check], error: type[ValueError]) -> None:
    """``error`` naming the file, the first failing key, what it expects and what it got."""
    for key, ok, want in checks:
        if not ok:
            raise error(f"{path}: key {key!r}: expected {want}, got {getattr(cfg, key)!r}")


def start_sided_run(
    out: Path, resolved: dict[str, Any], seed: int, argv: list[str] | None, error: type[ValueError]
) -> tuple[RunFolder, dict[str, Any]]:
    """Open (or make) the run folder ``out``, write what each start writes (config, command, seed, versions)
    and read its progress so far: a mapping of side -> finished iterations (empty for a new run)."""
    folder = RunFolder(out)
    folder.root.mkdir(parents=True, exist_ok=True)
    folder.record_start(resolved, seed, argv)
    folder.policies.mkdir(exist_ok=True)
    progress: Any = (
        folder.read_json(folder.progress_path, "the run's progress") if folder.progress_path.exists() else {}
    )
    if not isinstance(progress, dict):
        raise error(f"{folder.progress_path}: expected a mapping of side -> iterations")
    return folder, progress
