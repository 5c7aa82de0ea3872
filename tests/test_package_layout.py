"""No import cycle inside ``training/``, ``agents/`` or ``benchmarks/`` (issue 39), nor inside a game's package of
agents (``agents/<game>/``) or the benchmark protocol (``benchmarks/protocol/``, issue 62): each package's
import graph is read from the source with :mod:`ast` by the rules core's own checker
(``tests/test_core_layout.py``), lazy imports inside functions included, so a module can be read, tested and
changed without its importers. (The protocol's registry of algorithms used to import its learners lazily
while they import it; the lookup is :mod:`benchmarks.protocol.algo_table` since issue 62 step 9.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_core_layout import core_imports, find_cycle

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = (
    "training",
    "agents",
    "benchmarks",
    "benchmarks/protocol",
    "agents/ffo",
    "agents/springtime",
    "agents/france1940",
)


def package_graph(package: str) -> dict[str, set[str]]:
    mods = {p.stem: p for p in sorted((ROOT / package).glob("*.py")) if p.stem != "__init__"}
    dotted = package.replace("/", ".")
    return {name: core_imports(path, set(mods), dotted) for name, path in mods.items()}


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle_inside(package: str) -> None:
    graph = package_graph(package)
    assert len(graph) > 3  # the package was found and read
    cycle = find_cycle(graph)
    assert cycle is None, f"import cycle in {package}: " + " -> ".join(cycle or [])


def test_the_graph_of_a_package_sees_a_lazy_cycle(tmp_path: Path) -> None:
    # the check itself can fail: a lazy 'from training.a import x' inside a function closes a cycle
    (tmp_path / "a.py").write_text("from training import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from training.a import x\n")
    (tmp_path / "c.py").write_text("import training.a\nimport trainingx.b\n")
    names = {"a", "b", "c"}
    graph = {n: core_imports(tmp_path / f"{n}.py", names, "training") for n in names}
    assert graph == {"a": {"b"}, "b": {"a"}, "c": {"a"}}
    assert find_cycle(graph) == ["a", "b", "a"]
