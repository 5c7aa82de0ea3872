"""training.run_folder: the one type that knows a run folder's layout (issue 39). Its names must stay those of
run folders written before it existed, so that old runs resume and release, and shipped policies keep loading."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from agents.policy_files import policy_paths
from training.run_folder import (
    RunFolder,
    RunFolderError,
    checkpoint_manifest_name,
    checkpoint_weights_name,
    legacy_checkpoint_name,
)

# Every file (TensorBoard's event files aside) of a run folder written by `ffo train` at commit 6d11205, before
# training.run_folder existed: --config configs/ffo/train_quick.yaml with the tiny settings of tests/conftest.py,
# rounds=1, policy.cnn_dim=8, 1 evaluation game against random.
OLD_LAYOUT = """
checkpoints/french-000000000064.pt checkpoints/french.json checkpoints/german-000000000064.pt
checkpoints/german.json command.txt config.yaml eval/games.csv eval/games.jsonl eval/pairings.csv
eval/ratings.csv eval/results.json eval/tournament.json policies/french.json policies/french.pt
policies/german.json policies/german.pt pretrain/french.json pretrain/french_student.json
pretrain/french_student.pt pretrain/german.json pretrain/german_student.json pretrain/german_student.pt
progress.json seed.txt snapshots/french_pretrain.json snapshots/french_pretrain.pt snapshots/french_r0.json
snapshots/french_r0.pt snapshots/german_pretrain.json snapshots/german_pretrain.pt snapshots/german_r0.json
snapshots/german_r0.pt
""".split()
# the eval/ files other than results.json are the tournament's own (agents.harness), not the run folder's
TOURNAMENT_FILES = {"eval/games.csv", "eval/games.jsonl", "eval/pairings.csv", "eval/ratings.csv"}
TOURNAMENT_FILES |= {"eval/tournament.json"}


def _with_metadata(path: Path) -> list[Path]:
    return list(policy_paths(path))


def test_the_layout_names_are_those_of_run_folders_written_before_it(tmp_path: Path) -> None:
    run = RunFolder(tmp_path)
    paths = [run.config_path, run.command_path, run.seed_path, run.progress_path, run.eval_results]
    for side in ("french", "german"):
        paths += _with_metadata(run.policy(side))
        paths += _with_metadata(run.snapshot(side, "pretrain")) + _with_metadata(run.snapshot(side, 0))
        paths += _with_metadata(run.pretrain_student(side)) + [run.pretrain_report(side)]
        paths += [run.checkpoint_manifest(side), run.checkpoints / checkpoint_weights_name(side, 64)]
    mine = sorted(run.relative(p) for p in paths)
    assert mine == sorted(set(OLD_LAYOUT) - TOURNAMENT_FILES)
    assert run.snapshot("german", "init").name == "german_init.pt"
    assert run.legacy_checkpoint("french") == run.checkpoints / legacy_checkpoint_name("french")
    assert (
        legacy_checkpoint_name("french") == "french.zip"
        and checkpoint_manifest_name("german") == "german.json"
    )
    assert run.tensorboard_log("pretrain_french") == tmp_path / "tb" / "pretrain_french"
    assert run.learner_manifest == tmp_path / "checkpoints" / "learner.json"
    assert run.learner_weights(3) == tmp_path / "checkpoints" / "learner-3.pt"
    assert run.flat_policy("german") == tmp_path / "policies" / "german"


def test_record_start_writes_config_command_seed_and_versions_and_a_resume_appends(tmp_path: Path) -> None:
    run = RunFolder(tmp_path)
    run.record_start({"seed": 5, "sides": ["french"]}, 5, ["ffo", "train", "--config", "a b.yaml"])
    run.record_start({"seed": 5, "sides": ["french"]}, 5, ["ffo", "train", "--resume", str(tmp_path)])
    assert run.read_config() == {"seed": 5, "sides": ["french"]}
    assert run.read_commands() == ["ffo train --config 'a b.yaml'", f"ffo train --resume {tmp_path}"]
    assert run.read_seed() == 5
    versions = run.read_versions()
    assert len(versions) == 2 and versions[0]["python"] and versions[0]["packages"]["numpy"]
    assert set(versions[0]["packages"]) >= {"ffo_env", "torch", "stable_baselines3"}
    assert not list(tmp_path.glob("*.tmp*"))  # written through ffo_env.atomic: no temporary left


def test_locate_finds_a_moved_folder_and_refuses_one_without_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = RunFolder.create(tmp_path / "runs", "quick")
    made.write_config({"seed": 1})
    moved = tmp_path / "elsewhere" / "copy"
    shutil.copytree(made.root, moved)
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert RunFolder.locate("copy").read_config() == {"seed": 1}
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunFolderError, match=r"empty has no config\.yaml; is it a run folder"):
        RunFolder.locate(tmp_path / "empty")


def test_two_folders_created_in_the_same_second_differ(tmp_path: Path) -> None:
    roots = {RunFolder.create(tmp_path, "quick").root for _ in range(3)}
    assert len(roots) == 3 and all(r.is_dir() and r.name.startswith("quick-") for r in roots)


def _old_progress(run: RunFolder, snapshots: list[str]) -> None:
    for p in snapshots:
        (run.root / p).parent.mkdir(parents=True, exist_ok=True)
        (run.root / p).write_bytes(b"x")
    progress = {"done": ["r0:french"], "snapshots": {"french": snapshots}, "timesteps": {"french": 64}}
    run.progress_path.write_text(json.dumps(progress))


def test_progress_snapshot_paths_are_relative_and_old_ones_are_rerooted(tmp_path: Path) -> None:
    run = RunFolder(tmp_path / "run")
    run.root.mkdir()
    # runs of an older ffo_env stored paths relative to where training was launched, or absolute
    _old_progress(run, ["snapshots/french_r0.pt"])
    progress = run.read_progress()
    progress["snapshots"]["french"] = ["runs/quick-1/snapshots/french_r0.pt", "/gone/snapshots/french_r0.pt"]
    run.write_progress(progress)
    again = run.read_progress()
    assert again["snapshots"] == {"french": ["snapshots/french_r0.pt"] * 2, "german": []}
    assert again["timesteps"] == {"french": 64, "german": 0}
    assert run.snapshot_paths(again, "french")[0] == str((run.root / "snapshots" / "french_r0.pt").resolve())
    run.add_snapshot(again, "german", run.snapshot("german", 1))
    assert again["snapshots"]["german"] == ["snapshots/german_r1.pt"]


@pytest.mark.parametrize(
    "doc, message",
    [
        ("{", "cannot read the run's progress"),
        ('{"done": 1, "snapshots": {}, "timesteps": {}}', "expected keys done"),
        (
            '{"done": [], "snapshots": {"french": ["snapshots/x.pt"]}, "timesteps": {}}',
            "snapshot snapshots/x.pt",
        ),
    ],
)
def test_a_bad_progress_file_is_refused_naming_it(tmp_path: Path, doc: str, message: str) -> None:
    run = RunFolder(tmp_path)
    run.progress_path.write_text(doc)
    with pytest.raises(RunFolderError) as e:
        run.read_progress()
    assert str(run.progress_path) in str(e.value) and message in str(e.value)


def test_a_stage_folder_is_one_plain_name_apart_from_the_layouts(tmp_path: Path) -> None:
    run = RunFolder(tmp_path)
    assert run.stage_report("league", "german") == tmp_path / "league" / "german.json"
    for bad in ("policies", "../x", "a/b", ""):
        with pytest.raises(ValueError, match="stage folder"):
            run.stage_dir(bad)


def test_a_config_that_is_not_a_mapping_is_refused_and_backend_reads_as_none(tmp_path: Path) -> None:
    run = RunFolder(tmp_path)
    run.config_path.write_text("- a\n")
    with pytest.raises(RunFolderError, match="expected a mapping"):
        run.read_config()
    assert run.backend() is None
    run.config_path.write_text(yaml.safe_dump({"backend": "rllib"}))
    assert run.backend() == "rllib"
    assert os.path.basename(run.config_path) == "config.yaml"


# every training module but the layout's own, so that a new training method is checked without being listed
RUN_FOLDER_USERS = tuple(
    sorted(
        p.stem
        for p in (Path(__file__).resolve().parents[1] / "training").glob("*.py")
        if p.stem != "run_folder"
    )
)


def test_no_training_module_but_run_folder_spells_a_layout_name() -> None:
    # a path component of the layout as a string of its own ("progress.json", "policies", ...) belongs in
    # training/run_folder.py; "snapshots", "pretrain" and "eval" are also config keys and are not checked
    import ast

    from training import run_folder as rf

    names = {rf.CONFIG, rf.COMMAND, rf.SEED, rf.VERSIONS, rf.PROGRESS, rf.CHECKPOINTS, rf.POLICIES}
    names |= {rf.TENSORBOARD, rf.RESULTS, "metrics.csv", "command.json", "learner.json"}
    root = Path(rf.__file__).parent
    found = []
    for path in (root / f"{name}.py" for name in RUN_FOLDER_USERS):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in names:
                found.append(f"{path.name}:{node.lineno}: {node.value!r}")
    assert not found, "layout names outside training/run_folder.py:\n" + "\n".join(found)
