"""``ffo replay --game springtime GAME.json --html GAME.html``: one self-contained HTML file to step through a
Springtime game (step, play, scrub; no network).

The record is verified first by the core's :func:`ffo_env.springtime.core.record.replay` (every decision,
its text, every die, the Morale log, the result and the final state); a record that does not verify raises
:class:`~ffo_env.springtime.core.record.RecordError` and nothing is drawn. The frames are then rebuilt by the
engine from the record's seed and agent decisions (the same play the verification made), and the final
position is checked against the verified one. The replay shows what the record shows publicly: no held
Event marker is identified (:data:`ffo_env.springtime.render.view.PUBLIC`), and a draw's index is not sent.

A frame is the drawing after one agent decision (the automatic decisions that follow share it), sent as
the SVG layers (:mod:`.svg`) that changed from the previous frame.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from ffo_env.atomic import atomic_write_text
from ffo_env.springtime.core.data import AGENTS
from ffo_env.springtime.core.game import Game, RulesOptions
from ffo_env.springtime.core.record import Recorder, RecordError, replay
from ffo_env.springtime.core.state import State
from ffo_env.springtime.core.state_io import state_to_dict
from ffo_env.springtime.render.svg import base_svg, layer_names, layers
from ffo_env.springtime.render.view import PUBLIC

__all__ = ["replay_frames", "viewer_data", "build_viewer_html", "write_viewer", "static_text"]


def static_text(name: str) -> str:
    """A file of ``ffo_env/springtime/render/static`` (shipped as package data)."""
    return resources.files("ffo_env.springtime.render").joinpath("static", name).read_text(encoding="utf-8")


def _changed(prev: dict[str, str], cur: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in cur.items() if prev.get(k) != v}


def _counts(state: State) -> list[int]:
    """How many dice/draws and Morale changes the game has logged so far."""
    return [len(state.dice_log), len(state.morale_log)]


def replay_frames(
    record: dict[str, Any], viewer: int | None = PUBLIC
) -> tuple[dict[str, str], list[dict[str, Any]], State]:
    """Verify ``record`` and rebuild its frames: (first layers, deltas, final state).

    Delta ``k`` follows agent decision ``k``: ``{"layers": {name: svg}, "d": [i, j]}`` where ``i`` is the
    record index of the agent decision and ``j`` one past the last automatic decision that followed it;
    ``"n"``: the number of dice and of Morale changes logged by then."""
    verified = replay(record)  # raises RecordError naming the first field that differs
    game = Game(scenario=str(record["scenario"]), options=RulesOptions.from_dict(record["options"]))
    rec = Recorder(game.new_initial_state(int(record["seed"])))
    state = rec.state
    cache: dict[tuple[Any, ...], str] = {}
    first = layers(state, viewer, cache=cache)
    prev = first
    frames: list[dict[str, Any]] = []
    for i, d in enumerate(record["decisions"]):
        if d.get("auto") is True:
            continue
        rec.apply(int(d["action"]))
        cur = layers(state, viewer, cache=cache)
        frames.append({"layers": _changed(prev, cur), "d": [i, len(state.history)], "n": _counts(state)})
        prev = cur
    if state_to_dict(state) != state_to_dict(verified):  # the same engine on the same decisions
        raise RecordError("final_state: the frames' replay differs from the verified replay")
    return first, frames, state


def _dice_rows(record: dict[str, Any]) -> list[list[Any]]:
    """[value or None, of, purpose, turn, box] per die and draw; a draw's index is private (S59)."""
    rows = []
    for x in record["dice"]:
        if "pick" in x:
            rows.append([None, x.get("of"), x.get("for", ""), x.get("turn"), x.get("box")])
        else:
            rows.append([x.get("die"), 6, x.get("for", ""), x.get("turn"), x.get("box")])
    return rows


def viewer_data(record: dict[str, Any], viewer: int | None = PUBLIC) -> dict[str, Any]:
    """Everything the HTML viewer shows besides the static map: layers per frame, decisions, dice, Morale."""
    first, frames, state = replay_frames(record, viewer)
    game = state.game
    start = _counts(game.new_initial_state(int(record["seed"])))
    decisions = [
        [AGENTS.index(d["player"]), int(bool(d.get("auto"))), d.get("text") or "automatic", d.get("at", "")]
        for d in record["decisions"]
    ]
    # each distinct layer drawing is sent once: a frame names the drawings by their index in "pool"
    pool: dict[str, int] = {}

    def ref(layer: dict[str, str]) -> dict[str, int]:
        return {k: pool.setdefault(v, len(pool)) for k, v in layer.items()}

    first_refs = ref(first)
    frame_refs = [dict(f, layers=ref(f["layers"])) for f in frames]
    return {
        "game": "springtime",
        "scenario": record["scenario"],
        "seed": record["seed"],
        "order": layer_names(state.game),
        "first": first_refs,
        "n0": start,
        "frames": frame_refs,
        "pool": list(pool),
        "decisions": decisions,
        "dice": _dice_rows(record),
        "morale_log": [[m["turn"], m["box"], m["delta"], m["why"]] for m in record["morale_log"]],
        "result": record["result"],
        "winner": record["winner"],
    }


def _script_json(obj: Any) -> str:
    # inside <script type="application/json">: "</" would end the element early
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")


def build_viewer_html(record: dict[str, Any], viewer: int | None = PUBLIC) -> str:
    """The viewer of ``record`` as one HTML document (raises RecordError if the record does not verify)."""
    data = viewer_data(record, viewer)
    game = Game(scenario=str(record["scenario"]), options=RulesOptions.from_dict(record["options"]))
    page = static_text("viewer.html")
    page = page.replace("/*__CSS__*/", static_text("sfh.css")).replace("/*__JS__*/", static_text("viewer.js"))
    from ffo_env.springtime.render.layout import default_layout

    lay = default_layout()
    svg_open = (
        f'<svg xmlns="http://www.w3.org/2000/svg" id="map" class="sfh-map" viewBox="0 0 {lay.width} '
        f'{lay.height}" font-family="DejaVu Sans, Arial, sans-serif">'
    )
    groups = "".join(f'<g id="layer-{name}"></g>' for name in data["order"])
    page = page.replace("__MAP__", svg_open + base_svg(game, lay) + groups + "</svg>")
    # the data last, so that nothing inside the game's text is taken for a placeholder
    return page.replace("__DATA__", _script_json(data))


def write_viewer(record: dict[str, Any], path: str | Path, viewer: int | None = PUBLIC) -> int:
    """Write the viewer of ``record`` to ``path`` atomically (nothing is written if it does not verify);
    return its size in bytes."""
    html = build_viewer_html(record, viewer)
    atomic_write_text(Path(path), html)
    return len(html.encode("utf-8"))
