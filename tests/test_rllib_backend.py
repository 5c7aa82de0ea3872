"""The RLlib backend (training.rllib_train): the smoke config trains both sides with 2 EnvRunners on a
local Ray, writes the run folder, and exports policies that ``policy:PATH`` loads; configs are checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib", reason="the rllib extra is not installed (pip install 'ffo_env[rllib]')")

from agents import make_agent  # noqa: E402
from ffo_env.ffo.core.game import Game, RulesOptions  # noqa: E402
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
                str(ROOT / "configs/ffo/train_rllib_smoke.yaml"),
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
    assert (
        ffo(["train", "--backend", "sb3", "--config", str(ROOT / "configs/ffo/train_rllib_smoke.yaml")]) == 2
    )
    err = capsys.readouterr().err
    assert err.count("error:") == 3 and "Traceback" not in err


def test_shipped_rllib_configs_load():
    for name in ("train_rllib_smoke.yaml", "train_rllib.yaml"):
        cfg = load_config(ROOT / "configs" / "ffo" / name)
        assert cfg.iterations >= 1


def test_a_killed_rllib_run_resumes_from_its_checkpoint(tmp_path, monkeypatch, capsys):
    """Killed after the checkpoint of iteration 1, ``ffo train --resume`` restores the learner's weights and
    Adam states from the weights-only file and trains iteration 2 on, counting steps on from the checkpoint."""
    import numpy as np
    import torch

    import training.rllib_train as rt
    from ffo_env.cli import main as ffo

    cfg_path = tmp_path / "tiny.yaml"
    cfg_path.write_text(
        "backend: rllib\nrun_name: tiny\nseed: 1\niterations: 2\nnum_env_runners: 1\nrollout_fragment_length: 64\n"
        "train_batch_size: 128\nminibatch_size: 64\nnum_epochs: 1\nmax_steps: 100\nhidden: [8]\nexport_every: 1\n"
        "eval_games: 1\n"
    )
    save = rt.save_checkpoint

    def save_then_die(algo, run_dir, counters):
        path = save(algo, run_dir, counters)
        if counters["iteration"] == 1:
            raise KeyboardInterrupt  # as if killed right after the first checkpoint
        return path

    monkeypatch.setattr(rt, "save_checkpoint", save_then_die)
    with pytest.raises(KeyboardInterrupt):
        rt.train_rllib(rt.load_config(cfg_path), tmp_path / "runs", progress_bar=False)
    (run,) = (tmp_path / "runs").iterdir()
    manifest = json.loads((run / "checkpoints" / "learner.json").read_text())
    assert manifest["iteration"] == 1 and manifest["file"] == "learner-1.pt"
    saved = torch.load(run / "checkpoints" / "learner-1.pt", weights_only=True)
    assert set(saved["rl_module"]) == {"french", "german"}
    assert not (run / "results.json").exists()

    # a damaged checkpoint file is one error and changes nothing
    good = (run / "checkpoints" / "learner-1.pt").read_bytes()
    (run / "checkpoints" / "learner-1.pt").write_bytes(good[: len(good) // 2])
    progress = (run / "progress.json").read_text()
    assert ffo(["train", "--resume", str(run), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "learner-1.pt: cannot restore the learner" in err and "Traceback" not in err
    assert (run / "progress.json").read_text() == progress
    (run / "checkpoints" / "learner-1.pt").write_bytes(good)

    restored = {}
    restore = rt.restore_checkpoint

    def spy(algo, run_dir, m):
        restore(algo, run_dir, m)
        restored.update(algo.learner_group.get_state()["learner"])
        # the EnvRunners sample with the restored weights too
        key = "pi.net.mlp.0.bias"
        runners = algo.env_runner_group.foreach_env_runner(
            lambda r: np.asarray(r.module["french"].state_dict()[key]), local_env_runner=False
        )
        assert runners and all(np.array_equal(w, saved["rl_module"]["french"][key].numpy()) for w in runners)

    monkeypatch.setattr(rt, "save_checkpoint", save)
    monkeypatch.setattr(rt, "restore_checkpoint", spy)
    # RLlib's fire-and-forget weight sync drops its call while an EnvRunner has a request in flight (a loaded
    # CI machine): the restore must not depend on it
    from ray.rllib.env.env_runner_group import EnvRunnerGroup

    monkeypatch.setattr(EnvRunnerGroup, "foreach_env_runner_async_fetch_ready", lambda *a, **k: [])
    assert ffo(["train", "--resume", str(run), "--no-progress"]) == 0
    for side in ("french", "german"):
        for key, value in saved["rl_module"][side].items():
            assert np.array_equal(restored["rl_module"][side][key], value.numpy()), (side, key)
    opt = "german_default_optimizer"
    for p, st in saved["optimizer"][opt]["state"]["state"].items():
        assert np.array_equal(
            restored["optimizer"][opt]["state"]["state"][p]["exp_avg"], st["exp_avg"].numpy()
        )
    rows = json.loads((run / "progress.json").read_text())["done"]
    assert [r["iteration"] for r in rows] == [1, 2]
    assert (
        rows[1]["env_steps"] >= rows[0]["env_steps"] + 128 and rows[0]["env_steps"] == manifest["env_steps"]
    )
    assert json.loads((run / "results.json").read_text())["iterations"] == 2
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["learner-2.pt", "learner.json"]
    assert "2 iterations" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--config", "configs/ffo/train_rllib_smoke.yaml"], "drop --config"),
        (["--backend", "sb3"], "drop --backend sb3"),
    ],
)
def test_bad_rllib_resume_command_lines_are_one_error(tmp_path, capsys, argv, words):
    from ffo_env.cli import main as ffo

    (tmp_path / "config.yaml").write_text("backend: rllib\n")
    assert ffo(["train", "--resume", str(tmp_path), *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_an_rllib_run_without_a_checkpoint_is_refused_with_one_error(tmp_path, capsys):
    from ffo_env.cli import main as ffo

    (tmp_path / "config.yaml").write_text((ROOT / "configs/ffo/train_rllib_smoke.yaml").read_text())
    assert ffo(["train", "--resume", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no checkpoint" in err and "Traceback" not in err
    ck = tmp_path / "checkpoints"
    ck.mkdir()
    (ck / "learner.json").write_text(
        '{"format": "ffo-rllib-checkpoint", "iteration": 1, "env_steps": 5, '
        '"episodes": 0, "seconds": 1.0, "file": "../x.pt"}'
    )
    assert ffo(["train", "--resume", str(tmp_path)]) == 2
    assert "not a file beside it" in capsys.readouterr().err


def test_a_resumed_run_with_an_unknown_backend_names_its_config(tmp_path, capsys):
    from ffo_env.cli import main as ffo

    (tmp_path / "config.yaml").write_text("backend: nosuch\n")
    assert ffo(["train", "--resume", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'config.yaml'}: backend must be one of" in err and "Traceback" not in err
