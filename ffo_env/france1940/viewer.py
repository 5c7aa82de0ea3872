"""The France 1940 replay viewer, kept importable here: it lives in :mod:`ffo_env.france1940.render.viewer`
(a self-contained HTML file drawing the hex map, units, aircraft and the turn track; both sides' view or
one side's)."""

from __future__ import annotations

from ffo_env.france1940.render.hexmap import hex_centre
from ffo_env.france1940.render.viewer import build_viewer_html, viewer_data, write_viewer

__all__ = ["build_viewer_html", "hex_centre", "viewer_data", "write_viewer"]
