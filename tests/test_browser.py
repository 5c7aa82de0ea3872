"""End-to-end in a real browser: Playwright drives the system Chromium through the viewer and web play.

Skipped (with the reason) only when the ``playwright`` package or a Chromium binary is missing; Playwright's
own browser download is not used: the Chromium of the system (Debian package ``chromium``) is launched, or
the one named by ``FFO_CHROMIUM``. Set ``FFO_SCREENSHOT_DIR=docs/img`` to refresh the README screenshots.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from browser_support import TIMEOUT_MS, shot  # first: it skips this module without a browser

from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.record import Recorder
from ffo_env.ffo.render.html_viewer import write_viewer
from webplay.app import LocalServer
from webplay.ffo.session import GameSession


def _game_record(seed: int) -> dict[str, Any]:
    from agents import make_agent

    state = Game(options=RulesOptions(setup="random")).new_initial_state(seed)
    bots = {s: make_agent("heuristic", s, seed=seed) for s in ("french", "german")}
    rec = Recorder(state)
    while not state.is_terminal():
        rec.apply(bots[state.current_agent].act_state(state))
    out = rec.record()
    out["agents"] = {"french": "heuristic", "german": "heuristic"}
    return out


def test_viewer_scrubs_to_the_end_and_shows_the_recorded_vp(page: Any, tmp_path: Path) -> None:
    record = _game_record(seed=11)
    html = tmp_path / "game.html"
    write_viewer(record, html)
    page.goto(html.as_uri())
    page.wait_for_selector("body[data-ready='1']", timeout=TIMEOUT_MS)
    n = page.evaluate("ffoViewer.n")
    assert n == record["result"]["agent_decisions"]
    assert page.inner_text("#step") == f"0 / {n}"
    assert page.locator("#board g.counter").count() > 10
    # scrub with the slider to the last position, as a person dragging it would
    page.eval_on_selector("#slider", "(e, n) => { e.value = n; e.dispatchEvent(new Event('input')); }", n)
    assert page.inner_text("#step") == f"{n} / {n}"
    assert int(page.inner_text("#vp")) == record["result"]["vp"]
    assert "game over" in page.inner_text("#who")
    # keyboard: one step back, then End
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#step") == f"{n - 1} / {n}"
    page.keyboard.press("End")
    assert int(page.inner_text("#vp")) == record["result"]["vp"]
    # a battle position shows the battle box and its die
    k = page.evaluate(
        "(() => { const D = JSON.parse(document.getElementById('ffo-data').textContent);"
        " return D.frames.findIndex(f => f.battle && f.battle.att.length && f.n_dice >"
        " (D.frames[D.frames.indexOf(f) - 1] || D.first).n_dice) + 1; })()"
    )
    assert k > 0
    page.evaluate(f"ffoViewer.go({k})")
    assert "Battle at" in page.inner_text("#battle") and page.locator("#dice b.die").count() >= 1
    page.evaluate("document.getElementById('mapwrap').scrollTo(700, 150)")
    shot(page, "viewer.png")
    assert page.errors == []


def test_play_human_decisions_against_random_in_the_browser(page: Any, tmp_path: Path) -> None:
    session = GameSession("human", "random", seed=2, record_path=tmp_path / "game.json")
    with LocalServer(session) as server:
        assert server.url.startswith("http://127.0.0.1:")
        page.goto(server.url)
        page.wait_for_selector("body[data-ready='1'][data-busy='0']", timeout=TIMEOUT_MS)
        assert page.get_attribute("body", "data-decision") == "MOVE_UNIT"
        n_legal = len(session.state.legal_actions())
        assert page.locator("#choices button").count() == n_legal
        # 1. pick a unit by clicking its hex on the map, then a destination hex on the map
        choices = session.choices()
        first = next(c for c in choices if sum(d.get("hex") == c["hex"] for d in choices) == 1)
        page.locator(f"#picks polygon[data-hex='{first['hex']}']").click()
        page.wait_for_selector("body[data-busy='0'][data-decision='MOVE_DEST']", timeout=TIMEOUT_MS)
        moved_unit = first["unit"]
        page.evaluate(
            "(() => { const w = document.getElementById('mapwrap');"
            " const p = document.querySelector('#picks polygon');"
            " if (p) { const b = p.getBBox(); w.scrollTo(b.x - 450, b.y - 330); } })()"
        )
        assert page.locator("#marks polygon.selected").count() == 1
        shot(page, "play.png")  # the destinations of the picked unit, highlighted on the map and listed
        dest = next(c for c in session.choices() if c["hex"] != session.state.loc[moved_unit])
        page.locator(f"#picks polygon[data-hex='{dest['hex']}']").click()
        page.wait_for_selector("body[data-busy='0'][data-decision='MOVE_UNIT']", timeout=TIMEOUT_MS)
        assert session.state.loc[moved_unit] == dest["hex"]
        # 2. more decisions with the buttons (the last one offered: it ends the phase when it may) until the
        #    German bot has played and it is the human's turn again; bounded, each unit moves once a phase
        page.check("#fast")  # bot decisions 20 ms apart instead of 380 ms
        for _ in range(200):
            page.locator("#choices button").last.click()
            page.wait_for_selector("body[data-busy='0']", timeout=TIMEOUT_MS)
            if any(d["player"] == "german" and not d["auto"] for d in session.recorder.decisions):
                break
        page.wait_for_selector("body[data-busy='0'][data-human='1']", timeout=TIMEOUT_MS)
        assert session.human_to_move() and page.locator("#choices button").count() == len(session.choices())
        human = [d for d in session.recorder.decisions if not d["auto"] and d["player"] == "french"]
        assert len(human) >= 3 and human[0]["text"] == first["text"]
        assert any(d["player"] == "german" and not d["auto"] for d in session.recorder.decisions)
        # the page shows the server's state
        assert int(page.inner_text("#vp")) == session.state.vp
        assert int(page.inner_text("#turn")) == session.state.turn
        assert page.get_attribute("body", "data-decisions") == str(len(session.state.history))
        # fog: no German counter below a top unit is named on the page (rule 3.6, R3)
        pos = session.view()["pos"]
        for h, st in pos["stacks"].items():
            if len(st) > 1 and st[0] == -1:
                assert page.locator(f"#overlay g.counter[data-hex='{h}'] text.height").text_content() == str(
                    len(st)
                )
        assert page.errors == []
