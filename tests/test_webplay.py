"""Web play: the human gets exactly the legal actions, illegal ones change nothing, fog of war, records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("flask")

from ffo_env.cli import main  # noqa: E402
from ffo_env.ffo.core.record import load_record, replay  # noqa: E402
from ffo_env.ffo.render.frames import HIDDEN  # noqa: E402
from webplay.app import create_app  # noqa: E402
from webplay.ffo.session import GameSession, PlayError  # noqa: E402

MAX_REQUESTS = 6000  # bounded request loops: a random game has ~1,000 decisions


def test_choices_are_the_legal_actions_with_their_texts() -> None:
    s = GameSession("human", "random", seed=3)
    assert s.human_to_move()
    st = s.state
    got = s.choices()
    assert [c["a"] for c in got] == st.legal_actions()
    assert [c["text"] for c in got] == [st.action_to_string(a) for a in st.legal_actions()]
    unit = got[0]
    s.act(unit["a"])  # pick a unit: its hex is marked while the human chooses the destination
    assert s.state.decision.name == "MOVE_DEST" and s.selected_hex() == unit["hex"]


def test_illegal_or_out_of_turn_actions_change_nothing() -> None:
    s = GameSession("human", "random", seed=3)
    before = s.state.to_json()
    illegal = next(a for a in range(s.state.game.layout.n_actions) if a not in s.state.legal_actions())
    for bad in (illegal, -1, "12", 1.5, True, None):
        with pytest.raises(PlayError):
            s.act(bad)
    assert s.state.to_json() == before and s.recorder.decisions == []
    assert not s.bot_step()  # the human is to move: the bot may not


def test_api_plays_human_decisions_against_random_and_bot_replies() -> None:
    s = GameSession("human", "random", seed=4)
    client = create_app(s).test_client()
    page = client.get("/")
    assert page.status_code == 200 and b'id="board"' in page.data
    v = client.get("/api/state").get_json()
    assert v["human_to_move"] and v["viewer"] == "french" and v["pos"]["player"] == "french"
    r = client.post("/api/act", json={"action": 10**6})
    assert r.status_code == 400 and "not legal" in r.get_json()["error"]
    assert client.post("/api/act", data="x").status_code == 400
    human_moves = 0
    for _ in range(MAX_REQUESTS):
        if v["pos"]["terminal"] or human_moves >= 12:
            break
        if v["human_to_move"]:
            choice = v["choices"][-1]  # e.g. "end the movement phase" once a few units moved
            v = client.post("/api/act", json={"action": choice["a"]}).get_json()
            assert "error" not in v
            human_moves += 1
        else:
            v = client.post("/api/bot").get_json()
            assert v["moved"]
    assert human_moves == 12
    agent_decisions = [d for d in s.recorder.decisions if not d["auto"]]
    assert sum(d["player"] == "french" for d in agent_decisions) == 12
    assert v["pos"]["vp"] == s.state.vp and v["pos"]["turn"] == s.state.turn
    assert v["n_decisions"] == len(s.state.history)


def test_r3_the_human_sees_only_the_top_unit_of_enemy_stacks() -> None:
    s = GameSession("human", "random", seed=5)
    client = create_app(s).test_client()
    v = client.get("/api/state").get_json()
    for _ in range(MAX_REQUESTS):  # play until the Germans have a stack of two or more units
        german = {
            h: st
            for h, st in s.state.stacks.items()
            if s.state.units[st[-1]].side.agent == "german" and len(st) > 1
        }
        hidden = {h: st for h, st in german.items() if h not in s.state.revealed[0]}
        if hidden or v["pos"]["terminal"]:
            break
        if v["human_to_move"]:
            v = client.post("/api/act", json={"action": v["choices"][-1]["a"]}).get_json()
        else:
            v = client.post("/api/bot").get_json()
    assert hidden, "no German stack met"
    v = client.get("/api/state").get_json()
    for h, st in hidden.items():
        assert v["pos"]["stacks"][str(h)] == [HIDDEN] * (len(st) - 1) + [st[-1]]
        assert all(v["pos"]["cfv"][u] is None for u in st[:-1])
    body = json.dumps(v["pos"])
    own = [st for st in s.state.stacks.values() if s.state.units[st[-1]].side.agent == "french"]
    assert all(v["pos"]["stacks"][str(s.state.loc[st[0]])] == st for st in own), body[:200]


def test_a_finished_game_writes_a_record_that_replays_and_a_viewer(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    s = GameSession("human", "random", seed=6, record_path=path)
    for _ in range(MAX_REQUESTS):
        if s.state.is_terminal():
            break
        if s.human_to_move():
            s.act(s.choices()[-1]["a"])
        else:
            assert s.bot_step()
    assert s.state.is_terminal() and s.saved == {
        "record": str(path),
        "viewer": str(path.with_suffix(".html")),
    }
    rec = load_record(path)
    assert rec["agents"] == {"french": "human", "german": "random"}
    assert replay(rec).vp == s.state.vp == rec["result"]["vp"]
    assert path.with_suffix(".html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    client = create_app(s).test_client()
    v = client.get("/api/state").get_json()
    assert v["pos"]["terminal"] and v["saved"]["record"] == str(path) and v["choices"] == []
    assert client.post("/api/act", json={"action": 0}).status_code == 400


def test_two_humans_hot_seat_sees_with_the_deciding_side() -> None:
    s = GameSession("human", "human", seed=7)
    for _ in range(MAX_REQUESTS):
        if s.state.current_agent == "german":
            break
        s.act(s.choices()[-1]["a"])
    assert s.viewer() == "german" and s.human_to_move() and not s.bot_step()


def test_cli_play_human_refuses_bad_port_and_unknown_agent(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--french", "human", "--port", "70000"]) == 2
    assert "--port 70000" in capsys.readouterr().err
    assert main(["play", "--french", "human", "--german", "nosuchbot"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown agent 'nosuchbot'" in err[0]


def test_battle_strengths_are_shown_before_the_attack_is_committed() -> None:
    s = GameSession("human", "random", seed=8)
    for _ in range(MAX_REQUESTS):  # the human chooses "attack" whenever offered, else the last choice
        if s.state.is_terminal() or (s.human_to_move() and s.state.decision.name == "ATTACK_ADD"):
            break
        if s.human_to_move():
            cs = s.choices()
            target = [c for c in cs if c["text"].startswith("attack ") and c["kind"] == "hex"]
            if target:
                assert " - defender " in target[0]["text"]  # what the attacker sees of the target (R3)
            s.act((target or cs)[-1]["a"] if target else cs[-1]["a"])
        else:
            s.bot_step()
    assert s.state.decision.name == "ATTACK_ADD", "no French attack declared"
    battle = s.view()["battle"]
    assert battle is not None and battle["side"] == "french" and battle["def"] and battle["def_cf"] > 0
    unit = s.choices()[0]
    assert unit["kind"] == "unit"
    s.act(unit["a"])  # the battle is not resolved yet if more attackers may join; the pick is shown
    battle = s.view()["battle"]
    assert unit["unit"] in battle["att"] and battle["att_cf"] == sum(s.state.cf(u) for u in battle["att"])
    # the engine's odds, before any die (R22: the declaration revealed the stack, so the attacker may know them)
    assert battle["odds"] is not None
    if (
        battle["att"]
        and all(s.state.loc[u] >= 0 for u in battle["att"])
        and s.state.stacks.get(battle["hex"])
    ):
        pre = s.state.battle_preview(battle["hex"], battle["att"])
        crt = s.state.game.scenario.tables.crt
        assert (
            battle["odds"]["column"] == crt.column_label(pre.column)
            and battle["odds"]["diff"] == pre.differential
        )
        assert abs(sum(battle["odds"]["outcomes"].values()) - 1) < 1e-3
