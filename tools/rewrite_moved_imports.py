"""Rewrite the old module names and paths of the modules issue 62 moved to their new ones, in place.

    python tools/rewrite_moved_imports.py FILE_OR_DIR ...   # rewrite (Python, Markdown, TOML, YAML, text)
    python tools/rewrite_moved_imports.py --check PATH ...  # list what would change; exit 1 if anything would

The table is :data:`ffo_env._moved.MOVED` (old module -> new module; an entry covers its submodules): every
dotted name that starts with a moved module (``import ffo_env.core.state``, ``from ffo_env.core import
hexgrid``, ``"ffo_env.core.record:Recorder"``, ``mock.patch("ffo_env.envs.aec.make_game")``) and every path of
a moved file or folder (``ffo_env/core/state.py``, ``ffo_env/data/``) is rewritten; a name that only looks
alike (``ffo_env.renderer``) is not. Running it twice changes nothing the second time. It is how step 3 of
the refactor rewrote 600-odd import lines, and how a branch written against the old paths catches up after
merging the move (run it on that branch's files, then ruff format).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ffo_env._moved import MOVED, new_name  # noqa: E402
from ffo_env.atomic import atomic_write_text  # noqa: E402

SUFFIXES = {".py", ".md", ".toml", ".yaml", ".yml", ".txt", ".cfg", ".ini", ".js", ".html", ".css"}
SKIP_DIRS = {".venv", ".git", "build", "dist", "__pycache__", "_build", "node_modules"}
# files that name the old paths on purpose: the table itself, this tool, and the hook's test
SKIP_FILES = {"ffo_env/_moved.py", "tools/rewrite_moved_imports.py", "tests/test_moved_names.py"}
# the top-level packages that hold moved modules (ffo_env: step 3; agents, training: step 4)
_ROOTS = "|".join(sorted({old.split(".")[0] for old in MOVED}))
_DOTTED = re.compile(rf"(?<![\w.])(?:{_ROOTS})(?:\.[A-Za-z_]\w*)+")
_PATH = re.compile(rf"(?<![\w./])(?:{_ROOTS})(?:/[A-Za-z_][\w-]*)+(?:\.py)?/?")


def moved_paths(moved: Mapping[str, str]) -> dict[str, str]:
    """Old path -> new path of each moved module (``a/b.py``) or package (``a/b/``)."""
    out: dict[str, str] = {}
    for old, new in moved.items():
        o, n = old.replace(".", "/"), new.replace(".", "/")
        out[o] = n
    return out


_FROM_IMPORT = re.compile(rf"\bfrom ((?:{_ROOTS})(?:\.\w+)*) import ([\w, ]+?)(?=\s*(?:#|$|\)))", re.M)


def _from_import(m: re.Match[str], moved: Mapping[str, str]) -> str:
    """``from ffo_env.core import hexgrid as hg``, whose package stays but whose module moved: the new
    package, when every name imported moved to the same one."""
    package, names = m.group(1), m.group(2)
    if new_name(package, moved) is not None:
        return m.group(0)  # the package itself moved: the dotted rewrite does it
    heads = set()
    for item in names.split(","):
        name = item.split(" as ")[0].strip()
        new = new_name(f"{package}.{name}", moved) if name else None
        if new is None or not new.endswith(f".{name}"):
            return m.group(0)
        heads.add(new[: -len(name) - 1])
    return f"from {heads.pop()} import {names}" if len(heads) == 1 else m.group(0)


def rewrite_dotted(text: str, moved: Mapping[str, str] = MOVED) -> str:
    text = _FROM_IMPORT.sub(lambda m: _from_import(m, moved), text)
    return _DOTTED.sub(lambda m: new_name(m.group(0), moved) or m.group(0), text)


def rewrite_paths(text: str, moved: Mapping[str, str] = MOVED, extra: Mapping[str, str] | None = None) -> str:
    """Paths of moved modules: ``ffo_env/core/state.py`` -> ``ffo_env/ffo/core/state.py``; ``extra`` maps
    folders that are not modules (``ffo_env/data`` -> ``ffo_env/ffo/data``)."""
    table = {**moved_paths(moved), **(extra or {})}

    def one(m: re.Match[str]) -> str:
        path = m.group(0)
        stem = path.rstrip("/")
        suffix = path[len(stem) :]
        ext = ".py" if stem.endswith(".py") else ""
        stem = stem[: len(stem) - len(ext)]
        parts = stem.split("/")
        for i in range(len(parts), 1, -1):
            head = "/".join(parts[:i])
            if head in table:
                return "/".join([table[head], *parts[i:]]) + ext + suffix
        return path

    return _PATH.sub(one, text)


# folders without modules that moved with the game
DATA_FOLDERS = {
    "ffo_env/data": "ffo_env/ffo/data",
    "agents/pretrained_policies": "agents/ffo/pretrained_policies",
}


def rewrite(text: str, moved: Mapping[str, str] = MOVED) -> str:
    return rewrite_paths(rewrite_dotted(text, moved), moved, DATA_FOLDERS)


def files(paths: Iterable[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(
                f
                for f in sorted(p.rglob("*"))
                if f.is_file() and f.suffix in SUFFIXES and not SKIP_DIRS.intersection(f.parts)
            )
        elif p.is_file():
            out.append(p)
        else:
            raise SystemExit(f"error: {p}: no such file or folder")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("paths", nargs="+", help="files or folders (folders: their text files, recursively)")
    ap.add_argument("--check", action="store_true", help="list the files that would change; change nothing")
    a = ap.parse_args(argv)
    changed = []
    for f in files(a.paths):
        if (
            f.resolve().relative_to(ROOT).as_posix() in SKIP_FILES
            if f.resolve().is_relative_to(ROOT)
            else False
        ):
            continue
        try:
            text = f.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite(text)
        if new != text:
            changed.append(f)
            if not a.check:
                atomic_write_text(f, new)
    for f in changed:
        print(f"{'would rewrite' if a.check else 'rewrote'} {f}")
    return 1 if a.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
