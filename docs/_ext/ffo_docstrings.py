"""The docstring parser of the API reference: reStructuredText when the docstring is valid RST, else MyST.

Module docstrings such as ``ffo_env.encoding.layout`` and ``ffo_env.envs.aec`` are written as RST (tables,
sections, ``:mod:`` roles) and read best parsed as such; many other docstrings are plain prose that RST
would flag (an indented continuation, a lone ``*``), and ``sphinx-build -W`` would turn each flag into a
failed build. So each docstring is first parsed as RST into a scratch document whose messages are
collected, not reported; if RST had nothing to say about it, the RST parse is used, else the docstring is
parsed as MyST Markdown (CommonMark), where prose cannot be malformed.
"""

from __future__ import annotations

import copy
from typing import Any

from docutils import nodes
from docutils.parsers import Parser as _Parser
from docutils.parsers.rst import Parser as RstParser
from docutils.utils import Reporter, new_document
from myst_parser.parsers.sphinx_ import MystParser


def rst_problems(text: str, document: nodes.document) -> list[str]:
    """The warnings and errors RST parsing reports for ``text`` (nothing is written or logged)."""
    settings = copy.copy(document.settings)
    settings.report_level = Reporter.SEVERE_LEVEL + 1
    settings.halt_level = Reporter.SEVERE_LEVEL + 1
    settings.warning_stream = ""  # docutils: an empty string discards the messages
    scratch = new_document(document.get("source", "<docstring>"), settings)
    found: list[str] = []

    def collect(message: nodes.system_message) -> None:
        if message["level"] >= Reporter.WARNING_LEVEL:
            found.append(message.astext())

    scratch.reporter.attach_observer(collect)
    RstParser().parse(text, scratch)
    return found


class Parser(_Parser):
    """RST if the docstring is clean RST, MyST otherwise (autodoc2 takes this class by module name)."""

    supported = ("ffo_docstrings",)

    def parse(self, inputstring: str, document: nodes.document) -> Any:
        if rst_problems(inputstring, document):
            return MystParser().parse(inputstring, document)
        return RstParser().parse(inputstring, document)
