"""The web-play session both games share (``webplay/game_session.py``): the same checks of a human decision,
the same bot steps with the seeds every tool uses, and, when the game ends, the game's record and its own
replay viewer, reached through the game interface (``ffo_env.games``)."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("flask", reason="flask (web play) is not installed")

from agents.harness import agent_seed  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from ffo_env.games import GAMES, game_info  # noqa: E402
from webplay.app import create_app  # noqa: E402
from webplay.ffo.session import GameSession  # noqa: E402
from webplay.game_session import PlayError, PlaySession  # noqa: E402
from webplay.games import game_webplay  # noqa: E402
from webplay.springtime.session import SpringtimeSession  # noqa: E402

SESSIONS: dict[str, Any] = {"ffo": GameSession, "springtime": SpringtimeSession}


@pytest.mark.parametrize("game", ["ffo", "springtime"])
def test_out_of_turn_illegal_and_late_decisions_are_refused_alike_and_change_nothing(game: str) -> None:
    session = SESSIONS[game]("random", "human", seed=3)
    assert isinstance(session, PlaySession) and session.game == game
    before = session.state.to_dict()
    if not session.human_to_move():
        with pytest.raises(PlayError, match="it is the french bot's decision, not yours"):
            session.act(session.state.legal_actions()[0])
    assert session.state.to_dict() == before and session.recorder.decisions == []
    while not session.human_to_move():
        assert session.bot_step()
    assert not session.bot_step()  # the human is to move: the bot waits
    before = session.state.to_dict()
    for bad, why in (("1", "must be an integer"), (True, "must be an integer"), (10**9, "is not legal now")):
        with pytest.raises(PlayError, match=why):
            session.act(bad)
    assert session.state.to_dict() == before


@pytest.mark.parametrize("game", ["ffo", "springtime"])
def test_bots_play_with_the_seeds_of_every_tool_and_a_finished_game_writes_the_game_s_record_and_viewer(
    game: str, tmp_path: Path
) -> None:
    path = tmp_path / "game.json"
    session = SESSIONS[game]("random", "random", seed=4, record_path=path)
    info = game_info(game)
    # the same game as two agents built with agent_seed (ffo eval / ffo play) on the same seed
    agents = {s: make_agent("random", s, seed=agent_seed(4, s), game=game) for s in ("french", "german")}
    for a in agents.values():
        a.reset(None)
    expected = info.new_state(4, options={"setup": "random"} if game == "ffo" else None)  # ffo play's setup
    while session.bot_step():
        pass
    while not expected.is_terminal():
        expected.apply_action(agents[("french", "german")[expected.current_player]].act_state(expected))
    assert session.state.is_terminal() and session.state.to_dict() == expected.to_dict()
    assert session.saved == {"record": str(path), "viewer": str(path.with_suffix(".html"))}
    final = info.replay(info.load_record(path))  # the record verifies
    assert final.to_dict() == session.state.to_dict()
    assert path.with_suffix(".html").stat().st_size > 10_000
    with pytest.raises(PlayError, match="the game is over"):
        session.act(0)
    body = create_app(session).test_client().get("/api/record").get_json()
    assert body["decisions"] == session.record()["decisions"]
    assert ("agents" in body) == (game == "ffo")  # a Springtime record's keys are fixed (it verifies)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_s_web_play_package_offers_a_session_a_page_and_a_session_from_ffo_play_s_arguments(
    game: str, tmp_path: Path
) -> None:
    """issue 62 step 5: the server and ``ffo play`` reach a game's web play through ``webplay.<package>`` only
    (webplay.games), so a new game adds ``webplay/<game>/`` and nothing else in webplay."""
    parts = game_webplay(game)
    assert parts.__name__ == f"webplay.{game_info(game).package_name}"
    assert issubclass(parts.Session, PlaySession) and parts.Session.game == game
    args = argparse.Namespace(french="human", german="random", seed=5, setup="random")
    session = parts.new_session(args, tmp_path / "game.json")
    assert type(session) is parts.Session and session.players == {"french": "human", "german": "random"}
    assert session.seed == 5 and session.record_path == tmp_path / "game.json"
    page = parts.page(session)
    assert page.startswith("<!DOCTYPE html>") and "__DATA__" not in page and "/*__JS__*/" not in page
    client = create_app(session).test_client()
    assert client.get("/").get_data(as_text=True) == page
    assert client.get("/api/state").get_json()["players"] == session.players


def _names_in_code(path: Path) -> set[str]:
    """The strings (docstrings apart) and imported module names of a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            out.add(node.value)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return out


def test_the_shared_web_play_modules_name_no_game() -> None:
    """app.py, command.py, game_session.py and games.py dispatch by the game's package name, with no
    ``if game == ...`` and no import of a game's package (the layout audit's measure 2, for this layer)."""
    root = Path(__file__).resolve().parent.parent / "webplay"
    for name in ("app.py", "command.py", "game_session.py", "games.py", "assets.py", "__init__.py"):
        names = _names_in_code(root / name)
        assert "webplay.game_session" in names or name != "app.py"  # the scan sees the imports
        for game in GAMES:
            assert game not in names, (name, game)
            assert not any(
                n.startswith((f"webplay.{game}", f"ffo_env.{game}", f"agents.{game}")) for n in names
            )
