"""France 1940 end-to-end in a real browser: Playwright drives the system Chromium through the replay viewer
and browser play (as tests/test_browser.py and tests/test_springtime_browser.py do for the other games).

Skipped (with the reason) only when the ``playwright`` package or a Chromium binary is missing; the
Chromium of the system (Debian package ``chromium``) is launched, or the one named by ``FFO_CHROMIUM``.
Set ``FFO_SCREENSHOT_DIR=docs/img`` to refresh the docs' screenshots.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from browser_support import TIMEOUT_MS, shot  # first: it skips this module without a browser

from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.options import RulesOptions
from ffo_env.france1940.core.record import Recorder
from ffo_env.france1940.render.viewer import write_viewer
from webplay.app import LocalServer
from webplay.france1940.session import France1940Session


def _game_record(seed: int, n: int, **opts: Any) -> tuple[dict[str, Any], Any]:
    """The record of the first ``n`` decisions of a seeded random game."""
    rng = random.Random(seed)
    state = Game(RulesOptions(**opts)).new_initial_state(seed)
    rec = Recorder(state)
    for _ in range(n):
        if state.is_terminal():
            break
        rec.apply(rng.choice(state.legal_actions()))
    return rec.record(), state


def _drawn_units(page: Any) -> dict[str, int]:
    return dict(
        page.evaluate(
            "[...document.querySelectorAll('#map g.unit')].map(u => [u.dataset.unit, "
            "Number(u.closest('g.stack').dataset.hex)])"
        )
    )


def test_viewer_steps_forward_and_back_and_scrubs_to_the_final_position(page: Any, tmp_path: Path) -> None:
    record, final = _game_record(seed=3, n=700)
    html = tmp_path / "game.html"
    write_viewer(record, html)
    page.goto(html.as_uri())
    page.wait_for_selector("body[data-ready='1']", timeout=TIMEOUT_MS)
    n = page.evaluate("f40Viewer.n")
    assert n == sum(1 for d in record["decisions"] if not d["auto"])
    assert page.inner_text("#step") == f"0 / {n}"
    game = final.game
    assert page.locator("#map polygon.hex").count() == sum(
        1 for h in range(1, 1281) if game.data.terrain[h] != "x"
    )
    assert page.locator("#map line.river").count() == len(game.data.rivers)
    assert page.locator("#map g.fort").count() == len(game.data.fortified)
    assert page.locator("#map g.city").count() == len(game.data.cities)
    assert not page.locator("#hexids").is_visible()
    page.check("#ids")
    assert page.locator("#hexids").is_visible()
    page.uncheck("#ids")
    start = Game().new_initial_state(3)
    assert len(_drawn_units(page)) == sum(len(start.on_map(s)) for s in (0, 1))
    page.click("#next")
    page.click("#next")
    assert page.inner_text("#step") == f"2 / {n}"
    page.click("#prev")
    assert page.inner_text("#step") == f"1 / {n}"
    first_agent = next(d for d in record["decisions"] if not d["auto"])
    assert first_agent["text"] in page.inner_text("#decided")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#step") == f"2 / {n}"
    page.eval_on_selector(
        "#slider", "(e, k) => { e.value = k; e.dispatchEvent(new Event('input')); }", n // 2
    )
    assert page.inner_text("#step") == f"{n // 2} / {n}"
    page.click("#last")
    assert page.inner_text("#step") == f"{n} / {n}"
    on_map = {game.unit_ids[u]: final.hex[u] for s in (0, 1) for u in final.on_map(s)}
    assert _drawn_units(page) == on_map
    assert f"VP Allied {final.vp[0]}, German {final.vp[1]}" in page.text_content("#layer-panel")
    assert page.locator("#layer-panel rect.turn.now").get_attribute("data-turn") == str(final.turn)
    shot(page, "france1940_viewer.png")
    # back to the start and forward again: the same drawing (the deltas undo and redo exactly)
    page.keyboard.press("Home")
    assert len(_drawn_units(page)) == sum(len(start.on_map(s)) for s in (0, 1))
    page.keyboard.press("End")
    assert _drawn_units(page) == on_map
    assert page.errors == []


def test_one_sides_viewer_shows_the_hidden_army_as_unknown(page: Any, tmp_path: Path) -> None:
    record, _ = _game_record(seed=5, n=300, hidden_obac=True, german_obac="random")
    html = tmp_path / "allied.html"
    write_viewer(record, html, viewer=0)
    page.goto(html.as_uri())
    page.wait_for_selector("body[data-ready='1']", timeout=TIMEOUT_MS)
    assert "German ?" in page.inner_text("#title") and "seed" not in page.inner_text("#title")
    page.keyboard.press("End")
    assert "German ?" in page.text_content("#layer-panel")
    assert page.errors == []


def test_play_human_decisions_against_random_in_the_browser(page: Any, tmp_path: Path) -> None:
    # the human plays the Germans: the French bot sets up first (all but its last 5 placements before the page
    # opens, so that a loaded machine does not make the page's first wait long), then the human places and moves
    probe = France1940Session("random", "human", seed=2)
    n_setup = 0
    while not probe.human_to_move():
        probe.bot_step()
        n_setup += 1
    session = France1940Session("random", "human", seed=2, record_path=tmp_path / "game.json")
    for _ in range(n_setup - 5):
        session.bot_step()
    n_before = len(session.recorder.decisions)
    with LocalServer(session) as server:
        page.goto(server.url + "?fast")
        page.wait_for_selector("body[data-ready='1'][data-busy='0'][data-human='1']", timeout=TIMEOUT_MS)
        assert page.is_checked("#fast")  # bot decisions 20 ms apart instead of 300 ms
        bot = [d for d in session.recorder.decisions[n_before:] if not d["auto"]]
        assert len(bot) == 5 and all(d["player"] == "french" for d in bot)  # played through the page
        assert page.locator("#choices button").count() == len(session.state.legal_actions())
        assert page.locator("#map polygon.hex").count() > 1000
        on_map = 0
        for _ in range(40):  # a bounded number of human decisions: on the map where it can, else a button
            choices = session.choices()
            unit = next((c for c in choices if "unit" in c and "hex" in c), None)
            hexes = [c for c in choices if "hex" in c and "unit" not in c]
            single = next((c for c in hexes if sum(d["hex"] == c["hex"] for d in hexes) == 1), None)
            target = unit or single
            n = len(session.recorder.decisions)
            if unit is not None:
                here = [c for c in choices if "unit" in c and c.get("hex") == unit["hex"]]
                if len(here) == 1:  # the stack's top counter: its one pickable unit is picked, on top or not
                    page.locator(f"#L-h{unit['hex']} g.unit").last.click(force=True)
                else:
                    page.locator(f"#map g.unit.pickable[data-unit='{unit['unit']}']").first.click(force=True)
                on_map += 1
            elif single is not None:
                page.locator(f"#picks polygon.pick[data-hex='{single['hex']}']").click(force=True)
                on_map += 1
            else:
                page.locator("#choices button").last.click()
            page.wait_for_selector("body[data-busy='0']", timeout=TIMEOUT_MS)
            mine = [d for d in session.recorder.decisions[n:] if not d["auto"] and d["player"] == "german"]
            if target is not None:
                assert mine and mine[0]["action"] == target["a"]
            if on_map >= 6:
                break
            if session.state.is_terminal():
                break
        assert on_map >= 6
        assert page.get_attribute("body", "data-decisions") == str(len(session.recorder.decisions))
        # on to the first decision that picks a unit on the map (the German Initial Movement), then by a click
        for _ in range(3000):
            if any("unit" in c and "hex" in c for c in session.choices()) or session.state.is_terminal():
                break
            if session.human_to_move():
                session.act(session.state.legal_actions()[-1])  # "done" is the first: place, do not pass
            else:
                session.bot_step()
        page.goto(server.url + "?fast")  # a fresh page on the same game
        page.wait_for_selector("body[data-ready='1'][data-busy='0'][data-human='1']", timeout=TIMEOUT_MS)
        unit = next(c for c in session.choices() if "unit" in c and "hex" in c)
        assert page.locator("#map g.unit.pickable").count() >= 1
        n = len(session.recorder.decisions)
        page.locator(f"#map g.unit.pickable[data-unit='{unit['unit']}']").first.click(force=True)
        page.wait_for_selector("body[data-busy='0']", timeout=TIMEOUT_MS)
        assert session.recorder.decisions[n]["action"] == unit["a"]
        st = session.state
        assert _drawn_units(page) == {st.game.unit_ids[u]: st.hex[u] for s in (0, 1) for u in st.on_map(s)}
        shot(page, "france1940_play.png")
        assert page.errors == []
        # an illegal request from the page is refused (400) and changes nothing
        before = st.to_dict()
        status = page.evaluate(
            "fetch('/api/act', {method: 'POST', headers: {'Content-Type': 'application/json'},"
            " body: JSON.stringify({action: 99999})}).then(r => r.status)"
        )
        assert status == 400 and st.to_dict() == before
        assert len(page.errors) == 1 and "400" in page.errors[0]  # the browser logs the refused request
