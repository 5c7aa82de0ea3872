"""The registered gymnasium ids (ffo_env.envs.registration): gymnasium.make, both checkers, named opponents."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import ffo_env  # noqa: F401 - registers the ids
from ffo_env.games import GAMES, game_info

# France Fights On's ids, from its registry entry (issue 62: every game's ids come from the registry)
ENV_IDS = tuple(env_id for ids in game_info("ffo").gym_ids.values() for env_id in ids)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_registered_ids_pass_the_gymnasium_and_sb3_checkers(env_id):
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    env = gym.make(env_id)
    assert env.spec is not None and env.spec.id == env_id
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check(env.unwrapped, skip_render_check=True)
        sb3_check(gym.make(env_id).unwrapped, warn=True)
    flat = "-flat-" in env_id or "-compact-" in env_id  # both are 1-D Boxes
    assert (len(env.observation_space.shape or ()) == 1) == flat
    assert env.unwrapped.side == ("french" if "French" in env_id else "german")


def test_flat_id_runs_an_unmodified_loop_with_the_mask_from_info_and_method():
    env = gym.make("ffo_env/German-flat-v0", opponent="heuristic", max_steps=40)
    obs, info = env.reset(seed=0)
    assert env.unwrapped.opponent.name.startswith("french_heuristic")
    done = False
    while not done:
        mask = env.unwrapped.action_masks()
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        obs, _r, term, trunc, info = env.step(int(np.flatnonzero(mask)[0]))
        done = term or trunc
    assert obs.shape == env.observation_space.shape


def test_rgb_array_render_is_the_map_image():
    env = gym.make("ffo_env/French-v0", render_mode="rgb_array", render_scale=0.2)
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert env.metadata["render_fps"] > 0


def test_make_by_module_prefix_without_importing_ffo_env_first():
    code = (
        "import gymnasium as gym; e = gym.make('ffo_env:ffo_env/French-flat-v0'); o, _ = e.reset(seed=1); "
        "print(o.shape[0] == e.observation_space.shape[0])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def test_unknown_opponent_name_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown agent 'nosuch'"):
        gym.make("ffo_env/French-v0", opponent="nosuch")


CARD = Path(__file__).resolve().parents[1] / "docs" / "environments" / "france_fights_on.md"


def _card_defaults(env_id: str) -> dict[str, str]:
    """The environment card's table of the ids' defaults (after ``<!-- id-defaults -->``): argument -> the
    cell of ``env_id`` (the German compact id has its own column, issue 60)."""
    text = CARD.read_text(encoding="utf-8").split("<!-- id-defaults -->", 1)[1]
    column = 2 if env_id in game_info("ffo").gym_defaults else 1
    rows: dict[str, str] = {}
    for line in text.strip().splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip().strip("`") for c in line.strip("|").split("|")]
        rows[cells[0]] = cells[column]
    return rows


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_registered_defaults_are_the_environment_cards(env_id):
    """What the card says an id defaults to is what ``gymnasium.make(env_id)`` builds (issue 60)."""
    card = _card_defaults(env_id)
    assert set(card) == {
        "opponent",
        "reward",
        "action_layout",
        "shaping_scale",
        "setup",
        "view",
        "illegal_action",
        "max_steps",
    }
    env = gym.make(env_id).unwrapped
    assert env.spec.kwargs.get("opponent") == card["opponent"].strip('"') and env.opponent is None  # "random"
    assert env.reward_mode == card["reward"].strip('"')
    assert getattr(env, "action_layout", "core") == card["action_layout"].strip('"')
    assert env.shaping_scale == float(card["shaping_scale"])
    assert env.game.options.setup == card["setup"].strip('"')
    assert ("omniscient" if env.omniscient else "player") == card["view"].strip('"')
    assert env.illegal_action == card["illegal_action"].strip('"')
    assert card["max_steps"] == "none" and env.max_steps is None


def test_every_games_ids_have_the_one_entry_point_and_the_old_entry_names_build_the_same_env():
    """Issue 62 step 4: one entry point (agents.gym_entry.make_game_env) for the ids of every game; the names of
    the entry points before it (France Fights On's and Springtime's) build the same envs."""
    from agents.gym_entry import make_game_env, make_single_agent_env
    from agents.springtime.gym_entry import make_springtime_env

    for info in GAMES.values():
        for side, ids in info.gym_ids.items():
            for env_id in ids:
                spec = gym.spec(env_id)
                assert spec.entry_point == "agents.gym_entry:make_game_env", env_id
                assert spec.kwargs["game"] == info.name and spec.kwargs["side"] == side
    for old, game in ((make_single_agent_env, "ffo"), (make_springtime_env, "springtime")):
        a = old(side="german", opponent="heuristic", observation_format="flat")
        b = make_game_env(game, side="german", opponent="heuristic", observation_format="flat")
        assert type(a) is type(b) and type(a.opponent) is type(b.opponent)
        oa, _ = a.reset(seed=3)
        ob, _ = b.reset(seed=3)
        assert np.array_equal(oa, ob)
    slots = make_single_agent_env(side="german", action_layout="slots", observation_format="compact")
    assert slots.action_layout == "slots"
    with pytest.raises(ValueError, match="action_layout must be one of"):
        make_single_agent_env(action_layout="hex")
