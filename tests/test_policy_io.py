"""The policy files and learner checkpoints both games share (``agents/policy_io.py``,
``training/checkpoint_io.py``): the shipped policies of both games still load, a policy of the other game is one
clear error either way, weights are read without unpickling, and a checkpoint round-trips, refuses a damaged or
other network, and Springtime's first (unversioned) manifests still resume."""

from __future__ import annotations

import io
import json
import pickle
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from agents import policy_io  # noqa: E402
from agents.policy_io import (  # noqa: E402
    PolicyLoadError,
    check_network_version,
    make_policy_agent,
    policy_game,
    read_metadata,
    read_weights,
    write_policy,
)

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = {
    "ffo": ROOT / "agents" / "ffo" / "pretrained_policies",
    "springtime": ROOT / "agents" / "springtime" / "pretrained_policies",
}


def _loader(game: str):  # noqa: ANN202 - the game's load_policy
    if game == "ffo":
        from agents.ffo.policy import load_policy

        return load_policy
    from agents.springtime.policy import load_policy as load_springtime

    return load_springtime


@pytest.mark.parametrize("game", ["ffo", "springtime"])
@pytest.mark.parametrize("side", ["french", "german"])
def test_the_shipped_policies_of_both_games_load_through_the_shared_reader(game: str, side: str) -> None:
    agent = _loader(game)(SHIPPED[game] / f"{side}.pt")
    assert agent.side == side


@pytest.mark.parametrize("game, other", [("ffo", "springtime"), ("springtime", "ffo")])
def test_a_policy_of_the_other_game_is_one_error_naming_the_file_and_the_game(game: str, other: str) -> None:
    path = SHIPPED[other] / "french.pt"
    with pytest.raises(PolicyLoadError) as err:
        _loader(game)(path)
    msg = str(err.value)
    assert msg.startswith(str(path.with_suffix(".json"))) and f"use it with --game {other}" in msg
    assert len(msg.splitlines()) == 1


def test_the_game_of_a_policy_is_read_from_its_metadata() -> None:
    assert policy_game({"format": "ffo-policy", "env": "france_fights_on_v0"}) == "ffo"
    assert policy_game({"format": "ffo-policy", "network": "flat-mlp"}) == "ffo"  # ffo train --backend rllib
    assert policy_game({"format": "springtime-policy", "game": "springtime"}) == "springtime"
    assert policy_game({"game": "springtime"}) == "springtime"
    assert policy_game({"format": "other"}) is None


def test_metadata_errors_name_the_file_and_what_is_wrong(tmp_path: Path) -> None:
    pt, meta = tmp_path / "p.pt", tmp_path / "p.json"
    with pytest.raises(PolicyLoadError, match=r"p\.pt: a policy needs both p\.pt and p\.json"):
        read_metadata(pt, "ffo")
    pt.write_bytes(b"x")
    meta.write_text("{not json")
    with pytest.raises(PolicyLoadError, match=r"p\.json: not valid JSON"):
        read_metadata(pt, "springtime")
    meta.write_text("[1]")
    with pytest.raises(PolicyLoadError, match=r"p\.json: not a springtime-policy metadata file"):
        read_metadata(pt, "springtime")
    meta.write_text(json.dumps({"format": "springtime-policy", "game": "springtime", "version": 9}))
    with pytest.raises(PolicyLoadError, match=r"p\.json: format version 9, this installation reads 1"):
        read_metadata(pt, "springtime", version=1)


def test_a_network_without_a_version_is_version_one() -> None:
    check_network_version({"net_arch": [8]}, Path("p.json"), 1, "net.py", "retrain")
    with pytest.raises(
        PolicyLoadError, match=r"network version 1, .* version 2 \(net\.py changed\); retrain"
    ):
        check_network_version({}, Path("p.json"), 2, "net.py", "retrain")


def test_weights_round_trip_and_a_pickle_payload_is_refused_unrun(tmp_path: Path) -> None:
    import torch

    pt = write_policy(tmp_path / "w", {"a": torch.arange(3.0)}, {"format": "x"})
    assert json.loads(pt.with_suffix(".json").read_text()) == {"format": "x"}
    assert torch.equal(read_weights(pt, 10_000)["a"], torch.arange(3.0))
    marker = tmp_path / "code_ran"

    class Evil:
        def __reduce__(self):  # noqa: ANN204 - what a crafted file would do on unpickling
            return (open, (str(marker), "w"))

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", pickle.dumps({"a": Evil()}, protocol=2))
        z.writestr("archive/version", "3\n")
    pt.write_bytes(buf.getvalue())
    with pytest.raises(PolicyLoadError, match="not a weights-only policy file"):
        read_weights(pt, 10_000)
    assert not marker.exists()
    with pytest.raises(PolicyLoadError, match=r"bytes; a policy file holds 1\.\.10 bytes"):
        read_weights(pt, 10)


class _Agent:
    def __init__(self, side: str) -> None:
        self.side: str = side
        self.seed: int | None = -1

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed


def test_the_policy_path_agent_checks_its_side_and_seeds_it() -> None:
    seen = []

    def load(path: str) -> _Agent:
        seen.append(path)
        return _Agent("german")

    agent = make_policy_agent("policy:runs/x/german.pt", "german", 7, load)
    assert seen == ["runs/x/german.pt"] and agent.seed == 7
    with pytest.raises(ValueError, match="policy:y.pt: this policy plays the german side, not french"):
        make_policy_agent("policy:y.pt", "french", 0, load)
    assert policy_io.is_policy_name("policy:a") and not policy_io.is_policy_name("policy:")


# ------------------------------------------------------------------ checkpoints (Springtime's, one pipeline)


def _springtime_model(seed: int = 0, width: int = 16):  # noqa: ANN202 - an SB3 model
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.config import TrainConfig, validate
    from training.envs import make_env_fn
    from training.model import build_model
    from training.opponents import OpponentPool

    cfg = validate(TrainConfig(game="springtime", n_envs=1))
    cfg.policy.net_arch = [width]
    pool = OpponentPool("german", {"random": 1.0}, game="springtime")
    env = DummyVecEnv([make_env_fn(cfg, "french", pool, 0)])
    import tempfile

    return build_model(cfg, env, Path(tempfile.mkdtemp()), seed)


def _save(model, run, side: str) -> Path:  # noqa: ANN001
    from training.checkpoint import save_checkpoint

    return save_checkpoint(model, run.checkpoints, side)


def _load(model, run, side: str) -> int:  # noqa: ANN001
    from training.checkpoint import load_checkpoint

    return int(load_checkpoint(model, run.checkpoints, side)["num_timesteps"])


def _run(tmp_path: Path):  # noqa: ANN202 - a RunFolder
    from training.run_folder import RunFolder

    return RunFolder(tmp_path / "run")


def _weights(model) -> dict:  # noqa: ANN001
    return {k: v.clone() for k, v in model.policy.state_dict().items()}


def test_a_springtime_checkpoint_round_trips_through_the_shared_writer(tmp_path: Path) -> None:
    import torch

    run = _run(tmp_path)
    src = _springtime_model(seed=1)
    src.num_timesteps, src._n_updates = 96, 3
    path = _save(src, run, "french")
    manifest = json.loads(path.read_text())
    assert manifest["format"] == "springtime-checkpoint" and manifest["version"] == 1
    assert manifest["network"]["net_arch"] == [16] and manifest["network"]["activation"] == "tanh"
    dst = _springtime_model(seed=2)
    assert _load(dst, run, "french") == 96 and dst._n_updates == 3
    assert all(torch.equal(a, b) for a, b in zip(_weights(src).values(), _weights(dst).values(), strict=True))


def test_a_springtime_manifest_of_before_the_version_field_still_resumes(tmp_path: Path) -> None:
    run = _run(tmp_path)
    src = _springtime_model()
    src.num_timesteps = 32
    path = _save(src, run, "french")
    manifest = json.loads(path.read_text())
    del manifest["version"], manifest["network"]  # as training/springtime/ppo.py wrote them before issue 62
    path.write_text(json.dumps(manifest))
    assert _load(_springtime_model(seed=3), run, "french") == 32


@pytest.mark.parametrize(
    "damage, match",
    [
        ("other_network", r"network .* differs from this run's"),
        ("ffo_manifest", "not a springtime-checkpoint manifest"),
        ("flip", "SHA-256"),
        ("version", "checkpoint format version 2"),
    ],
)
def test_a_springtime_checkpoint_that_does_not_fit_is_refused_and_changes_nothing(
    tmp_path: Path, damage: str, match: str
) -> None:
    import torch

    from training.checkpoint_io import CheckpointError

    run = _run(tmp_path)
    src = _springtime_model()
    src.num_timesteps = 32
    path = _save(src, run, "french")
    manifest = json.loads(path.read_text())
    weights = run.checkpoints / manifest["weights"]
    if damage == "ffo_manifest":
        manifest["format"] = "ffo-checkpoint"
    elif damage == "version":
        manifest["version"] = 2
    elif damage == "flip":
        data = bytearray(weights.read_bytes())
        data[len(data) // 2] ^= 0xFF
        weights.write_bytes(bytes(data))
    path.write_text(json.dumps(manifest))
    fresh = _springtime_model(seed=5, width=24 if damage == "other_network" else 16)
    before = _weights(fresh)
    with pytest.raises(CheckpointError, match=match) as err:
        _load(fresh, run, "french")
    assert str(run.checkpoints) in str(err.value)
    assert all(torch.equal(before[k], v) for k, v in _weights(fresh).items()) and fresh.num_timesteps == 0


def test_the_ffo_checkpoint_kind_refuses_a_springtime_manifest(tmp_path: Path) -> None:
    from training.checkpoint import read_manifest
    from training.checkpoint_io import CheckpointError

    run = _run(tmp_path)
    model = _springtime_model()
    _save(model, run, "french")
    with pytest.raises(CheckpointError, match="not an ffo-checkpoint manifest"):
        read_manifest(run.checkpoints, "french")
