"""Slot-layout policies as files (agents.ffo.flat_policy, ``"observation": "slots"``): a stock MaskablePPO trained
on ``ffo_env/German-compact-v0`` saved with :func:`sb3_mlp_weights` plays, as an agent on core states, exactly
the core actions the model plays through the env (issue 60: the stock learner's policies in the harness)."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from sb3_contrib import MaskablePPO

import ffo_env  # noqa: F401 - registers the gymnasium ids
from agents import make_agent
from agents.ffo.flat_policy import FlatPolicyError, load_flat_policy, save_flat_policy, sb3_mlp_weights
from ffo_env.ffo.core.game import Game, RulesOptions


@pytest.fixture(scope="module")
def model_and_file(tmp_path_factory):
    env = gym.make("ffo_env/German-compact-v0")
    model = MaskablePPO("MlpPolicy", env, seed=3, device="cpu")
    weights, hidden = sb3_mlp_weights(model.policy.state_dict())
    path = save_flat_policy(
        weights,
        tmp_path_factory.mktemp("slot") / "german",
        "german",
        hidden,
        "tanh",
        {"note": "test"},
        slot_count=env.unwrapped.slot_count,
    )
    return model, path


def test_sb3_actor_becomes_hidden_layers_and_head(model_and_file):
    model, path = model_and_file
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["observation"] == "slots" and meta["slot_count"] == 8 and meta["slot_order"] == "core"
    assert meta["hidden"] == [64, 64] and meta["n_actions"] == 23 and meta["obs_size"] == 330


def test_the_agent_plays_the_core_actions_the_model_plays_through_the_env(model_and_file):
    model, path = model_and_file
    agent = load_flat_policy(path)
    env = gym.make("ffo_env/German-compact-v0")
    u = env.unwrapped
    obs, _ = env.reset(seed=11)
    decisions = narrowed = 0
    expected: int | None = None
    while decisions < 120:
        if expected is None:  # a new core decision: what the agent plays on the state as it stands
            expected = agent.act_state(u.game_state)
            logits = model.policy.get_distribution(model.policy.obs_to_tensor(obs)[0]).distribution.logits
            z = agent.logits(obs).astype(np.float64)  # SB3's logits are normalised: log-probabilities
            z -= z.max() + np.log(np.exp(z - z.max()).sum())
            np.testing.assert_allclose(z, logits.detach().numpy()[0], rtol=1e-5, atol=1e-5)
        action, _ = model.predict(obs, action_masks=u.action_masks(), deterministic=True)
        core = u.core_action(int(action))
        if core is not None:
            assert core == expected
            expected = None
            decisions += 1
        else:
            narrowed += 1
        obs, _r, terminated, truncated, _info = env.step(int(action))
        if terminated or truncated:
            break
    assert decisions >= 100 and narrowed > 0  # the game's decisions include narrowing ones


def test_a_slot_policy_plays_legal_actions_through_make_agent(model_and_file):
    _model, path = model_and_file
    agent = make_agent(f"policy:{path}", "german", seed=1)
    rnd = make_agent("random", "french", seed=2)
    state = Game(options=RulesOptions(setup="random")).new_initial_state(4)
    for _ in range(300):
        if state.is_terminal():
            break
        a = (agent if state.current_agent == "german" else rnd).act_state(state)
        assert a in state.legal_actions()
        state.apply_action(a)


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("observation", "pixels", "observation must be one of"),
        ("slot_count", 1, "slot_count must be an integer"),
        ("slot_count", True, "slot_count must be an integer"),
        ("slot_count", 16, "obs_size"),
        ("slot_order", "shuffled", "slot_order must be one of"),
    ],
)
def test_mismatched_slot_metadata_is_refused(model_and_file, tmp_path, key, value, words):
    _model, path = model_and_file
    meta = json.loads(path.with_suffix(".json").read_text())
    meta[key] = value
    copy = tmp_path / "german.pt"
    copy.write_bytes(path.read_bytes())
    copy.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(FlatPolicyError, match=words):
        load_flat_policy(copy)
