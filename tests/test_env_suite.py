"""The suite's shared environments (ffo_env.envs.suite_aec, suite_single_agent), run on every game of
``ffo_env.games.GAMES``: one copy of each contract test instead of one per game."""

from __future__ import annotations

import copy
import pickle
import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from ffo_env.envs.adapter import GameAdapter
from ffo_env.envs.suite_aec import SuiteAECEnv
from ffo_env.envs.suite_single_agent import SuiteSingleAgentEnv
from ffo_env.games import GAME_NAMES, game_info

SCALE = {"ffo": 0.02, "springtime": 0.5, "france1940": 0.5}  # each game's default shaping_scale


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_game_is_served_by_the_shared_envs_through_its_adapter(name: str) -> None:
    info = game_info(name)
    adapter = info.env_adapter()
    assert isinstance(adapter, GameAdapter)
    env = info.aec_env()
    assert isinstance(env.unwrapped, SuiteAECEnv)
    assert isinstance(info.single_agent_env(side="german"), SuiteSingleAgentEnv)
    state = adapter.new_state(3)
    assert state.legal_actions() == info.new_state(3).legal_actions()
    assert adapter.potential(state) == env.unwrapped.adapter.potential(state)


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("reward", ["win", "shaped"])
def test_pettingzoo_api_and_parallel_api_tests(name: str, reward: str) -> None:
    info = game_info(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's advice on agent names and Dict observations
        api_test(info.aec_env(reward=reward), num_cycles=40)
        parallel_api_test(info.parallel_env(reward=reward), num_cycles=40)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_pettingzoo_seed_tests(name: str) -> None:
    info = game_info(name)
    seed_test(lambda: info.aec_env(reward="shaped"), num_cycles=30)
    parallel_seed_test(lambda: info.parallel_env(reward="shaped"), num_cycles=30)


def _play_aec(env: Any, seed: int, illegal_at: int | None = None) -> tuple[dict[str, float], float, float]:
    """Play to the end at random (an illegal action at decision ``illegal_at``): the summed rewards, the
    potential at the start and at the end."""
    raw = env.unwrapped
    env.reset(seed=seed)
    p0 = raw.adapter.potential(raw.game_state)
    total = {"french": 0.0, "german": 0.0}
    rng = np.random.default_rng(seed)
    for i, agent in enumerate(env.agent_iter(20_000)):
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        if term or trunc:
            env.step(None)
        elif i == illegal_at:
            env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return total, p0, raw.adapter.potential(raw.game_state)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_shaped_reward_is_the_result_plus_the_scaled_potential_change_zero_sum(name: str) -> None:
    info = game_info(name)
    win, _, _ = _play_aec(info.aec_env(), 1)
    shaped, p0, p1 = _play_aec(info.aec_env(reward="shaped"), 1)
    assert p1 != p0
    assert abs(win["french"]) == 1.0 and win["german"] == -win["french"]
    assert shaped["french"] == pytest.approx(win["french"] + SCALE[name] * (p1 - p0))
    assert shaped["german"] == pytest.approx(-shaped["french"])


@pytest.mark.parametrize("name", GAME_NAMES)
def test_illegal_action_penalty_ends_the_game_and_never_changes_the_core_state(name: str) -> None:
    env = game_info(name).aec_env(reward="shaped")
    env.reset(seed=2)
    for _ in range(5):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    raw = env.unwrapped
    before = raw.game_state.to_dict()
    agent = env.agent_selection
    other = "german" if agent == "french" else "french"
    env.step(1.5)  # not an integer: illegal, as an illegal number is
    assert raw.game_state.to_dict() == before
    assert env.rewards == {agent: -1.0, other: 1.0} and all(env.terminations.values())
    info = env.infos[agent]
    assert info["winner"] == other and info["offender"] == agent and info["illegal_action"] == 1.5
    assert info["reason"] and info["steps"] == 5 and env.infos[other] == info
    assert not env.observe(agent)["action_mask"].any() and not raw.action_mask(other).any()
    total, _, _ = _play_aec(game_info(name).aec_env(), 3, illegal_at=4)
    assert total in ({"french": -1.0, "german": 1.0}, {"french": 1.0, "german": -1.0})


@pytest.mark.parametrize("name", GAME_NAMES)
def test_illegal_action_raise_mode_raises_the_cores_error_state_unchanged(name: str) -> None:
    env = game_info(name).aec_env(illegal_action="raise")
    env.reset(seed=4)
    raw = env.unwrapped
    before = raw.game_state.to_dict()
    bad = int(np.flatnonzero(raw.action_mask() == 0)[0])
    for action in (bad, None, "3", True, -1, raw.adapter.n_actions):
        with pytest.raises(raw.adapter.illegal_error):
            env.step(action)
    assert raw.game_state.to_dict() == before and not any(env.terminations.values())


@pytest.mark.parametrize("name", GAME_NAMES)
def test_max_steps_truncates_both_agents_with_the_end_infos(name: str) -> None:
    env = game_info(name).aec_env(max_steps=7)
    env.reset(seed=5)
    for _ in range(7):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.infos["french"]["steps"] == 7 and env.infos["french"]["winner"] is None
    assert not env.observe(env.agent_selection)["action_mask"].any()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_seeding_game_seed_and_start_states(name: str) -> None:
    info = game_info(name)
    a, b = info.aec_env().unwrapped, info.aec_env().unwrapped
    a.reset(seed=8)
    b.reset(seed=8)
    assert a.game_state.to_dict() == b.game_state.to_dict()
    a.reset(options={"game_seed": 12})
    b.reset(seed=99, options={"game_seed": 12})
    assert a.game_state.seed == 12 and a.game_state.to_dict() == b.game_state.to_dict()
    a.step(a.game_state.legal_actions()[0])
    saved = a.game_state
    b.reset(options={"state": saved})
    assert b.game_state.to_dict() == saved.to_dict() and b.game_state is not saved
    b.reset(options={"state": saved.to_dict()})
    assert b.game_state.to_dict() == saved.to_dict()
    with pytest.raises(TypeError, match="options\\['state'\\]"):
        b.reset(options={"state": 3})


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_mid_game_copies_continue_identically(name: str, how: str) -> None:
    env = game_info(name).aec_env(reward="shaped")
    env.reset(seed=6)
    rng = np.random.default_rng(0)
    for _ in range(30):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    assert twin.unwrapped.game_state.to_dict() == env.unwrapped.game_state.to_dict()
    traces = []
    for e in (env, twin):
        rng = np.random.default_rng(1)
        trace = []
        for _ in range(60):
            obs = e.observe(e.agent_selection)
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            trace.append((e.agent_selection, dict(e.rewards), obs["action_mask"].tobytes()))
        traces.append(trace)
    assert traces[0] == traces[1]


# ------------------------------------------------------------------ the one-side env


class _FirstLegal:
    name = "first"

    def act_state(self, state: Any) -> int:
        return int(state.legal_actions()[0])


class _ByMask:
    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask)[-1])


@pytest.mark.parametrize("name", GAME_NAMES)
def test_single_agent_env_passes_gymnasiums_check_env(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for side in ("french", "german"):
            check_env(game_info(name).single_agent_env(side=side, reward="shaped"), skip_render_check=True)


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("side", ["french", "german"])
@pytest.mark.parametrize("opponent", [None, _FirstLegal(), _ByMask(), lambda s: s.legal_actions()[-1]])
def test_single_agent_episode_reward_stats_and_opponents(name: str, side: str, opponent: Any) -> None:
    env = game_info(name).single_agent_env(side=side, opponent=opponent, reward="shaped")
    env.reset(seed=9)
    sign = 1.0 if side == "french" else -1.0
    p_first = env.adapter.potential(env.game_state)
    rng = np.random.default_rng(9)
    total, steps, done = 0.0, 0, False
    while not done:
        mask = env.action_masks()
        assert mask.any()
        _, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += r
        steps += 1
        done = term or trunc
    result = env.game_state.returns()[env.learner]
    assert term and result in (1.0, -1.0) and (result == 1.0) == (info["winner"] == side)
    assert total == pytest.approx(
        result + sign * SCALE[name] * (env.adapter.potential(env.game_state) - p_first)
    )
    stats = info["episode_stats"]
    assert (
        stats["learner_steps"] == steps and stats["opponent_steps"] > 0 and stats["winner"] == info["winner"]
    )
    assert info["opponent"] == (
        "random" if opponent is None else getattr(opponent, "name", type(opponent).__name__)
    )
    assert not env.action_masks().any() and not info["action_mask"].any()
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(0)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_single_agent_illegal_action_loses_and_leaves_the_state(name: str) -> None:
    env = game_info(name).single_agent_env(side="german", penalty=-3.0)
    env.reset(seed=10)
    before = env.game_state.to_dict()
    bad = int(np.flatnonzero(env.action_masks() == 0)[0])
    _, r, term, trunc, info = env.step(bad)
    assert (r, term, trunc) == (-3.0, True, False) and env.game_state.to_dict() == before
    assert info["illegal_action"] == bad and info["reason"] and info["winner"] == "french"
    assert info["episode_stats"]["winner"] == "french" and not info["action_mask"].any()
    env = game_info(name).single_agent_env(illegal_action="raise")
    env.reset(seed=10)
    with pytest.raises(env.adapter.illegal_error):
        env.step(bad if bad not in env.game_state.legal_actions() else -1)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_single_agent_reset_options_opponent_sampler_state_and_game_seed(name: str) -> None:
    info = game_info(name)
    picked: list[Any] = []

    def sampler(rng: np.random.Generator) -> Any:
        picked.append(_FirstLegal())
        return picked[-1]

    env = info.single_agent_env(opponent_sampler=sampler, max_steps=3)
    env.reset(seed=0)
    env.reset()
    assert len(picked) == 2 and env.opponent is picked[-1]
    forced = _ByMask()
    env.reset(options={"opponent": forced})
    assert env.opponent is forced
    start = info.new_state(21)
    env.reset(options={"state": start.to_dict(), "opponent": _FirstLegal()})
    assert env.game_state.current_player == 0 and env.game_state.seed == 21
    a = info.single_agent_env(side="german")
    b = info.single_agent_env(side="german")
    a.reset(seed=1, options={"game_seed": 5})
    b.reset(seed=1, options={"game_seed": 5})
    assert a.game_state.seed == 5 and a.game_state.to_dict() == b.game_state.to_dict()
    for _ in range(3):
        _, _, term, trunc, inf = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if term or trunc:
            break
    assert trunc and "episode_stats" in inf
