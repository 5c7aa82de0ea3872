"""``ffo play --game france1940`` and ``ffo replay --game france1940 [--html]`` (ffo_env/france1940/commands.py)
and the replay viewer (ffo_env/france1940/viewer.py): a game's record verifies, the viewer is written only for
a record that verifies, and a bad record or a France Fights On option is one clear error."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from ffo_env.cli import main
from ffo_env.france1940.core.record import Recorder, RecordError, load_record, save_record
from ffo_env.france1940.interface import new_state
from ffo_env.france1940.viewer import hex_centre, viewer_data, write_viewer


@pytest.fixture(scope="module")
def record_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The record of the first 400 decisions of a random game (a record of an unfinished game verifies too)."""
    rng = random.Random(4)
    rec = Recorder(new_state(4))
    for _ in range(400):
        rec.apply(rng.choice(rec.state.legal_actions()))
    path = tmp_path_factory.mktemp("f40") / "game.json"
    save_record(rec.record(), path)
    return path


@pytest.mark.slow
def test_play_writes_a_record_that_replay_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.json"
    assert main(["play", "--game", "france1940", "--seed", "4", "--record", str(path), "--json"]) == 0
    capsys.readouterr()
    assert main(["replay", "--game", "france1940", str(path)]) == 0
    out = capsys.readouterr().out
    rec = load_record(path)
    assert rec["winner"] in ("french", "german")
    assert f"{rec['winner']} victory ({rec['result']}); the record verifies" in out
    assert "columns Hist / I" in out


def test_replay_prints_the_position_of_a_record(
    record_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "--game", "france1940", str(record_path)]) == 0
    assert "columns Hist / I" in capsys.readouterr().out


def test_the_viewer_shows_every_agent_decision_and_refuses_a_forged_record(
    record_path: Path, tmp_path: Path
) -> None:
    rec = load_record(record_path)
    data = viewer_data(rec)
    assert len(data["frames"]) == sum(1 for d in rec["decisions"] if not d["auto"])
    layers = dict(data["first"])
    for frame in data["frames"]:
        layers.update(frame["layers"])
    drawn = {k for k, i in layers.items() if k.startswith("h") and data["pool"][i]}
    state = rec["final_state"]["state"]
    assert drawn == {f"h{h}" for h, st in zip(state["hex"], state["status"], strict=True) if st == 1}
    html = tmp_path / "game.html"
    assert main(["replay", "--game", "france1940", str(record_path), "--html", str(html)]) == 0
    assert html.stat().st_size > 50_000 and "France, 1940" in html.read_text(encoding="utf-8")
    forged = json.loads(json.dumps(rec))
    forged["vp"] = [forged["vp"][0] + 1, forged["vp"][1]]
    out = tmp_path / "forged.html"
    with pytest.raises(RecordError, match="vp"):
        write_viewer(forged, out)
    assert not out.exists()


def test_hexes_are_drawn_east_to_west_and_odd_columns_half_a_hex_higher() -> None:
    x1, y1 = hex_centre(1)  # column 1 (the east edge), row 1
    x33, y33 = hex_centre(33)  # column 2, row 1
    assert x33 < x1 and y33 > y1
    assert hex_centre(2)[1] > y1 and hex_centre(2)[0] == x1


def test_a_bad_record_and_a_france_fights_on_option_are_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["replay", "--game", "france1940", str(bad)]) == 2
    assert "not JSON" in capsys.readouterr().err
    with pytest.raises(ValueError, match="--setup fixed: setup modes are France Fights On's"):
        from argparse import Namespace

        from ffo_env.france1940.commands import play

        play(Namespace(setup="fixed", data=None, record=None, seed=0, french="random", german="random"))


def test_eval_record_seed_prints_the_games_own_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``ffo eval --record-seed`` of France 1940 names its Allied VP margin (it once read Springtime's Morale
    from the row and failed after the game was played)."""
    argv = ["eval", "--game", "france1940", "--pairings", "random:random", "--record-seed", "1"]
    assert main([*argv, "--out", str(tmp_path / "e"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Allied VP margin (3 x Allied VP - German VP) " in out and "record written to" in out
