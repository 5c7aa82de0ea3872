"""The files of a web play page: a game's own (``webplay/<game>/static/``) and the data the page script reads.

Each game's ``page(session)`` fills its ``play.html`` template (``/*__CSS__*/``, ``/*__JS__*/``, ``__DATA__``
and the game's own placeholders); what every page does the same way is here, so that a game's page module
holds only what it draws.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

__all__ = ["script_json", "static_text"]


def static_text(package: str, name: str) -> str:
    """The text of ``static/<name>`` of the package ``package`` (``webplay.springtime``, ...), as shipped."""
    return resources.files(package).joinpath("static", name).read_text(encoding="utf-8")


def script_json(data: Any) -> str:
    """``data`` as JSON to put inside a ``<script type="application/json">`` element: compact, and with
    ``</`` escaped so that no string in it can close the element."""
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
