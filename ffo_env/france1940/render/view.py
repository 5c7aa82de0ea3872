"""What a viewer may see of a France 1940 position: the core's own redaction, or the public view of a replay.

A side's view is :func:`ffo_env.france1940.core.visibility.view` (F60, P3): never the dice generator, and
with ``hidden_obac`` not the opponent's Order of Battle Alternative nor the arrival schedule of its units
still off the map. The public view (a finished game's replay, a spectator) hides only the generator
(:data:`~ffo_env.france1940.core.visibility.ALWAYS_HIDDEN`). Everything the renderer draws comes from
:func:`seen`, never from the State itself.
"""

from __future__ import annotations

from typing import Any

from ffo_env.france1940.core.state import FIELDS, State
from ffo_env.france1940.core.visibility import ALWAYS_HIDDEN, UNKNOWN, view

__all__ = ["PUBLIC", "UNKNOWN", "seen"]

PUBLIC: None = None  # the viewer of a finished game's replay: both sides, but never the dice generator


def seen(state: State, viewer: int | None = PUBLIC) -> dict[str, Any]:
    """The fields of ``state`` that ``viewer`` (0 Allied, 1 German, or :data:`PUBLIC`) may see, plus
    ``"viewer"``. Values are the state's own or copies: callers must not change them."""
    if viewer is PUBLIC:
        v = {f: getattr(state, f) for f in FIELDS if f not in ALWAYS_HIDDEN}
    elif viewer in (0, 1) and not isinstance(viewer, bool):
        v = view(state, viewer)  # the core decides what a side may know (F60, P3)
    else:
        raise ValueError(f"viewer must be 0 (Allied), 1 (German) or None (public), not {viewer!r}")
    v["viewer"] = viewer
    return v
