"""Springtime for Hitler end-to-end in a real browser: Playwright drives the system Chromium through the
replay viewer and browser play (as tests/test_browser.py does for France Fights On).

Skipped (with the reason) only when the ``playwright`` package or a Chromium binary is missing; the
Chromium of the system (Debian package ``chromium``) is launched, or the one named by ``FFO_CHROMIUM``.
Set ``FFO_SCREENSHOT_DIR=docs/img`` to refresh the docs' screenshots.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from browser_support import TIMEOUT_MS, shot  # first: it skips this module without a browser

from ffo_env.springtime.core.game import Game
from ffo_env.springtime.core.record import Recorder
from ffo_env.springtime.render.viewer import write_viewer
from webplay.app import LocalServer
from webplay.springtime.session import SpringtimeSession


def _game_record(seed: int) -> tuple[dict[str, Any], Any]:
    from agents.registry import make_agent

    state = Game().new_initial_state(seed)
    bots = {s: make_agent("heuristic", s, seed=seed, game="springtime") for s in ("french", "german")}
    rec = Recorder(state)
    while not state.is_terminal():
        rec.apply(bots[state.current_agent].act_state(state))
    return rec.record(), state


def test_viewer_steps_and_scrubs_to_the_final_position(page: Any, tmp_path: Path) -> None:
    record, final = _game_record(seed=3)
    html = tmp_path / "game.html"
    write_viewer(record, html)
    page.goto(html.as_uri())
    page.wait_for_selector("body[data-ready='1']", timeout=TIMEOUT_MS)
    n = page.evaluate("sfhViewer.n")
    assert n == sum(1 for d in record["decisions"] if not d["auto"])
    assert page.inner_text("#step") == f"0 / {n}"
    assert page.locator("#map g.loc").count() == 36 and page.locator("#map line.bnd").count() == 81
    start = Game().new_initial_state(3)
    assert page.locator("#map g.unit").count() == len(start.on_map())
    page.click("#next")
    page.click("#next")
    assert page.inner_text("#step") == f"2 / {n}"
    first_agent = next(d for d in record["decisions"] if not d["auto"])
    page.click("#first")
    page.keyboard.press("ArrowRight")
    assert first_agent["text"] in page.inner_text("#decided")
    # scrub with the slider to a middle position and to the end, as a person dragging it would
    page.eval_on_selector(
        "#slider", "(e, k) => { e.value = k; e.dispatchEvent(new Event('input')); }", n // 2
    )
    assert page.inner_text("#step") == f"{n // 2} / {n}"
    shot(page, "springtime_viewer.png")
    page.keyboard.press("End")
    assert page.inner_text("#step") == f"{n} / {n}" and "game over" in page.inner_text("#who")
    on_map = {final.game.unit_ids[u]: final.game.loc_ids[final.loc[u]] for u in final.on_map()}
    drawn = page.evaluate(
        "[...document.querySelectorAll('#map g.unit')].map(u => [u.dataset.unit, u.closest('g.loc').dataset.loc])"
    )
    assert dict(drawn) == on_map and len(drawn) == len(on_map)
    assert f"French Morale {final.morale}" in page.text_content("#layer-panel")
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#step") == f"{n - 1} / {n}"
    assert page.errors == []


def test_play_human_decisions_against_random_in_the_browser(page: Any, tmp_path: Path) -> None:
    session = SpringtimeSession("human", "random", seed=2, record_path=tmp_path / "game.json")
    with LocalServer(session) as server:
        page.goto(server.url)
        page.wait_for_selector("body[data-ready='1'][data-busy='0'][data-human='1']", timeout=TIMEOUT_MS)
        assert page.locator("#choices button").count() == len(session.state.legal_actions())
        assert page.locator("#map g.loc").count() == 36
        page.check("#fast")  # bot decisions 20 ms apart instead of 300 ms
        clicked_on_map = 0
        for _ in range(40):  # a bounded number of human decisions: on the map where it can, else a button
            choices = session.choices()
            target = next((c for c in choices if "unit" in c), None) or next(
                (c for c in choices if "loc" in c and sum(d.get("loc") == c["loc"] for d in choices) == 1),
                None,
            )
            n = len(session.recorder.decisions)
            if target is not None and "unit" in target:
                page.locator(f"#map g.unit.pickable[data-unit='{target['unit']}']").first.click()
                clicked_on_map += 1
            elif target is not None:
                page.locator(f"#map g.loc.pickable[data-loc='{target['loc']}'] rect.box").click()
                clicked_on_map += 1
            else:
                page.locator("#choices button").last.click()
            page.wait_for_selector("body[data-busy='0']", timeout=TIMEOUT_MS)
            mine = [d for d in session.recorder.decisions[n:] if not d["auto"] and d["player"] == "french"]
            if target is not None:
                assert mine and mine[0]["text"] == target["text"]
            if clicked_on_map >= 3 and any(
                d["player"] == "german" and not d["auto"] for d in session.recorder.decisions
            ):
                break
            if session.state.is_terminal():
                break
        assert clicked_on_map >= 3
        assert page.get_attribute("body", "data-decisions") == str(len(session.recorder.decisions))
        assert any(d["player"] == "german" and not d["auto"] for d in session.recorder.decisions)
        shot(page, "springtime_play.png")
        # S59: the German held marker is never named on the French player's page
        held = session.state.held[1]
        public = set(session.state.turn_track) | set(session.state.impulse_track)
        if held and held not in public:
            assert session.state.game.data.event(held).name not in page.content()
        assert page.errors == []
