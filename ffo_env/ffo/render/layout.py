"""Map geometry and palette shared by every renderer (PNG, HTML viewer, web play); numpy only, no Pillow.

Geometry is :func:`ffo_env.ffo.core.hexgrid.center_xy` (pointy-topped hexes, grid north = increasing column at
the top, odd columns half a hex east), scaled so that one centre-to-centre distance is ``HEX_PX * scale``.
"""

from __future__ import annotations

import math

import numpy as np

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.mapdata import ColoredRow, Terrain

__all__ = [
    "HEX_PX",
    "LEGEND_W",
    "MapLayout",
    "TERRAIN_RGB",
    "ROW_RGB",
    "RIVER_RGB",
    "BLOCKED_RGB",
    "GRID_RGB",
    "TEXT_RGB",
    "SIDE_RGB",
    "SIDE_TEXT_RGB",
    "PORT_RGB",
    "REFUGEE_RGB",
]

HEX_PX = 64.0  # centre-to-centre pixels at scale 1: ~2300 x 3400 px for the whole map

TERRAIN_RGB = {
    Terrain.CLEAR: (236, 230, 196),
    Terrain.ROUGH: (196, 178, 120),
    Terrain.MARSH: (150, 190, 160),
    Terrain.MOUNTAIN: (150, 118, 86),
    Terrain.SEA: (120, 170, 215),
    Terrain.NEUTRAL: (175, 175, 175),
}
ROW_RGB = {
    ColoredRow.RED: (240, 140, 130),
    ColoredRow.GREEN: (150, 215, 140),
    ColoredRow.YELLOW: (248, 230, 100),
}
RIVER_RGB = (30, 90, 220)
BLOCKED_RGB = (110, 0, 0)
GRID_RGB = (120, 120, 110)
TEXT_RGB = (20, 20, 20)
SIDE_RGB = {"french": (70, 120, 215), "german": (125, 130, 120)}
SIDE_TEXT_RGB = {"french": (255, 255, 255), "german": (255, 255, 255)}
PORT_RGB = (20, 40, 120)
REFUGEE_RGB = (240, 140, 20)
LEGEND_W = 560.0  # legend panel width at scale 1


class MapLayout:
    """Pixel geometry of the map for a given scale (shared by map and overlay drawing)."""

    def __init__(self, scale: float = 1.0, legend: bool = True) -> None:
        self.scale = scale
        self.s = HEX_PX * scale  # centre-to-centre distance
        self.r = self.s / math.sqrt(3.0)  # centre-to-corner radius
        self.margin = 0.6 * self.s + 8
        centers = np.array([hg.center_xy(i) for i in range(hg.N_HEX)])
        self._cx = centers[:, 0]
        self._cy = centers[:, 1]
        self.top = self.margin + 90 * scale  # room for the title
        self.map_w = (self._cx.max() + 1.0) * self.s + 2 * self.margin
        self.map_h = self._cy.max() * self.s + 2 * self.r + self.top + self.margin
        self.legend_w = LEGEND_W * scale if legend else 0.0
        self.width = int(math.ceil(self.map_w + self.legend_w))
        self.height = int(math.ceil(self.map_h))

    def center(self, i: int) -> tuple[float, float]:
        x = self.margin + (self._cx[i] + 0.5) * self.s
        y = self.top + self.r + (self._cy.max() - self._cy[i]) * self.s  # grid north up
        return float(x), float(y)

    def corner(self, i: int, k: int) -> tuple[float, float]:
        """Corner ``k`` (0..5) at angle 30 + 60k degrees counter-clockwise from east."""
        x, y = self.center(i)
        a = math.radians(30 + 60 * k)
        return x + self.r * math.cos(a), y - self.r * math.sin(a)

    def polygon(self, i: int, shrink: float = 1.0) -> list[tuple[float, float]]:
        x, y = self.center(i)
        pts = []
        for k in range(6):
            cx, cy = self.corner(i, k)
            pts.append((x + (cx - x) * shrink, y + (cy - y) * shrink))
        return pts

    def side(self, i: int, d: int) -> tuple[tuple[float, float], tuple[float, float]]:
        """End points of the hexside of hex ``i`` in direction ``d`` (direction d is at 60d degrees)."""
        return self.corner(i, (d - 1) % 6), self.corner(i, d)
