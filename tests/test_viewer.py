"""The HTML replay viewer: frames from a replay of the record, one self-contained file, clear errors."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ffo_env.cli import main
from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.record import Recorder, RecordError, replay, save_record
from ffo_env.ffo.core.state import STATUS_NAMES
from ffo_env.ffo.render.frames import HIDDEN, replay_frames, snapshot, viewer_data
from ffo_env.ffo.render.html_viewer import build_viewer_html


def _record(seed: int = 5, french: str = "random", german: str = "random") -> dict[str, Any]:
    from agents import make_agent

    state = Game(options=RulesOptions(setup="random")).new_initial_state(seed)
    bots = {"french": make_agent(french, "french", seed=1), "german": make_agent(german, "german", seed=2)}
    rec = Recorder(state)
    while not state.is_terminal():
        rec.apply(bots[state.current_agent].act_state(state))
    return rec.record()


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    return _record()


def _apply(pos: dict[str, Any], d: dict[str, Any]) -> None:
    """The delta rule of board.js (FFO.applyDelta), in Python."""
    for k in ("vp", "turn", "phase", "player", "decision", "n_dice", "n_vp", "terminal", "winner"):
        pos[k] = d[k]
    for h, st in d.get("stacks", {}).items():
        if st:
            pos["stacks"][h] = st
        else:
            pos["stacks"].pop(h, None)
    for key in ("status", "cfv", "control"):
        for i, v in d.get(key, {}).items():
            pos[key][int(i)] = v
    for h, v in d.get("refugees", {}).items():
        if v is None:
            pos["refugees"].pop(h, None)
        else:
            pos["refugees"][h] = v


def test_frames_rebuild_every_position_of_the_replay(record: dict[str, Any]) -> None:
    first, frames, final = replay_frames(record)
    assert len(frames) == record["result"]["agent_decisions"]
    # the covered decision ranges tile the record: every decision is shown exactly once
    spans = [first["d"]] + [f["d"] for f in frames]
    assert spans[0][0] == 0 and spans[-1][1] == len(record["decisions"])
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))
    # applying the deltas gives the snapshot of the replayed state, at the end and along the way
    state = Game(options=RulesOptions.from_dict(record["options"])).new_initial_state(record["seed"])
    pos = json.loads(json.dumps(first))
    agent_moves = [d["action"] for d in record["decisions"] if not d["auto"]]
    for k, (f, a) in enumerate(zip(frames, agent_moves, strict=True)):
        state.apply_action(a)
        _apply(pos, f)
        if k % 97 == 0 or k == len(frames) - 1:
            want = snapshot(state)
            for key in ("stacks", "status", "cfv", "control", "refugees", "vp", "turn", "phase", "n_dice"):
                assert pos[key] == want[key], (k, key)
    assert pos["vp"] == record["result"]["vp"] == final.vp
    assert pos["terminal"] and pos["winner"] == record["result"]["winner"]


def test_viewer_data_carries_dice_vp_log_and_decision_texts(record: dict[str, Any]) -> None:
    data = viewer_data(record)
    assert len(data["dice"]) == len(record["dice"]) and len(data["vp_log"]) == len(record["vp_log"])
    assert sum(v[3] for v in data["vp_log"]) == record["result"]["vp"]
    agent_rows = [r for r in data["decisions"] if not r[1]]
    assert all(r[2] and r[3].startswith("GT") for r in agent_rows)
    battles = [f["battle"] for f in data["frames"] if "battle" in f]
    assert battles, "a random game has battles"
    resolved = [b for b in battles if b["att"]]
    assert resolved and any(b["att_cf"] > 0 for b in resolved) and all(b["def"] for b in resolved)
    assert all(data["units"][u]["side"] == b["side"] for b in resolved for u in b["att"])
    odds = [b["odds"] for b in resolved if b.get("odds")]
    assert odds, "the engine's odds (State.battle_preview) are in the battle box"
    for o in odds:
        assert abs(sum(o["outcomes"].values()) - 1) < 1e-3 and set(o["outcomes"]) <= {
            "AE",
            "AS",
            "BB",
            "DR",
            "DE",
        }
        assert o["diff"] == o["att_cf"] - o["def_cf"] and all(
            len(sh) == 3 and "rule" in sh[2] for sh in o["shifts"]
        )
    # the odds are those before the dice: the strengths the battle was fought with (no panzer in mountains here)
    for b in resolved:
        if b.get("odds") and not any(s[0] == "terrain" for s in b["odds"]["shifts"]):
            assert b["odds"]["def_cf"] == b["def_cf"], b


def test_html_is_one_self_contained_file(record: dict[str, Any], tmp_path: Path) -> None:
    html = build_viewer_html(record)
    assert not re.search(r"__(DATA|BOARD|KEY)__|/\*__(CSS|JS)__\*/", html)
    # nothing is fetched when the file is viewed: no external scripts, styles, images or fonts
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=", html)
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", html))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls
    m = re.search(r'<script type="application/json" id="ffo-data">(.*?)</script>', html, re.S)
    assert m is not None
    data = json.loads(m.group(1))
    assert len(data["frames"]) == record["result"]["agent_decisions"]
    assert len(html) < 2_000_000


def test_cli_replay_html_writes_the_viewer(
    record: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, out = tmp_path / "game.json", tmp_path / "view" / "game.html"
    save_record(record, src)
    assert main(["replay", str(src), "--html", str(out)]) == 0
    assert out.exists() and "viewer written to" in capsys.readouterr().out
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in out.parent.iterdir()] == ["game.html"]  # no temporary file left behind


def test_cli_replay_html_refuses_a_tampered_record(
    record: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = json.loads(json.dumps(record))
    k = next(i for i, d in enumerate(bad["decisions"]) if not d["auto"] and i > 50)
    bad["decisions"][k]["action"] = 10**6  # not a legal action there
    src, out = tmp_path / "bad.json", tmp_path / "bad.html"
    save_record(bad, src)
    with pytest.raises(RecordError):
        replay_frames(bad)
    assert main(["replay", str(src), "--html", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "bad.json" in err[0]
    assert not out.exists()


def test_viewer_refuses_dice_that_differ_from_the_record(record: dict[str, Any]) -> None:
    bad = json.loads(json.dumps(record))
    bad["dice"][-1]["die"] = 7
    with pytest.raises(RecordError, match="dice"):
        replay_frames(bad)
    replay(record)  # the untouched record still replays


def test_r3_snapshot_hides_the_units_under_an_enemy_top_unit(record: dict[str, Any]) -> None:
    state = Game(options=RulesOptions.from_dict(record["options"])).new_initial_state(record["seed"])
    for d in record["decisions"]:  # the first position with a stack of two or more units
        if any(len(st) > 1 for st in state.stacks.values()):
            break
        if not d["auto"]:
            state.apply_action(d["action"])
    h, st = next((h, st) for h, st in state.stacks.items() if len(st) > 1)
    side = state.units[st[-1]].side.agent
    snap = snapshot(state, {h}, hidden_side=side)
    assert snap["stacks"][str(h)] == [HIDDEN] * (len(st) - 1) + [st[-1]]
    assert all(snap["cfv"][u] is None for u in st[:-1]) and snap["cfv"][st[-1]] is not None
    assert snap["status"] == [STATUS_NAMES[s] for s in state.status]  # status is public (fog.py)
    other = "german" if side == "french" else "french"
    assert snapshot(state, {h}, hidden_side=other)["stacks"][str(h)] == list(st)


def test_eval_save_records_html_writes_a_viewer_per_saved_game(tmp_path: Path) -> None:
    from agents.harness import run_tournament

    summary = run_tournament(
        [("random", "random")], games=2, workers=1, out=tmp_path, save_records=1, progress=False, html=True
    )
    recs = sorted((tmp_path / "records").iterdir())
    assert [p.suffix for p in recs] == [".html", ".json"]
    assert summary["pairings"]
    assert "ffo-data" in recs[0].read_text(encoding="utf-8")


def test_the_viewer_depends_on_the_core_only() -> None:
    """Rendering layer rule: the viewer modules pull in nothing beyond what the core itself imports."""
    import subprocess
    import sys

    code = (
        "import sys, json; import ffo_env.ffo.core.record, ffo_env.ffo.core.scenario; base = set(sys.modules);"
        "import ffo_env.ffo.render.html_viewer, ffo_env.ffo.render.frames, ffo_env.ffo.render.svgboard;"
        "print(json.dumps(sorted(m for m in set(sys.modules) - base if m.split('.')[0] in"
        " ('agents', 'gymnasium', 'pettingzoo', 'PIL', 'flask', 'webplay', 'torch', 'ffo_env')"
        " and not m.startswith(('ffo_env.ffo.render', 'ffo_env.ffo.core', 'ffo_env.atomic')))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []


def _agent_decision(record: dict[str, Any], after: int = 0) -> int:
    return next(i for i, d in enumerate(record["decisions"]) if not d["auto"] and i >= after)


def _automatic_decision(record: dict[str, Any]) -> int:
    return next(i for i, d in enumerate(record["decisions"]) if d["auto"])


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r["decisions"][_agent_decision(r)].__setitem__("text", "French evacuates Paris"), "text"),
        (lambda r: r["decisions"][_agent_decision(r, 40)].__setitem__("at", "a forged context"), "at"),
        (lambda r: r["vp_log"][0].__setitem__("detail", "a forged detail"), "vp_log"),
        (lambda r: r["decisions"][_automatic_decision(r)].__setitem__("text", "forged"), "automatic"),
        (lambda r: r.__setitem__("agents", {"french": ["<script>"], "german": "x"}), "agents"),
    ],
    ids=["decision-text", "decision-context", "vp-detail", "text-on-an-automatic-decision", "agents"],
)
def test_r37_viewer_draws_only_a_record_that_verifies(
    record: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Any,
    message: str,
) -> None:
    """Every field the viewer shows is verified: `ffo replay` and `ffo replay --html` refuse the same edits."""
    assert record["vp_log"] and "text" not in record["decisions"][_automatic_decision(record)]
    bad = json.loads(json.dumps(record))
    edit(bad)
    src, out = tmp_path / "bad.json", tmp_path / "bad.html"
    save_record(bad, src)
    with pytest.raises(RecordError, match=message):
        replay(bad)
    with pytest.raises(RecordError, match=message):
        viewer_data(bad)
    assert main(["replay", str(src)]) == 2
    assert main(["replay", str(src), "--html", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("error:") for line in err)
    assert not out.exists()
