"""The files of a web play page: a game's own (``webplay/<game>/static/``) and the data the page script reads.

Each game's ``page(session)`` fills its ``play.html`` template (``/*__CSS__*/``, ``/*__JS__*/``, ``__DATA__``
and the game's own placeholders); what every page does the same way is here, so that a game's page module
holds only what it draws. ``webplay/static/play_core.js`` is the play loop a game's page script may build on
(Springtime's and France 1940's do: their ``play.js`` hold only the hooks that draw the map and mark the
choices on it).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

__all__ = ["play_script", "script_json", "static_text"]


def static_text(package: str, name: str) -> str:
    """The text of ``static/<name>`` of the package ``package`` (``webplay.springtime``, ...), as shipped."""
    return resources.files(package).joinpath("static", name).read_text(encoding="utf-8")


def play_script(package: str, *before: str) -> str:
    """The script of a game's play page: ``before`` (e.g. its map's drawing code), the play loop every game
    shares (``webplay/static/play_core.js``, ``PlayCore``) and the game's own ``static/play.js`` (its hooks)."""
    return "\n".join((*before, static_text("webplay", "play_core.js"), static_text(package, "play.js")))


def script_json(data: Any) -> str:
    """``data`` as JSON to put inside a ``<script type="application/json">`` element: compact, and with
    ``</`` escaped so that no string in it can close the element."""
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
