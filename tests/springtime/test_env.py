"""The Springtime environments: PettingZoo and gymnasium contracts, illegal actions, the registered ids."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import ffo_env  # noqa: F401 - registers the ids
from ffo_env import springtime_v0
from ffo_env.games import game_info
from ffo_env.springtime.core.actions import N_ACTIONS, IllegalActionError
from ffo_env.springtime.encoding import OBS_SIZE

SPRINGTIME_ENV_IDS = tuple(env_id for ids in game_info("springtime").gym_ids.values() for env_id in ids)


def test_pettingzoo_api() -> None:
    api_test(springtime_v0.env(), num_cycles=60)


def test_pettingzoo_api_plan_red_with_options() -> None:
    api_test(springtime_v0.env(scenario="plan_red", rules={"airdrops": True}), num_cycles=30)


def test_pettingzoo_parallel_api() -> None:
    parallel_api_test(springtime_v0.parallel_env(), num_cycles=60)


def test_pettingzoo_seed() -> None:
    seed_test(springtime_v0.env, num_cycles=15)
    parallel_seed_test(springtime_v0.parallel_env, num_cycles=15)


def test_observation_and_mask_shapes() -> None:
    e = springtime_v0.env()
    e.reset(seed=3)
    agent = e.agent_selection
    obs = e.observe(agent)
    assert obs["observation"].shape == (OBS_SIZE,) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (N_ACTIONS,)
    assert list(np.flatnonzero(obs["action_mask"])) == e.unwrapped.game_state.legal_actions()
    other = "german" if agent == "french" else "french"
    assert not e.observe(other)["action_mask"].any()


def _illegal(e) -> int:
    legal = set(e.unwrapped.game_state.legal_actions())
    return next(a for a in range(N_ACTIONS) if a not in legal)


def test_illegal_action_penalty_ends_game_and_leaves_core_state_unchanged() -> None:
    e = springtime_v0.env()
    e.reset(seed=5)
    before = e.unwrapped.game_state.to_dict()
    offender = e.agent_selection
    e.step(_illegal(e))
    assert e.unwrapped.game_state.to_dict() == before
    other = "german" if offender == "french" else "french"
    assert e.rewards == {offender: -1.0, other: 1.0}
    assert all(e.terminations.values())
    assert e.infos[offender]["offender"] == offender


@pytest.mark.parametrize("bad", [1.0, "0", None, -1, N_ACTIONS])
def test_illegal_action_raise_mode(bad: object) -> None:
    e = springtime_v0.env(illegal_action="raise")
    e.reset(seed=5)
    before = e.unwrapped.game_state.to_dict()
    with pytest.raises(IllegalActionError):
        e.step(bad)
    with pytest.raises(IllegalActionError):
        e.step(_illegal(e))
    assert e.unwrapped.game_state.to_dict() == before


def test_max_steps_truncates() -> None:
    e = springtime_v0.env(max_steps=5)
    e.reset(seed=1)
    for _ in range(5):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert all(e.truncations.values())


def test_render_ansi() -> None:
    e = springtime_v0.env(render_mode="ansi")
    e.reset(seed=0)
    assert "morale" in e.render()


@pytest.mark.parametrize("env_id", SPRINGTIME_ENV_IDS)
def test_gymnasium_and_sb3_check_env(env_id: str) -> None:
    e = gymnasium.make(env_id)
    check_env(e.unwrapped, skip_render_check=True)
    sb3_check_env(e.unwrapped)
    obs, info = e.reset(seed=0)
    mask = e.unwrapped.action_masks()
    assert mask.any() and np.array_equal(mask, info["action_mask"])


def test_single_agent_illegal_action_leaves_state_unchanged() -> None:
    e = gymnasium.make("ffo_env/Springtime-German-flat-v0").unwrapped
    e.reset(seed=2)
    before = e.game_state.to_dict()
    bad = int(np.flatnonzero(e.action_masks() == 0)[0])
    _, reward, terminated, _, info = e.step(bad)
    assert (reward, terminated) == (-1.0, True) and "reason" in info
    assert e.game_state.to_dict() == before


def test_single_agent_plays_a_game_to_the_end_against_the_pass_bot() -> None:
    e = gymnasium.make("ffo_env/Springtime-French-flat-v0", opponent="pass").unwrapped
    e.reset(seed=4)
    rng = np.random.default_rng(4)
    done = False
    reward = 0.0
    while not done:
        legal = np.flatnonzero(e.action_masks())
        _, reward, done, trunc, _ = e.step(int(rng.choice(legal)))
        assert not trunc
    assert reward in (-1.0, 1.0)


def _random_game(e, seed: int) -> tuple[dict[str, float], float, float]:
    """Play ``e`` (an AEC env) to the end at random: summed rewards, the first and the final potential."""
    from ffo_env.springtime.core.flow import french_potential

    e.reset(seed=seed)
    p0 = french_potential(e.unwrapped.game_state)
    total = {"french": 0.0, "german": 0.0}
    rng = np.random.default_rng(seed)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        total[agent] += reward
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return total, p0, french_potential(e.unwrapped.game_state)


@pytest.mark.parametrize("seed", [0, 1])
def test_shaped_reward_sums_to_the_result_plus_the_potential_change_zero_sum(seed: int) -> None:
    win, _, _ = _random_game(springtime_v0.env(), seed)
    shaped, p0, p1 = _random_game(springtime_v0.env(reward="shaped", shaping_scale=0.5), seed)
    assert p1 != p0  # the game moved French Morale: the test sees the shaping
    assert shaped["french"] == pytest.approx(win["french"] + 0.5 * (p1 - p0))
    assert shaped["german"] == pytest.approx(-shaped["french"])


def test_shaped_reward_follows_each_morale_change_of_the_step() -> None:
    from ffo_env.springtime.core.flow import french_potential

    e = springtime_v0.raw_env(reward="shaped", shaping_scale=2.0)
    e.reset(seed=3)
    rng = np.random.default_rng(3)
    changed = 0
    while not any(e.terminations.values()):
        s = e.game_state
        p0 = french_potential(s)
        e.step(int(rng.choice(s.legal_actions())))
        d = 2.0 * (french_potential(e.game_state) - p0)
        if e.game_state.is_terminal():
            d += e.game_state.returns()[0]
        assert e.rewards == pytest.approx({"french": d, "german": -d})
        changed += d != 0.0
    assert changed > 3


@pytest.mark.parametrize("side", ["french", "german"])
def test_single_agent_shaped_reward_is_the_learner_sided_potential_change(side: str) -> None:
    from ffo_env.springtime.core.flow import french_potential

    e = gymnasium.make("ffo_env/Springtime-French-flat-v0".replace("French", side.title()), reward="shaped")
    e = e.unwrapped
    e.reset(seed=7)
    sign = 1.0 if side == "french" else -1.0
    p_first = french_potential(e.game_state)
    total, done, rng = 0.0, False, np.random.default_rng(7)
    while not done:
        p0 = french_potential(e.game_state)
        _, r, done, trunc, _ = e.step(int(rng.choice(np.flatnonzero(e.action_masks()))))
        end = e.game_state.returns()[0 if side == "french" else 1] if done else 0.0
        assert r == pytest.approx(end + sign * 0.5 * (french_potential(e.game_state) - p0))
        total += r
        assert not trunc
    assert total == pytest.approx(end + sign * 0.5 * (french_potential(e.game_state) - p_first))


def test_bad_reward_option_names_it() -> None:
    with pytest.raises(ValueError, match="reward"):
        springtime_v0.raw_env(reward="vp")
    with pytest.raises(ValueError, match="reward"):
        springtime_v0.SpringtimeSingleAgentEnv(reward="morale")


def test_pettingzoo_api_shaped() -> None:
    api_test(springtime_v0.env(reward="shaped"), num_cycles=30)
