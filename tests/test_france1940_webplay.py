"""Browser play of France 1940, through the session and the Flask app (no browser): the human's choices are
the legal actions, illegal or out-of-turn requests change nothing, the JSON the server sends holds only what
the human's side may see (F60, P3: never the seed or the dice generator; with hidden armies not the
opponent's army nor its arrival schedule), the record is refused before the end, and a finished game writes
a record that verifies and its viewer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("flask", reason="flask (web play) is not installed")

from ffo_env.france1940.core import actions as A  # noqa: E402
from ffo_env.france1940.core.record import load_record, replay  # noqa: E402
from ffo_env.france1940.core.state import OUT  # noqa: E402
from webplay.app import create_app  # noqa: E402
from webplay.france1940.session import France1940Session, action_target  # noqa: E402
from webplay.game_session import PlayError  # noqa: E402

HIDDEN = {"hidden_obac": True, "german_obac": "random", "allied_obac": "random"}


def _to_human(session: France1940Session) -> None:
    for _ in range(3000):
        if session.human_to_move() or session.state.is_terminal():
            return
        session.bot_step()
    raise AssertionError("the bot never handed over")


def _keys(obj: Any) -> set[str]:
    """Every key of every object in a JSON document."""
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in _keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in _keys(v)}
    return set()


def test_choices_are_the_legal_actions_with_their_texts_and_map_targets() -> None:
    session = France1940Session("human", "random", seed=2)
    _to_human(session)
    st = session.state
    ch = session.choices()
    assert [c["a"] for c in ch] == st.legal_actions()
    for c in ch:
        assert c["text"].startswith(st.action_to_string(c["a"]))
        assert {k: v for k, v in c.items() if k in ("hex", "unit")} == action_target(st, c["a"])
    assert any("hex" in c for c in ch)
    for _ in range(200):  # until a unit stands on the map
        if st.on_map(0) + st.on_map(1):
            break
        if session.human_to_move():
            session.act(st.legal_actions()[0])
        else:
            session.bot_step()
    u = (st.on_map(0) + st.on_map(1))[0]
    assert action_target(st, A.unit_action(u)) == {"unit": st.game.unit_ids[u], "hex": st.hex[u]}
    assert action_target(st, A.DONE) == {} and action_target(st, A.hex_action(992)) == {"hex": 992}


def test_illegal_or_out_of_turn_actions_change_nothing() -> None:
    session = France1940Session("random", "human", seed=2)
    if not session.human_to_move():
        with pytest.raises(PlayError, match="bot's decision"):
            session.act(session.state.legal_actions()[0])
    _to_human(session)
    before = session.state.to_dict()
    illegal = next(a for a in range(A.N_ACTIONS) if a not in session.state.legal_actions())
    for bad in (illegal, "1", True, 10**9, -1, None):
        with pytest.raises(PlayError):
            session.act(bad)
    assert session.state.to_dict() == before


def test_api_plays_human_decisions_and_sends_only_what_the_human_may_see() -> None:
    session = France1940Session("human", "random", seed=3, options=HIDDEN)
    client = create_app(session).test_client()
    page = client.get("/").get_data(as_text=True)
    assert "France, 1940 - play" in page and 'id="hexids"' in page and 'id="units"' in page
    assert session.state.columns[1] not in json.loads(page.split('id="f40-data">')[1].split("</script>")[0])
    for _ in range(3000):
        v = client.post("/api/bot").get_json()
        if not v["moved"]:
            break
    v = client.get("/api/state").get_json()
    assert v["human_to_move"] and v["choices"] and v["viewer"] == "french"
    assert [c["a"] for c in v["choices"]] == session.state.legal_actions()
    assert set(v["layers"]) >= {"panel", "status", "air", "forts"}
    drawn = {k for k in v["layers"] if k.startswith("h")}
    assert drawn == {f"h{session.state.hex[u]}" for s in (0, 1) for u in session.state.on_map(s)}
    # F60, P3: never the generator; the German army and its schedule are hidden from the French player
    assert not _keys(v) & {"seed", "dice_state", "arrive", "final_state"}
    assert v["columns"] == [session.state.columns[0], "?"] and "German ?" in v["layers"]["panel"]
    assert all(d[0] != "german_obac" for d in v["dice"])
    # a state that differs only in what the French player may not see gives the same JSON
    st = session.state
    saved = (st.seed, st.dice_state, list(st.columns), list(st.arrive))
    st.seed, st.columns[1] = st.seed + 99, ("II" if st.columns[1] != "II" else "III")
    st.dice_state = json.loads(json.dumps(st.dice_state))
    for u in st.game.side_units[1]:
        if st.status[u] == OUT and st.arrive[u] >= 1:
            st.arrive[u] = st.arrive[u] % st.game.last_turn + 1
    assert client.get("/api/state").get_json() == v
    st.seed, st.dice_state, st.columns, st.arrive = saved
    # a human decision through the API; a bad one is refused and changes nothing
    n = v["n_decisions"]
    r = client.post("/api/act", json={"action": v["choices"][0]["a"]})
    assert r.status_code == 200 and r.get_json()["n_decisions"] > n
    before = session.state.to_dict()
    illegal = next(a for a in range(A.N_ACTIONS) if a not in session.state.legal_actions())
    for body in ({"action": "x"}, {"action": illegal}, {"nothing": 1}):
        assert client.post("/api/act", json=body).status_code == 400
    assert session.state.to_dict() == before
    # the record holds the seed and the hidden army: not before the end
    assert not v["record_ready"]
    rec = client.get("/api/record")
    assert rec.status_code == 400 and "when the game is over" in rec.get_json()["error"]
    assert session.state.to_dict() == before


def test_two_bots_are_watched_with_the_public_view() -> None:
    session = France1940Session("random", "random", seed=1, options=HIDDEN)
    for _ in range(50):
        session.bot_step()
    v = session.view()
    assert v["viewer"] is None and v["columns"] == session.state.columns and v["record_ready"]
    assert v["choices"] == [] and not _keys(v) & {"seed", "dice_state"}


@pytest.mark.slow
def test_a_finished_game_writes_a_record_that_verifies_and_its_viewer(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    session = France1940Session("random", "random", seed=4, record_path=path)
    for _ in range(20_000):
        if not session.bot_step():
            break
    assert session.state.is_terminal() and session.saved == {
        "record": str(path),
        "viewer": str(path.with_suffix(".html")),
    }
    assert replay(load_record(path)).to_dict() == session.state.to_dict()
    assert path.with_suffix(".html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_cli_play_human_refuses_a_bad_port_an_unknown_agent_and_ffo_setup_modes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ffo_env.cli import main

    rec = str(tmp_path / "g.json")
    base = ["play", "--game", "france1940", "--french", "human", "--record", rec]
    assert main([*base, "--port", "70000"]) == 2
    assert main([*base, "--german", "nobody"]) == 2
    assert main([*base, "--setup", "fixed"]) == 2
    err = capsys.readouterr().err
    assert "not a TCP port" in err and "nobody" in err and "setup modes" in err
    assert not Path(rec).exists()
