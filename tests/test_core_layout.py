"""The layout of the rules core (issue 20): no import cycle inside ``ffo_env.ffo.core`` and no module over 800 lines.

Imports are read from the source with :mod:`ast`, including those inside functions (a lazy import is still
a dependency); only ``if TYPE_CHECKING:`` blocks are left out, since they never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ffo_env.ffo.core

CORE = Path(ffo_env.ffo.core.__file__).parent
PACKAGE = "ffo_env.ffo.core"
MAX_LINES = 800


def _modules() -> dict[str, Path]:
    return {p.stem: p for p in sorted(CORE.glob("*.py")) if p.stem != "__init__"}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` except the bodies of ``if TYPE_CHECKING:``."""
    out: list[ast.AST] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return out


def core_imports(path: Path, modules: set[str], package: str = PACKAGE) -> set[str]:
    """The modules of ``package`` (default ``ffo_env.ffo.core``) that module ``path`` imports when it runs."""
    out: set[str] = set()
    depth = package.count(".") + 1  # the module name's index in a dotted import
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(package + "."):
                    out.add(alias.name.split(".")[depth])
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from . import x / from .x import y
                base = package + ("." + base if base else "")
            if base == package:
                out.update(a.name for a in node.names if a.name in modules)
            elif base.startswith(package + "."):
                out.add(base.split(".")[depth])
    return out & modules


def import_graph() -> dict[str, set[str]]:
    mods = _modules()
    names = set(mods)
    return {name: core_imports(path, names) for name, path in mods.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a path that ends where it starts, or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_cycle_inside_the_core() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle in ffo_env.ffo.core: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle_and_a_lazy_import(tmp_path: Path) -> None:
    # the checker itself must be able to fail: a lazy import inside a function closes a cycle,
    # an import under TYPE_CHECKING does not
    (tmp_path / "a.py").write_text("from ffo_env.ffo.core import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from ffo_env.ffo.core.a import x\n")
    (tmp_path / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ffo_env.ffo.core.a import y\n"
    )
    names = {"a", "b", "c"}
    graph = {n: core_imports(tmp_path / f"{n}.py", names) for n in names}
    assert graph == {"a": {"b"}, "b": {"a"}, "c": set()}
    assert find_cycle(graph) == ["a", "b", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_core_module_over_800_lines() -> None:
    long = {
        name: n
        for name, p in _modules().items()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"core modules over {MAX_LINES} lines: {long}"


def test_game_new_initial_state_is_state_initial() -> None:
    from ffo_env.ffo.core.game import Game
    from ffo_env.ffo.core.state import State

    game = Game()
    assert game.new_initial_state(3).to_json() == State.initial(game, 3).to_json()


def test_nothing_outside_the_core_reads_the_phase_context() -> None:
    # the typed working data of a phase is the core's own: callers ask State's public queries
    root = CORE.parents[2]  # the repository (CORE is ffo_env/ffo/core)
    bad = []
    for folder in ("ffo_env", "agents", "webplay", "training", "benchmarks", "tools"):
        for path in sorted((root / folder).rglob("*.py")):
            if CORE in path.parents:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute) and node.attr == "_ctx":
                    bad.append(f"{path.relative_to(root)}:{node.lineno}: .{node.attr}")
                elif isinstance(node, ast.ImportFrom) and node.module == PACKAGE + ".contexts":
                    bad.append(f"{path.relative_to(root)}:{node.lineno}: imports {node.module}")
    assert not bad, "phase context read outside ffo_env.ffo.core:\n" + "\n".join(bad)


def test_side_of_maps_agent_names_both_ways_and_refuses_others() -> None:
    from ffo_env.ffo.core.sides import Side

    for side in Side:
        assert Side.of(side.agent) is side and side.other.other is side
    assert int(Side.of("french")) == 0 and int(Side.of("german")) == 1
    for bad in ("French", "british", ""):
        with pytest.raises(ValueError, match="side must be 'french' or 'german'"):
            Side.of(bad)
