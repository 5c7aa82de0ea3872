"""The code of the tutorials (and the README's examples) runs as written, with tiny budgets.

A code block is run when an HTML comment right before it says so (the comment does not show on the site):

    <!-- docs-test: run -->
    <!-- docs-test: run; replace "--games 40" "--games 1"; slow -->
    <!-- docs-test: serve http://127.0.0.1:8765/ -->

``run``: a ``bash`` block runs line by line in bash (``set -e``), a ``python`` block as a script.
``replace "A" "B"``: the test runs the block with A replaced by B (a tiny budget); A must occur in it.
``slow``: the block runs only in the slow test of its page (``pytest -m slow``), which runs every block of
the page in order; the default test of a page runs its other blocks.
``serve URL``: the block starts a server that runs until stopped (``ffo play --french human``): the test
starts it, waits for URL to answer, and stops it.
The blocks of one page run in order in one fresh folder (with ``configs/``, ``examples/`` and ``benchmarks/``
of the checkout linked in, as when a user runs them from the repository root), so a later block may read the
files an earlier one wrote.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
MARKER = re.compile(r"^<!-- docs-test: (?P<spec>.*?) -->\s*$")
FENCE = re.compile(r"^(?P<fence>`{3,})(?P<lang>[\w-]*)\s*$")
REPLACE = re.compile(r'^replace\s+"((?:[^"\\]|\\.)*)"\s+"((?:[^"\\]|\\.)*)"$')


@dataclass
class Block:
    path: Path
    line: int
    lang: str
    code: str
    slow: bool = False
    serve: str | None = None
    replacements: list[tuple[str, str]] = field(default_factory=list)

    def runnable(self) -> str:
        code = self.code
        for old, new in self.replacements:
            assert old in code, f"{self.path.name}:{self.line}: replace {old!r}: not in the block"
            code = code.replace(old, new)
        return code


def blocks_of(path: Path, text: str | None = None) -> list[Block]:
    """The marked code blocks of a Markdown file, in order."""
    lines = (path.read_text(encoding="utf-8") if text is None else text).splitlines()
    found = []
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        if not m:
            continue
        fence = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        if not fence:
            raise ValueError(f"{path.name}:{i + 1}: a docs-test marker must stand right before a code block")
        end = next(j for j in range(i + 2, len(lines)) if lines[j].strip() == fence["fence"])
        block = Block(path, i + 2, fence["lang"], "\n".join(lines[i + 2 : end]) + "\n")
        for part in (p.strip() for p in m["spec"].split(";")):
            if part == "run":
                continue
            if part == "slow":
                block.slow = True
            elif part.startswith("serve "):
                block.serve = part.split(None, 1)[1]
            elif r := REPLACE.match(part):
                block.replacements.append((r[1].replace('\\"', '"'), r[2].replace('\\"', '"')))
            else:
                raise ValueError(f"{path.name}:{i + 1}: unknown docs-test option {part!r}")
        if block.lang not in ("bash", "python"):
            raise ValueError(
                f"{path.name}:{i + 1}: only bash and python blocks can be run, not {block.lang!r}"
            )
        found.append(block)
    return found


def pages_with_blocks() -> dict[str, list[Block]]:
    pages = {}
    for path in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]:
        if "_build" in path.parts or "reference" in path.relative_to(ROOT).parts:
            continue
        if found := blocks_of(path):
            pages[str(path.relative_to(ROOT))] = found
    return pages


PAGES = pages_with_blocks()


def _env(workdir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{env.get('PYTHONPATH', '')}"
    env["HOME"] = str(workdir)  # nothing a tutorial writes lands outside its folder
    env.pop("FFO_DATA", None)
    return env


def _serve(block: Block, workdir: Path, env: dict[str, str]) -> None:
    assert block.serve
    proc = subprocess.Popen(
        ["bash", "-c", block.runnable()], cwd=workdir, env=env, start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (
                f"{block.path.name}:{block.line}: the server stopped:\n{proc.stdout.read()}"
            )  # type: ignore[union-attr]
            try:
                with urllib.request.urlopen(block.serve, timeout=2) as answer:
                    assert answer.status == 200
                    return
            except OSError:
                assert time.monotonic() < deadline, f"{block.serve} did not answer within 60 s"
                time.sleep(0.5)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def run_blocks(blocks: list[Block], workdir: Path) -> None:
    for name in ("configs", "examples", "benchmarks"):
        (workdir / name).symlink_to(ROOT / name)
    env = _env(workdir)
    for block in blocks:
        where = f"{block.path.name}:{block.line}"
        if block.serve:
            _serve(block, workdir, env)
            continue
        if block.lang == "bash":
            cmd = ["bash", "-euo", "pipefail", "-c", block.runnable()]
        else:
            script = workdir / f"block_{block.line}.py"
            script.write_text(block.runnable(), encoding="utf-8")
            cmd = [sys.executable, str(script)]
        proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, (
            f"{where} failed (exit {proc.returncode}):\n{shlex.join(cmd)[:300]}\n"
            f"--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"
        )


FAST_PAGES = [page for page, blocks in PAGES.items() if any(not b.slow for b in blocks)]
SLOW_PAGES = [page for page, blocks in PAGES.items() if any(b.slow for b in blocks)]


@pytest.mark.parametrize("page", FAST_PAGES)
def test_the_code_of_the_page_runs(page: str, tmp_path: Path) -> None:
    """The page's blocks not marked slow, in order."""
    run_blocks([b for b in PAGES[page] if not b.slow], tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("page", SLOW_PAGES)
def test_all_the_code_of_the_page_runs(page: str, tmp_path: Path) -> None:
    """Every block of the page, the slow ones included, in order."""
    run_blocks(PAGES[page], tmp_path)


def test_every_tutorial_has_code_that_is_run() -> None:
    tutorials = [p for p in sorted((DOCS / "tutorials").glob("*.md")) if p.stem != "index"]
    assert len(tutorials) >= 7
    untested = [p.name for p in tutorials if str(p.relative_to(ROOT)) not in PAGES]
    assert not untested, f"tutorials without a <!-- docs-test: run --> block: {untested}"


def test_the_readme_examples_are_run() -> None:
    langs = [b.lang for b in PAGES.get("README.md", [])]
    assert langs.count("python") >= 2, "the README's PettingZoo and Gymnasium examples must be marked to run"


def test_markers_are_read_and_a_failing_block_fails(tmp_path: Path) -> None:
    text = (
        'intro\n\n<!-- docs-test: run; replace "--games 40" "--games 1"; slow -->\n```bash\n'
        "echo --games 40 > out.txt\n```\n\n```python\nnot run\n```\n<!-- docs-test: run -->\n"
        "```python\nimport pathlib\nassert pathlib.Path('out.txt').read_text() == '--games 1\\n'\n```\n"
    )
    blocks = blocks_of(tmp_path / "page.md", text)
    assert [(b.lang, b.slow, b.replacements) for b in blocks] == [
        ("bash", True, [("--games 40", "--games 1")]),
        ("python", False, []),
    ]
    (tmp_path / "ok").mkdir()
    run_blocks(blocks, tmp_path / "ok")  # the second block reads what the first one wrote, replaced
    (tmp_path / "bad").mkdir()
    failing = blocks_of(tmp_path / "bad.md", "<!-- docs-test: run -->\n```bash\nfalse\necho after\n```\n")
    with pytest.raises(AssertionError, match="failed"):
        run_blocks(failing, tmp_path / "bad")
    with pytest.raises(ValueError, match="right before a code block"):
        blocks_of(tmp_path / "x.md", "<!-- docs-test: run -->\ntext\n")
    with pytest.raises(AssertionError, match="not in the block"):
        blocks_of(tmp_path / "y.md", '<!-- docs-test: run; replace "zz" "y" -->\n```bash\necho\n```\n')[
            0
        ].runnable()
