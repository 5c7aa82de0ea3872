"""Training: config validation, a tiny `ffo train` run, save -> load -> play, resume, policy checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from conftest import TINY_TRAIN, play_aec, play_single, tiny_train_args  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.ffo.network import NETWORK_VERSION  # noqa: E402
from agents.ffo.policy import PolicyLoadError, load_policy  # noqa: E402
from ffo_env.cli import main as ffo  # noqa: E402
from training.config import ConfigError, load_config  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
QUICK = ROOT / "configs" / "ffo" / "train_quick.yaml"
TRAINING_SETTINGS = {
    "opponents": "{random: 1.0, heuristic: 0.5, snapshots: 1.0}",
    "eval.games": "1",
    "eval.workers": "1",
    "eval.opponents": "[random]",
    "pretrain.iterations": "2",
    "pretrain.side_epochs": "{german: 2}",
}
TINY = tiny_train_args(TRAINING_SETTINGS)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    assert ffo(["train", "--config", str(QUICK), "--out", str(out), *TINY]) == 0
    (d,) = list(out.iterdir())
    return d


def test_configs_in_repo_load() -> None:
    import yaml

    sb3 = 0
    for p in (ROOT / "configs" / "ffo").glob("train_*.yaml"):
        raw = yaml.safe_load(p.read_text()) or {}
        if raw.get("backend") == "rllib":
            continue  # RLlib run files: tests/test_rllib_backend.py
        if "method" in raw:
            continue  # another training method's run file (method: expert_iteration): its own tests load it
        cfg = load_config(p)
        assert cfg.sides
        sb3 += 1
    assert sb3 >= 2


@pytest.mark.parametrize(
    "text, key",
    [
        ("rounds: 0\n", "rounds"),
        ("sides: [italian]\n", "sides"),
        ("ppo: {n_steps: fast}\n", "ppo.n_steps"),
        ("unknown_key: 1\n", "unknown_key"),
        ("opponents: {random: -1}\n", "opponents"),
        ("pretrain: {teacher: grandmaster}\n", "pretrain.teacher"),
        ("pretrain: {teacher: heuristic, iterations: 0}\n", "pretrain.iterations"),
        ("pretrain: {teacher: heuristic, keep_fraction: 0}\n", "pretrain.keep_fraction"),
        ("pretrain: {teacher: heuristic, side_scale: {german: -1}}\n", "pretrain.side_scale"),
        ("pretrain: {teacher: heuristic, side_epochs: {german: 0}}\n", "pretrain.side_epochs"),
        ("pretrain: {teacher: heuristic, side_epochs: {german: 1.5}}\n", "pretrain.side_epochs"),
        ("pretrain: {teacher: heuristic, side_epochs: {italian: 2}}\n", "pretrain.side_epochs"),
        ("n_envs: 1\nppo: {n_steps: 16, batch_size: 64}\n", "ppo.batch_size"),
    ],
)
def test_bad_config_names_file_and_key(tmp_path: Path, text: str, key: str) -> None:
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError) as e:
        load_config(p)
    assert str(p) in str(e.value) and key in str(e.value)


def test_run_folder_has_everything(run_dir: Path) -> None:
    for name in ("config.yaml", "command.txt", "seed.txt", "progress.json"):
        assert (run_dir / name).is_file(), name
    for side in ("french", "german"):
        assert (run_dir / "policies" / f"{side}.pt").is_file()
        manifest = json.loads((run_dir / "checkpoints" / f"{side}.json").read_text())
        assert (
            manifest["format"] == "ffo-checkpoint"
            and (run_dir / "checkpoints" / manifest["weights"]).is_file()
        )
        assert not list((run_dir / "checkpoints").glob("*.zip"))  # no pickle anywhere in a run folder
    progress = json.loads((run_dir / "progress.json").read_text())
    for snaps in progress["snapshots"].values():
        assert snaps and all(s.startswith("snapshots/") for s in snaps)  # relative to the run folder
        meta = json.loads((run_dir / "policies" / f"{side}.json").read_text())
        assert meta["side"] == side and meta["env"] == "france_fights_on_v0"
    assert any((run_dir / "tb").rglob("events.out.tfevents*"))
    results = json.loads((run_dir / "eval" / "results.json").read_text())
    assert len(results["pairings"]) == 4  # each side's final policy and the policy its RL stage started from


def test_evaluation_says_what_the_rl_stage_added_on_the_same_seeds(run_dir: Path) -> None:
    # issue 39 item 3: the start policy (the imitation result) and the final one play the same seeds
    doc = json.loads((run_dir / "eval" / "rl_stage.json").read_text())
    results = json.loads((run_dir / "eval" / "results.json").read_text())
    assert [(c["side"], c["opponent"]) for c in doc["comparisons"]] == [
        ("french", "random"),
        ("german", "random"),
    ]
    for c in doc["comparisons"]:
        side = c["side"]
        assert c["a"]["name"] == f"start ({side}_pretrain)" and c["b"]["name"] == "after RL"
        assert c["games"] == 1 and c["rl_samples"] >= 64
        final, start = (p for p in results["pairings"] if f"{side}.pt" in p[side] or "pretrain" in p[side])
        assert "policies" in final[side] and f"{side}_pretrain" in start[side]
        assert final["seeds"] == start["seeds"]
    assert (run_dir / "eval" / "rl_stage.md").read_text().startswith("# Paired comparison")


def test_pretraining_leaves_its_report_and_a_snapshot(run_dir: Path) -> None:
    for side in ("french", "german"):
        report = json.loads((run_dir / "pretrain" / f"{side}.json").read_text())
        assert [r["iteration"] for r in report["iterations"]] == [0, 1]
        assert [r["beta"] for r in report["iterations"]] == [1.0, 0.5]  # DAgger: the student plays half
        assert report["iterations"][1]["total_decisions"] == 120
        assert 0.0 <= report["iterations"][1]["heldout_agreement"] <= 1.0
        # pretrain.side_epochs {german: 2} overrides the config's epochs for that side only
        assert report["epochs"] == (2 if side == "german" else int(TINY_TRAIN["pretrain.epochs"]))
        assert (run_dir / "snapshots" / f"{side}_pretrain.pt").is_file()
    assert any((run_dir / "tb" / "pretrain_german").rglob("events.out.tfevents*"))


def test_imitation_only_run_exports_the_imitation_policy(tmp_path: Path) -> None:
    """``rounds: 0``: the run's policy of each side is its imitation snapshot (no PPO stage)."""
    import torch

    args = tiny_train_args({**TRAINING_SETTINGS, "sides": "[french]"}, without=("rounds",))
    assert ffo(["train", "--config", str(QUICK), "--out", str(tmp_path), "--set", "rounds=0", *args]) == 0
    (d,) = list(tmp_path.iterdir())
    assert json.loads((d / "progress.json").read_text())["done"] == ["pretrain:french"]
    final = torch.load(d / "policies" / "french.pt", weights_only=True)
    snapshot = torch.load(d / "snapshots" / "french_pretrain.pt", weights_only=True)
    assert final.keys() == snapshot.keys() and all(torch.equal(final[k], snapshot[k]) for k in final)


def test_imitation_only_needs_a_teacher(tmp_path: Path) -> None:
    p = tmp_path / "c.yaml"
    p.write_text("rounds: 0\npretrain: {teacher: heuristic, sides: [french]}\n")
    with pytest.raises(ConfigError, match="rounds: expected an integer >= 1 unless pretrain.teacher"):
        load_config(p)  # the German side would be exported untrained


def test_saved_policy_loads_and_plays_a_full_game(run_dir: Path) -> None:
    fr = f"policy:{run_dir / 'policies' / 'french.pt'}"
    assert ffo(["play", "--french", fr, "--german", "random", "--seed", "5"]) == 0


def test_policy_agent_in_the_aec_loop(run_dir: Path) -> None:
    agents = {
        "german": load_policy(run_dir / "policies" / "german.pt"),
        "french": make_agent("random", "french", seed=1),
    }
    assert play_aec(agents, seed=3, max_steps=600) > 0


def test_policy_plays_as_single_agent_opponent(run_dir: Path) -> None:
    from ffo_env.ffo.single_agent import FFOSingleAgentEnv

    env = FFOSingleAgentEnv(side="french", opponent=load_policy(run_dir / "policies" / "german.pt"))
    assert play_single(env, seed=0, max_steps=400) > 1


def test_policy_for_the_wrong_side_is_refused(run_dir: Path) -> None:
    with pytest.raises(ValueError, match="plays the french side"):
        make_agent(f"policy:{run_dir / 'policies' / 'french.pt'}", "german")


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("env", "france_fights_on_v9", "trained on environment"),
        ("observation_spec_hash", "0000000000000000", "observation spec"),
    ],
)
def test_mismatched_policy_is_refused_with_a_clear_message(
    run_dir: Path, tmp_path: Path, field: str, value: str, message: str
) -> None:
    src = run_dir / "policies"
    (tmp_path / "p.pt").write_bytes((src / "french.pt").read_bytes())
    meta = json.loads((src / "french.json").read_text())
    meta[field] = value
    (tmp_path / "p.json").write_text(json.dumps(meta))
    with pytest.raises(PolicyLoadError, match=message):
        load_policy(tmp_path / "p.pt")


def test_policy_of_an_older_network_is_refused_with_what_to_do(run_dir: Path, tmp_path: Path) -> None:
    src = run_dir / "policies"
    (tmp_path / "p.pt").write_bytes((src / "french.pt").read_bytes())
    meta = json.loads((src / "french.json").read_text())
    assert meta["network"]["version"] == NETWORK_VERSION
    del meta["network"]["version"]  # files written before the network had a version: the U-Net (version 1)
    (tmp_path / "p.json").write_text(json.dumps(meta))
    with pytest.raises(PolicyLoadError, match=r"network version 1.*retrain the policy"):
        load_policy(tmp_path / "p.pt")


def test_resume_continues_from_the_last_checkpoint(run_dir: Path) -> None:
    before = json.loads((run_dir / "progress.json").read_text())
    assert before["done"] == ["pretrain:french", "pretrain:german", "r0:french", "r0:german"]
    assert (
        ffo(
            [
                "train",
                "--resume",
                str(run_dir),
                "--set",
                "rounds=2",
                *tiny_train_args(TRAINING_SETTINGS, without=("rounds",)),
                "--no-eval",
            ]
        )
        == 0
    )
    after = json.loads((run_dir / "progress.json").read_text())
    assert after["done"] == [
        "pretrain:french",
        "pretrain:german",
        "r0:french",
        "r0:german",
        "r1:french",
        "r1:german",
    ]
    assert after["timesteps"]["french"] >= 2 * 64 > before["timesteps"]["french"] - 1
    assert len(after["snapshots"]["german"]) == 3  # pretrain, r0, r1


@pytest.mark.parametrize(
    "damage, match",
    [
        ("truncate_pt", "not a weights-only policy file"),
        ("garbage_pt", "not a weights-only policy file"),
        ("empty_pt", "bytes"),
        ("meta_list", "not an ffo-policy metadata file"),
        ("huge_cnn_dim", r"network\.cnn_dim"),
        ("huge_but_in_range", "do not belong together"),
        ("net_arch_type", r"network\.net_arch"),
        ("policy_name_list", "is not one of"),
        ("extra_type", "extra"),
        ("tensor_list", "mapping of parameter names to tensors"),
        ("other_widths", "do not fit"),
    ],
)
def test_a_damaged_policy_file_is_one_clear_error(
    run_dir: Path, tmp_path: Path, damage: str, match: str
) -> None:
    import torch

    src = run_dir / "policies"
    pt, meta_path = tmp_path / "p.pt", tmp_path / "p.json"
    data = (src / "french.pt").read_bytes()
    meta = json.loads((src / "french.json").read_text())
    if damage == "truncate_pt":
        data = data[: len(data) // 2]
    elif damage == "garbage_pt":
        data = bytes(range(256)) * 40
    elif damage == "empty_pt":
        data = b""
    elif damage == "meta_list":
        meta = [meta]
    elif damage == "huge_cnn_dim":
        meta["network"]["cnn_dim"] = 3_000_000
    elif damage == "huge_but_in_range":  # within the width bounds, still ~4e9 parameters: refused unallocated
        meta["network"]["cnn_dim"] = meta["network"]["channels"] = 4096
    elif damage == "net_arch_type":
        meta["network"]["net_arch"] = {"pi": "wide", "vf": [64]}
    elif damage == "policy_name_list":
        meta["network"]["policy"] = ["HexPolicy"]
    elif damage == "extra_type":
        meta["extra"] = "x"
    elif damage == "tensor_list":
        import io

        buf = io.BytesIO()
        torch.save([torch.zeros(3)], buf)
        data = buf.getvalue()
    elif damage == "other_widths":
        meta["network"]["net_arch"]["vf"] = [meta["network"]["net_arch"]["vf"][0] + 1]
    pt.write_bytes(data)
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(PolicyLoadError, match=match):
        load_policy(pt)


def test_no_load_path_unpickles() -> None:
    """Every torch.load in the product is weights-only; the one SB3 .zip load sits behind --trust-pickle."""
    import re

    offenders = []
    for path in [
        *ROOT.glob("agents/*.py"),
        *ROOT.glob("training/*.py"),
        *ROOT.glob("ffo_env/**/*.py"),
        *ROOT.glob("webplay/*.py"),
        *ROOT.glob("examples/*.py"),
    ]:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if re.search(r"torch\.load\(", code) and "weights_only=True" not in code:
                offenders.append(f"{path.name}:{n}")
            if re.search(r"\bpickle\.loads?\(|cloudpickle\.loads?\(|\bPPO\.load\(", code):
                if not (path.name == "checkpoint.py" and "MaskablePPO.load(path" in code):
                    offenders.append(f"{path.name}:{n}")
    assert not offenders, offenders


def test_release_installs_a_runs_policies_with_their_evaluation(run_dir: Path, tmp_path: Path) -> None:
    from agents.ffo.pretrained import load_pretrained, pretrained_metadata

    assert ffo(["release", str(run_dir), "--to", str(tmp_path)]) == 0
    for side in ("french", "german"):
        assert (tmp_path / f"{side}.pt").read_bytes() == (run_dir / "policies" / f"{side}.pt").read_bytes()
        release = pretrained_metadata(side, tmp_path)["extra"]["release"]
        assert release["run"] == run_dir.name and release["seed"] == 0
        assert release["command"].startswith("ffo train --config")
        assert release["stage_seconds"] and release["train_seconds"] > 0
        (row,) = release["evaluation"]
        assert row["opponent"] == "random" and row["games"] == 1
        assert load_pretrained(side, directory=tmp_path).side == side
    assert "| random | 1 |" in (tmp_path / "MODEL_CARD.md").read_text()


def test_release_of_one_side_keeps_the_other_sides_policy_and_card(run_dir: Path, tmp_path: Path) -> None:
    import shutil

    import yaml

    target = tmp_path / "installed"
    assert ffo(["release", str(run_dir), "--to", str(target)]) == 0
    french = (target / "french.pt").read_bytes(), (target / "french.json").read_text()
    german_only = tmp_path / "german-only"
    shutil.copytree(run_dir, german_only)
    cfg = yaml.safe_load((german_only / "config.yaml").read_text())
    (german_only / "config.yaml").write_text(yaml.safe_dump({**cfg, "sides": ["german"]}))
    (german_only / "policies" / "french.pt").unlink()
    assert ffo(["release", str(german_only), "--to", str(target)]) == 0
    assert ((target / "french.pt").read_bytes(), (target / "french.json").read_text()) == french
    card = (target / "MODEL_CARD.md").read_text()
    assert "## french" in card and "## german" in card and f"run `{run_dir.name}`" in card
    assert json.loads((target / "german.json").read_text())["extra"]["release"]["run"] == "german-only"


def test_release_side_installs_that_sides_policy_only(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``ffo release RUN --side german``: a two-side run's German policy replaces the installed one; the
    installed French policy (here: another run's) and its part of the card stay."""
    import shutil

    target = tmp_path / "installed"
    other = tmp_path / "other-run"
    shutil.copytree(run_dir, other)
    assert ffo(["release", str(other), "--to", str(target)]) == 0
    french = (target / "french.pt").read_bytes(), (target / "french.json").read_text()
    assert ffo(["release", str(run_dir), "--to", str(target), "--side", "german"]) == 0
    assert ((target / "french.pt").read_bytes(), (target / "french.json").read_text()) == french
    release = json.loads((target / "german.json").read_text())["extra"]["release"]
    assert release["run"] == run_dir.name
    card = (target / "MODEL_CARD.md").read_text()
    assert "run `other-run`" in card and f"run `{run_dir.name}`" in card
    assert "installed german.pt and MODEL_CARD.md" in capsys.readouterr().out


def test_release_side_the_run_did_not_train_changes_nothing(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    import yaml

    german_only = tmp_path / "german-only"
    shutil.copytree(run_dir, german_only)
    cfg = yaml.safe_load((german_only / "config.yaml").read_text())
    (german_only / "config.yaml").write_text(yaml.safe_dump({**cfg, "sides": ["german"]}))
    target = tmp_path / "installed"
    assert ffo(["release", str(german_only), "--to", str(target), "--side", "french"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "not french (--side)" in err and "Traceback" not in err
    assert not target.exists()


def test_release_of_an_unfinished_run_changes_nothing(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    partial = tmp_path / "run"
    shutil.copytree(run_dir, partial)
    (partial / "eval" / "results.json").unlink()
    target = tmp_path / "installed"
    assert ffo(["release", str(partial), "--to", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "results.json" in err and "Traceback" not in err
    assert not target.exists()


def test_usable_cores_without_an_affinity_api(monkeypatch: pytest.MonkeyPatch) -> None:
    """``learner_threads: 0`` (every core) and the bench's every-core figure also work where the OS has no
    CPU affinity (macOS, Windows): every core then counts."""
    import os

    from training.config import TrainConfig, learner_threads, usable_cores

    assert usable_cores() == len(os.sched_getaffinity(0))
    monkeypatch.delattr(os, "sched_getaffinity")
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    assert usable_cores() == 3 and learner_threads(TrainConfig(learner_threads=0)) == 3


INIT_SETTINGS = {**TRAINING_SETTINGS, "sides": "[french]", "pretrain.teacher": '""'}


def test_init_policy_starts_ppo_from_the_shipped_policy(tmp_path: Path) -> None:
    """``init_policy: {french: pretrained}``: PPO fine-tunes the shipped weights, which join the pool as a
    snapshot; the run's policy has moved from them."""
    import torch

    from agents.ffo.pretrained import pretrained_path

    args = tiny_train_args({**INIT_SETTINGS, "init_policy": "{french: pretrained}"})
    assert ffo(["train", "--config", str(QUICK), "--out", str(tmp_path), *args, "--no-eval"]) == 0
    (d,) = list(tmp_path.iterdir())
    progress = json.loads((d / "progress.json").read_text())
    assert progress["done"] == ["init:french", "r0:french"]
    assert progress["snapshots"]["french"] == ["snapshots/french_init.pt", "snapshots/french_r0.pt"]
    shipped = torch.load(pretrained_path("french"), weights_only=True)
    init = torch.load(d / "snapshots" / "french_init.pt", weights_only=True)
    final = torch.load(d / "policies" / "french.pt", weights_only=True)
    assert shipped.keys() == init.keys() == final.keys()
    assert all(torch.equal(shipped[k], init[k]) for k in shipped)
    assert not all(torch.equal(init[k], final[k]) for k in init)
    assert (
        json.loads((d / "snapshots" / "french_init.json").read_text())["extra"]["init_policy"] == "pretrained"
    )


def test_init_policy_from_a_policy_file(run_dir: Path, tmp_path: Path) -> None:
    """A policy file as the start, with ``ppo.anchor_kl``: the PPO stage runs anchored to those weights."""
    import torch

    src = run_dir / "policies" / "french.pt"
    settings = {**INIT_SETTINGS, "init_policy": f"{{french: 'policy:{src}'}}", "ppo.anchor_kl": "1.0"}
    args = tiny_train_args(settings)
    assert ffo(["train", "--config", str(QUICK), "--out", str(tmp_path), *args, "--no-eval"]) == 0
    (d,) = list(tmp_path.iterdir())
    want = torch.load(src, weights_only=True)
    init = torch.load(d / "snapshots" / "french_init.pt", weights_only=True)
    assert all(torch.equal(want[k], init[k]) for k in want)


@pytest.mark.parametrize(
    "text, match",
    [
        ("init_policy: {italian: pretrained}\n", "init_policy.italian"),
        ("init_policy: {french: ''}\n", "init_policy.french"),
        ("init_policy: {french: 3}\n", "init_policy: expected"),
        (
            "ppo: {anchor_kl: 1.0}\n",
            r"ppo.anchor_kl: expected 0 unless every trained side starts from a policy",
        ),
        ("ppo: {anchor_kl: -1}\n", "ppo.anchor_kl"),
        (
            "init_policy: {french: pretrained}\npretrain: {teacher: heuristic}\n",
            r"init_policy.french: expected a side that pretrain does not train",
        ),
    ],
)
def test_bad_init_policy_in_a_config_names_the_key(tmp_path: Path, text: str, match: str) -> None:
    p = tmp_path / "c.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError, match=match):
        load_config(p)


@pytest.mark.parametrize(
    "init, extra, match",
    [
        ("{french: /nonexistent/p.pt}", {}, r"init_policy.french: .*needs both p.pt and p.json"),
        ("{french: 'policy:GERMAN'}", {}, "init_policy.french: .* is a german policy"),
        ("{french: pretrained}", {"policy.cnn_dim": "64"}, "does not fit this config's policy section"),
    ],
)
def test_an_init_policy_that_cannot_start_the_run_is_one_clear_error(
    run_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    init: str,
    extra: dict[str, str],
    match: str,
) -> None:
    import re

    init = init.replace("GERMAN", str(run_dir / "policies" / "german.pt"))
    out = tmp_path / "runs"
    args = tiny_train_args({**INIT_SETTINGS, "init_policy": init, **extra})
    assert ffo(["train", "--config", str(QUICK), "--out", str(out), *args, "--no-eval"]) == 2
    err = capsys.readouterr().err
    assert re.search(match, err) and "Traceback" not in err
    (d,) = list(out.iterdir())
    assert not list((d / "checkpoints").iterdir())  # nothing was trained or checkpointed


def test_anchor_kl_after_a_resume_is_the_policy_the_ppo_stage_started_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ppo.anchor_kl`` on ``--resume``: the resumed model is anchored to the side's first snapshot (the
    ``init_policy`` weights), not to the last round's policy it resumes from."""
    import torch

    import training.train as train_module

    settings = {**INIT_SETTINGS, "init_policy": "{french: pretrained}", "ppo.anchor_kl": "1.0"}
    out = tmp_path / "runs"
    assert (
        ffo(["train", "--config", str(QUICK), "--out", str(out), *tiny_train_args(settings), "--no-eval"])
        == 0
    )
    (d,) = list(out.iterdir())
    anchors: list[dict[str, torch.Tensor]] = []
    start_weights = train_module._start_weights

    def spy(run_dir: Path, progress: dict[str, object], side: str) -> dict[str, torch.Tensor]:
        weights = start_weights(run_dir, progress, side)
        anchors.append(weights)
        return weights

    monkeypatch.setattr(train_module, "_start_weights", spy)
    args = ["train", "--resume", str(d), "--set", "rounds=2", "--no-eval"]
    assert ffo([*args, *tiny_train_args(settings, without=("rounds",))]) == 0
    assert json.loads((d / "progress.json").read_text())["done"] == ["init:french", "r0:french", "r1:french"]
    (anchor,) = anchors  # set once, when the restored model starts round 1
    init = torch.load(d / "snapshots" / "french_init.pt", weights_only=True)
    r0 = torch.load(d / "snapshots" / "french_r0.pt", weights_only=True)
    assert all(torch.equal(anchor[k], init[k]) for k in init)
    assert not all(torch.equal(anchor[k], r0[k]) for k in r0)
