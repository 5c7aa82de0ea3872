"""Drawing the map (and, later, the game state) for people to look at.

Depends on :mod:`ffo_env.ffo.core` only (never on gymnasium):

- :mod:`ffo_env.ffo.render.mapimage` - Pillow image of the map with an optional
  overlay of counters and markers; ``to_array`` for RGB arrays;
- :mod:`ffo_env.ffo.render.maptext` - one character per hex text rendering;
- :mod:`ffo_env.ffo.render.cli_map` - the ``ffo map`` command.

The overlay records below are shared by both renderers and kept here so that
the text renderer does not need Pillow.
"""

from __future__ import annotations

from dataclasses import dataclass

from ffo_env.ffo.core.sides import SIDE_NAMES

MARKER_KINDS = ("refugee", "control")


@dataclass(frozen=True)
class Counter:
    """A unit (or stack) to draw on a hex.

    ``label`` is the main text (e.g. ``"XXX Pz"``), ``top_text`` a small line
    above it (e.g. combat factor ``"8-4"``); ``stack`` > 1 draws a stack of that
    many counters; ``highlight`` frames it (selected unit, last mover ...).
    """

    hex_index: int
    label: str
    side: str  # 'french' | 'german'
    top_text: str = ""
    stack: int = 1
    highlight: bool = False

    def __post_init__(self) -> None:
        if self.side not in SIDE_NAMES:
            raise ValueError(f"Counter.side must be one of {SIDE_NAMES}, not {self.side!r}")


@dataclass(frozen=True)
class Marker:
    """A game marker on a hex: ``kind='refugee'`` or ``kind='control'`` (a flag of ``side``)."""

    hex_index: int
    kind: str
    side: str = ""
    text: str = ""

    def __post_init__(self) -> None:
        if self.kind not in MARKER_KINDS:
            raise ValueError(f"Marker.kind must be one of {MARKER_KINDS}, not {self.kind!r}")
        if self.kind == "control" and self.side not in SIDE_NAMES:
            raise ValueError(f"a control marker needs side in {SIDE_NAMES}, not {self.side!r}")


__all__ = ["Counter", "Marker", "MARKER_KINDS"]
