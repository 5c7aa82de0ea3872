"""``pip install .`` (a wheel, not editable) works from any directory: data and configs are package data,
and every package of the tree is in the wheel."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_of_the_tree_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in ROOT.glob("*/**/__init__.py")
        if not any(part.startswith(".") or part in ("tests", "build") for part in p.relative_to(ROOT).parts)
    }
    assert found <= listed, (
        f"packages missing from pyproject's [tool.setuptools] packages: {sorted(found - listed)}"
    )
    assert "ffo_env.configs" in listed


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The project built as a wheel and installed (no dependencies) into a folder of its own."""
    tmp = tmp_path_factory.mktemp("wheel")
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp / "dist"),
            str(ROOT),
        ],
        check=True,
        env=env,
        timeout=600,
        capture_output=True,
    )
    (wheel,) = (tmp / "dist").glob("ffo_env-*.whl")
    target = tmp / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        env=env,
        timeout=600,
        capture_output=True,
    )
    return target


def test_the_installed_wheel_plays_with_the_shipped_bots_and_configs_from_another_directory(
    installed, tmp_path
):
    code = (
        "import agents, ffo_env, sys\n"
        "assert ffo_env.__file__.startswith(sys.argv[1]), ffo_env.__file__\n"
        "from agents.ffo.botconfig import CONFIG_DIR, available_configs\n"
        "from ffo_env.resources import config_file\n"
        "assert str(CONFIG_DIR).startswith(sys.argv[1]) and 'german_heuristic' in available_configs()\n"
        "assert config_file('configs/ffo/train_quick.yaml').is_file()\n"
        "assert config_file('configs/train_release.yaml') == config_file('configs/ffo/train_release.yaml')\n"
        "from agents.ffo.pretrained import PRETRAINED_DIR, pretrained_metadata\n"
        "assert str(PRETRAINED_DIR).startswith(sys.argv[1]), PRETRAINED_DIR\n"
        "assert (PRETRAINED_DIR / 'german.pt').stat().st_size > 0 and (PRETRAINED_DIR / 'MODEL_CARD.md').is_file()\n"
        "assert pretrained_metadata('french')['side'] == 'french'\n"
        "from agents.springtime.policy import PRETRAINED_DIR as SFH_DIR\n"
        "assert str(SFH_DIR).startswith(sys.argv[1]) and (SFH_DIR / 'MODEL_CARD.md').is_file()\n"
        "assert (SFH_DIR / 'german.pt').stat().st_size > 0 and (SFH_DIR / 'french.json').is_file()\n"
        "assert config_file('configs/springtime/train_quick.yaml').is_file()\n"
        "assert config_file('configs/france1940/train_quick.yaml').is_file()\n"
        "from agents.france1940.policy import PRETRAINED_DIR as F40_DIR\n"
        "assert str(F40_DIR).startswith(sys.argv[1]) and (F40_DIR / 'MODEL_CARD.md').is_file()\n"
        "assert (F40_DIR / 'german.pt').stat().st_size > 0 and (F40_DIR / 'french.json').is_file()\n"
        "from agents import make_agent\n"
        "from ffo_env.ffo.core.game import Game, RulesOptions\n"
        "import warnings\n"
        "with warnings.catch_warnings():\n"
        "    warnings.simplefilter('ignore', DeprecationWarning)\n"
        "    from ffo_env.core.game import Game as OldGame  # an import path of before issue 62, by the hook\n"
        "assert OldGame is Game\n"
        "with warnings.catch_warnings():\n"
        "    warnings.simplefilter('ignore', DeprecationWarning)\n"
        "    from agents.pretrained import PRETRAINED_DIR as OLD_DIR  # the bots' path before step 4\n"
        "assert OLD_DIR == PRETRAINED_DIR\n"
        "assert make_agent('pretrained', 'german', seed=1, game='ffo').name\n"
        "s = Game(options=RulesOptions(setup='random')).new_initial_state(1)\n"
        "bots = {side: make_agent('heuristic', side, seed=1) for side in ('french', 'german')}\n"
        "while not s.is_terminal():\n"
        "    s.apply_action(bots[s.current_agent].act_state(s))\n"
        "print('ok', s.winner is not None)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(installed)}
    out = subprocess.run(
        [sys.executable, "-c", code, str(installed)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["ok", "True"]
