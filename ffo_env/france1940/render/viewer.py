"""``ffo replay --game france1940 GAME.json --html GAME.html``: one self-contained HTML file (no network) to
step through a France 1940 game record, with both sides' eyes or one side's.

The record is verified first by the core's :func:`ffo_env.france1940.core.record.replay` (every decision,
its text, every die, the log, VP, result and final state): a record that does not verify raises
:class:`~ffo_env.france1940.core.record.RecordError` and nothing is written. The frames are then rebuilt by
the engine from the record's seed and agent decisions, and the final position is checked against the
verified one.

``viewer=None`` (public) shows everything but the dice generator; ``viewer=0`` (Allied) or ``1`` (German)
draws every frame from that side's view (:func:`ffo_env.france1940.core.visibility.view`): with
``hidden_obac`` the opponent's army and its arrival schedule are never in the file (not in the drawings,
the title, the dice, nor the data), and in a one-side viewer the seed is left out too.

A frame is the drawing after one agent decision (the automatic decisions that follow share it), sent as
the SVG layers (:mod:`.svg`) that changed from the previous frame; each distinct drawing is sent once.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from ffo_env.atomic import atomic_write_text
from ffo_env.france1940.core.data import AGENTS
from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.options import RulesOptions
from ffo_env.france1940.core.record import Recorder, RecordError, replay
from ffo_env.france1940.core.state import State
from ffo_env.france1940.core.state_io import state_to_dict
from ffo_env.france1940.render.hexmap import base_svg, svg_open
from ffo_env.france1940.render.svg import FIXED_LAYERS, layers
from ffo_env.france1940.render.view import PUBLIC, seen

__all__ = ["build_viewer_html", "replay_frames", "static_text", "viewer_data", "write_viewer"]

VIEWERS = {"public": PUBLIC, "french": 0, "german": 1}


def static_text(name: str) -> str:
    """A file of ``ffo_env/france1940/render/static`` (shipped as package data)."""
    return resources.files("ffo_env.france1940.render").joinpath("static", name).read_text(encoding="utf-8")


def _check_viewer(viewer: int | None) -> None:
    if viewer not in (PUBLIC, 0, 1) or isinstance(viewer, bool):
        raise ValueError(f"viewer must be 0 (french), 1 (german) or None (both sides), not {viewer!r}")


def _counts(v: dict[str, Any]) -> list[int]:
    """How many dice and log events the view holds so far."""
    return [len(v["rolls"]), len(v["log"])]


def replay_frames(
    record: dict[str, Any], viewer: int | None = PUBLIC
) -> tuple[dict[str, str], list[dict[str, Any]], dict[str, Any]]:
    """Verify ``record`` and rebuild its frames: (first layers, deltas, final view).

    Delta ``k`` follows agent decision ``k``: ``{"layers": {name: svg}, "d": [i, j], "n": [dice, log]}``;
    a layer that is no longer drawn (a hex left empty) is given as ``""``; ``i`` is the record index of the
    agent decision and ``j`` one past the last automatic decision that followed it."""
    _check_viewer(viewer)
    verified = replay(record)  # raises RecordError naming the first field that differs
    game = Game(RulesOptions.from_dict(record["options"]))
    rec = Recorder(game.new_initial_state(int(record["seed"])))
    state: State = rec.state
    cache: dict[Any, str] = {}
    v = seen(state, viewer)
    first = layers(game, v, cache)
    prev = first
    frames: list[dict[str, Any]] = [{"n": _counts(v)}]
    for i, d in enumerate(record["decisions"]):
        if d.get("auto") is True:
            continue
        rec.apply(int(d["action"]))
        v = seen(state, viewer)
        cur = layers(game, v, cache)
        delta = {k: s for k, s in cur.items() if prev.get(k) != s}
        delta.update({k: "" for k in prev if k not in cur})
        frames.append({"layers": delta, "d": [i, len(state.history)], "n": _counts(v)})
        prev = cur
    if state_to_dict(state) != state_to_dict(verified):  # the same engine on the same decisions
        raise RecordError("final_state: the frames' replay differs from the verified replay")
    return first, frames, v


def viewer_data(record: dict[str, Any], viewer: int | None = PUBLIC) -> dict[str, Any]:
    """Everything the HTML viewer shows besides the static map: layers per frame, decisions, dice, events,
    as ``viewer`` may see them."""
    first, frames, final = replay_frames(record, viewer)
    start = frames.pop(0)["n"]
    decisions = [
        [AGENTS.index(d["player"]), int(bool(d.get("auto"))), d.get("text") or "automatic", d.get("at", "")]
        for d in record["decisions"]
    ]
    pool: dict[str, int] = {}

    def ref(layer: dict[str, str]) -> dict[str, int]:
        return {k: pool.setdefault(s, len(pool)) for k, s in layer.items()}

    return {
        "game": "france1940",
        "viewer": None if viewer is None else AGENTS[viewer],
        "seed": record["seed"] if viewer is None else None,  # the generator's seed is hidden from a side
        "columns": list(final["columns"]),
        "first": ref(first),
        "n0": start,
        "frames": [dict(f, layers=ref(f["layers"])) for f in frames],
        "pool": list(pool),
        "decisions": decisions,
        "dice": [[str(r[0]), r[1]] for r in final["rolls"]],
        "events": [[str(x) for x in e] for e in final["log"]],
        "result": record["result"],
        "winner": record["winner"],
    }


def _script_json(obj: Any) -> str:
    # inside <script type="application/json">: "</" would end the element early
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")


def map_svg(game: Game) -> str:
    """The viewer's and the play page's map: the base with hex ids (shown on demand) and empty layers."""
    groups = '<g id="layer-forts"></g><g id="layer-status"></g><g id="units"></g><g id="layer-air"></g>'
    groups += '<g id="layer-panel"></g><g id="picks"></g>'
    return svg_open() + base_svg(game, hex_ids=True) + groups + "</svg>"


def build_viewer_html(record: dict[str, Any], viewer: int | None = PUBLIC) -> str:
    """The viewer of ``record`` as one HTML document (raises RecordError if the record does not verify)."""
    data = viewer_data(record, viewer)
    data["fixed"] = list(FIXED_LAYERS)
    game = Game(RulesOptions.from_dict(record["options"]))
    page = static_text("viewer.html")
    page = page.replace("/*__CSS__*/", static_text("f40.css"))
    page = page.replace("/*__JS__*/", static_text("map.js") + "\n" + static_text("viewer.js"))
    page = page.replace("__MAP__", map_svg(game))
    # the data last, so that nothing inside the game's text is taken for a placeholder
    return page.replace("__DATA__", _script_json(data))


def write_viewer(record: dict[str, Any], path: str | Path, viewer: int | None = PUBLIC) -> int:
    """Write the viewer of ``record`` to ``path`` atomically (nothing is written if it does not verify);
    return its size in bytes."""
    html = build_viewer_html(record, viewer)
    atomic_write_text(Path(path), html)
    return len(html.encode("utf-8"))
