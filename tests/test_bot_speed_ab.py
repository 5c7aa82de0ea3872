"""``python -m benchmarks.bot_speed_ab``: before and after of the bots in one run (a smoke run on one tree,
and its bad input)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks import bot_speed_ab

ROOT = Path(__file__).resolve().parents[1]


def test_one_tree_against_itself_decides_the_same(capsys: Any) -> None:
    assert bot_speed_ab.main([str(ROOT), str(ROOT), "--pairs", "1"]) == 0
    out = capsys.readouterr().out
    assert "pair 1: before" in out and "median ratio" in out and "the same decisions on both trees" in out


def test_a_folder_that_is_not_a_source_tree_is_refused(tmp_path: Path, capsys: Any) -> None:
    assert bot_speed_ab.main([str(tmp_path), str(ROOT)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and str(tmp_path) in err and err.count("\n") == 1
    assert bot_speed_ab.main([str(ROOT), str(ROOT), "--pairs", "0"]) == 2
