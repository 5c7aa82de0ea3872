"""A replay viewer of *France, 1940*: one self-contained HTML file (no network) to step through a game record.

The record is verified first by the core's :func:`ffo_env.france1940.core.record.replay` (every decision,
its text, every die, the log, VP, result and final state): a record that does not verify raises
:class:`~ffo_env.france1940.core.record.RecordError` and nothing is written. The frames are then rebuilt by
the engine from the record's seed and agent decisions, and the final position is checked against the
verified one. The map is drawn from the game's data (terrain, cities, Paris, fortified hexes, countries'
borders by shade); a frame is the position after one agent decision (the automatic decisions that follow
share it), sent as the units that changed hex. The record is a finished game's: it shows everything.
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path
from typing import Any

from ffo_env.atomic import atomic_write_text
from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.hexgrid import COLUMNS, N_HEXES, col_row
from ffo_env.france1940.core.options import RulesOptions
from ffo_env.france1940.core.record import Recorder, RecordError, replay
from ffo_env.france1940.core.state import MAP, State
from ffo_env.france1940.core.state_io import state_to_dict

__all__ = ["build_viewer_html", "hex_centre", "viewer_data", "write_viewer"]

R = 10.0  # hex radius in SVG units
_H = math.sqrt(3.0) * R
_FILL = {".": "#e8e4c9", "f": "#9cbf7a", "s": "#a9c7c0", "w": "#8fb3d9", "~": "#6f9bd1"}


def hex_centre(n: int) -> tuple[float, float]:
    """The SVG centre of hex ``n``: column 1 is the east edge (right), odd columns sit half a hex higher."""
    c, r = col_row(n)
    x = (COLUMNS - c) * 1.5 * R + R
    y = r * _H - (_H / 2 if c % 2 == 1 else 0.0) + _H / 2
    return round(x, 1), round(y, 1)


def _positions(s: State) -> list[int]:
    return [s.hex[u] if st == MAP else 0 for u, st in enumerate(s.status)]


def _map_svg(game: Game) -> str:
    d = game.data
    corners = [(R * math.cos(math.pi / 3 * k), R * math.sin(math.pi / 3 * k)) for k in range(6)]
    parts = []
    for n in range(1, N_HEXES + 1):
        t = d.terrain[n]
        if t not in _FILL:
            continue
        x, y = hex_centre(n)
        pts = " ".join(f"{x + cx:.1f},{y + cy:.1f}" for cx, cy in corners)
        stroke = "#b03030" if n in d.fortified else "#c8c2a8"
        parts.append(
            f'<polygon points="{pts}" fill="{_FILL[t]}" stroke="{stroke}"><title>{n}</title></polygon>'
        )
    for n, (kind, name) in d.cities.items():
        x, y = hex_centre(n)
        size = 3.5 if kind == "C" else 2.0
        fill = "#202020" if n not in d.paris else "#b00000"
        parts.append(
            f'<circle cx="{x}" cy="{y}" r="{size}" fill="{fill}"><title>{html.escape(name)}</title></circle>'
        )
    return "".join(parts)


def viewer_data(record: dict[str, Any]) -> dict[str, Any]:
    """Verify ``record`` and rebuild its frames: the start positions, and per agent decision the units that
    changed hex (``[[unit, hex], ...]``, hex 0 off the map), its text, the decider and the VP."""
    verified = replay(record)  # raises RecordError naming the first field that differs
    game = Game(RulesOptions.from_dict(record["options"]))
    rec = Recorder(game.new_initial_state(int(record["seed"])))
    s = rec.state
    prev = _positions(s)
    start = list(prev)
    frames: list[list[Any]] = []
    for d in record["decisions"]:
        if d.get("auto") is True:
            continue
        text = f"{d.get('at', '')}: {d.get('text', '')}"
        rec.apply(int(d["action"]))
        cur = _positions(s)
        moved = [[u, h] for u, (h, p) in enumerate(zip(cur, prev, strict=True)) if h != p]
        frames.append([moved, text, list(s.vp)])
        prev = cur
    if state_to_dict(s) != state_to_dict(verified):
        raise RecordError("final_state: the frames' replay differs from the verified replay")
    return {
        "units": [[spec.id, spec.side] for spec in game.units],
        "centres": [list(hex_centre(n)) if n else [0, 0] for n in range(N_HEXES + 1)],
        "start": start,
        "frames": frames,
        "columns": record["columns"],
        "result": record["result"],
        "winner": record["winner"],
    }


_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>France, 1940 - replay</title>
<style>body{font-family:sans-serif;margin:8px}#map{border:1px solid #999}
.u0{fill:#2a55c8}.u1{fill:#505050}#txt{font-family:monospace}</style></head>
<body><h3>France, 1940 &mdash; %(title)s</h3>
<div><button id="prev">&lt;</button><button id="play">play</button><button id="next">&gt;</button>
<input id="slider" type="range" min="0" max="%(n)d" value="0" style="width:60%%"> <span id="txt"></span></div>
<svg id="map" width="%(w)d" height="%(h)d" viewBox="0 0 %(w)d %(h)d">%(map)s<g id="units"></g></svg>
<script>
const D = %(data)s;
let pos = [], at = 0, timer = null;
function go(k) {
  pos = D.start.slice();
  for (let i = 0; i < k; i++) for (const [u, h] of D.frames[i][0]) pos[u] = h;
  at = k; draw();
}
function draw() {
  const g = document.getElementById('units'); const stacks = {}; let out = '';
  pos.forEach((h, u) => { if (!h) return; const k = stacks[h] = (stacks[h] || 0) + 1;
    const [x, y] = D.centres[h]; const [id, side] = D.units[u];
    out += `<circle class="u${side}" cx="${x + 3 * (k - 1)}" cy="${y - 3 * (k - 1)}" r="4"><title>${id}</title></circle>`; });
  g.innerHTML = out;
  const f = at > 0 ? D.frames[at - 1] : null;
  document.getElementById('txt').textContent = f ? `${at}/${D.frames.length} ${f[1]}  VP ${f[2][0]}-${f[2][1]}`
    : `start (columns ${D.columns.join(' / ')})`;
  document.getElementById('slider').value = at;
}
document.getElementById('slider').oninput = e => go(+e.target.value);
document.getElementById('next').onclick = () => go(Math.min(at + 1, D.frames.length));
document.getElementById('prev').onclick = () => go(Math.max(at - 1, 0));
document.getElementById('play').onclick = () => { if (timer) { clearInterval(timer); timer = null; return; }
  timer = setInterval(() => { if (at >= D.frames.length) { clearInterval(timer); timer = null; } else go(at + 1); }, 60); };
go(0);
</script></body></html>
"""


def build_viewer_html(record: dict[str, Any]) -> str:
    data = viewer_data(record)
    game = Game(RulesOptions.from_dict(record["options"]))
    xs = [c[0] for c in data["centres"][1:]]
    ys = [c[1] for c in data["centres"][1:]]
    title = f"{record['columns'][ALLIED]} vs {record['columns'][GERMAN]}, seed {record['seed']}, result {record['result']}"
    return _PAGE % {
        "title": html.escape(title),
        "n": len(data["frames"]),
        "w": int(max(xs) + 2 * R),
        "h": int(max(ys) + 2 * R),
        "map": _map_svg(game),
        "data": json.dumps(data, separators=(",", ":")).replace("</", "<\\/"),
    }


def write_viewer(record: dict[str, Any], path: str | Path) -> int:
    """Write the viewer of ``record`` to ``path`` (verified first: nothing is written for a record that does
    not replay); returns its size in bytes."""
    text = build_viewer_html(record)
    atomic_write_text(path, text)
    return len(text.encode("utf-8"))
