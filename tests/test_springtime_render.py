"""The Springtime renderer and replay viewer (issue 41 item 6): the SVG area map of a position, what each
viewer may see of the Event markers (S59), the HTML viewer of a verified record, ``ffo replay/play
--game springtime``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ffo_env.cli import main
from ffo_env.core.errors import DataError
from ffo_env.springtime.core.data import default_data
from ffo_env.springtime.core.game import Game
from ffo_env.springtime.core.notation import position
from ffo_env.springtime.core.record import Recorder, RecordError, replay, write_record
from ffo_env.springtime.render.layout import load_layout
from ffo_env.springtime.render.svg import layer_names, layers, position_svg
from ffo_env.springtime.render.view import PUBLIC, seen
from ffo_env.springtime.render.viewer import build_viewer_html, replay_frames, viewer_data

KNOWN = """
    turn 2 box 2 advantage axis morale 24 rp 3 7
    allied: FR-2A@17 FR-9A@12(r) GB-BEF@14 FR-1A@13(oos)
    axis: DE-XIX@11 DE-XLI@11 DE-12A@3(r)
    held: allied 1 axis 7
    played: 2
"""


def _loc_group(svg: str, loc_id: str) -> str:
    """The drawing of one location: its layer, up to the next layer."""
    start = svg.index(f'<g id="layer-loc:{loc_id}">')
    return svg[start : svg.index('<g id="layer-', start + 1)]


def test_svg_draws_every_location_and_every_boundary_with_its_type() -> None:
    """rule 3.1, 3.1.4, S5: 36 locations, 81 boundaries typed O (open), R (river), M (Maginot)."""
    svg = position_svg(Game().new_initial_state(0))
    d = default_data()
    assert sorted(re.findall(r'<g class="loc[^"]*" data-loc="(\w+)"', svg)) == sorted(
        x.id for x in d.locations
    )
    bnd = re.findall(r'class="bnd bnd-([ORM])" data-a="(\w+)" data-b="(\w+)"', svg)
    want = {(d.locations[i].id, d.locations[j].id, t) for i in range(36) for j, t in d.adjacency[i] if j > i}
    assert {(a, b, t) for t, a, b in bnd} == want and len(bnd) == 81


def test_svg_draws_the_units_of_a_known_position_where_they_stand() -> None:
    s = position(KNOWN)
    svg = position_svg(s)
    where = {
        "FR-2A": "17",
        "FR-9A": "12",
        "GB-BEF": "14",
        "FR-1A": "13",
        "DE-XIX": "11",
        "DE-XLI": "11",
        "DE-12A": "3",
    }
    for uid, loc in where.items():
        assert f'data-unit="{uid}"' in _loc_group(svg, loc), (uid, loc)
    assert len(re.findall(r'<g class="unit[^"]*" data-unit=', svg)) == len(where)  # nobody else on the map
    assert re.search(r'<g class="unit reduced" data-unit="FR-9A"', svg)  # 10.4.4: the Reduced side
    assert re.search(r'<g class="unit oos" data-unit="FR-1A"', svg)  # 13.2: Out of Supply marker
    assert 'data-leader="L-GORT"' in _loc_group(svg, "14")  # Gort rides with the BEF (S10)
    assert 'data-control="axis"' in _loc_group(svg, "3") and 'data-control="allied"' in _loc_group(svg, "17")
    assert "French Morale 24" in svg and "RPs: Allied 3 · Axis 7" in svg and "Advantage: Axis" in svg
    assert "Turn Track: #2 Cabinet Shuffle" in svg  # a played asterisk marker is public (6.1.1)


def test_a_crowded_zone_sums_up_its_allied_units_and_still_shows_the_axis_ones() -> None:
    """Zones have no stacking limit (14.2, S8): what does not fit is counted as "+n"."""
    allied = [
        "FR-1A",
        "FR-2A",
        "FR-7A",
        "FR-9A",
        "FR-PRIOUX",
        "FR-1DCR",
        "FR-3A",
        "FR-4A",
        "FR-5A",
        "FR-8A",
        "FR-6A",
    ]
    s = position(f"turn 2 box 2\nallied: {' '.join(u + '@B' for u in allied)}\naxis: DE-XIX@B")
    zone = _loc_group(position_svg(s), "B")
    assert 'data-unit="DE-XIX"' in zone
    shown = re.findall(r'data-unit="(FR-[^"]+)"', zone)
    assert len(shown) == 9 and f">+{len(allied) - len(shown)}</text>" in zone  # two rows of 5, one slot "+2"


def test_s59_a_held_marker_is_named_to_its_holder_only() -> None:
    s = position(KNOWN)
    de_gaulle, air = default_data().event(1).name, default_data().event(7).name
    allied, axis, public = position_svg(s, 0), position_svg(s, 1), position_svg(s, PUBLIC)
    assert de_gaulle in allied and air not in allied
    assert air in axis and de_gaulle not in axis
    assert de_gaulle not in public and air not in public
    assert "Allied a marker (hidden)" in public and "Axis a marker (hidden)" in public
    assert seen(s, PUBLIC)["held"] == [-1, -1] and seen(s, 0)["held"] == [1, -1]
    for side in (0, 1):  # the same redaction as the core's own (visibility.visible_to)
        core = s.visible_to(side)
        assert seen(s, side)["held"] == core["held"] and seen(s, side)["container"] == core["container"]
    with pytest.raises(ValueError, match="viewer"):
        seen(s, 2)


def test_18_2_a_free_setup_is_drawn_with_the_viewers_own_units_only() -> None:
    """S59 (e): during the Limited Free Setup neither side sees where the other placed its units."""
    from ffo_env.springtime.core.game import RulesOptions

    s = Game(options=RulesOptions(free_setup=True)).new_initial_state(0)
    for _ in range(3):
        s.apply_action(s.legal_actions()[0])
    assert s.phase == "setup"
    units = {side: re.findall(r'data-unit="([^"]+)"', position_svg(s, side)) for side in (0, 1, PUBLIC)}
    assert units[PUBLIC] == []
    assert units[0] and all(s.game.unit_side[s.game.unit_ids.index(u)] == 0 for u in units[0])
    assert all(s.game.unit_side[s.game.unit_ids.index(u)] == 1 for u in units[1])


def test_svg_is_deterministic_and_leaves_the_state_unchanged() -> None:
    s = position(KNOWN)
    before = s.to_dict()
    assert position_svg(s, 0) == position_svg(s.clone(), 0) == position_svg(position(KNOWN), 0)
    assert s.to_dict() == before


def test_layout_errors_name_the_file_and_the_key(tmp_path: Path) -> None:
    src = (Path(__file__).parents[1] / "ffo_env/springtime/render/layout.yaml").read_text()
    bad = tmp_path / "layout.yaml"
    bad.write_text(src.replace('"25": [', '"25x": ['))
    with pytest.raises(DataError, match=r"layout.yaml: locations: location '25' has no position"):
        load_layout(bad)
    bad.write_text(src.replace("canvas: [1620, 1130]", "canvas: [1620]"))
    with pytest.raises(DataError, match="layout.yaml: canvas: expected a list of 2 integers"):
        load_layout(bad)


def _segment_meets_box(p: tuple[int, int], q: tuple[int, int], box: tuple[int, int, int, int]) -> bool:
    """Liang-Barsky: does the segment p-q pass through the inside of box (x, y, w, h)?"""
    x, y, w, h = box
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for pp, qq in ((-dx, p[0] - x), (dx, x + w - p[0]), (-dy, p[1] - y), (dy, y + h - p[1])):
        if pp == 0:
            if qq <= 0:
                return False
            continue
        r = qq / pp
        if pp < 0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
    return t0 < t1


def test_layout_boxes_do_not_overlap_and_no_boundary_crosses_a_third_box() -> None:
    """The schematic map reads right: every boundary line joins its two boxes without crossing another."""
    lay = load_layout()
    d = default_data()
    ids = [x.id for x in d.locations]
    for i, a in enumerate(ids):
        ax, ay, w, h = lay.box(a)
        for b in ids[i + 1 :]:
            bx, by, _, _ = lay.box(b)
            assert abs(ax - bx) >= w or abs(ay - by) >= h, (a, b)
    for i, a in enumerate(ids):
        for j, _kind in d.adjacency[i]:
            b = ids[j]
            crossed = [
                c
                for c in ids
                if c not in (a, b) and _segment_meets_box(lay.centre[a], lay.centre[b], lay.box(c))
            ]
            assert not crossed, (a, b, crossed)
    px, py, pw, ph = lay.panel
    for c in ids:  # the panel (tracks and markers) covers no location
        cx, cy, w, h = lay.box(c)
        assert cx >= px + pw or cx + w <= px or cy >= py + ph or cy + h <= py, c
    assert _segment_meets_box((0, 0), (100, 100), (40, 40, 20, 20))
    assert not _segment_meets_box((0, 0), (100, 0), (40, 10, 20, 20))


def test_the_renderer_depends_on_the_core_only() -> None:
    """Rendering layer rule: the renderer and viewer import nothing above the rules core."""
    code = (
        "import sys, json; import ffo_env.springtime.core.record; base = set(sys.modules);"
        "import ffo_env.springtime.render.viewer, ffo_env.springtime.render.svg;"
        "print(json.dumps(sorted(m for m in set(sys.modules) - base if m.split('.')[0] in"
        " ('agents', 'gymnasium', 'pettingzoo', 'PIL', 'flask', 'webplay', 'torch', 'ffo_env')"
        " and not m.startswith(('ffo_env.springtime.render', 'ffo_env.springtime.core', 'ffo_env.ffo.core',"
        " 'ffo_env.atomic')))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []


# ---------------------------------------------------------------------------- the replay viewer


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    from agents.registry import make_agent

    state = Game().new_initial_state(3)
    bots = {
        s: make_agent("heuristic", s, seed=i, game="springtime") for i, s in enumerate(("french", "german"))
    }
    rec = Recorder(state)
    while not state.is_terminal():
        rec.apply(bots[state.current_agent].act_state(state))
    return rec.record()


def test_viewer_frames_rebuild_the_replayed_position(record: dict[str, Any]) -> None:
    first, frames, final = replay_frames(record)
    n_agent = sum(1 for d in record["decisions"] if not d["auto"])
    assert len(frames) == n_agent
    cur = dict(first)
    for f in frames:
        cur.update(f["layers"])
    assert cur == layers(final) and set(cur) == set(layer_names(final.game))
    assert frames[-1]["d"][1] == len(record["decisions"])
    assert final.to_dict() == replay(record).to_dict()


def test_viewer_html_is_self_contained_and_names_no_held_marker(record: dict[str, Any]) -> None:
    html = build_viewer_html(record)
    assert "<script src" not in html and "<link" not in html
    assert set(re.findall(r"https?://[^\s\"'<>]+", html)) <= {"http://www.w3.org/2000/svg"}
    data = viewer_data(record)
    held_lines = {m for s in data["pool"] for m in re.findall(r"Event held: [^<]*", s)}
    assert held_lines and all(
        re.fullmatch(
            r"Event held: Allied (none|a marker \(hidden\)) · Axis (none|a marker "
            r"\(hidden\))",
            x,
        )
        for x in held_lines
    )
    assert all(r[0] is None for r, x in zip(data["dice"], record["dice"], strict=True) if "pick" in x)


def _forge(record: dict[str, Any], what: str) -> dict[str, Any]:
    bad = json.loads(json.dumps(record))
    agent = next(i for i, d in enumerate(bad["decisions"]) if not d["auto"])
    if what == "text":
        bad["decisions"][agent]["text"] = "french evacuates Paris"
    elif what == "die":
        k = next(i for i, x in enumerate(bad["dice"]) if "die" in x)
        bad["dice"][k]["die"] = bad["dice"][k]["die"] % 6 + 1
    elif what == "morale":
        bad["morale_log"][0]["why"] = "a forged reason"
    elif what == "held":
        bad["final_state"]["held"] = [9, 9]
    return bad


@pytest.mark.parametrize("what", ["text", "die", "morale", "held"])
def test_cli_replay_html_refuses_a_forged_record_and_writes_nothing(
    record: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str
) -> None:
    bad = _forge(record, what)
    src, out = tmp_path / "bad.json", tmp_path / "bad.html"
    write_record(src, bad)
    with pytest.raises(RecordError):
        build_viewer_html(bad)
    assert main(["replay", "--game", "springtime", str(src), "--html", str(out)]) == 2
    assert main(["replay", "--game", "springtime", str(src)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("error: ") for line in err)
    assert not out.exists()


def test_cli_play_writes_a_record_that_replays_into_a_viewer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec, html = tmp_path / "g.json", tmp_path / "g.html"
    args = ["play", "--game", "springtime", "--french", "heuristic", "--german", "random", "--seed", "5"]
    assert main([*args, "--record", str(rec), "--json"]) == 0
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    doc = json.loads(rec.read_text())
    assert line["game"] == "springtime" and line["winner"] == doc["winner"] and line["seed"] == 5
    assert main(["replay", "--game", "springtime", str(rec), "--html", str(html)]) == 0
    assert html.read_text().startswith("<!DOCTYPE html>") and "viewer written" in capsys.readouterr().out
    assert main([*args, "--setup", "fixed"]) == 2  # France Fights On's setup modes (R2) are refused
    assert "setup modes are France Fights On's" in capsys.readouterr().err
