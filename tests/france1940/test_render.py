"""The France 1940 SVG map and replay viewer (ffo_env/france1940/render): every terrain hex, border, river,
fortress line, city and map edge is drawn from the game's data; a unit is drawn where it stands, once;
aircraft in the air at their hex; the turn track and the panel; a side's view never draws what the core's
visibility hides (F60, P3), and a one-side viewer file never holds it."""

from __future__ import annotations

import json
import math
import random
import xml.etree.ElementTree as ET
from functools import cache
from typing import Any

import pytest

from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.hexgrid import N_HEXES, NEIGHBOURS, adjacent
from ffo_env.france1940.core.options import RulesOptions
from ffo_env.france1940.core.record import Recorder
from ffo_env.france1940.core.state import MAP, OUT, State
from ffo_env.france1940.render.hexmap import COUNTRY, TERRAIN, R, base_svg, hex_centre, hexside
from ffo_env.france1940.render.svg import layers, occupancy, position_svg
from ffo_env.france1940.render.view import PUBLIC, UNKNOWN, seen
from ffo_env.france1940.render.viewer import build_viewer_html, viewer_data

SVG = "{http://www.w3.org/2000/svg}"


@cache
def _base() -> ET.Element:
    return ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{base_svg(Game(), hex_ids=True)}</svg>')


def _all(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(SVG + tag) if cls in (e.get("class") or "").split()]


def _played(seed: int, n: int, **opts: Any) -> tuple[State, Recorder]:
    """A random game of ``n`` decisions (its own generator: the same seed gives the same game)."""
    rng = random.Random(seed)
    rec = Recorder(Game(RulesOptions(**opts)).new_initial_state(seed))
    for _ in range(n):
        if rec.state.is_terminal():
            break
        rec.apply(rng.choice(rec.state.legal_actions()))
    return rec.state, rec


def _corners(n: int) -> list[tuple[float, float]]:
    x, y = hex_centre(n)
    return [(x + R * math.cos(math.pi / 3 * k), y + R * math.sin(math.pi / 3 * k)) for k in range(6)]


def _near(p: tuple[float, float], pts: list[tuple[float, float]]) -> bool:
    return any(math.dist(p, q) < 0.11 for q in pts)  # the SVG's numbers have one decimal


def test_every_terrain_hex_is_drawn_with_its_terrain_and_countries_from_the_data() -> None:
    d = Game().data
    polys = {int(e.get("data-hex", "0")): e for e in _all(_base(), "polygon", "hex")}
    expected = {n for n in range(1, N_HEXES + 1) if d.terrain[n] in TERRAIN}
    assert set(polys) == expected and len(expected) > 1000  # C§2.1: x (outside) is not drawn
    for n, e in polys.items():
        assert e.get("data-t") == d.terrain[n]
        assert e.get("data-c") == "".join(sorted(c for c in d.countries[n] if c in COUNTRY))
        title = e.find(SVG + "title")
        assert title is not None and title.text is not None and title.text.startswith(f"{n}: ")
    border_hexes = {n for n in expected if d.country[n].isdigit()}
    assert border_hexes and all("bhex" in polys[n].get("class", "") for n in border_hexes)  # C§2.2, F5


def test_neighbouring_hexes_share_an_edge_in_the_drawing() -> None:
    for n in (1, 2, 33, 34, 500, 640, 1280):
        for m in NEIGHBOURS[n]:
            shared = [p for p in _corners(n) if _near(p, _corners(m))]
            assert len(shared) == 2, (n, m)
            assert math.dist(hex_centre(n), hex_centre(m)) == pytest.approx(math.sqrt(3) * R, abs=0.05)


def test_every_river_hexside_is_drawn_on_the_edge_between_its_two_hexes() -> None:
    d = Game().data
    drawn = {
        (int(e.get("data-a", "0")), int(e.get("data-b", "0"))): e for e in _all(_base(), "line", "river")
    }
    assert set(drawn) == {(min(s), max(s)) for s in d.rivers}  # C§4.2, F24
    for (a, b), e in drawn.items():
        p = (float(e.get("x1", "0")), float(e.get("y1", "0")))
        q = (float(e.get("x2", "0")), float(e.get("y2", "0")))
        for end in (p, q):
            assert _near(end, _corners(a)) and _near(end, _corners(b))
        assert _near(hexside(a, b)[0], [p, q]) and _near(hexside(a, b)[1], [p, q])


def test_borders_run_through_each_band_of_border_hexes_and_between_countries_that_touch() -> None:
    d = Game().data
    band = [e for e in _all(_base(), "line", "border") if "side" not in (e.get("class") or "")]
    codes = {e.get("data-code") for e in band}
    assert codes == {c for c in d.border_codes if any(d.country[n] == c for n in range(1, N_HEXES + 1))}
    for e in _all(_base(), "line", "side"):
        a, b = int(e.get("data-a", "0")), int(e.get("data-b", "0"))
        assert adjacent(a, b) and not (d.countries[a] & d.countries[b])


def test_the_maginot_line_and_the_belgian_fortresses_are_drawn_with_their_fronts() -> None:
    d = Game().data
    forts = {int(e.get("data-hex", "0")): e for e in _all(_base(), "g", "fort")}
    assert set(forts) == set(d.fortified)  # C§3.2, F25
    for h, f in d.fortified.items():
        assert f.kind in forts[h].get("class", "")
    lines = {
        frozenset((int(e.get("data-a", "0")), int(e.get("data-b", "0"))))
        for e in _all(_base(), "line", "fortline")
    }
    assert lines == {frozenset((h, m)) for h, f in d.fortified.items() for m in f.line if m in d.fortified}
    fronts = {
        (int(e.get("data-hex", "0")), int(e.get("data-to", "0"))) for e in _all(_base(), "line", "front")
    }
    assert fronts == {(h, m) for h, f in d.fortified.items() for m in f.front}
    assert any("maginot" in (e.get("class") or "") for e in _all(_base(), "line", "fortline"))


def test_every_city_and_town_is_drawn_with_its_name_and_paris_is_marked() -> None:
    d = Game().data
    cities = {int(e.get("data-hex", "0")): e for e in _all(_base(), "g", "city")}
    assert set(cities) == set(d.cities)  # C§4.1
    for n, (kind, name) in d.cities.items():
        e = cities[n]
        assert e.get("data-name") == name.replace("_", " ") and kind in e.get("class", "").split()
        assert ("paris" in e.get("class", "").split()) == (n in d.paris)  # C§3.1


def test_map_edges_and_hex_ids_on_demand() -> None:
    d = Game().data
    edges = {int(e.get("data-hex", "0")) for e in _all(_base(), "circle", "edge")}
    assert edges == set(d.german_edge) | set(d.allied_south_edge) | set(d.allied_west_edge)
    ids = [e for e in _base().iter(SVG + "g") if e.get("id") == "hexids"]
    assert len(ids) == 1 and len(list(ids[0])) == N_HEXES
    assert 'id="hexids"' not in base_svg(Game(), hex_ids=False)


def test_each_unit_on_the_map_is_drawn_once_in_the_stack_of_its_hex() -> None:
    s, _ = _played(5, 900)
    v = seen(s)
    lay = layers(s.game, v)
    on_map = {s.game.unit_ids[u]: s.hex[u] for u in range(len(s.game.units)) if s.status[u] == MAP}
    assert on_map
    drawn: dict[str, int] = {}
    for name, svg in lay.items():
        if not name.startswith("h"):
            continue
        root = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{svg}</svg>')
        stack = _all(root, "g", "stack")[0]
        h = int(name[1:])
        assert int(stack.get("data-hex", "0")) == h
        units = _all(root, "g", "unit")
        assert int(stack.get("data-n", "0")) == len(units) == len(occupancy(v)[h])
        for e in units:
            uid = e.get("data-unit", "")
            assert uid not in drawn
            drawn[uid] = h
            u = s.game.unit_index(uid)
            assert ("unsupplied" in e.get("class", "")) == (not s.supply[u])  # F18
    assert drawn == on_map  # units off the map (out, destroyed, exited) are not drawn on it


def test_aircraft_in_the_air_are_drawn_at_their_hex_with_the_mission() -> None:
    s, _ = _played(5, 300)
    gse = next(u for u in s.game.side_units[1] if s.spec(u).is_gse and s.status[u] == MAP)
    s.ac_mission[gse], s.ac_hex[gse] = "int", 640  # a drawing test: any visible field value will do
    root = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{layers(s.game, seen(s))["air"]}</svg>')
    air = _all(root, "g", "air")
    assert [(e.get("data-unit"), e.get("data-mission"), e.get("data-hex")) for e in air] == [
        (s.game.unit_ids[gse], "int", "640")
    ]


def test_the_panel_shows_the_turn_track_phase_vp_and_reinforcements() -> None:
    s, _ = _played(6, 700)
    v = seen(s)
    root = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{layers(s.game, v)["panel"]}</svg>')
    boxes = _all(root, "rect", "turn")
    assert [int(e.get("data-turn", "0")) for e in boxes] == list(range(1, s.game.last_turn + 1))
    assert [int(e.get("data-turn", "0")) for e in boxes if "now" in e.get("class", "")] == [s.turn]
    text = " ".join(t.text or "" for t in root.iter(SVG + "text"))
    assert f"VP Allied {s.vp[0]}, German {s.vp[1]}" in text and f"GT{s.turn} of {s.game.last_turn}" in text
    due = sum(1 for u in s.game.side_units[1] if s.status[u] == OUT and s.arrive[u] == s.turn + 1)
    if due:
        assert f"G+{due}" in text


def test_a_sides_view_hides_the_opponents_army_and_schedule_with_hidden_obac() -> None:
    s, _ = _played(7, 200, hidden_obac=True, german_obac="II")
    allied = layers(s.game, seen(s, 0))
    public = layers(s.game, seen(s, PUBLIC))
    assert "German ?" in allied["panel"] and "G?" in allied["panel"] and "German II" in public["panel"]
    # the map itself is open information (F60): every stack is drawn alike for both
    assert {k: x for k, x in allied.items() if k.startswith("h")} == {
        k: x for k, x in public.items() if k.startswith("h")
    }
    # states that differ only in what the Allied player may not see draw the same for the Allied player
    t = s.clone()
    t.columns[1] = "V"
    t.seed, t.dice_state = t.seed + 1, json.loads(json.dumps(t.dice_state))
    for u in t.game.side_units[1]:
        if t.status[u] == OUT and t.arrive[u] >= 0:
            t.arrive[u] = t.arrive[u] % t.game.last_turn + 1
    assert layers(t.game, seen(t, 0)) == allied
    assert seen(s, 0)["arrive"].count(UNKNOWN) > 0 and "seed" not in seen(s, 0)
    with pytest.raises(ValueError, match="viewer must be"):
        seen(s, 2)


def test_position_svg_is_one_well_formed_document() -> None:
    s, _ = _played(5, 400)
    root = ET.fromstring(position_svg(s.game, seen(s), hex_ids=True))
    assert root.tag == SVG + "svg" and len(_all(root, "g", "unit")) == sum(st == MAP for st in s.status)


def test_a_one_side_viewer_never_holds_the_hidden_army_nor_the_seed() -> None:
    _, rec = _played(8, 500, hidden_obac=True, german_obac="random")
    record = rec.record()
    german = record["columns"][1]
    data = viewer_data(record, 0)
    assert data["columns"] == [record["columns"][0], UNKNOWN] and data["seed"] is None
    assert all(r[0] != "german_obac" for r in data["dice"])
    panels = [p for p in data["pool"] if 'class="panel"' in p]
    assert panels and all(f"German {german}<" not in p and "German ?" in p for p in panels)
    html = build_viewer_html(record, 0)
    assert '"seed":null' in html and f'"columns":["{record["columns"][0]}","?"]' in html
    public = viewer_data(record)
    assert public["seed"] == 8 and public["columns"] == record["columns"]
    assert (
        len(public["frames"]) == len(data["frames"]) == sum(1 for d in record["decisions"] if not d["auto"])
    )
