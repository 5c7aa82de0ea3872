"""examples/ffo/german_slots_campaign.py (issue 60, method C): a run stopped between chunks and resumed reaches the
same weights, snapshots and curve as a run never stopped; bad command lines get one clear error."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "examples" / "ffo" / "german_slots_campaign.py"


def _module():
    spec = importlib.util.spec_from_file_location("german_slots_campaign", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


TINY = [
    "--timesteps", "4096", "--chunk", "2048", "--curve-every", "2", "--curve-games", "1",
    "--opponent", "random", "--curve-opponent", "random",
]  # fmt: skip


def test_a_stopped_run_resumes_to_the_same_weights_and_curve(tmp_path):
    mod = _module()
    assert mod.main(["--out", str(tmp_path / "whole"), *TINY]) == 0
    assert mod.main(["--out", str(tmp_path / "cut"), *TINY, "--stop-after", "1"]) == 0
    cut = json.loads((tmp_path / "cut" / "progress.json").read_text())
    assert cut["chunks_done"] == 1 and [p["point"] for p in cut["points"]] == ["start"]
    assert mod.main(["--resume", str(tmp_path / "cut")]) == 0
    for name in ("checkpoint.pt", "snapshots/german_c2.pt", "snapshots/german_start.pt", "curve.csv"):
        assert (tmp_path / "whole" / name).read_bytes() == (tmp_path / "cut" / name).read_bytes(), name
    rows = (tmp_path / "whole" / "curve.csv").read_text().splitlines()
    assert [r.split(",")[:2] for r in rows[1:]] == [["start", "0"], ["c2", "4096"]]
    # the snapshot is a slot policy the harness plays
    meta = json.loads((tmp_path / "whole" / "snapshots" / "german_c2.json").read_text())
    assert meta["observation"] == "slots" and meta["extra"]["timesteps"] == 4096


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--timesteps", "10"], "give --out DIR"),
        (["--out", "X", "--chunk", "1000"], "multiple of 2048"),
        (["--out", "X", "--curve-games", "0"], "--curve-games must be >= 1"),
        (["--resume", "NOPE"], "not a run folder"),
    ],
)
def test_bad_command_lines_get_one_error_and_write_nothing(tmp_path, capsys, monkeypatch, args, words):
    monkeypatch.chdir(tmp_path)
    assert _module().main(args) == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "X").exists()


def test_help_names_the_resume(capsys):
    with pytest.raises(SystemExit) as e:
        _module().main(["--help"])
    assert e.value.code == 0 and "--resume" in capsys.readouterr().out
