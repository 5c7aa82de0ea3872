"""Game records: ``ffo play --record`` writes a record that ``replay()`` reproduces exactly (R37);
a tampered record raises RecordError; smoke tests of ``ffo play``, ``ffo replay`` and ``ffo map --text``."""

from __future__ import annotations

import json
import os

import pytest

from ffo_env.cli import main
from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.record import Recorder, RecordError, load_record, make_record, replay, save_record


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


def _copy(rec):
    return json.loads(json.dumps(rec))


def test_r37_edited_result_and_vp_are_refused(recorded):
    rec = load_record(recorded)
    bad = _copy(rec)
    bad["result"]["winner"] = "french" if rec["result"]["winner"] == "german" else "german"
    with pytest.raises(RecordError, match=r"result\.winner"):
        replay(bad)
    bad = _copy(rec)
    bad["result"]["vp"] = rec["result"]["vp"] + 5
    with pytest.raises(RecordError, match=r"result\.vp"):
        replay(bad)
    bad = _copy(rec)
    assert bad["vp_log"], "the seeded game should score VP"
    bad["vp_log"].pop()
    with pytest.raises(RecordError, match="vp_log"):
        replay(bad)


def test_r37_divergence_names_the_decision(recorded):
    rec = load_record(recorded)
    bad = _copy(rec)
    i = next(i for i, d in enumerate(bad["decisions"]) if not d["auto"] and i > 10)
    bad["decisions"][i]["action"] = 10**6
    with pytest.raises(RecordError, match=rf"^decision {i}: action 1000000 is illegal"):
        replay(bad)
    bad = _copy(rec)
    bad["decisions"][i]["player"] = "german" if rec["decisions"][i]["player"] == "french" else "french"
    with pytest.raises(RecordError, match=rf"^decision {i}: "):
        replay(bad)
    bad = _copy(rec)
    del bad["decisions"][-1]
    with pytest.raises(RecordError, match="decision"):
        replay(bad)


def test_r37_engine_and_data_versions_are_checked(recorded):
    rec = load_record(recorded)
    bad = _copy(rec)
    bad["engine"] = "ffo-engine-1"
    with pytest.raises(RecordError, match="made by engine 'ffo-engine-1'.*ffo-engine-2"):
        replay(bad)
    bad = _copy(rec)
    bad["data_version"] = "someone-elses-map"
    with pytest.raises(RecordError, match="someone-elses-map"):
        replay(bad)


def test_r17_rail_routes_are_verified(recorded):
    rec = load_record(recorded)
    assert "rail_routes" in rec
    if not rec["rail_routes"]:
        pytest.skip("seed 4 makes no rail move")
    bad = _copy(rec)
    bad["rail_routes"][0]["to"] = "nowhere"
    with pytest.raises(RecordError, match=r"rail_routes\[0\]"):
        replay(bad)


@pytest.mark.parametrize(
    "edit, where",
    [
        (lambda r: r.pop("seed"), 'missing key "seed"'),
        (lambda r: r.__setitem__("seed", "4"), 'key "seed": expected int'),
        (lambda r: r.__setitem__("decisions", {}), 'key "decisions": expected list'),
        (lambda r: r["decisions"].__setitem__(0, 5), r"decisions\[0\]: expected an object"),
        (lambda r: r["decisions"][1].pop("auto"), r'decisions\[1\]: missing key "auto"'),
        (
            lambda r: r["decisions"][2].__setitem__("action", 1.5),
            r"decisions\[2\]\.action: expected an integer",
        ),
        (
            lambda r: r["decisions"][2].__setitem__("action", True),
            r"decisions\[2\]\.action: expected an integer",
        ),
        (lambda r: r["decisions"][3].__setitem__("player", "italian"), r"decisions\[3\]\.player"),
        (lambda r: r.__setitem__("dice", [0] * 300_000), 'key "dice": 300000 entries'),
        (lambda r: r.__setitem__("options", {"no_such_option": 1}), 'key "options"'),
    ],
)
def test_r37_malformed_records_give_one_clear_error(recorded, edit, where):
    bad = _copy(load_record(recorded))
    edit(bad)
    with pytest.raises(RecordError, match=where):
        replay(bad)


def test_r37_malformed_record_file_is_refused_on_load(recorded, tmp_path):
    bad = _copy(load_record(recorded))
    bad["decisions"][0]["action"] = "end"
    p = tmp_path / "bad.json"
    save_record(bad, p)
    with pytest.raises(RecordError, match=r"bad\.json: decisions\[0\]\.action"):
        load_record(p)


def test_save_record_is_atomic(recorded, tmp_path, monkeypatch):
    rec = load_record(recorded)
    p = tmp_path / "game.json"
    save_record(rec, p)
    before = p.read_text(encoding="utf-8")

    def boom(*_a, **_k):
        raise OSError(28, "No space left on device")

    import ffo_env.atomic as atomic_mod

    monkeypatch.setattr(atomic_mod.os, "replace", boom)
    with pytest.raises(OSError, match=r"cannot write .*game\.json: No space left on device") as err:
        save_record({**rec, "seed": 99}, p)
    assert err.value.errno == 28
    assert p.read_text(encoding="utf-8") == before
    assert [x.name for x in tmp_path.iterdir()] == ["game.json"]  # no temp file left behind


def test_save_record_gives_the_usual_file_permissions(recorded, tmp_path):
    # the temporary file is created 0600; the record must not stay private to its writer
    p = tmp_path / "sub" / "game.json"
    save_record(load_record(recorded), p)
    mask = os.umask(0)
    os.umask(mask)
    assert p.stat().st_mode & 0o777 == 0o666 & ~mask


def test_r37_cli_replay_of_edited_record_prints_error(recorded, tmp_path, capsys):
    bad = _copy(load_record(recorded))
    bad["result"]["vp"] += 3
    p = tmp_path / "edited.json"
    save_record(bad, p)
    assert main(["replay", str(p)]) == 2
    err = capsys.readouterr().err
    assert "result.vp" in err and "Traceback" not in err
