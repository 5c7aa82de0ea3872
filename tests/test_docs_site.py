"""The documentation site: it builds, its links resolve, every public module has a reference page.

The site is built by ``python -m sphinx -W --keep-going -j auto -b html docs docs/_build/html`` (``.ci/run`` does it
before the tests, with warnings as errors, and points ``FFO_DOCS_HTML`` at the result so these tests read
that build instead of making another). Without ``FFO_DOCS_HTML`` the tests that need a site build one
themselves, which takes a minute or two: they are then marked slow (``pytest -m slow tests/test_docs_site.py``).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BUILD_COMMAND = "python -m sphinx -W --keep-going -j auto -b html docs docs/_build/html"
_PREBUILT = os.environ.get("FFO_DOCS_HTML")


# with a prebuilt site (CI) these tests are quick; building one takes minutes, so then they are slow
def needs_site(test: Callable[..., None]) -> Callable[..., None]:
    return test if _PREBUILT else pytest.mark.slow(test)


def api_packages() -> list[str]:
    """The packages docs/conf.py hands to the API reference (its ``API_PACKAGES`` list)."""
    tree = ast.parse((DOCS / "conf.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "API_PACKAGES" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise AssertionError("docs/conf.py has no API_PACKAGES list")


def public_modules(root: Path, packages: list[str]) -> list[str]:
    """Every public module of the package tree: dotted names, packages included (their ``__init__``).

    A module is private when a part of its dotted name starts with ``_`` (``__init__`` names its package).
    """
    found = []
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if any(p.startswith("_") for p in parts):
                continue
            if not all((root / Path(*parts[:i]) / "__init__.py").is_file() for i in range(1, len(parts))):
                continue  # a script folder inside a package, not importable as a module
            found.append(".".join(parts))
    return found


def missing_reference_pages(html: Path, modules: list[str]) -> list[str]:
    """The modules that have no page under ``api/reference/<top package>/<module>.html`` in the built site."""
    return [m for m in modules if not (html / "api" / "reference" / m.split(".")[0] / f"{m}.html").is_file()]


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            if value and ((tag == "a" and name == "href") or (tag in ("img", "script") and name == "src")):
                self.hrefs.append(value)


def broken_links(html: Path) -> list[str]:
    """Every link of the built site to one of its own files or anchors that does not resolve.

    Links to other sites are left out: the site's own pages, images and ``#anchors`` must all be there.
    """
    pages: dict[Path, _Links] = {}
    for page in html.rglob("*.html"):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        pages[page.resolve()] = parser
    broken = []
    for page, parser in sorted(pages.items()):
        for href in parser.hrefs:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith("mailto:"):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(html.resolve())}: {href}"
            if not target.exists():
                broken.append(f"{where} (no file {target.name})")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else set()
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{where} (no anchor #{parts.fragment})")
    return broken


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if _PREBUILT:
        html = Path(_PREBUILT)
        if not html.is_absolute():
            html = ROOT / html
        assert (html / "index.html").is_file(), f"FFO_DOCS_HTML={_PREBUILT} holds no built site"
        return html
    out = tmp_path_factory.mktemp("site") / "html"
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "docs", str(out)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, f"the site does not build with warnings as errors:\n{proc.stderr[-6000:]}"
    return out


def test_the_api_reference_covers_every_package_of_the_product() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    tops = {
        p.split(".")[0]
        for p in setuptools["packages"]
        if (ROOT / p.replace(".", "/") / "__init__.py").is_file()
    }
    assert tops == set(api_packages()), (
        "docs/conf.py API_PACKAGES must name every top-level package of pyproject"
    )


def test_the_public_module_listing_and_the_page_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "_hidden").mkdir()
    (tmp_path / "pkg" / "scripts").mkdir()
    for name in ("__init__.py", "a.py", "_private.py", "sub/__init__.py", "sub/b.py", "_hidden/__init__.py"):
        (tmp_path / "pkg" / name).write_text("")
    (tmp_path / "pkg" / "scripts" / "run.py").write_text("")
    modules = public_modules(tmp_path, ["pkg"])
    assert modules == ["pkg", "pkg.a", "pkg.sub", "pkg.sub.b"]
    html = tmp_path / "html"
    (html / "api" / "reference" / "pkg").mkdir(parents=True)
    for name in ("pkg", "pkg.a", "pkg.sub"):
        (html / "api" / "reference" / "pkg" / f"{name}.html").write_text("")
    assert missing_reference_pages(html, modules) == ["pkg.sub.b"]


def test_the_link_check_finds_a_missing_page_and_a_missing_anchor(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "index.html").write_text(
        '<a href="sub/p.html#here">ok</a><a href="sub/p.html#gone">x</a><a href="nope.html">y</a>'
        '<a href="#top">ok</a><a id="top"></a><a href="https://example.org/x.html">ok</a><img src="i.png">'
    )
    (tmp_path / "sub" / "p.html").write_text('<h2 id="here">h</h2><a href="../index.html#top">ok</a>')
    assert broken_links(tmp_path) == [
        "index.html: sub/p.html#gone (no anchor #gone)",
        "index.html: nope.html (no file nope.html)",
        "index.html: i.png (no file i.png)",
    ]


@needs_site
def test_every_public_module_has_a_reference_page(site: Path) -> None:
    modules = public_modules(ROOT, api_packages())
    assert len(modules) > 100
    missing = missing_reference_pages(site, modules)
    assert not missing, f"public modules without a page in the API reference: {missing}"


@needs_site
def test_internal_links_and_anchors_resolve(site: Path) -> None:
    broken = broken_links(site)
    assert not broken, "links of the site that do not resolve:\n" + "\n".join(broken[:50])


@needs_site
def test_every_page_of_the_guide_folder_is_on_the_site(site: Path) -> None:
    # other pages are dropped into docs/guide/ without editing an index: the glob toctree must pick them up
    pages = [p.stem for p in (DOCS / "guide").glob("*.md")]
    assert "index" in pages
    assert all((site / "guide" / f"{name}.html").is_file() for name in pages)
    index = (site / "guide" / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{name}.html"' in index for name in pages if name != "index")


def test_the_readme_is_short_and_names_the_build_and_test_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    assert BUILD_COMMAND in readme and "bash .ci/run" in readme
    assert BUILD_COMMAND.replace("python -m", ".venv/bin/python -m") in (ROOT / ".ci" / "run").read_text()


def test_the_readme_links_to_files_that_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", readme)
    local = [t.split("#")[0] for t in targets if not urlsplit(t).scheme and not t.startswith("#")]
    assert local, "the README links to no page of the documentation"
    missing = [t for t in local if t and not (ROOT / t).exists()]
    assert not missing, f"README links to files that do not exist: {missing}"
