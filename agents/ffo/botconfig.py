"""Scripted-bot parameters: YAML files under ``configs/ffo/bots/``, loaded and validated.

A file names its side and gives parameters; a variant names a base file with
``extends`` and overrides some of them::

    version: 1
    side: german
    extends: german_heuristic        # optional: another file in the same folder
    description: "..."               # optional
    params:
      attack_min_ev: 0.0

Every parameter is a field of the bot's parameter dataclass; unknown keys, wrong
types and out-of-range values raise :class:`BotConfigError` naming the file and
the key.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, TypeVar

import yaml

from ffo_env.resources import configs_dir

CONFIG_DIR = configs_dir() / "ffo" / "bots"  # configs/ffo/bots of a checkout, or the installed package data
# issue 62 moved the files from configs/bots/: a path given there (a command line, a script) still finds them
_OLD_DIR = Path("configs") / "bots"
CONFIG_VERSION = 1
_TOP_KEYS = ("version", "side", "extends", "description", "params")

T = TypeVar("T")


class BotConfigError(ValueError):
    """A bot configuration file that cannot be used; the message names the file and the key."""


def config_path(name_or_path: str | Path) -> Path:
    """``"german_heuristic"`` -> ``configs/ffo/bots/german_heuristic.yaml``; a path is returned as is, but a
    missing one under the folder's former place, ``configs/bots/...``, is the same file under the new one."""
    p = Path(name_or_path)
    if p.suffix in (".yaml", ".yml") or p.parent != Path("."):
        if not p.exists() and p.parts[:2] == _OLD_DIR.parts:
            return CONFIG_DIR.joinpath(*p.parts[2:])
        return p
    return CONFIG_DIR / f"{name_or_path}.yaml"


def available_configs() -> list[str]:
    """Names of the bot configuration files shipped in ``configs/ffo/bots/``."""
    return sorted(p.stem for p in CONFIG_DIR.glob("*.yaml"))


def _read(path: Path) -> dict[str, Any]:
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise BotConfigError(f"{path}: cannot read the bot configuration: {e}") from e
    except yaml.YAMLError as e:
        raise BotConfigError(f"{path}: not valid YAML: {e}") from e
    if not isinstance(doc, dict):
        raise BotConfigError(
            f"{path}: expected a mapping with keys {list(_TOP_KEYS)}, got {type(doc).__name__}"
        )
    unknown = sorted(set(doc) - set(_TOP_KEYS))
    if unknown:
        raise BotConfigError(
            f"{path}: unknown top-level key {unknown[0]!r}; expected one of {list(_TOP_KEYS)}"
        )
    if doc.get("version") != CONFIG_VERSION:
        raise BotConfigError(f"{path}: key 'version' must be {CONFIG_VERSION}, got {doc.get('version')!r}")
    return doc


def _check_value(path: Path, key: str, value: Any, default: Any, meta: dict[str, Any]) -> Any:
    where = f"{path}: key 'params.{key}'"
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise BotConfigError(f"{where} must be true or false, got {value!r}")
        return value
    if isinstance(default, int | float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BotConfigError(f"{where} must be a number, got {value!r}")
        if isinstance(default, int) and not isinstance(default, bool) and not isinstance(value, int):
            raise BotConfigError(f"{where} must be an integer, got {value!r}")
        lo, hi = meta.get("min"), meta.get("max")
        if lo is not None and value < lo:
            raise BotConfigError(f"{where} must be >= {lo}, got {value!r}")
        if hi is not None and value > hi:
            raise BotConfigError(f"{where} must be <= {hi}, got {value!r}")
        return type(default)(value)
    if isinstance(default, str):
        choices = meta.get("choices")
        if not isinstance(value, str) or (choices and value not in choices):
            raise BotConfigError(f"{where} must be one of {list(choices or [])}, got {value!r}")
        return value
    raise BotConfigError(f"{where}: unsupported parameter type {type(default).__name__}")


def load_params(name_or_path: str | Path, params_cls: type[T], side: str, _seen: tuple[Path, ...] = ()) -> T:
    """Load a bot configuration (following ``extends``) into an instance of ``params_cls``."""
    path = config_path(name_or_path)
    if path in _seen:
        raise BotConfigError(
            f"{path}: 'extends' forms a cycle: {' -> '.join(str(p) for p in (*_seen, path))}"
        )
    doc = _read(path)
    if doc.get("side") != side:
        raise BotConfigError(f"{path}: key 'side' must be {side!r} for this bot, got {doc.get('side')!r}")
    base = params_cls()
    if doc.get("extends") is not None:
        ext = doc["extends"]
        if not isinstance(ext, str):
            raise BotConfigError(f"{path}: key 'extends' must be the name of another file, got {ext!r}")
        base_path = Path(ext) if Path(ext).suffix in (".yaml", ".yml") else Path(f"{ext}.yaml")
        if not base_path.is_absolute():
            base_path = path.parent / base_path  # relative to the extending file
        base = load_params(base_path, params_cls, side, (*_seen, path))
    params = doc.get("params") or {}
    if not isinstance(params, dict):
        raise BotConfigError(f"{path}: key 'params' must be a mapping, got {type(params).__name__}")
    fields = {f.name: f for f in dataclasses.fields(params_cls)}  # type: ignore[arg-type]
    updates = {}
    for key, value in params.items():
        f = fields.get(key)
        if f is None:
            raise BotConfigError(
                f"{path}: unknown key 'params.{key}'; known keys: {', '.join(sorted(fields))}"
            )
        updates[key] = _check_value(path, key, value, getattr(base, key), dict(f.metadata))
    return dataclasses.replace(base, **updates)  # type: ignore[type-var]


def param(default: Any, doc: str, **meta: Any) -> Any:
    """A parameter field with its documentation and validation bounds (``min``, ``max``, ``choices``)."""
    return dataclasses.field(default=default, metadata={"doc": doc, **meta})
