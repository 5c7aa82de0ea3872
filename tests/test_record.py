"""Game records: ``ffo play --record`` writes a record that ``replay()`` reproduces exactly (R37);
a tampered record raises RecordError; smoke tests of ``ffo play``, ``ffo replay`` and ``ffo map --text``."""

from __future__ import annotations

import json

import pytest

from ffo_env.cli import main
from ffo_env.core.game import Game, RulesOptions
from ffo_env.core.record import Recorder, RecordError, load_record, make_record, replay, save_record


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    path = tmp_path_factory.mktemp("rec") / "game.json"
    assert main(["play", "--seed", "4", "--record", str(path)]) == 0
    return path


def test_r37_play_record_replays_exactly(recorded, capsys):
    rec = load_record(recorded)
    state = replay(rec)
    assert state.is_terminal()
    assert state.dice_log == rec["dice"] and state.vp_log == rec["vp_log"]
    assert make_record(state)["result"] == rec["result"]
    assert [d["action"] for d in rec["decisions"]] == [a for _s, a, _auto in state.history]
    assert all("text" in d for d in rec["decisions"] if not d["auto"])


def test_r37_tampered_records_raise(recorded):
    rec = load_record(recorded)
    bad = json.loads(json.dumps(rec))
    i = next(i for i, d in enumerate(bad["decisions"]) if not d["auto"] and i > 10)
    bad["decisions"][i]["action"] = 10**6
    with pytest.raises((RecordError, ValueError)):
        replay(bad)
    bad = json.loads(json.dumps(rec))
    bad["dice"][3]["die"] = 7 - bad["dice"][3].get("die", 3)
    with pytest.raises(RecordError):
        replay(bad)
    bad = json.loads(json.dumps(rec))
    bad["engine"] = "other-engine"
    with pytest.raises(RecordError):
        replay(bad)
    bad = json.loads(json.dumps(rec))
    bad["decisions"][-1]["auto"] = not bad["decisions"][-1]["auto"]
    with pytest.raises((RecordError, ValueError)):
        replay(bad)


def test_load_record_rejects_other_documents(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"format": "something"}')
    with pytest.raises(RecordError):
        load_record(p)
    p.write_text("not json")
    with pytest.raises(RecordError):
        load_record(p)


def test_recorder_round_trip_decide_setup(tmp_path):
    import random

    g = Game(options=RulesOptions(setup="decide"))
    s = g.new_initial_state(9)
    rec = Recorder(s)
    rng = random.Random(9)
    while not s.is_terminal():
        la = s.legal_actions()
        rec.apply(la[rng.randrange(len(la))])
    p = tmp_path / "r.json"
    save_record(rec.record(), p)
    t = replay(load_record(p))
    assert t.to_json() == s.to_json()


def test_cli_play_replay_and_map(recorded, tmp_path, capsys):
    assert main(["replay", str(recorded)]) == 0
    out = capsys.readouterr().out
    assert "GAME OVER" in out
    bad = json.loads(recorded.read_text())
    bad["dice"][0]["die" if "die" in bad["dice"][0] else "pick"] = 99
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(bad))
    assert main(["replay", str(p)]) == 2
    assert main(["map", "--text"]) == 0
    assert "Dijon" in capsys.readouterr().out
