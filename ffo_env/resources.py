"""Where the shipped configuration files are: ``configs/`` of a source checkout, or the same files as
package data (``ffo_env.configs``) of an installed wheel, so commands work from any directory.

``pyproject.toml`` maps the repository's top-level ``configs/`` folder to the package ``ffo_env.configs``
in built wheels; an editable or source checkout reads the folder itself.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["config_file", "configs_dir"]

_SOURCE_CONFIGS = Path(__file__).resolve().parent.parent / "configs"
_INSTALLED_CONFIGS = Path(__file__).resolve().parent / "configs"  # where a wheel puts ffo_env.configs


def configs_dir() -> Path:
    """The folder holding each game's configs (``<game>/train_*.yaml``, France Fights On's ``ffo/bots/``) and
    the campaign's (``campaign*.yaml``)."""
    if (_SOURCE_CONFIGS.parent / "pyproject.toml").is_file() and _SOURCE_CONFIGS.is_dir():
        return _SOURCE_CONFIGS  # a source or editable checkout
    return _INSTALLED_CONFIGS


def config_file(name_or_path: str | Path) -> Path:
    """A config given as a path (used as is when it exists) or as a shipped file's name or relative path:
    ``configs/ffo/train_quick.yaml``, ``ffo/train_quick.yaml`` and ``ffo/train_quick`` all name France Fights
    On's shipped quick config.

    A shipped config's name without a game's folder that is not at the top of ``configs/`` is the default
    game's (:data:`ffo_env.games.DEFAULT_GAME`): its configs sat there before issue 62 moved them into
    ``configs/<game>/``, so ``configs/train_quick.yaml``, ``train_quick.yaml`` and ``train_quick`` still name
    ``configs/ffo/train_quick.yaml`` (and ``configs/bots/...`` the files of ``configs/ffo/bots/``)."""
    p = Path(name_or_path)
    if p.exists():
        return p
    parts = p.parts[1:] if p.parts and p.parts[0] == "configs" else p.parts
    candidate = _shipped(parts)
    if candidate is None and parts:  # a name of the default game's configs from before they moved
        from ffo_env.games import DEFAULT_GAME, game_info

        candidate = _shipped((game_info(DEFAULT_GAME).package_name, *parts))
    return candidate if candidate is not None else p


def _shipped(parts: tuple[str, ...]) -> Path | None:
    """The shipped config at ``parts`` under :func:`configs_dir` (``.yaml`` added to a bare name), if any."""
    candidate = configs_dir().joinpath(*parts) if parts else configs_dir()
    if candidate.suffix not in (".yaml", ".yml"):
        candidate = candidate.with_suffix(".yaml")
    return candidate if candidate.exists() else None
