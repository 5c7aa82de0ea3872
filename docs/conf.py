"""Sphinx configuration of the ffo_env documentation site.

Build: ``python -m sphinx -W --keep-going -j auto -b html docs docs/_build/html`` (the command CI runs).
Pages are MyST Markdown; the API reference is generated at build time by sphinx-autodoc2 from a
static analysis of the package tree (nothing is imported, so no torch, ray, network or GPU is needed,
and a new module gets its page without anyone writing one).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import Any

import astroid.exceptions
import astroid.manager

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

project = "ffo_env"
author = "ffo_env contributors"
copyright = "2026, ffo_env contributors"
release = "0.1.0"

extensions = ["myst_parser", "autodoc2", "sphinx.ext.mathjax"]

# the packages of the product (pyproject's [tool.setuptools] packages); autodoc2 finds every module in
# them, so a module added later is documented without a page being written for it
API_PACKAGES = ["ffo_env", "agents", "training", "benchmarks", "webplay"]

# Static analysis (astroid) follows imports into third-party packages (torch alone is thousands of files)
# to infer class kinds; nothing of theirs is documented here, so it is told they cannot be found. This
# keeps the analysis to the project's own files and the standard library.
_OWN = set(API_PACKAGES)
_ast_from_module_name = astroid.manager.AstroidManager.ast_from_module_name


def _own_or_stdlib_only(self: Any, modname: str, *args: Any, **kwargs: Any) -> Any:
    top = (modname or "").split(".")[0]
    if top and top not in _OWN and top not in sys.stdlib_module_names:
        raise astroid.exceptions.AstroidImportError(f"{modname}: not analysed for the API reference")
    return _ast_from_module_name(self, modname, *args, **kwargs)


astroid.manager.AstroidManager.ast_from_module_name = _own_or_stdlib_only

autodoc2_packages = [{"path": f"../{name}", "auto_mode": True} for name in API_PACKAGES]
autodoc2_output_dir = "api/reference"
autodoc2_render_plugin = "myst"
# Docstrings are RST where their authors wrote RST (tables, sections, roles) and plain prose elsewhere:
# docs/_ext/ffo_docstrings.py parses each as RST when RST reports nothing about it, else as MyST, so prose
# never fails the -W build and no docstring has to be written for the site.
autodoc2_docstring_parser_regexes = [(r".*", "ffo_docstrings")]
autodoc2_hidden_objects = ["private", "inherited", "dunder"]
autodoc2_module_all_regexes: list[str] = []
# docs/api/index.md is the reference's entry page (it lists the packages)
autodoc2_index_template = None

# attrs_inline: the widths of the pictures of the front page
myst_enable_extensions = ["colon_fence", "deflist", "attrs_block", "attrs_inline"]
# every heading of levels 1-3 gets an anchor, so [text](page.md#a-heading) links resolve and are checked
myst_heading_anchors = 3

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "README.md", "Thumbs.db", ".DS_Store"]
# Docstrings written before the site use reStructuredText-style underlined headings, which MyST reads as
# headings of level 2 in a docstring; that is how they should look, so the check is off for them.
# Docstrings that name a module by its short name (``:mod:`combat```) match a module of each game's core;
# the reference then links the first, which is not worth failing the build over.
suppress_warnings = ["myst.header", "ref.python"]


def layout_spec_markdown() -> str:
    """The observation spec of ffo_env/encoding/layout.py's docstring, as MyST: its sections become headings
    of level 4 and their RST bodies (tables, notes) are kept as RST. Read with ``ast``, not imported."""
    tree = ast.parse((ROOT / "ffo_env" / "ffo" / "encoding" / "layout.py").read_text(encoding="utf-8"))
    lines = (ast.get_docstring(tree) or "").splitlines()
    heads = [i for i in range(len(lines) - 1) if lines[i].strip() and re.fullmatch(r"-{3,}", lines[i + 1])]
    out = []
    for n, i in enumerate(heads):
        body = lines[i + 2 : heads[n + 1] if n + 1 < len(heads) else len(lines)]
        out += [f"#### {lines[i].replace('``', '`')}", "", "```{eval-rst}", *body, "```", ""]
    return "\n".join(out)


def _insert_generated(app: Any, docname: str, source: list[str]) -> None:
    if "<!-- observation-spec -->" in source[0]:
        source[0] = source[0].replace("<!-- observation-spec -->", layout_spec_markdown())
        # the page is read again when the spec's module changes, also in an incremental build
        app.env.note_dependency(str(ROOT / "ffo_env" / "ffo" / "encoding" / "layout.py"))


def setup(app: Any) -> None:
    app.connect("source-read", _insert_generated)


html_theme = "furo"
html_title = "ffo_env"
html_static_path: list[str] = []
