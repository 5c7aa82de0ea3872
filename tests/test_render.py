"""Map rendering: PNG (Pillow), text, and the ``ffo map`` command."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PIL")  # Pillow is the optional 'render' extra
from PIL import Image  # noqa: E402

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.mapdata import MapData, Terrain
from ffo_env.ffo.core.mapfile import load_map
from ffo_env.ffo.render import Counter, Marker, cli_map
from ffo_env.ffo.render.mapimage import RIVER_RGB, TERRAIN_RGB, MapLayout, render_map, to_array
from ffo_env.ffo.render.maptext import render_map_text

SCALE = 0.35  # small images keep the tests fast


@pytest.fixture(scope="module")
def md() -> MapData:
    return load_map()


@pytest.fixture(scope="module")
def img(md: MapData) -> Image.Image:
    return render_map(md, scale=SCALE)


def test_png_size_and_content(img: Image.Image) -> None:
    lay = MapLayout(SCALE)
    assert img.size == (lay.width, lay.height)
    assert img.mode == "RGB"
    arr = to_array(img)
    assert arr.shape == (lay.height, lay.width, 3) and arr.dtype == np.uint8
    assert len(np.unique(arr.reshape(-1, 3), axis=0)) > 20  # not blank
    assert lay.width < lay.height  # 26 hexes wide, 60 columns tall


def test_default_size_is_sensible() -> None:
    lay = MapLayout(1.0)
    assert 2000 <= lay.width <= 3000 and lay.height < 4000


def test_hex_colours_follow_terrain(md: MapData, img: Image.Image) -> None:
    lay = MapLayout(SCALE)
    arr = to_array(img)
    for hid in (101, 1205, 3022, 4005):  # sea, sea, mountain, mountain/rough (hex centre, below the number)
        i = hg.hex_index(hid)
        x, y = lay.center(i)
        px = tuple(int(v) for v in arr[int(y + 0.25 * lay.r), int(x + 0.3 * lay.r)])
        assert px == TERRAIN_RGB[Terrain(int(md.terrain[i]))], hid


def test_rivers_are_drawn(md: MapData, img: Image.Image) -> None:
    arr = to_array(img)
    blue = np.all(arr == np.array(RIVER_RGB, dtype=np.uint8), axis=2).sum()
    assert blue > 200
    no_rivers = MapData(
        terrain=md.terrain,
        city=md.city,
        port=md.port,
        row=md.row,
        river=np.zeros_like(md.river),
        blocked=md.blocked,
    )
    arr2 = to_array(render_map(no_rivers, scale=SCALE, hex_numbers=False))
    assert np.all(arr2 == np.array(RIVER_RGB, dtype=np.uint8), axis=2).sum() < blue / 10


def test_counter_overlay_changes_the_hex(md: MapData, img: Image.Image) -> None:
    i = hg.hex_index(5610)
    counters = [
        Counter(i, "XXXIX", "german", "8-4", stack=2, highlight=True),
        Counter(hg.hex_index(5510), "XVIII", "french", "3-1"),
    ]
    markers = [Marker(hg.hex_index(5510), "refugee"), Marker(hg.hex_index(4219), "control", side="german")]
    over = to_array(render_map(md, scale=SCALE, counters=counters, markers=markers))
    lay = MapLayout(SCALE)
    x, y = (int(v) for v in lay.center(i))
    base = to_array(img)
    assert not np.array_equal(base[y - 5 : y + 5, x - 5 : x + 5], over[y - 5 : y + 5, x - 5 : x + 5])
    with pytest.raises(ValueError):
        Counter(i, "x", "italian")
    with pytest.raises(ValueError):
        Marker(i, "control")


def _char(lines: list[str], hex_id: int) -> str:
    """Character of a hex: line 60-XX, position 3 + odd offset + 2*YY (between hexes: hexside marks)."""
    x, y = divmod(hex_id, 100)
    return lines[60 - x][3 + x % 2 + 2 * y]


def test_text_map(md: MapData) -> None:
    text = render_map_text(md, legend=False)
    lines = text.splitlines()
    assert len(lines) == hg.N_COLS  # one line per column
    assert lines[0].startswith("60 ") and lines[-1].startswith("01 ")  # north at top
    assert lines[0][3:].split() == ["g"] * 26 and lines[1][3:].split() == ["r"] * 25
    assert lines[1][3] == " " and lines[0][3] != " "  # odd columns are offset by half a hex
    assert set(lines[-1][3:].split()) == {"~"}
    full = render_map_text(md)
    assert "Dijon 5625" in full and "Marseille 1815 (port)" in full
    # Dijon's letter sits at row 25 of column 56
    letter = full.split("Dijon 5625")[0].split()[-1]
    assert _char(lines, 5625) == letter
    assert _char(lines, 101) == "~" and _char(lines, 3022) == "^"


def test_text_overlay(md: MapData) -> None:
    i = hg.hex_index(4412)
    lines = render_map_text(md, counters=[Counter(i, "I", "french", stack=2)], legend=False).splitlines()
    assert _char(lines, 4412) == "F"


def test_cli_png_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m.png"
    assert cli_map.main(["--png", str(out), "--scale", "0.3"]) == 0
    with Image.open(out) as im:
        assert im.size == (MapLayout(0.3).width, MapLayout(0.3).height)
    assert cli_map.main(["--text"]) == 0
    assert "Dijon" in capsys.readouterr().out
    parser = argparse.ArgumentParser()
    cli_map.add_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args([])  # one of --png / --text is required


def test_cli_reports_bad_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("version,x\nhex,terrain\n", encoding="utf-8")
    assert cli_map.main(["--text", "--map", str(bad)]) == 2
    assert str(bad) in capsys.readouterr().err
