"""Where the Springtime map is drawn: ``layout.yaml`` beside this module, validated on load.

The layout is not game data (the rules never read it): it places each location's box on the SVG canvas.
A :class:`~ffo_env.core.errors.DataError` names the file, the key and what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from ffo_env.core.errors import DataError

LAYOUT_FILE = Path(__file__).resolve().parent / "layout.yaml"
LAYOUT_VERSION = "sfh-render-layout-1"


@dataclass(frozen=True)
class Layout:
    width: int
    height: int
    box_w: int
    box_h: int
    panel: tuple[int, int, int, int]  # x, y, width, height
    centre: dict[str, tuple[int, int]]  # location id -> box centre

    def box(self, loc_id: str) -> tuple[int, int, int, int]:
        """(x, y, width, height) of a location's box."""
        cx, cy = self.centre[loc_id]
        return cx - self.box_w // 2, cy - self.box_h // 2, self.box_w, self.box_h


def _pair(file: str, key: str, v: object, lo: int, hi: int, n: int = 2) -> tuple[int, ...]:
    if not (isinstance(v, list) and len(v) == n and all(type(x) is int and lo <= x <= hi for x in v)):
        raise DataError(f"{file}: {key}: expected a list of {n} integers in [{lo}, {hi}], found {v!r}")
    return tuple(v)


def load_layout(path: str | Path = LAYOUT_FILE, loc_ids: tuple[str, ...] | None = None) -> Layout:
    """Read and check ``path``; ``loc_ids`` (default: the game data's) must all be placed, in the canvas."""
    p = Path(path)
    f = p.name
    try:
        doc = yaml.safe_load(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise DataError(f"{p}: cannot read: {e.strerror or e}") from None
    except yaml.YAMLError as e:
        raise DataError(f"{p}: not valid YAML: {e}") from None
    if not isinstance(doc, dict) or doc.get("version") != LAYOUT_VERSION:
        found = doc.get("version") if isinstance(doc, dict) else type(doc).__name__
        raise DataError(f"{f}: version: expected {LAYOUT_VERSION!r}, found {found!r}")
    w, h = _pair(f, "canvas", doc.get("canvas"), 200, 10_000)
    bw, bh = _pair(f, "box", doc.get("box"), 40, 400)
    panel = _pair(f, "panel", doc.get("panel"), 0, 10_000, 4)
    locs = doc.get("locations")
    if not isinstance(locs, dict):
        raise DataError(f"{f}: locations: expected a mapping id -> [x, y], found {locs!r}")
    if loc_ids is None:
        from ffo_env.springtime.core.data import default_data

        loc_ids = tuple(x.id for x in default_data().locations)
    centre: dict[str, tuple[int, int]] = {}
    for lid in loc_ids:
        if lid not in locs:
            raise DataError(f"{f}: locations: location {lid!r} has no position")
        x, y = _pair(f, f"locations.{lid}", locs[lid], 0, 10_000)
        if not (bw // 2 <= x <= w - bw // 2 and bh // 2 <= y <= h - bh // 2):
            raise DataError(
                f"{f}: locations.{lid}: expected a box inside the {w}x{h} canvas, found [{x}, {y}]"
            )
        centre[lid] = (x, y)
    extra = sorted(set(map(str, locs)) - set(loc_ids))
    if extra:
        raise DataError(f"{f}: locations: unknown location ids {extra}")
    return Layout(w, h, bw, bh, (panel[0], panel[1], panel[2], panel[3]), centre)


@lru_cache(maxsize=1)
def default_layout() -> Layout:
    return load_layout()
