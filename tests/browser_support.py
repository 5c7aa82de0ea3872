"""What the browser tests share (tests/test_browser.py, tests/test_springtime_browser.py): the system
Chromium, the screenshot folder and the wait bound. Importing it skips the importing test module (with the
reason) when the ``playwright`` package or a Chromium binary is missing; Playwright's own browser download is
not used: the Chromium of the system (Debian package ``chromium``) is launched, or the one named by
``FFO_CHROMIUM``. The ``browser`` and ``page`` fixtures are in conftest.py.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
CHROMIUM = os.environ.get("FFO_CHROMIUM") or next(
    (p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None
)
if CHROMIUM is None:
    pytest.skip("no Chromium binary (apt-get install chromium, or set FFO_CHROMIUM)", allow_module_level=True)
pytest.importorskip("flask", reason="flask (web play) is not installed")

SHOTS = os.environ.get("FFO_SCREENSHOT_DIR")
# a bound on each wait, so that a broken page fails instead of hanging; 20 s timed out once in a full run
# with both cores busy (2026-11-29), where the same test alone passes in 23 s
TIMEOUT_MS = 60_000


def shot(pg: Any, name: str) -> None:
    """A screenshot into ``$FFO_SCREENSHOT_DIR`` when it is set (to refresh the docs' pictures)."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(Path(SHOTS) / name))
