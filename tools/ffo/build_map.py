#!/usr/bin/env python3
"""Build ``ffo_env/ffo/data/map.csv`` from ``ffo_env/ffo/data/geography.yaml``.

Projects real southern France onto the hex grid as components.md §2 says:
grid "north" (increasing column XX) is true bearing 340 deg, grid "east"
(increasing row YY) is bearing 70 deg, hex centres are 12.87 km apart and
Dijon is the centre of hex 5625. The geometry is that of
``hexgrid.center_xy`` (1 unit = one centre-to-centre distance; odd columns
half a hex east), so what the renderer draws is what was projected.

- terrain: by where the hex centre falls (sea south of the coast, neutral
  countries, then the terrain regions in file order, clear otherwise);
- rivers / the Pyrenees crest: on the hexside whose centre-to-centre segment
  crosses the polyline; blocked = crest + every land hexside next to a neutral hex;
- colored rows (rule 5.5): forced clear, riverless, cityless, no blocked sides
  except toward sea/neutral;
- cities: the hex containing the point; a city that lands in a colored row,
  at sea, in a neutral hex or on another city moves to the nearest valid hex,
  and a port that is not coastal to the nearest valid coastal hex — each
  reported. Hand fixes listed under ``overrides`` in geography.yaml are
  applied last and reported too.

The game never runs this script; it only reads the committed map.csv, which
may also be edited by hand. Usage: ``python tools/ffo/build_map.py [--out PATH]``.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # let the script run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from ffo_env.ffo.core import hexgrid as hg  # noqa: E402
from ffo_env.ffo.core.mapdata import ColoredRow, MapData, Terrain  # noqa: E402
from ffo_env.ffo.core.mapfile import MAP_VERSION, expected_rows, save_map  # noqa: E402

EARTH_KM = 6371.0
DEFAULT_GEO = ROOT / "ffo_env" / "ffo" / "data" / "geography.yaml"
DEFAULT_OUT = (
    ROOT / "ffo_env" / "ffo" / "data" / "reconstruction-v1" / "map.csv"
)  # the map geography.yaml describes
Point = tuple[float, float]


# ---------------------------------------------------------------- projection
@dataclass(frozen=True)
class Projection:
    """lat/lon -> plane coordinates of ``hexgrid.center_xy`` (east, north in hex units)."""

    lat0: float
    lon0: float
    north_bearing: float
    hex_km: float
    x0: float
    y0: float

    def km(self, lat: float, lon: float) -> tuple[float, float]:
        """Azimuthal equidistant (east, north) km from the anchor: true distance and bearing from Dijon."""
        p1, p2 = math.radians(self.lat0), math.radians(lat)
        dl = math.radians(lon - self.lon0)
        cos_c = math.sin(p1) * math.sin(p2) + math.cos(p1) * math.cos(p2) * math.cos(dl)
        c = math.acos(max(-1.0, min(1.0, cos_c)))
        if c < 1e-12:
            return 0.0, 0.0
        az = math.atan2(
            math.sin(dl) * math.cos(p2),
            math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl),
        )
        d = c * EARTH_KM
        return d * math.sin(az), d * math.cos(az)

    def xy(self, lat: float, lon: float) -> Point:
        e, n = self.km(lat, lon)
        gn = math.radians(self.north_bearing)  # grid north as a true bearing
        ge = gn + math.pi / 2  # grid east = 90 deg clockwise of it (bearing 70)
        u = e * math.sin(ge) + n * math.cos(ge)
        v = e * math.sin(gn) + n * math.cos(gn)
        return self.x0 + u / self.hex_km, self.y0 + v / self.hex_km


def make_projection(geo: dict) -> Projection:
    p = geo["projection"]
    anchor = p["anchor"]
    lat0, lon0 = geo["cities"][anchor["place"]]
    x0, y0 = hg.center_xy(hg.hex_index(str(anchor["hex"])))
    return Projection(lat0, lon0, float(p["north_bearing_deg"]), float(p["hex_km"]), x0, y0)


# ---------------------------------------------------------------- geometry
def point_in_polygon(pt: Point, poly: list[Point]) -> bool:
    x, y = pt
    inside = False
    n = len(poly)
    for k in range(n):
        (x1, y1), (x2, y2) = poly[k], poly[(k + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _cross(o: Point, a: Point, b: Point) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def segments_cross(p1: Point, p2: Point, q1: Point, q2: Point) -> bool:
    d1, d2 = _cross(q1, q2, p1), _cross(q1, q2, p2)
    d3, d4 = _cross(p1, p2, q1), _cross(p1, p2, q2)
    return (d1 > 0) != (d2 > 0) and (d3 > 0) != (d4 > 0)


def polyline_crosses(p1: Point, p2: Point, line: list[Point]) -> bool:
    return any(segments_cross(p1, p2, line[k], line[k + 1]) for k in range(len(line) - 1))


CENTERS = np.array([hg.center_xy(i) for i in range(hg.N_HEX)])


def hexes_by_distance(pt: Point) -> np.ndarray:
    """Hex indices, nearest centre first (the first one is the hex containing ``pt``)."""
    d = np.hypot(CENTERS[:, 0] - pt[0], CENTERS[:, 1] - pt[1])
    return np.argsort(d, kind="stable")


def side_pairs() -> list[tuple[int, int, int]]:
    """Each on-map hexside once, as (hex, direction, neighbour)."""
    out = []
    for i in range(hg.N_HEX):
        for d in (0, 1, 2):  # E, NE, NW; the other three are the same sides seen from the neighbour
            j = int(hg.NEIGHBORS[i, d])
            if j >= 0:
                out.append((i, d, j))
    return out


# ---------------------------------------------------------------- build
@dataclass
class Built:
    terrain: np.ndarray
    city: list[str]
    port: np.ndarray
    row: np.ndarray
    river: np.ndarray
    blocked: np.ndarray
    fixes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def mapdata(self) -> MapData:
        return MapData(
            terrain=self.terrain,
            city=tuple(self.city),
            port=self.port,
            row=self.row,
            river=self.river,
            blocked=self.blocked,
            source="tools/build_map.py",
        )


def _pts(proj: Projection, latlons: list) -> list[Point]:
    return [proj.xy(float(a), float(b)) for a, b in latlons]


def build(geo: dict) -> Built:
    proj = make_projection(geo)
    n = hg.N_HEX
    centers = [tuple(c) for c in CENTERS]
    terrain = np.full(n, Terrain.CLEAR, dtype=np.int8)

    # Sea: close the coast into a land polygon running off the map at both ends
    # (west along the first point's grid line, east along the last one's, then far north).
    coast = _pts(proj, geo["coast"])
    far = 1000.0
    land_poly = (
        [(coast[0][0] - far, coast[0][1])]
        + coast
        + [(coast[-1][0] + far, coast[-1][1]), (coast[-1][0] + far, far), (coast[0][0] - far, far)]
    )
    sea = np.array([not point_in_polygon(c, land_poly) for c in centers])

    lines = {"pyrenees_crest": _pts(proj, geo["pyrenees_crest"])}
    neutral = np.zeros(n, dtype=bool)
    for name, spec in geo.get("neutral", {}).items():
        border = lines[spec["border"]] if isinstance(spec["border"], str) else _pts(proj, spec["border"])
        poly = border + _pts(proj, spec["beyond"])
        inside = np.array([point_in_polygon(c, poly) for c in centers]) & ~sea
        neutral |= inside
        if inside.any():
            names = " ".join(hg.hex_name(i) for i in np.flatnonzero(inside))
            print(f"neutral {name}: {int(inside.sum())} hexes: {names}")

    for reg in geo.get("regions", []):
        t = Terrain[reg["terrain"].upper()]
        if "polygon" in reg:
            poly = _pts(proj, reg["polygon"])
            inside = np.array([point_in_polygon(c, poly) for c in centers])
        else:
            cx, cy = proj.xy(*reg["circle"]["centre"])
            r = float(reg["circle"]["radius_km"]) / proj.hex_km
            inside = np.hypot(CENTERS[:, 0] - cx, CENTERS[:, 1] - cy) <= r
        terrain[inside] = t
    terrain[neutral] = Terrain.NEUTRAL
    terrain[sea] = Terrain.SEA

    row = expected_rows()
    colored = row != ColoredRow.NONE
    fixes: list[str] = []
    notes: list[str] = []
    recolored = colored & (terrain != Terrain.CLEAR)
    if recolored.any():
        notes.append(f"rule 5.5: {int(recolored.sum())} colored row hexes forced to clear")
    terrain[colored] = Terrain.CLEAR

    # Rivers and the crest, on hexsides whose centre-to-centre segment crosses them.
    river = np.zeros((n, hg.N_DIR), dtype=bool)
    blocked = np.zeros((n, hg.N_DIR), dtype=bool)
    rivers = {name: _pts(proj, pts) for name, pts in geo["rivers"].items()}
    land = (terrain != Terrain.SEA) & (terrain != Terrain.NEUTRAL)

    def mark(arr: np.ndarray, i: int, d: int, j: int) -> None:
        arr[i, d] = True
        arr[j, (d + 3) % 6] = True

    dropped_colored = 0
    for i, d, j in side_pairs():
        a, b = centers[i], centers[j]
        if land[i] and land[j] and any(polyline_crosses(a, b, line) for line in rivers.values()):
            if colored[i] or colored[j]:
                dropped_colored += 1  # rule 5.5: colored rows are riverless
            else:
                mark(river, i, d, j)
        both_land = terrain[i] != Terrain.SEA and terrain[j] != Terrain.SEA
        if both_land and polyline_crosses(a, b, lines["pyrenees_crest"]):
            mark(blocked, i, d, j)
        if (land[i] and terrain[j] == Terrain.NEUTRAL) or (land[j] and terrain[i] == Terrain.NEUTRAL):
            mark(blocked, i, d, j)
    if dropped_colored:
        notes.append(f"rule 5.5: {dropped_colored} river hexsides on colored rows dropped")
    for i, d, j in side_pairs():  # colored rows: blocked only against sea/neutral
        if (colored[i] or colored[j]) and blocked[i, d] and land[i] and land[j]:
            blocked[i, d] = blocked[j, (d + 3) % 6] = False
            notes.append(f"rule 5.5: blocked side {hg.hex_name(i)}-{hg.hex_name(j)} on a colored row dropped")

    # Cities: hex containing the point, moved to the nearest valid hex when needed.
    city = [""] * n
    port = np.zeros(n, dtype=bool)
    ports = set(geo.get("ports", []))
    overrides = geo.get("overrides") or {}
    city_over = {k: hg.hex_index(str(v["hex"])) for k, v in (overrides.get("cities") or {}).items()}
    coastal = _coastal(terrain)

    def valid(i: int, name: str) -> bool:
        ok = land[i] and not colored[i] and not city[i]
        return ok and (name not in ports or bool(coastal[i]))

    for name, (lat, lon) in geo["cities"].items():
        pt = proj.xy(lat, lon)
        order = hexes_by_distance(pt)
        natural = int(order[0])
        if name in city_over:
            i = city_over[name]
            why = (overrides["cities"][name].get("why") or "").strip()
            fixes.append(
                f"manual fix (geography.yaml overrides): {name} {hg.hex_name(natural)} -> "
                f"{hg.hex_name(i)}: {why}"
            )
        else:
            i = next(int(k) for k in order if valid(int(k), name))
            if i != natural:
                fixes.append(
                    f"auto-moved: {name} projects to {hg.hex_name(natural)} "
                    f"({_why_invalid(natural, name, land, colored, city, coastal, ports)}); "
                    f"placed in nearest valid hex {hg.hex_name(i)}"
                )
        city[i] = name
        port[i] = name in ports

    for hid, spec in (overrides.get("terrain") or {}).items():
        i = hg.hex_index(str(hid))
        old = Terrain(int(terrain[i])).name.lower()
        terrain[i] = Terrain[spec["terrain"].upper()]
        fixes.append(
            f"manual fix (geography.yaml overrides): hex {hg.hex_name(i)} terrain {old} -> "
            f"{spec['terrain']}: {(spec.get('why') or '').strip()}"
        )

    # R14 / rule 11.5: cities nullify the river hexsides around them.
    n_city_rivers = 0
    for i in range(n):
        if city[i]:
            for d in np.flatnonzero(river[i]):
                j = int(hg.NEIGHBORS[i, d])
                river[i, d] = river[j, (d + 3) % 6] = False
                n_city_rivers += 1
    if n_city_rivers:
        notes.append(f"rule 11.5/R14: {n_city_rivers} river hexsides around city hexes dropped")

    built = Built(terrain, city, port, row, river, blocked, fixes, notes)
    _report_places(geo, proj, built)
    return built


def _coastal(terrain: np.ndarray) -> np.ndarray:
    sea = terrain == Terrain.SEA
    land = ~sea & (terrain != Terrain.NEUTRAL)
    nb = hg.NEIGHBORS
    adj = np.array([any(j >= 0 and sea[j] for j in nb[i]) for i in range(hg.N_HEX)])
    return land & adj


def _why_invalid(
    i: int,
    name: str,
    land: np.ndarray,
    colored: np.ndarray,
    city: list[str],
    coastal: np.ndarray,
    ports: set[str],
) -> str:
    if not land[i]:
        return "not a land hex"
    if colored[i]:
        return "in a colored row"
    if city[i]:
        return f"already holds {city[i]}"
    if name in ports and not coastal[i]:
        return "a port must be coastal"
    return "?"


def _report_places(geo: dict, proj: Projection, built: Built) -> None:
    rows = []
    for name, (lat, lon) in geo.get("places", {}).items():
        x, y = proj.xy(lat, lon)
        i = int(hexes_by_distance((x, y))[0])
        on = -0.5 <= x <= 25.5 and -0.5 <= y <= CENTERS[:, 1].max() + 0.5
        where = hg.hex_name(i) if on else f"off map (near {hg.hex_name(i)})"
        rows.append(f"{name} {where}")
    built.notes.append("orientation places: " + "; ".join(rows))


def reachability(md: MapData) -> tuple[np.ndarray, np.ndarray]:
    """Land hexes reachable by land through non-blocked hexsides from the green / the red row."""

    def flood(start: list[int]) -> np.ndarray:
        seen = np.zeros(hg.N_HEX, dtype=bool)
        q = deque(start)
        seen[start] = True
        while q:
            i = q.popleft()
            for d, j in hg.NEIGHBOR_DIRS[i]:
                if not seen[j] and md.land[j] and not md.blocked[i, d]:
                    seen[j] = True
                    q.append(j)
        return seen

    return flood(md.row_hexes(ColoredRow.GREEN)), flood(md.row_hexes(ColoredRow.RED))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--geography", type=Path, default=DEFAULT_GEO, help="geographic facts (YAML)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="map file to write (default: %(default)s)")
    args = ap.parse_args(argv)

    geo = yaml.safe_load(args.geography.read_text(encoding="utf-8"))
    built = build(geo)
    md = built.mapdata()
    version = str(geo.get("version", MAP_VERSION))

    counts = {t.name.lower(): int((md.terrain == t).sum()) for t in Terrain}
    print("terrain: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print(
        f"river hexsides {int(md.river.sum()) // 2}, blocked hexsides {int(md.blocked.sum()) // 2}, "
        f"coastal hexes {int(md.coastal.sum())}"
    )
    for note in built.notes:
        print(note)
    print(
        "cities: "
        + ", ".join(
            f"{c} {hg.hex_name(i)}{' (port)' if md.port[i] else ''}" for i, c in enumerate(md.city) if c
        )
    )
    print(f"fixes ({len(built.fixes)}):" if built.fixes else "fixes: none")
    for f in built.fixes:
        print("  " + f)
    green, red = reachability(md)
    cut = np.flatnonzero(md.land & ~green)
    if len(cut):
        print(
            "WARNING: land hexes not reachable from the green row: " + " ".join(hg.hex_name(i) for i in cut)
        )
    bad_ports = [md.city[i] for i in md.port_hexes() if not red[i]]
    if bad_ports:
        print("WARNING: ports not reachable from the red row: " + ", ".join(bad_ports))

    save_map(md, args.out, version)
    print(f"wrote {args.out} ({version})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
