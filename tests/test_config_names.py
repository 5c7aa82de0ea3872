"""Shipped configs by name (``ffo_env.resources.config_file``): each game's in ``configs/<game>/`` (issue 62),
and the default game's former names, from before its ``configs/train_*.yaml`` moved to ``configs/ffo/``, still
name the same files."""

from __future__ import annotations

from pathlib import Path

import pytest

from ffo_env.games import DEFAULT_GAME, GAMES, game_info
from ffo_env.resources import config_file, configs_dir

ROOT = Path(__file__).resolve().parents[1]
MOVED = sorted(p.name for p in (configs_dir() / game_info(DEFAULT_GAME).package_name).glob("train_*.yaml"))


def test_the_default_games_run_files_moved_into_its_folder_and_none_is_left_at_the_top() -> None:
    assert {"train_quick.yaml", "train_release.yaml", "train_long.yaml", "train_rllib_smoke.yaml"} <= set(
        MOVED
    )
    assert not list((ROOT / "configs").glob("train_*.yaml"))
    assert sorted(p.name for p in (ROOT / "configs").glob("*.yaml")) == [
        "campaign.yaml",
        "campaign_kickstart.yaml",
    ]


@pytest.mark.parametrize("name", MOVED)
def test_an_old_name_of_a_moved_config_names_the_same_file(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT.parent)  # not the checkout: no relative path exists by accident
    new = config_file(f"configs/{game_info(DEFAULT_GAME).package_name}/{name}")
    assert new.is_file() and new.parent.name == game_info(DEFAULT_GAME).package_name
    stem = name.removesuffix(".yaml")
    for old in (f"configs/{name}", name, stem):
        assert config_file(old) == new, old


def test_every_games_quick_config_is_in_its_own_folder() -> None:
    from training.config import default_config

    for game in GAMES:
        path = default_config(game)
        assert path.is_file() and path.parent.name == game_info(game).package_name, (game, path)


def test_a_name_that_is_no_shipped_config_is_returned_as_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT.parent)
    for name in ("configs/nope.yaml", "nope", "configs/springtime/train_long.yaml"):
        assert config_file(name) == Path(name)
    assert config_file("configs/campaign.yaml") == configs_dir() / "campaign.yaml"
