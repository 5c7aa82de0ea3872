"""France 1940's environments (ffo_env/france1940/env.py, france1940_v0, the Gymnasium ids): the PettingZoo
and Gymnasium checkers on every observation format, exact spaces, masks equal to the core's legal actions,
illegal actions that change nothing, seeded playouts through the env, and the game's options (armies,
``bef_variant``, ``rules``) with one clear error for each bad one. The suite's contract on the default env
runs in tests/test_env_suite.py and tests/test_game_contract.py."""

from __future__ import annotations

import copy
import pickle
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, seed_test

import ffo_env  # noqa: F401 - registers the ids
from ffo_env import france1940_v0
from ffo_env.france1940 import encoding as E
from ffo_env.france1940.core.actions import N_ACTIONS, IllegalActionError
from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.options import RulesOptions
from ffo_env.france1940.env import France1940SingleAgentEnv, make_adapter, render_text
from ffo_env.france1940.interface import GYM_IDS
from ffo_env.games import game_info

FORMATS = ("dict", "flat", "compact")


@pytest.mark.parametrize("fmt", ["flat", "compact"])
def test_pettingzoo_api_parallel_and_seed_tests_on_the_vector_formats(fmt: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(france1940_v0.env(observation_format=fmt), num_cycles=30)
        parallel_api_test(france1940_v0.parallel_env(observation_format=fmt), num_cycles=30)
        seed_test(lambda: france1940_v0.env(observation_format=fmt, reward="shaped"), num_cycles=20)


def test_pettingzoo_api_test_with_the_bef_variant_random_armies_and_hidden_orders_of_battle() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(
            france1940_v0.env(
                allied_obac="random", german_obac="random", bef_variant=True, rules={"hidden_obac": True}
            ),
            num_cycles=30,
        )


@pytest.mark.parametrize("env_id", [i for ids in GYM_IDS.values() for i in ids])
def test_every_gymnasium_id_passes_check_env_with_its_exact_space(env_id: str) -> None:
    env = gym.make(env_id)
    raw: Any = env.unwrapped
    assert isinstance(raw, France1940SingleAgentEnv) and raw.side == (
        "french" if "-French-" in env_id else "german"
    )
    fmt = "flat" if "-flat-" in env_id else "compact" if "-compact-" in env_id else "dict"
    space = raw.observation_space
    if fmt == "dict":
        assert isinstance(space, gym.spaces.Dict)
        assert {k: s.shape for k, s in space.spaces.items()} == E.SHAPES
    else:
        assert space.shape == ((E.FLAT_SIZE,) if fmt == "flat" else (E.compact_size(raw.game),))
        assert space.dtype == np.float32
    assert raw.action_space == gym.spaces.Discrete(N_ACTIONS) == gym.spaces.Discrete(1480)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(raw, skip_render_check=True)
    obs, info = env.reset(seed=3)
    assert space.contains(obs) and info["opponent"] == "random"
    assert np.array_equal(np.flatnonzero(info["action_mask"]), raw.game_state.legal_actions())
    env.close()


def test_stable_baselines3s_env_checker_on_the_flat_twin() -> None:
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sb3_check_env(gym.make("ffo_env/France1940-German-flat-v0").unwrapped, warn=False)
        sb3_check_env(gym.make("ffo_env/France1940-French-compact-v0").unwrapped, warn=False)


@pytest.mark.parametrize("fmt", FORMATS)
def test_aec_masks_are_the_cores_legal_actions_and_only_the_actor_has_one(fmt: str) -> None:
    env = france1940_v0.env(observation_format=fmt)
    env.reset(seed=7)
    raw = env.unwrapped
    rng = np.random.default_rng(7)
    for _ in range(200):
        agent = env.agent_selection
        other = "german" if agent == "french" else "french"
        obs = env.observe(agent)
        legal = raw.game_state.legal_actions()
        assert np.array_equal(np.flatnonzero(obs["action_mask"]), legal)
        assert not env.observe(other)["action_mask"].any()
        assert raw.observation_space(agent)["observation"].contains(obs["observation"])
        env.step(int(rng.choice(legal)))


def test_an_illegal_action_changes_nothing_in_the_one_side_env_and_loses() -> None:
    env = France1940SingleAgentEnv(side="french", observation_format="flat")
    obs, _ = env.reset(seed=4)
    before = env.game_state.to_dict()
    bad = int(np.flatnonzero(env.action_masks() == 0)[0])
    obs2, r, term, trunc, info = env.step(bad)
    assert (r, term, trunc) == (-1.0, True, False) and env.game_state.to_dict() == before
    assert info["illegal_action"] == bad and info["winner"] == "german"
    assert np.array_equal(obs2, E.encode_flat(env.game_state, 0, None))  # the same position, no legal action
    env = France1940SingleAgentEnv(side="french", illegal_action="raise")
    env.reset(seed=4)
    with pytest.raises(IllegalActionError):
        env.step(bad)
    assert env.game_state.to_dict() == before


def _env_playout(seed: int, steps: int, **kw: Any) -> tuple[list[int], list[float], dict[str, Any]]:
    env = France1940SingleAgentEnv(max_steps=steps, reward="shaped", **kw)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions, rewards = [], []
    while True:
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, r, term, trunc, info = env.step(a)
        actions.append(a)
        rewards.append(r)
        if term or trunc:
            return actions, rewards, env.game_state.to_dict()


@pytest.mark.parametrize("side", ["french", "german"])
def test_seeded_random_playouts_through_the_env_reproduce_exactly(side: str) -> None:
    a1, r1, s1 = _env_playout(21, 300, side=side, observation_format="compact")
    a2, r2, s2 = _env_playout(21, 300, side=side, observation_format="compact")
    assert (a1, r1, s1) == (a2, r2, s2) and len(a1) == 300
    a3, _, s3 = _env_playout(22, 300, side=side, observation_format="compact")
    assert s3 != s1


def test_a_whole_game_through_the_aec_env_ends_with_the_cores_winner_and_replays() -> None:
    env = france1940_v0.env(observation_format="compact")
    env.reset(seed=31)
    raw = env.unwrapped
    rng = np.random.default_rng(31)
    totals = {"french": 0.0, "german": 0.0}
    end: dict[str, Any] = {}
    for agent in env.agent_iter(10_000):
        _, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            end = info
            env.step(None)
            continue
        legal = raw.game_state.legal_actions()
        env.step(int(rng.choice(legal)))
    s = raw.game_state
    assert s.is_terminal() and totals == {"french": s.returns()[0], "german": s.returns()[1]}
    assert end["winner"] == ("french" if s.winner == 0 else "german") and end["columns"] == ["Hist", "I"]
    agent_decisions = sum(1 for _p, _a, auto in s.history if not auto)
    assert end["vp"] == s.vp and end["result"] == s.result and end["steps"] == agent_decisions
    again = game_info("france1940").new_state(s.seed)  # the seed and the agents' decisions give the game
    for _player, a, auto in s.history:
        if not auto:
            again.apply_action(a)
    assert again.to_dict() == s.to_dict()


# ------------------------------------------------------------------ options


def test_armies_by_name_random_and_lists_drawn_from_the_game_seed() -> None:
    env = France1940SingleAgentEnv(allied_obac="C", german_obac="III")
    env.reset(seed=1)
    assert env.game_state.columns == ["C", "III"] and env.game.options.allied_obac == "C"
    env = France1940SingleAgentEnv(allied_obac="random", german_obac="random")
    seen = set()
    for seed in range(8):
        env.reset(seed=seed)
        seen.add(tuple(env.game_state.columns))
    assert len(seen) > 1
    pools = France1940SingleAgentEnv(
        allied_obac=["A", "B"], german_obac=["II", "IV"], observation_format="flat"
    )
    drawn = set()
    for seed in range(12):
        pools.reset(options={"game_seed": seed})
        cols = tuple(pools.game_state.columns)
        assert cols[0] in ("A", "B") and cols[1] in ("II", "IV")
        drawn.add(cols)
        again = make_adapter(allied_obac=["A", "B"], german_obac=["II", "IV"]).new_state(seed)
        assert again.to_dict() == pools.game_state.to_dict()  # the game seed alone gives the pair
    assert len(drawn) >= 3
    twin = pickle.loads(pickle.dumps(pools))
    twin.reset(options={"game_seed": 5})
    pools.reset(options={"game_seed": 5})
    assert twin.game_state.to_dict() == pools.game_state.to_dict()
    assert copy.deepcopy(pools).game_state.to_dict() == pools.game_state.to_dict()


def test_bef_variant_and_rules_options_reach_the_core() -> None:
    raw = france1940_v0.raw_env(bef_variant=True, rules={"optional_airborne": True, "hidden_obac": True})
    raw.reset(seed=2)
    o = raw.game_state.game.options
    assert o.bef_variant and o.optional_airborne and o.hidden_obac and raw.game.last_turn == 12
    same = france1940_v0.raw_env(rules=RulesOptions(bef_variant=True))
    assert same.game.options.bef_variant
    assert "columns" not in raw.adapter.facts(raw.game_state)  # P3: hidden until the end


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"allied_obac": "Z"}, ValueError, "allied_obac: unknown Order of Battle Alternative 'Z'"),
        ({"german_obac": ["I", "VII"]}, ValueError, "german_obac: unknown Order of Battle Alternative 'VII'"),
        ({"german_obac": []}, ValueError, "german_obac"),
        ({"allied_obac": ["A", "random"]}, ValueError, "a list holds columns only"),
        ({"allied_obac": "B", "rules": {"allied_obac": "C"}}, ValueError, "allied_obac is given twice"),
        ({"bef_variant": "yes"}, TypeError, "bef_variant must be true or false"),
        ({"rules": {"no_such_rule": True}}, ValueError, "unknown rules options"),
        ({"rules": {"bef_bomber_command": True}}, ValueError, "needs bef_variant"),
        ({"observation_format": "image"}, ValueError, "observation_format"),
        ({"reward": "potential"}, ValueError, "projected score"),
    ],
)
def test_every_bad_option_is_one_clear_error(
    kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        France1940SingleAgentEnv(**kwargs)


def test_a_start_state_of_other_rules_is_refused_and_one_of_these_rules_is_copied() -> None:
    env = france1940_v0.raw_env(allied_obac=["A", "B"])
    other = Game(RulesOptions(bef_variant=True)).new_initial_state(3)
    with pytest.raises(ValueError, match="belongs to another game"):
        env.reset(options={"state": other})
    hist = Game(RulesOptions()).new_initial_state(3)
    with pytest.raises(ValueError, match="belongs to another game"):
        env.reset(options={"state": hist})  # column Hist is not in this env's list
    mine = Game(RulesOptions(allied_obac="B")).new_initial_state(3)
    env.reset(options={"state": mine.to_dict()})
    assert env.game_state.to_dict() == mine.to_dict() and env.game_state is not mine


def test_ansi_render_shows_the_position() -> None:
    env = france1940_v0.env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert text == render_text(env.unwrapped.game_state) and "VP allied 0 german 0" in text
    assert "columns Hist / I" in text


def test_ffo_env_gives_france1940_v0_on_first_use() -> None:
    import importlib

    import ffo_env as package

    assert package.france1940_v0 is importlib.import_module("ffo_env.france1940_v0")
    assert package.france1940_v0.raw_env is france1940_v0.raw_env
    with pytest.raises(AttributeError, match="no attribute 'france1939_v0'"):
        package.france1939_v0  # noqa: B018


def test_an_observation_opponent_gets_its_sides_observation_in_the_envs_format() -> None:
    seen: list[tuple[int, ...]] = []

    class ByMask:
        name = "by_mask"

        def act(self, observation: Any, action_mask: np.ndarray) -> int:
            seen.append(observation.shape)
            glob = observation[: len(E.GLOBAL_FEATURES)]  # compact: the globals first
            assert glob[E.GLOBAL_FEATURES.index("viewer_allied")] == 1.0
            assert glob[E.GLOBAL_FEATURES.index("to_act")] == 1.0
            return int(np.flatnonzero(action_mask)[0])

    env = France1940SingleAgentEnv(side="german", opponent=ByMask(), observation_format="compact")
    env.reset(seed=8)
    for _ in range(40):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert seen and set(seen) == {(E.compact_size(env.game),)}
