"""Rendering of a state for ``render_mode`` ``"ansi"`` and ``"rgb_array"``.

Renders the full state (it is for people watching, not for agents: no fog of war).
The base map image is drawn once per (scenario map, scale) and cached; each frame
copies it and draws the counters and markers on top.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ffo_env.ffo.core.game import Game
from ffo_env.ffo.core.state import State
from ffo_env.ffo.render import Counter, Marker

_BASE_CACHE: dict[tuple[int, float], Any] = {}  # (id(map), scale) -> (PIL image, MapLayout, map)


def counters_of(state: State) -> list[Counter]:
    """One counter per stack: the top unit (R3) with its CF and the stack height."""
    out = []
    units = state.units
    for h, st in sorted(state.stacks.items()):
        top = st[-1]
        spec = units[top]
        label = spec.id.split("-", 1)[-1]
        red = "" if state.is_full(top) else "r"
        out.append(
            Counter(
                hex_index=h,
                label=label,
                side=spec.side.agent,
                top_text=f"{state.cf(top)}{red}",
                stack=len(st),
                highlight=top == state.selected_unit(),
            )
        )
    return out


def markers_of(state: State) -> list[Marker]:
    return [
        Marker(hex_index=h, kind="refugee", text="R*" if f else "R")
        for h, f in sorted(state.refugees.items())
    ]


class Renderer:
    def __init__(self, game: Game, scale: float = 0.35) -> None:
        self.game = game
        self.scale = scale

    def ansi(self, state: State) -> str:
        from ffo_env.ffo.render.maptext import render_map_text

        text = render_map_text(self.game.scenario.map, counters_of(state), markers_of(state), legend=False)
        return text + "\n" + str(state) + "\n"

    def rgb_array(self, state: State) -> np.ndarray:
        from PIL import ImageDraw

        from ffo_env.ffo.render import mapimage as mi

        md = self.game.scenario.map
        key = (id(md), float(self.scale))
        hit = _BASE_CACHE.get(key)
        if hit is None or hit[2] is not md:
            base = mi.render_map(md, scale=self.scale, legend=False, hex_numbers=False)
            hit = (base, mi.MapLayout(self.scale, legend=False), md)
            _BASE_CACHE[key] = hit
        base, lay, _ = hit
        img = base.copy()
        draw = ImageDraw.Draw(img)
        # the private overlay helpers of mapimage: render_map draws the same way
        for c in counters_of(state):
            mi._draw_counter(draw, lay, c)
        for m in markers_of(state):
            mi._draw_marker(draw, lay, m)
        return mi.to_array(img)

    def render(self, state: State, mode: str) -> str | np.ndarray | None:
        """One frame in ``mode``: ``"rgb_array"`` (array), ``"ansi"`` (text) or ``"human"`` (prints the text)."""
        if mode == "rgb_array":
            return self.rgb_array(state)
        text = self.ansi(state)
        if mode == "human":
            print(text)
            return None
        return text
