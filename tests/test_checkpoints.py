"""Training checkpoints: weights-only (no pickle on resume), atomic, checked, and a run survives SIGKILL.

The kill test starts real ``ffo train`` processes, kills them with SIGKILL at seeded random moments and
resumes each time, until the run completes; the run must then hold every stage and load its policies.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from conftest import tiny_train_args  # noqa: E402

from agents.ffo.policy import load_policy  # noqa: E402
from ffo_env.cli import main as ffo  # noqa: E402
from training.checkpoint import CheckpointError, load_checkpoint, save_checkpoint  # noqa: E402
from training.config import TrainConfig  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
QUICK = ROOT / "configs" / "ffo" / "train_quick.yaml"
CHECKPOINT_SETTINGS = {"rounds": "2", "steps_per_round": "96"}
TINY = [*tiny_train_args(CHECKPOINT_SETTINGS), "--no-eval"]
STAGES = ["pretrain:french", "pretrain:german", "r0:french", "r0:german", "r1:french", "r1:german"]


def _model(tmp_path: Path, seed: int = 0):  # noqa: ANN202 - an SB3 model
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.envs import make_env_fn
    from training.model import build_model
    from training.opponents import OpponentPool

    cfg = TrainConfig(n_envs=1, vec_env="dummy")
    cfg.policy.cnn_dim, cfg.policy.channels, cfg.policy.net_arch = 32, 8, [32]
    env = DummyVecEnv([make_env_fn(cfg, "french", OpponentPool("german", {"random": 1.0}), 0)])
    return build_model(cfg, env, tmp_path / "tb", seed)


def _weights(model) -> dict:  # noqa: ANN001
    return {k: v.clone() for k, v in model.policy.state_dict().items()}


def _same(a: dict, b: dict) -> bool:
    import torch

    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_checkpoint_round_trip_restores_weights_optimizer_and_counters(tmp_path: Path) -> None:
    import torch

    src = _model(tmp_path, seed=1)
    src.num_timesteps, src._n_updates = 1234, 7
    for p in src.policy.parameters():  # give the optimizer some state to restore
        p.grad = torch.ones_like(p)
    src.policy.optimizer.step()
    save_checkpoint(src, tmp_path / "ck", "french")
    dst = _model(tmp_path, seed=2)
    assert not _same(_weights(src), _weights(dst))
    load_checkpoint(dst, tmp_path / "ck", "french")
    assert _same(_weights(src), _weights(dst))
    assert dst.num_timesteps == 1234 and dst._n_updates == 7
    s_opt, d_opt = src.policy.optimizer.state_dict(), dst.policy.optimizer.state_dict()
    assert s_opt["param_groups"] == d_opt["param_groups"]
    assert all(
        torch.equal(s_opt["state"][k]["exp_avg"], d_opt["state"][k]["exp_avg"]) for k in s_opt["state"]
    )


def test_a_new_checkpoint_replaces_the_old_weights_only_after_its_manifest(tmp_path: Path) -> None:
    m = _model(tmp_path)
    m.num_timesteps = 10
    save_checkpoint(m, tmp_path / "ck", "french")
    m.num_timesteps = 20
    save_checkpoint(m, tmp_path / "ck", "french")
    files = sorted(p.name for p in (tmp_path / "ck").iterdir())
    assert files == ["french-000000000020.pt", "french.json"]
    assert json.loads((tmp_path / "ck" / "french.json").read_text())["weights"] == "french-000000000020.pt"


@pytest.mark.parametrize(
    "damage, match",
    [
        ("truncate", "bytes"),
        ("flip", "SHA-256"),
        ("manifest_json", "not valid JSON"),
        ("traversal", "weights"),
        ("missing", "missing"),
        ("pickle_payload", "not a weights-only checkpoint"),
        ("other_network", "network"),
    ],
)
def test_a_damaged_or_crafted_checkpoint_is_refused_and_changes_nothing(
    tmp_path: Path, damage: str, match: str
) -> None:
    import hashlib

    m = _model(tmp_path)
    m.num_timesteps = 64
    ck = tmp_path / "ck"
    man_path = save_checkpoint(m, ck, "french")
    manifest = json.loads(man_path.read_text())
    weights = ck / manifest["weights"]
    marker = tmp_path / "code_ran"
    if damage == "truncate":
        weights.write_bytes(weights.read_bytes()[:100])
    elif damage == "flip":
        data = bytearray(weights.read_bytes())
        data[len(data) // 2] ^= 0xFF
        weights.write_bytes(bytes(data))
    elif damage == "manifest_json":
        man_path.write_text("{not json")
    elif damage == "traversal":
        manifest["weights"] = "../../french-1.pt"
        man_path.write_text(json.dumps(manifest))
    elif damage == "missing":
        weights.unlink()
    elif damage == "pickle_payload":
        import pickle

        class Evil:
            def __reduce__(self):  # noqa: ANN204 - what a crafted file would do on unpickling
                return (open, (str(marker), "w"))

        import io
        import zipfile

        # a torch zip whose data.pkl unpickles Evil: torch.load(weights_only=True) must refuse it
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("archive/data.pkl", pickle.dumps({"policy": Evil(), "optimizer": {}}, protocol=2))
            z.writestr("archive/version", "3\n")
        data = buf.getvalue()
        weights.write_bytes(data)
        manifest["bytes"], manifest["sha256"] = len(data), hashlib.sha256(data).hexdigest()
        man_path.write_text(json.dumps(manifest))
    elif damage == "other_network":
        manifest["network"]["features_extractor_kwargs"]["cnn_dim"] = 64
        man_path.write_text(json.dumps(manifest))
    fresh = _model(tmp_path, seed=5)
    before = _weights(fresh)
    with pytest.raises(CheckpointError, match=match):
        load_checkpoint(fresh, ck, "french")
    assert _same(before, _weights(fresh)) and fresh.num_timesteps == 0
    assert not marker.exists()


def test_resume_of_a_legacy_pickle_checkpoint_is_refused_without_trust_pickle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs"
    assert (
        ffo(
            [
                "train",
                "--config",
                str(QUICK),
                "--out",
                str(out),
                *TINY,
                "--set",
                "rounds=1",
                "--set",
                "pretrain.teacher=''",
            ]
        )
        == 0
    )
    (run,) = out.iterdir()
    ck = run / "checkpoints"
    model = _model(tmp_path)
    for side in ("french", "german"):  # what an older ffo_env left: SB3 zips only
        (ck / f"{side}.json").unlink()
        for p in ck.glob(f"{side}-*.pt"):
            p.unlink()
    model.save(ck / "french.zip")
    progress = json.loads((run / "progress.json").read_text())
    progress["done"] = []
    (run / "progress.json").write_text(json.dumps(progress))
    capsys.readouterr()
    code = ffo(["train", "--resume", str(run), "--no-progress", "--no-eval"])
    err = capsys.readouterr().err
    assert code == 2 and "pickle" in err and "--trust-pickle" in err and "Traceback" not in err


def test_a_moved_run_folder_resumes_from_anywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "runs"
    monkeypatch.chdir(tmp_path)
    assert ffo(["train", "--config", str(QUICK), "--out", "runs", *TINY, "--set", "rounds=1"]) == 0
    (run,) = out.iterdir()
    moved = tmp_path / "elsewhere" / "copied-run"
    shutil.copytree(run, moved)
    shutil.rmtree(out)
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert (
        ffo(
            [
                "train",
                "--resume",
                "copied-run",
                "--set",
                "rounds=2",
                *tiny_train_args(CHECKPOINT_SETTINGS, without=("rounds",)),
                "--no-eval",
            ]
        )
        == 0
    )
    progress = json.loads((moved / "progress.json").read_text())
    assert progress["done"] == STAGES
    assert all(p.startswith("snapshots/") for snaps in progress["snapshots"].values() for p in snaps)


def test_two_runs_started_in_the_same_second_get_their_own_folders(tmp_path: Path) -> None:
    from training.train import new_run_dir

    dirs = [new_run_dir(tmp_path, "quick") for _ in range(3)]
    assert len(set(dirs)) == 3 and all(d.is_dir() for d in dirs)


def _checkpointed_steps(run: Path | None) -> dict[str, int]:
    if run is None:
        return {}
    out = {}
    for side in ("french", "german"):
        path = run / "checkpoints" / f"{side}.json"
        if path.exists():  # always a complete manifest: written atomically
            out[side] = json.loads(path.read_text())["num_timesteps"]
    return out


def _kill_and_resume(
    tmp_path: Path,
    kills: int,
    seed: int,
    budget: list[str],
    window: tuple[float, float],
) -> tuple[Path, int]:
    """Start a run, SIGKILL it at random moments ``kills`` times (resuming each time), then let it finish.
    Checkpointed progress never goes back (a kill loses at most the steps since the last checkpoint)."""
    rng = random.Random(seed)
    out = tmp_path / "runs"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    cmd = [
        sys.executable,
        "-m",
        "ffo_env.cli",
        "train",
        "--config",
        str(QUICK),
        "--out",
        str(out),
        *TINY,
        *budget,
    ]
    run: Path | None = None
    killed = 0
    seen: dict[str, int] = {}
    for attempt in range(kills + 20):
        args = (
            cmd
            if run is None
            else [
                sys.executable,
                "-m",
                "ffo_env.cli",
                "train",
                "--resume",
                str(run),
                "--no-progress",
                "--no-eval",
            ]
        )
        proc = subprocess.Popen(args, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        was_killed = False
        if killed < kills:
            time.sleep(rng.uniform(*window))
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                killed += 1
                was_killed = True
        out_text, err_text = proc.communicate(timeout=900)
        assert was_killed or proc.returncode == 0, (attempt, proc.returncode, err_text.decode()[-2000:])
        if run is None:
            runs = list(out.iterdir()) if out.exists() else []
            if not runs:
                continue  # killed before the run folder existed: start again
            (run,) = runs
        now = _checkpointed_steps(run)
        assert all(now.get(side, 0) >= steps for side, steps in seen.items()), (seen, now)
        seen = now
        if proc.returncode == 0:
            return run, killed
        assert proc.returncode == -signal.SIGKILL, (attempt, proc.returncode, err_text.decode()[-2000:])
    raise AssertionError("the run never finished")


def _check_finished_run(run: Path, steps_per_round: int) -> None:
    progress = json.loads((run / "progress.json").read_text())
    assert progress["done"] == STAGES
    assert not list((run / "checkpoints").glob("*.zip"))
    for side in ("french", "german"):
        assert progress["timesteps"][side] >= 2 * steps_per_round
        agent = load_policy(run / "policies" / f"{side}.pt")
        assert agent.side == side
        for snap in progress["snapshots"][side]:
            assert (run / snap).is_file()


def test_a_run_killed_with_sigkill_at_random_moments_resumes_to_the_end(tmp_path: Path) -> None:
    run, killed = _kill_and_resume(tmp_path, kills=3, seed=1, budget=[], window=(1.0, 9.0))
    assert killed >= 1
    _check_finished_run(run, 96)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_many_sigkills(tmp_path: Path, seed: int) -> None:
    # a longer run (each attempt restarts python, torch and SB3: ~4 s) so that every kill lands mid-run
    budget = [
        "--set",
        "steps_per_round=12000",
        "--set",
        "pretrain.decisions=400",
        "--set",
        "checkpoint_every=256",
    ]
    run, killed = _kill_and_resume(tmp_path, kills=10, seed=100 + seed, budget=budget, window=(2.0, 10.0))
    assert killed == 10
    _check_finished_run(run, 12000)
