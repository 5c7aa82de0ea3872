"""PettingZoo conformance and behaviour of france_fights_on_v0 (ffo_env.ffo.env)."""

from __future__ import annotations

import copy
import pickle
import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import ffo_env
from ffo_env.envs.wrappers import IllegalActionPenalty
from ffo_env.ffo.core.actions import IllegalActionError
from ffo_env.ffo.env import parallel_env, raw_env


def test_api_test():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(ffo_env.env(), num_cycles=300)


def test_api_test_fixed_setup_omniscient_shaped():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(ffo_env.env(setup="fixed", view="omniscient", reward="shaped"), num_cycles=100)


def test_seed_test():
    seed_test(ffo_env.env, num_cycles=200)


def test_render_test():
    render_test(lambda render_mode=None: ffo_env.env(render_mode=render_mode, render_scale=0.2))


def test_metadata_and_spaces():
    e = raw_env()
    assert e.metadata["name"] == "france_fights_on_v0"
    assert (
        e.metadata["render_modes"] == ["ansi", "rgb_array", "human"]
        and e.metadata["is_parallelizable"] is False
    )
    assert e.metadata["render_fps"] > 0
    assert e.action_space("french").n == 1607
    sp = e.observation_space("german")
    assert set(sp.spaces) == {"observation", "action_mask"}
    assert set(sp["observation"].spaces) == {"planes", "globals", "units"}


def _random_games(n_games: int, setup: str, seed: int) -> int:
    e = raw_env(setup=setup)
    rng = random.Random(seed)
    steps = 0
    for g in range(n_games):
        e.reset(seed=seed + g)
        space = e.observation_space("french")
        while not all(e.terminations.values()):
            agent = e.agent_selection
            s = e.game_state
            legal = s.legal_actions()
            obs = e.observe(agent)
            mask = obs["action_mask"]
            assert mask.any(), f"acting agent {agent} got an all-zero mask at {s.decision_string()}"
            assert np.flatnonzero(mask).tolist() == legal, "mask and core legal actions differ"
            assert agent == s.current_agent
            other = "german" if agent == "french" else "french"
            assert not e.observe(other)["action_mask"].any(), "only the acting agent may have legal actions"
            if steps % 97 == 0:
                assert space.contains(obs), f"observation out of bounds at {s.decision_string()}"
            e.step(rng.choice(legal))
            steps += 1
        r = e.rewards
        assert r["french"] == -r["german"] and abs(r["french"]) == 1.0
        assert e.infos["french"]["winner"] in ("french", "german")
    return steps


@pytest.mark.parametrize("setup", ["random", "fixed", "decide"])
def test_random_games_mask_equals_legal_actions(setup):
    assert _random_games(2, setup, seed={"random": 0, "fixed": 10, "decide": 20}[setup]) > 500


def test_illegal_action_raises_in_raise_mode_and_leaves_the_state_unchanged():
    e = ffo_env.env(illegal_action="raise")
    e.reset(seed=3)
    s = e.unwrapped.game_state
    before = s.to_json()
    illegal = next(a for a in range(1607) if a not in s.legal_actions())
    with pytest.raises(IllegalActionError, match="not legal"):
        e.step(illegal)
    assert e.unwrapped.game_state.to_json() == before
    assert not any(e.terminations.values())
    e.step(s.legal_actions()[0])  # still playable


def test_illegal_action_penalty_wrapper_ends_the_game():
    e = IllegalActionPenalty(raw_env(), penalty=-1.0)
    e.reset(seed=4)
    agent = e.agent_selection
    before = e.unwrapped.game_state.to_json()
    e.step(1606 if 1606 not in e.unwrapped.game_state.legal_actions() else 0)
    assert all(e.terminations.values())
    assert e.rewards[agent] == -1.0 and e._cumulative_rewards[agent] == -1.0
    assert e.infos[agent]["illegal_action"] is not None
    assert e.unwrapped.game_state.to_json() == before
    for ag in e.agent_iter():
        e.step(None)
        assert ag
    assert not e.agents


def _play(e, rng: random.Random, n: int) -> list:
    trace = []
    for _ in range(n):
        if all(e.terminations.values()) or all(e.truncations.values()):
            break
        agent = e.agent_selection
        obs = e.observe(agent)
        a = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        e.step(a)
        trace.append(
            (
                agent,
                a,
                dict(e.rewards),
                obs["observation"]["globals"].tobytes(),
                obs["observation"]["planes"].tobytes(),
                obs["observation"]["units"].tobytes(),
            )
        )
    return trace


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_mid_game_copy_continues_identically(how):
    e = ffo_env.env(reward="shaped")
    e.reset(seed=7)
    _play(e, random.Random(1), 400)
    c = copy.deepcopy(e) if how == "deepcopy" else pickle.loads(pickle.dumps(e))
    assert c.unwrapped.game_state.to_json() == e.unwrapped.game_state.to_json()
    t1 = _play(e, random.Random(2), 100000)
    t2 = _play(c, random.Random(2), 100000)
    assert t1 == t2 and len(t1) > 100
    assert e.unwrapped.game_state.to_json() == c.unwrapped.game_state.to_json()


def test_truncation_after_max_steps():
    e = ffo_env.env(max_steps=30)
    e.reset(seed=1)
    n = 0
    for agent in e.agent_iter():
        obs, rew, term, trunc, info = e.last()
        if term or trunc:
            assert trunc and not term and not obs["action_mask"].any()
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        n += 1
        assert agent
    assert n == 30


def test_reset_from_a_given_state_and_game_seed():
    e = raw_env()
    e.reset(options={"game_seed": 12})
    s = e.game_state.clone()
    e2 = raw_env()
    e2.reset(options={"state": s})
    assert e2.game_state.to_json() == s.to_json() and e2.game_state is not s
    e3 = raw_env()
    e3.reset(options={"game_seed": 12})
    assert e3.game_state.to_json() == s.to_json()


def test_render_modes():
    e = raw_env(render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert isinstance(text, str) and "France Fights On" in text
    e = raw_env(render_mode="rgb_array", render_scale=0.2)
    e.reset(seed=0)
    a = e.render()
    b = e.render()
    assert a.dtype == np.uint8 and a.ndim == 3 and a.shape[2] == 3 and np.array_equal(a, b)


def test_parallel_env_turn_based():
    p = parallel_env()
    obs, infos = p.reset(seed=0)
    for _ in range(20):
        acting = [a for a in p.agents if obs[a]["action_mask"].any()]
        assert len(acting) == 1
        actions = {a: (int(np.flatnonzero(obs[a]["action_mask"])[0]) if a in acting else 0) for a in p.agents}
        obs, rew, term, trunc, infos = p.step(actions)
        if any(term.values()):
            break


def _illegal_for(e) -> int:
    legal = set(e.unwrapped.game_state.legal_actions())
    return next(a for a in range(1607) if a not in legal)


@pytest.mark.parametrize(
    "bad", ["illegal", None, 1379.9, "1379", float("nan"), -5, 1607, True, np.float32(3)]
)
def test_illegal_action_ends_the_game_by_default_pettingzoo_classic(bad):
    e = ffo_env.env()
    e.reset(seed=4)
    agent = e.agent_selection
    other = "german" if agent == "french" else "french"
    action = _illegal_for(e) if bad == "illegal" else bad
    before = e.unwrapped.game_state.to_json()
    e.step(action)
    assert e.unwrapped.game_state.to_json() == before  # the core state is never changed
    assert all(e.terminations.values())
    assert e.rewards == {agent: -1.0, other: 1.0}
    info = e.infos[agent]
    assert info["offender"] == agent and info["winner"] == other and info["reason"]
    assert not e.observe(agent)["action_mask"].any() and not e.action_mask(other).any()
    seen = []
    for ag in e.agent_iter():
        _obs, rew, term, _trunc, _info = e.last()
        assert term
        seen.append((ag, rew))
        e.step(None)
    assert dict(seen) == {agent: -1.0, other: 1.0} and not e.agents


def test_illegal_action_raise_mode_names_a_bad_type():
    e = ffo_env.env(illegal_action="raise")
    e.reset(seed=4)
    before = e.unwrapped.game_state.to_json()
    for bad in (1379.9, "1379", None, True):
        with pytest.raises(IllegalActionError, match="integer"):
            e.step(bad)
    assert e.unwrapped.game_state.to_json() == before


def test_numpy_integer_actions_are_accepted():
    e = raw_env()
    e.reset(seed=5)
    a = e.game_state.legal_actions()[0]
    e.step(np.int64(a))
    e.step(np.array(e.game_state.legal_actions()[0]))
    assert e.num_steps == 2


def test_flat_observation_matches_the_structured_one():
    from ffo_env.ffo.encoding.flat import describe, flat_layout

    d, f = raw_env(), raw_env(observation_format="flat")
    d.reset(seed=6)
    f.reset(seed=6)
    rng = random.Random(1)
    layout = flat_layout(d.game)
    space = f.observation_space("french")["observation"]
    assert space.shape == (layout.size,) and space.dtype == np.float32
    for _ in range(60):
        agent = d.agent_selection
        od, of = d.observe(agent), f.observe(agent)
        assert of["observation"].shape == (layout.size,) and space.contains(of["observation"])
        back = layout.unflatten(of["observation"])
        for k in ("planes", "globals", "units"):
            assert np.array_equal(back[k], od["observation"][k].astype(np.float32))
        assert np.array_equal(od["action_mask"], of["action_mask"])
        a = rng.choice(np.flatnonzero(od["action_mask"]).tolist())
        d.step(a)
        f.step(a)
    assert describe(layout, 0) == "planes: " + describe(layout, 0).split(": ", 1)[1]
    assert describe(layout, layout.offsets["globals"]).startswith("globals: ")
    assert describe(layout, layout.size - 1).startswith("units: row 61,")
    with pytest.raises(ValueError):
        describe(layout, layout.size)


def test_state_is_the_omniscient_global_observation():
    e = raw_env()
    assert e.state_space.shape == (e._flat.size,)
    e.reset(seed=7)
    g = e.state()
    assert e.state_space.contains(g)
    omni = raw_env(view="omniscient")
    omni.reset(seed=7)
    assert np.array_equal(g, e._flat.flatten(omni._encoder.encode(omni.game_state, 0, True)))
    # the German stacks of the setup hide units under their tops from the French (rule 3.6): the state shows them
    fog = e._flat.flatten(e._encoder.encode(e.game_state, 0, False))
    assert not np.array_equal(g, fog)


def test_parallel_api_and_seed_tests():
    from pettingzoo.test import parallel_api_test, parallel_seed_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(parallel_env(), num_cycles=300)
        parallel_seed_test(parallel_env, num_cycles=200)
        parallel_api_test(parallel_env(observation_format="flat"), num_cycles=50)


def test_api_test_flat():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(ffo_env.env(observation_format="flat"), num_cycles=100)


def test_bad_env_options_name_the_option():
    for kw in ({"illegal_action": "explode"}, {"observation_format": "image"}, {"reward": "vp"}):
        with pytest.raises(ValueError, match=next(iter(kw))):
            raw_env(**kw)
