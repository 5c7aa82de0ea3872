"""The RLlib backend (training.rllib_train): the smoke config trains both sides with 2 EnvRunners on a
local Ray, writes the run folder, and exports policies that ``policy:PATH`` loads; configs are checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib", reason="the rllib extra is not installed (pip install 'ffo_env[rllib]')")

from agents import make_agent  # noqa: E402
from ffo_env.core.game import Game, RulesOptions  # noqa: E402
from training.rllib_env import FFOMultiAgentEnv  # noqa: E402
from training.rllib_train import RllibConfigError, load_config, main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def test_multi_agent_env_gives_the_acting_agent_its_observation_and_zero_sum_rewards():
    env = FFOMultiAgentEnv({"setup": "random", "max_steps": 300})
    obs, _ = env.reset(seed=0)
    space = env.observation_spaces["french"]
    steps = 0
    while True:
        (agent,) = obs
        assert space.contains(obs[agent]) and obs[agent]["action_mask"].any()
        legal = [int(i) for i in obs[agent]["action_mask"].nonzero()[0]]
        obs, rew, term, trunc, _ = env.step({agent: legal[steps % len(legal)]})
        steps += 1
        assert agent in rew
        if term["__all__"] or trunc["__all__"]:
            break
    assert set(obs) == {"french", "german"}
    if term["__all__"]:
        assert rew["french"] == -rew["german"] != 0


def test_ffo_train_runs_the_smoke_config_and_exports_loadable_policies(tmp_path):
    from ffo_env.cli import main as ffo

    # the config says "backend: rllib", so `ffo train` picks RLlib without --backend
    assert (
        ffo(
            [
                "train",
                "--config",
                str(ROOT / "configs/train_rllib_smoke.yaml"),
                "--out",
                str(tmp_path),
                "--no-progress",
            ]
        )
        == 0
    )
    (run,) = tmp_path.iterdir()
    for name in (
        "config.yaml",
        "command.txt",
        "seed.txt",
        "command.json",
        "progress.json",
        "metrics.csv",
        "results.json",
        "eval/results.json",
    ):
        assert (run / name).is_file(), name
    res = json.loads((run / "results.json").read_text())
    assert res["iterations"] == 3 and res["env_steps"] >= 3 * 512
    assert set(res["vs_random"]) == {"french", "german"}
    state = Game(options=RulesOptions(setup="random")).new_initial_state(5)
    agents = {
        side: make_agent(f"policy:{run / 'policies' / side}.pt", side, seed=1)
        for side in ("french", "german")
    }
    for _ in range(300):
        if state.is_terminal():
            break
        a = agents[state.current_agent].act_state(state)
        assert a in state.legal_actions()
        state.apply_action(a)
    meta = json.loads((run / "policies" / "french.json").read_text())
    assert meta["network"] == "flat-mlp" and meta["extra"]["backend"] == "rllib"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("iterations: 0", "iterations must be an integer >= 1"),
        ("lr: 5", "lr must be a number"),
        ("gamma: 0", "gamma must be a number"),
        ("itrations: 3", "did you mean 'iterations'"),
        ("run_name: ../../x", "run_name"),
        ("hidden: [0]", "hidden"),
        ("minibatch_size: 4096", "exceeds train_batch_size"),
        ("- a list", "mapping"),
        ("reward: [", "not valid YAML"),
    ],
)
def test_bad_configs_name_the_key(tmp_path, text, words):
    p = tmp_path / "c.yaml"
    p.write_text(text + "\n")
    with pytest.raises(RllibConfigError, match=words):
        load_config(p)


def test_bad_config_is_one_line_on_stderr_and_exit_2(tmp_path, capsys):
    p = tmp_path / "c.yaml"
    p.write_text("num_epochs: -1\n")
    assert main(["--config", str(p), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "num_epochs" in err and "Traceback" not in err


def test_ffo_train_refuses_options_of_the_other_backend(capsys):
    from ffo_env.cli import main as ffo

    assert ffo(["train", "--backend", "rllib", "--set", "seed=1"]) == 2
    assert ffo(["train", "--address", "auto"]) == 2
    assert ffo(["train", "--backend", "sb3", "--config", str(ROOT / "configs/train_rllib_smoke.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 3 and "Traceback" not in err


def test_shipped_rllib_configs_load():
    for name in ("train_rllib_smoke.yaml", "train_rllib.yaml"):
        cfg = load_config(ROOT / "configs" / name)
        assert cfg.iterations >= 1
