"""Flat-MLP policy files (agents.ffo.flat_policy): round trip, and every damaged or mismatched file refused
with one clear error before anything large is allocated."""

from __future__ import annotations

import json

import pytest
import torch

from agents import make_agent
from agents.ffo.flat_policy import FlatPolicyError, load_flat_policy, save_flat_policy
from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.encoding.flat import flat_layout

OBS = flat_layout(Game()).size


def _weights(hidden=(8,), n_actions=1607):
    sizes = [OBS, *hidden, n_actions]
    g = torch.Generator().manual_seed(0)
    w = {}
    for i in range(len(hidden)):
        w[f"hidden.{i}.weight"] = torch.randn(sizes[i + 1], sizes[i], generator=g) * 0.01
        w[f"hidden.{i}.bias"] = torch.zeros(sizes[i + 1])
    w["pi.weight"] = torch.randn(sizes[-1], sizes[-2], generator=g)
    w["pi.bias"] = torch.zeros(sizes[-1])
    return w


@pytest.fixture
def policy(tmp_path):
    return save_flat_policy(_weights(), tmp_path / "pol" / "german", "german", [8], "relu", {"note": "test"})


def test_round_trip_plays_only_legal_actions_through_make_agent(policy):
    agent = make_agent(f"policy:{policy}", "german", seed=1)
    state = Game(options=RulesOptions(setup="random")).new_initial_state(3)
    rnd = make_agent("random", "french", seed=2)
    for _ in range(400):
        if state.is_terminal():
            break
        a = (agent if state.current_agent == "german" else rnd).act_state(state)
        assert a in state.legal_actions()
        state.apply_action(a)
    with pytest.raises(ValueError, match="plays the german side"):
        make_agent(f"policy:{policy}", "french")


def _meta(policy):
    p = policy.with_suffix(".json")
    return p, json.loads(p.read_text())


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("engine", "ffo-engine-0", "engine"),
        ("data_version", "reconstruction-v0", "data_version"),
        ("obs_size", 12, "obs_size"),
        ("hidden", [3_000_000], "hidden"),
        ("hidden", [4096, 4096, 4096, 4096], "parameters"),
        ("side", "italian", "side"),
        ("activation", "gelu", "activation"),
        ("network", "u-net", "network"),
    ],
)
def test_mismatched_or_crafted_metadata_is_refused(policy, key, value, words):
    p, meta = _meta(policy)
    meta[key] = value
    p.write_text(json.dumps(meta))
    with pytest.raises(FlatPolicyError, match=words):
        load_flat_policy(policy)


def test_damaged_files_are_refused(policy):
    p, meta = _meta(policy)
    p.write_text("{not json")
    with pytest.raises(FlatPolicyError, match="not valid JSON"):
        load_flat_policy(policy)
    p.write_text(json.dumps(meta))
    policy.write_bytes(b"\x00" * 100)
    with pytest.raises(FlatPolicyError, match="not a readable weights file"):
        load_flat_policy(policy)
    torch.save({"pi.weight": torch.zeros(2, 2)}, policy)
    with pytest.raises(FlatPolicyError, match="do not match"):
        load_flat_policy(policy)
    w = _weights()
    w["pi.bias"] = torch.zeros(5)
    torch.save(w, policy)
    with pytest.raises(FlatPolicyError, match="pi.bias has shape"):
        load_flat_policy(policy)
    policy.unlink()
    with pytest.raises(FlatPolicyError, match="readable"):
        load_flat_policy(policy)


# the crafted file is a plain pickle (protocol 4): torch's weights-only reader warns about the protocol, then
# refuses the file, which is what this test checks
@pytest.mark.filterwarnings("ignore:Detected pickle protocol 4:UserWarning")
def test_a_pickled_object_is_never_unpickled(policy, tmp_path):
    class Boom:
        def __reduce__(self):
            return (exec, (f"open({str(tmp_path / 'pwned')!r}, 'w').write('ran')",))

    import pickle

    policy.write_bytes(pickle.dumps({"pi.weight": Boom()}))
    with pytest.raises(FlatPolicyError):
        load_flat_policy(policy)
    assert not (tmp_path / "pwned").exists()
