"""Browser play of Springtime for Hitler, through the session and the Flask app (no browser): the human's
choices are the legal actions, illegal or out-of-turn requests change nothing, the map is drawn with the
human's eyes (S59), a finished game writes a record that verifies and its viewer."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("flask", reason="flask (web play) is not installed")

from ffo_env.springtime.core.data import default_data  # noqa: E402
from ffo_env.springtime.core.record import read_record, replay  # noqa: E402
from webplay.app import create_app  # noqa: E402
from webplay.game_session import PlayError  # noqa: E402
from webplay.springtime.session import SpringtimeSession, action_target  # noqa: E402


def _to_human(session: SpringtimeSession) -> None:
    for _ in range(500):
        if session.human_to_move() or session.state.is_terminal():
            return
        session.bot_step()
    raise AssertionError("the bot never handed over")


def test_choices_are_the_legal_actions_with_their_texts_and_map_targets() -> None:
    session = SpringtimeSession("human", "random", seed=2)
    _to_human(session)
    st = session.state
    ch = session.choices()
    assert [c["a"] for c in ch] == st.legal_actions()
    assert [c["text"] for c in ch] == [st.action_to_string(a) for a in st.legal_actions()]
    for c in ch:
        assert {k: v for k, v in c.items() if k in ("loc", "unit")} == action_target(st, c["a"])
        if "loc" in c:
            assert c["loc"] in st.game.loc_ids


def test_illegal_or_out_of_turn_actions_change_nothing() -> None:
    session = SpringtimeSession("human", "random", seed=2)
    if not session.human_to_move():
        with pytest.raises(PlayError, match="bot's decision"):
            session.act(session.state.legal_actions()[0])
    _to_human(session)
    before = session.state.to_dict()
    illegal = next(a for a in range(294) if a not in session.state.legal_actions())
    for bad in (illegal, "1", True, 10**9):
        with pytest.raises(PlayError):
            session.act(bad)
    assert session.state.to_dict() == before


def test_api_plays_human_decisions_and_draws_the_map_with_the_humans_eyes() -> None:
    session = SpringtimeSession("human", "random", seed=2)
    client = create_app(session).test_client()
    page = client.get("/").get_data(as_text=True)
    assert "Springtime for Hitler - play" in page and 'id="layer-loc:25"' in page
    for _ in range(300):
        v = client.post("/api/bot").get_json()
        if not v["moved"]:
            break
    v = client.get("/api/state").get_json()
    assert v["human_to_move"] and v["choices"] and v["viewer"] == "french"
    assert set(v["layers"]) >= {"panel", "status", "loc:25"}
    n = v["n_decisions"]
    r = client.post("/api/act", json={"action": v["choices"][0]["a"]})
    assert r.status_code == 200 and r.get_json()["n_decisions"] > n
    assert client.post("/api/act", json={"action": "x"}).status_code == 400
    # S59: the German marker is never named on the French player's map
    held, session.state.held = session.state.held, [0, 7]
    panel = client.get("/api/state").get_json()["layers"]["panel"]
    assert default_data().event(7).name not in panel and "Axis a marker (hidden)" in panel
    session.state.held = held
    # S59 (issue 61): the record holds the hidden markers and the dice generator: not before the end
    assert not v["record_ready"]
    before = session.state.to_dict()
    rec = client.get("/api/record")
    assert rec.status_code == 400 and "when the game is over" in rec.get_json()["error"]
    assert session.state.to_dict() == before
    for _ in range(3000):
        if session.state.is_terminal():
            break
        if session.human_to_move():
            session.act(session.state.legal_actions()[0])
        else:
            session.bot_step()
    assert client.get("/api/state").get_json()["record_ready"]
    rec = client.get("/api/record")
    assert rec.status_code == 200 and rec.headers["Content-Disposition"].endswith("springtime-seed2.json")


def test_a_finished_game_writes_a_record_that_verifies_and_its_viewer(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    session = SpringtimeSession("random", "random", seed=4, record_path=path)
    for _ in range(5000):
        if not session.bot_step():
            break
    assert session.state.is_terminal() and session.saved == {
        "record": str(path),
        "viewer": str(path.with_suffix(".html")),
    }
    assert replay(read_record(path)).to_dict() == session.state.to_dict()
    assert path.with_suffix(".html").read_text().startswith("<!DOCTYPE html>")


def test_cli_play_human_refuses_a_bad_port_an_unknown_agent_and_ffo_setup_modes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ffo_env.cli import main

    rec = str(tmp_path / "g.json")
    base = ["play", "--game", "springtime", "--french", "human", "--record", rec]
    assert main([*base, "--port", "70000"]) == 2
    assert main([*base, "--german", "nobody"]) == 2
    assert main([*base, "--setup", "fixed"]) == 2
    err = capsys.readouterr().err
    assert "not a TCP port" in err and "unknown Springtime agent 'nobody'" in err and "setup modes" in err
    assert not Path(rec).exists()
