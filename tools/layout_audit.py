"""Measure how far the tree is from "each game in its own places" (issue 62, item 4).

    python tools/layout_audit.py                      # the Markdown report of this checkout
    python tools/layout_audit.py --json audit.json    # and the figures as JSON
    python tools/layout_audit.py --check              # exit 1 if a figure rises above its bound (BOUNDS, CI)

Four measures, read from the source with :mod:`ast` and :mod:`tokenize` (nothing is imported or run):

1. **game code outside its places**: the Python lines of each game that sit outside the places the game's
   code belongs in (:data:`GAMES`: ``ffo_env/<game>/``, ``agents/<game>/``, ...). A file is a game's by
   evidence: it sits under one of the game's packages (its packages of today and of the target layout), or a
   part of its path names the game (``training/springtime/``, ``benchmarks/protocol/springtime.py``,
   ``ffo_env/envs/ffo_adapter.py``), or, outside every game, it imports (at the top or inside a function) or
   names by a dotted path or a file path a module or file of exactly one game and not the registry;
2. **shared modules that name a game**: every other module outside the games' places that imports a game's
   module, names one by its dotted or file path, or compares a value with a game's name (``game ==
   "springtime"``, a dict keyed by game names); only :data:`ALLOWED` (the registry) may. This is the list of
   shared files a new game would touch;
3. **import cycles between a game and the shared machinery**: the strongly connected components of the
   module import graph (imports inside functions included, ``if TYPE_CHECKING:`` left out; a parent
   package's ``__init__`` is not counted as imported) that hold a game's module and a shared one, or modules
   of two games; the same for the import-time graph (top-level imports only);
4. **code repeated across game boundaries**: pairs of files of different owners (a game, or the shared code)
   that share runs of ``--min-lines`` or more lines, compared after dropping blank lines, comments,
   docstrings, imports and lone punctuation, with names, strings and numbers folded (a run is ``exact``
   when it is the same to the letter); and pairs of one game's files in two different top-level folders
   (its pipeline written twice, e.g. ``agents/springtime/evaluate.py`` and ``training/springtime/``).

The places are a table (:data:`GAMES`, :data:`ALLOWED`) that the refactor updates as it moves code, or a JSON
file of the same shape (``--places``); the same command gives the figures before and after. ``--check`` (run by
``.ci/run`` with ``--no-duplicates``) fails when a figure rises above its bound in :data:`BOUNDS` or a shared
place that is done (:data:`CLEAN`) holds, names or reaches a game's code.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import io
import json
import re
import subprocess
import sys
import tokenize
from collections import defaultdict, deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = {"tests", "docs", "build", "dist", "node_modules", "__pycache__", "runs"}
RESULTS = ("benchmarks/results/",)  # outputs filed by task id (``<game>/<task>/...``), not a game's files
MAX_PLACES = 8  # a window repeated in more files than this is boilerplate, not a copy


@dataclass(frozen=True)
class GamePlaces:
    """Where one game's files belong (``places``) and what marks a file as the game's (``packages``: path
    prefixes or globs, its folders of today and of the target layout; ``tokens``: words of a path)."""

    name: str
    places: tuple[str, ...]
    packages: tuple[str, ...]
    tokens: tuple[str, ...]


# One place per game in each layer that has game-specific parts (docs/guide/suite_layout.md, issue 62)
LAYERS = ("ffo_env", "agents", "configs", "webplay", "benchmarks", "tools", "examples")


def _places(game: str) -> tuple[str, ...]:
    return tuple(f"{layer}/{game}/" for layer in LAYERS)


# The target layout of issue 62. ``packages`` also lists where a game's files are today; the refactor deletes
# those entries as it moves the files (a file under one is counted as its game's wherever it is).
GAMES: tuple[GamePlaces, ...] = (
    GamePlaces(
        "ffo",
        places=_places("ffo"),
        packages=(*_places("ffo"),),
        tokens=("ffo",),
    ),
    GamePlaces(
        "springtime",
        # and the public name of its envs, as PettingZoo names games
        places=(*_places("springtime"), "ffo_env/springtime_v0.py"),
        packages=_places("springtime"),
        tokens=("springtime",),
    ),
    GamePlaces(
        "france1940",
        places=(*_places("france1940"), "ffo_env/france1940_v0.py"),
        packages=_places("france1940"),
        tokens=("france1940",),
    ),
)
# Shared modules that may name games, and why (the refactor adds its compatibility shims here).
ALLOWED: dict[str, str] = {
    "ffo_env/games.py": "the game registry",
    "tools/layout_audit.py": "this audit's own table of places",
    "ffo_env/_moved.py": "the old import paths of moved modules, kept one release (issue 62)",
    "tools/rewrite_moved_imports.py": "rewrites old import paths to the new ones by _moved.py's table (issue 62)",
}

# What ``--check`` holds this tree to (issue 62 step 9; ``.ci/run``): a figure may fall below its bound, never
# rise above it. The bounds are the figures measured when step 9 landed (docs/guide/suite_layout.md); the
# goal of each is 0, and a change that lowers a figure lowers its bound here. The code repeated across a
# boundary is reported, not checked (a new game's first version may resemble another's).
BOUNDS: dict[str, int] = {
    "game_files_outside_places": 10,
    "game_lines_outside_places": 2_680,
    "reaching_one_game": 5,
    "shared_modules_naming_games": 5,
    "mixed_cycles": 0,
    "mixed_cycles_import_time": 0,
}
# The shared folders and modules done (issue 62 steps 5, 7, 8 and 9): no game code in them, no game named, and
# none reaching one game through others but :data:`CLEAN_REACHING`.
CLEAN: tuple[str, ...] = (
    "benchmarks/protocol/",
    "webplay/",
    "tools/",
    "examples/",
    "agents/ladder.py",
    "agents/compare.py",
    "agents/paired.py",
    "agents/registry.py",
    "agents/gym_entry.py",
    "agents/base.py",
)
# the two examples of the default game's public API reach it only through ffo_env/__init__.py and
# training/rllib_env.py, which the audit counts as France Fights On's
CLEAN_REACHING: frozenset[str] = frozenset({"examples/rllib_multi_agent.py", "examples/sb3_maskable_ppo.py"})


class AuditError(Exception):
    """A bad repository folder or places file: one message naming it."""


# ------------------------------------------------------------------ files and their evidence


@dataclass
class Evidence:
    """How one module names games: ``{game: [(line, what), ...]}`` per kind."""

    imports: dict[str, list[tuple[int, str]]] = field(default_factory=lambda: defaultdict(list))
    paths: dict[str, list[tuple[int, str]]] = field(default_factory=lambda: defaultdict(list))
    names: dict[str, list[tuple[int, str]]] = field(default_factory=lambda: defaultdict(list))
    via: dict[str, list[tuple[int, str]]] = field(default_factory=lambda: defaultdict(list))
    registry: bool = False  # imports ffo_env.games

    def games(self, soft: bool = True) -> set[str]:
        """The games named by an import or a path (directly or through a module of one game); with ``soft``
        also by a comparison with a game's name."""
        hard = [self.imports, self.paths, self.via] + ([self.names] if soft else [])
        return {g for kind in hard for g, v in kind.items() if v}


@dataclass
class Module:
    path: str  # repository-relative, '/'-separated
    name: str  # dotted module name
    lines: int
    code_lines: int
    tree: ast.Module | None
    edges: set[str] = field(default_factory=set)  # modules imported, anywhere
    refs: dict[str, int] = field(default_factory=dict)  # modules imported or named by a dotted path: line
    top_edges: set[str] = field(default_factory=set)  # modules imported at import time
    member_of: set[str] = field(default_factory=set)  # games whose package or name it carries
    evidence: Evidence = field(default_factory=Evidence)
    owner: str = "shared"
    kind: str = "shared"


def _segments(path: str) -> list[str]:
    parts = PurePosixPath(path).parts
    words: list[str] = []
    for i, part in enumerate(parts):
        stem = part.rsplit(".", 1)[0] if i == len(parts) - 1 else part
        if stem == "ffo_env":  # the suite's own name, not the game's
            continue
        words.extend(re.split(r"[_\-.]", stem))
    return words


def membership(path: str, games: Sequence[GamePlaces]) -> set[str]:
    """The games a file belongs to by where it sits or what its path says."""
    out = set()
    words = set(_segments(path))
    for g in games:
        for pkg in g.packages:
            if ("*" in pkg and fnmatch.fnmatch(path, pkg)) or ("*" not in pkg and path.startswith(pkg)):
                out.add(g.name)
        if words & set(g.tokens):
            out.add(g.name)
    return out


def in_places(path: str, game: GamePlaces) -> bool:
    return any(path == p or (p.endswith("/") and path.startswith(p)) for p in game.places)


def place_of(path: str, games: Sequence[GamePlaces]) -> str | None:
    return next((g.name for g in games if in_places(path, g)), None)


def _walk(repo: Path) -> Iterator[Path]:
    """The files of ``repo``: in a git checkout those git tracks and the untracked ones it does not ignore,
    elsewhere every file; hidden folders and :data:`SKIP_DIRS` left out either way."""
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            timeout=60,
        )
        listed = (
            [repo / f for f in done.stdout.decode("utf-8", "replace").split("\0") if f]
            if done.returncode == 0
            else None
        )
    except (OSError, subprocess.SubprocessError):
        listed = None
    paths = sorted(set(listed)) if listed is not None else sorted(repo.rglob("*"))
    for p in paths:
        rel = p.relative_to(repo).parts
        if any(part.startswith(".") or part in SKIP_DIRS or part.endswith(".egg-info") for part in rel[:-1]):
            continue
        if p.is_file():
            yield p


def _module_name(rel: str) -> str:
    parts = list(PurePosixPath(rel).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _code_lines(text: str) -> int:
    return sum(1 for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#"))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _docstring_ids(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    out.add(id(body[0].value))
    return out


def _imports(tree: ast.Module, package: str) -> Iterator[tuple[ast.stmt, list[str], bool]]:
    """Every import of ``tree`` (outside ``if TYPE_CHECKING:``): the node, the dotted names it may load
    (longest first) and whether it runs at import time (not inside a function)."""
    stack: list[tuple[ast.AST, bool]] = [(tree, True)]
    while stack:
        node, top = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend((n, top) for n in node.orelse)
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, [alias.name], top
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: max(0, len(package.split(".")) - node.level + 1)]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                yield node, [f"{base}.{alias.name}", base], top
        inner = top and not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def _resolve(name: str, modules: dict[str, Module]) -> str | None:
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        cand = ".".join(parts[:n])
        if cand in modules:
            return cand
    return None


_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+(:[A-Za-z_]\w*)?$")
_GAME_KEYS = ("game", "games")


def _name_literals(tree: ast.Module, names: set[str]) -> Iterator[tuple[int, str]]:
    """String constants equal to a game's name where code dispatches on it: a comparison, a dict key, a
    ``game=``/``games=`` argument or default, a value given to a ``*GAME*`` name."""

    def consts(node: ast.AST | None) -> Iterator[ast.Constant]:
        if isinstance(node, ast.Constant) and node.value in names:
            yield node
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            for elt in node.elts:
                yield from consts(elt)

    for node in ast.walk(tree):
        found: list[ast.Constant] = []
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                found.extend(consts(operand))
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                found.extend(consts(key))
        elif isinstance(node, ast.keyword) and node.arg in _GAME_KEYS:
            found.extend(consts(node.value))
        elif isinstance(node, ast.arguments):
            args = [*node.posonlyargs, *node.args]
            for arg, default in zip(args[len(args) - len(node.defaults) :], node.defaults, strict=True):
                if arg.arg in _GAME_KEYS:
                    found.extend(consts(default))
            for arg, kw_default in zip(node.kwonlyargs, node.kw_defaults, strict=True):
                if arg.arg in _GAME_KEYS:
                    found.extend(consts(kw_default))
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and "game" in t.id.lower() for t in targets):
                found.extend(consts(node.value))
        for c in found:
            yield c.lineno, str(c.value)


def load_modules(repo: Path, games: Sequence[GamePlaces]) -> dict[str, Module]:
    """Every Python file of ``repo`` outside tests, docs and hidden folders, parsed."""
    modules: dict[str, Module] = {}
    for p in _walk(repo):
        if p.suffix != ".py":
            continue
        rel = p.relative_to(repo).as_posix()
        text = p.read_text(encoding="utf-8", errors="replace")
        try:
            tree: ast.Module | None = ast.parse(text)
        except SyntaxError:
            tree = None  # counted, but gives no evidence
        mod = Module(rel, _module_name(rel), len(text.splitlines()), _code_lines(text), tree)
        mod.member_of = membership(rel, games)
        modules[mod.name] = mod
    return modules


def gather_evidence(repo: Path, modules: dict[str, Module], games: Sequence[GamePlaces]) -> None:
    """Fill each module's import edges and its evidence of naming games."""
    names = {g.name for g in games}
    for mod in modules.values():
        if mod.tree is None:
            continue
        package = mod.name if mod.path.endswith("__init__.py") else mod.name.rpartition(".")[0]
        for node, cands, top in _imports(mod.tree, package):
            target = next((t for t in (_resolve(c, modules) for c in cands) if t), None)
            if target is None or target == mod.name:
                continue
            mod.edges.add(target)
            mod.refs.setdefault(target, node.lineno)
            if top:
                mod.top_edges.add(target)
            if target == "ffo_env.games":
                mod.evidence.registry = True
            for g in modules[target].member_of:
                if (node.lineno, target) not in mod.evidence.imports[g]:
                    mod.evidence.imports[g].append((node.lineno, target))
        docstrings = _docstring_ids(mod.tree)
        for const in ast.walk(mod.tree):
            if (
                not (isinstance(const, ast.Constant) and isinstance(const.value, str))
                or id(const) in docstrings
            ):
                continue
            value = const.value.strip()
            hit: set[str] = set()
            if _DOTTED.match(value):
                target = _resolve(value.split(":")[0], modules)
                if target is not None and target != mod.name and value.split(":")[0].startswith(target):
                    hit = modules[target].member_of
                    mod.refs.setdefault(target, const.lineno)
            elif "/" in value and " " not in value and len(value) < 300 and not value.startswith("/"):
                rel = value.strip("/")
                if (repo / rel).exists():
                    hit = membership(rel + ("/" if (repo / rel).is_dir() else ""), games)
            for g in hit:
                mod.evidence.paths[g].append((const.lineno, value))
        for line, game in _name_literals(mod.tree, names):
            mod.evidence.names[game].append((line, game))


def _kind(mod: Module, games: Sequence[GamePlaces], allowed: dict[str, str]) -> tuple[str, str]:
    place = place_of(mod.path, games)
    ev = mod.evidence
    if place is not None:
        return place, "in-place"
    if mod.member_of:
        return "+".join(sorted(mod.member_of)), "misplaced"
    if mod.path in allowed:
        return "shared", "allowed"
    direct = {g for kind in (ev.imports, ev.paths) for g, v in kind.items() if v}
    every = ev.games()
    via = {g for g, v in ev.via.items() if v}
    if len(every) == 1 and not ev.registry and (direct or via):
        return next(iter(every)), "depends" if direct else "reaches"
    return "shared", "names-games" if every else "shared"


def classify(modules: dict[str, Module], games: Sequence[GamePlaces], allowed: dict[str, str]) -> None:
    """Owner (a game, or ``shared``) and kind of every module:

    ``in-place`` a game's file in its places; ``misplaced`` a game's file (by package or path) elsewhere;
    ``depends`` a module outside every game that imports or names a file of exactly one game, not the
    registry, and compares with no other game's name: that game's code living in shared folders;
    ``reaches`` the same through other ``depends``/``reaches`` modules only (to a fixed point), a module
    that is clean once those are; ``allowed`` the registry and its kin; ``names-games`` any other module
    that names a game; ``shared`` the rest. A module that names two games or imports the registry passes
    nothing on to its importers: shared code that dispatches stops the spread."""
    for mod in modules.values():
        mod.owner, mod.kind = _kind(mod, games, allowed)
    changed = True
    while changed:
        changed = False
        for mod in sorted(modules.values(), key=lambda m: m.path):
            if mod.kind in ("in-place", "misplaced", "allowed"):
                continue
            for target, line in sorted(mod.refs.items()):
                dep = modules[target]
                if dep.kind in ("depends", "reaches") and not any(
                    t == target for _, t in mod.evidence.via[dep.owner]
                ):
                    mod.evidence.via[dep.owner].append((line, target))
                    changed = True
            mod.owner, mod.kind = _kind(mod, games, allowed)


# ------------------------------------------------------------------ cycles


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one node (iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def crossing_cycle(graph: dict[str, set[str]], start: str, other: set[str], within: set[str]) -> list[str]:
    """A shortest import cycle from ``start`` back to itself through at least one node of ``other`` (breadth
    first over (module, crossed yet) inside one component); empty if there is none."""
    begin = (start, False)
    prev: dict[tuple[str, bool], tuple[str, bool]] = {}
    queue = deque([begin])
    while queue:
        node, crossed = queue.popleft()
        for nxt in sorted(graph.get(node, ())):
            if nxt not in within:
                continue
            state = (nxt, crossed or nxt in other)
            if state == (start, True):
                out, back = [start], (node, crossed)
                while back != begin:
                    out.append(back[0])
                    back = prev[back]
                return [start, *out[::-1][:-1], start] if len(out) > 1 else [start, start]
            if state not in prev and state != begin:
                prev[state] = (node, crossed)
                queue.append(state)
    return []


def mixed_cycles(modules: dict[str, Module], top_only: bool) -> list[dict[str, Any]]:
    graph = {m.name: (m.top_edges if top_only else m.edges) & set(modules) for m in modules.values()}
    out = []
    for comp in strongly_connected(graph):
        game_nodes = [n for n in comp if modules[n].kind in ("in-place", "misplaced")]
        shared = [n for n in comp if n not in game_nodes]
        owners = {modules[n].owner for n in game_nodes} | ({"shared"} if shared else set())
        if not game_nodes or (not shared and len(owners) < 2):
            continue
        start = game_nodes[0]
        others = {n for n in comp if n in shared or modules[n].owner != modules[start].owner}
        cycle = crossing_cycle(graph, start, others, set(comp))
        out.append(
            {
                "modules": len(comp),
                "games": sorted(o for o in owners if o != "shared"),
                "game_modules": sorted(game_nodes),
                "shared_modules": sorted(shared),
                "cycle": cycle,
            }
        )
    return out


# ------------------------------------------------------------------ repeated code


@dataclass
class Lines:
    """A file's comparable lines: physical line numbers, exact keys and shape keys."""

    numbers: list[int]
    exact: list[str]
    shape: list[str]


_PUNCT_ONLY = re.compile(r"^[\s()\[\]{},:;.]*$")


def comparable_lines(text: str) -> Lines:
    """Each line that says something, twice: as written (whitespace folded) and with every name, string and
    number folded (``N``, ``S``, ``0``); blank lines, comments, docstrings, imports and lone punctuation
    are left out."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return Lines([], [], [])
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            skip.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            if isinstance(node.value.value, str):  # a docstring or a bare string: prose
                skip.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    exact: dict[int, list[str]] = defaultdict(list)
    shape: dict[int, list[str]] = defaultdict(list)
    ignore = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            line = tok.start[0]
            if tok.type in ignore or tok.type == tokenize.ENDMARKER or line in skip:
                continue
            exact[line].append(tok.string)
            if tok.type == tokenize.NAME and not _is_keyword(tok.string):
                shape[line].append("N")
            elif tok.type == tokenize.STRING or tok.type in _FSTRING_TYPES:
                shape[line].append("S")
            elif tok.type == tokenize.NUMBER:
                shape[line].append("0")
            else:
                shape[line].append(tok.string)
    except (tokenize.TokenError, SyntaxError):
        return Lines([], [], [])
    out = Lines([], [], [])
    for line in sorted(exact):
        key = " ".join(exact[line])
        if _PUNCT_ONLY.match(key):
            continue
        out.numbers.append(line)
        out.exact.append(key)
        out.shape.append(" ".join(shape[line]))
    return out


_FSTRING_TYPES = {
    getattr(tokenize, n) for n in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END") if hasattr(tokenize, n)
}


def _is_keyword(word: str) -> bool:
    import keyword

    return keyword.iskeyword(word) or word in ("self", "cls", "None", "True", "False")


@dataclass
class Run:
    """One repeated run: comparable-line indices ``[i, i + n)`` of ``a`` and ``[j, j + n)`` of ``b``."""

    i: int
    j: int
    n: int
    same: int  # lines of the run that are the same to the letter

    @property
    def exact(self) -> bool:
        return self.same == self.n


def _telling(window: tuple[str, ...]) -> bool:
    """A window says something when most of its lines differ in shape: six ``name: type = 0`` fields in a row
    match any other six and are no copy."""
    return len(set(window)) >= max(2, (2 * len(window) + 2) // 3)


def shared_runs(a: Lines, b: Lines, min_lines: int, common: set[tuple[str, ...]] | None = None) -> list[Run]:
    """Runs of ``min_lines`` or more consecutive comparable lines of the same shape in ``a`` and ``b``, longest
    first, each adding lines not yet covered on both sides (windows in ``common`` are boilerplate)."""
    k = min_lines
    where: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i in range(len(a.shape) - k + 1):
        w = tuple(a.shape[i : i + k])
        if _telling(w) and (common is None or w not in common):
            where[w].append(i)
    hits: set[tuple[int, int]] = set()
    for j in range(len(b.shape) - k + 1):
        for i in where.get(tuple(b.shape[j : j + k]), ()):
            hits.add((i, j))
    found: list[Run] = []
    for i, j in sorted(hits):
        if (i - 1, j - 1) in hits:
            continue  # not the start of its diagonal run
        n = 0
        while (i + n, j + n) in hits:
            n += 1
        length = n + k - 1
        same = sum(1 for t in range(length) if a.exact[i + t] == b.exact[j + t])
        found.append(Run(i, j, length, same))
    found.sort(key=lambda r: (-r.n, r.i, r.j))
    kept: list[Run] = []
    seen_a: set[int] = set()
    seen_b: set[int] = set()
    for r in found:
        new_a = set(range(r.i, r.i + r.n)) - seen_a
        new_b = set(range(r.j, r.j + r.n)) - seen_b
        if len(new_a) >= k and len(new_b) >= k:  # a run mostly inside another is the same copy seen again
            kept.append(r)
            seen_a |= new_a
            seen_b |= new_b
    return sorted(kept, key=lambda r: (r.i, r.j))


def repeated_code(repo: Path, modules: dict[str, Module], min_lines: int) -> list[dict[str, Any]]:
    """Pairs of files of different owners (at least one a game), or of one game in two top-level folders,
    that share runs of ``min_lines`` comparable lines; a window found in more than :data:`MAX_PLACES` files
    is boilerplate and left out. A pair's ``lines`` counts the comparable lines of its runs (the same on both
    sides): what one copy would save."""
    texts = {m.path: (repo / m.path).read_text(encoding="utf-8", errors="replace") for m in modules.values()}
    lines = {path: comparable_lines(text) for path, text in texts.items()}
    files_of: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for path, ln in lines.items():
        for i in range(len(ln.shape) - min_lines + 1):
            files_of[tuple(ln.shape[i : i + min_lines])].add(path)
    common = {w for w, fs in files_of.items() if len(fs) > MAX_PLACES}
    pairs: set[tuple[str, str]] = set()
    for w, fs in files_of.items():
        if w not in common and len(fs) > 1 and _telling(w):
            ordered = sorted(fs)
            pairs.update((x, y) for n, x in enumerate(ordered) for y in ordered[n + 1 :])
    owner = {m.path: m.owner for m in modules.values()}
    out: list[dict[str, Any]] = []
    for x, y in sorted(pairs):
        ox, oy = owner[x], owner[y]
        if ox != oy:
            boundary = "game-shared" if "shared" in (ox, oy) else "cross-game"
        elif ox != "shared" and x.split("/")[0] != y.split("/")[0]:
            boundary = "same-game-two-folders"
        else:
            continue
        runs = shared_runs(lines[x], lines[y], min_lines, common)
        if not runs:
            continue
        la, lb = lines[x], lines[y]
        out.append(
            {
                "a": x,
                "b": y,
                "owners": [ox, oy],
                "boundary": boundary,
                "lines": sum(r.n for r in runs),
                "exact_lines": sum(r.same for r in runs),
                "runs": [
                    f"{la.numbers[r.i]}-{la.numbers[r.i + r.n - 1]} ~ {lb.numbers[r.j]}-{lb.numbers[r.j + r.n - 1]}"
                    + ("" if r.exact else " shape")
                    for r in runs
                ],
            }
        )
    out.sort(key=lambda d: (-int(d["lines"]), str(d["a"]), str(d["b"])))
    return out


# ------------------------------------------------------------------ the report


def _why(mod: Module, games: Sequence[GamePlaces]) -> str:
    if mod.kind == "misplaced":
        for g in games:
            if g.name in mod.member_of:
                pkg = next((p for p in g.packages if mod.path.startswith(p.rstrip("*"))), None)
                return f"in {g.name}'s package {pkg}" if pkg else f"its path names {g.name}"
    ev = mod.evidence
    first = [f"imports {t} (line {n})" for g in sorted(ev.imports) for n, t in ev.imports[g][:1]]
    first += [f"names {t!r} (line {n})" for g in sorted(ev.paths) for n, t in ev.paths[g][:1]]
    first += [f"imports {t} (line {n}), {g}'s by evidence" for g in sorted(ev.via) for n, t in ev.via[g][:1]]
    return "; ".join(first[:2])


def _other_files(repo: Path, games: Sequence[GamePlaces]) -> dict[str, dict[str, Any]]:
    """Files other than Python (data, configs, pages, weights) of each game outside its places."""
    out: dict[str, dict[str, Any]] = {g.name: {"files": 0, "text_lines": 0, "folders": set()} for g in games}
    for p in _walk(repo):
        rel = p.relative_to(repo).as_posix()
        if p.suffix == ".py" or place_of(rel, games) is not None or rel.startswith(RESULTS):
            continue
        for g in membership(rel, games):
            entry = out[g]
            entry["files"] += 1
            entry["folders"].add("/".join(rel.split("/")[:2]) + ("/" if rel.count("/") > 1 else ""))
            try:
                entry["text_lines"] += len(p.read_text(encoding="utf-8").splitlines())
            except (UnicodeDecodeError, OSError):
                pass  # weights and images: counted as files only
    for entry in out.values():
        entry["folders"] = sorted(entry["folders"])
    return out


def _commit(repo: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def external_duplicates(repo: Path, min_lines: int, owners: dict[str, str]) -> list[dict[str, Any]] | str:
    """The rows of the ``duplicates`` command (if it is on PATH) whose two files have different owners;
    a string saying why there are none when it cannot be run."""
    try:
        done = subprocess.run(
            [
                "duplicates",
                "--repo",
                str(repo),
                "--min-lines",
                str(min_lines),
                "--most",
                "200",
                "--seconds",
                "120",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    except (OSError, subprocess.SubprocessError) as e:
        return f"the duplicates command could not be run: {e}"
    rows = []
    for line in done.stdout.splitlines():
        m = re.match(r"^D\d+ (\S+):(\d+)-(\d+) ~ (\S+):(\d+)-(\d+)(.*)$", line)
        if not m or m[1] not in owners or m[4] not in owners or owners[m[1]] == owners[m[4]]:
            continue
        rows.append(
            {
                "a": f"{m[1]}:{m[2]}-{m[3]}",
                "b": f"{m[4]}:{m[5]}-{m[6]}",
                "owners": [owners[m[1]], owners[m[4]]],
                "note": m[7].strip(),
            }
        )
    return rows


def audit(
    repo: Path,
    games: Sequence[GamePlaces] = GAMES,
    allowed: dict[str, str] | None = None,
    min_lines: int = 6,
    duplicates: bool = True,
    external: bool = False,
) -> dict[str, Any]:
    """The four measures of ``repo`` as one JSON-ready document."""
    if not repo.is_dir():
        raise AuditError(f"{repo}: not a folder")
    allowed = ALLOWED if allowed is None else allowed
    modules = load_modules(repo, games)
    gather_evidence(repo, modules, games)
    classify(modules, games, allowed)
    ordered = sorted(modules.values(), key=lambda m: m.path)
    outside = [m for m in ordered if m.kind in ("misplaced", "depends")]
    reaching = [m for m in ordered if m.kind == "reaches"]
    per_game: dict[str, dict[str, int]] = {}
    for m in outside:
        row = per_game.setdefault(m.owner, {"lines": 0, "code_lines": 0, "files": 0})
        row["lines"] += m.lines
        row["code_lines"] += m.code_lines
        row["files"] += 1
    naming = [m for m in ordered if m.kind in ("names-games", "allowed")]

    def evidence_rows(m: Module) -> dict[str, Any]:
        ev = m.evidence
        return {
            "path": m.path,
            "lines": m.lines,
            "games": sorted(ev.games()),
            "registry": ev.registry,
            "imports": {g: [f"{t} (line {n})" for n, t in v] for g, v in sorted(ev.imports.items()) if v},
            "paths": {g: [f"{t} (line {n})" for n, t in v] for g, v in sorted(ev.paths.items()) if v},
            "via": {g: [f"{t} (line {n})" for n, t in v] for g, v in sorted(ev.via.items()) if v},
            "names": {g: sorted({n for n, _ in v}) for g, v in sorted(ev.names.items()) if v},
        }

    cycles = mixed_cycles(modules, top_only=False)
    cycles_top = mixed_cycles(modules, top_only=True)
    repeated = repeated_code(repo, modules, min_lines) if duplicates else []
    doc: dict[str, Any] = {
        "format": "ffo-layout-audit",
        "version": 1,
        "commit": _commit(repo),
        "min_lines": min_lines,
        "games": {
            g.name: {"places": list(g.places), "packages": list(g.packages), "tokens": list(g.tokens)}
            for g in games
        },
        "allowed": dict(allowed),
        "summary": {
            "python_files": len(modules),
            "python_lines": sum(m.lines for m in modules.values()),
            "game_lines_outside_places": sum(m.lines for m in outside),
            "game_code_lines_outside_places": sum(m.code_lines for m in outside),
            "game_files_outside_places": len(outside),
            "per_game": dict(sorted(per_game.items())),
            "reaching_one_game": len(reaching),
            "reaching_one_game_lines": sum(m.lines for m in reaching),
            "shared_modules_naming_games": sum(1 for m in naming if m.kind == "names-games"),
            "mixed_cycles": len(cycles),
            "mixed_cycles_import_time": len(cycles_top),
            "repeated_pairs": len(repeated),
            "repeated_lines": sum(r["lines"] for r in repeated),
            "repeated_lines_exact": sum(r["exact_lines"] for r in repeated),
            "repeated_by_boundary": {
                b: sum(r["lines"] for r in repeated if r["boundary"] == b)
                for b in ("cross-game", "game-shared", "same-game-two-folders")
            },
        },
        "outside_places": [
            {
                "path": m.path,
                "owner": m.owner,
                "kind": m.kind,
                "lines": m.lines,
                "code_lines": m.code_lines,
                "why": _why(m, games),
            }
            for m in outside
        ],
        "reaching_one_game": [
            {"path": m.path, "owner": m.owner, "lines": m.lines, "why": _why(m, games)} for m in reaching
        ],
        "other_files_outside_places": _other_files(repo, games),
        "shared_naming_games": [evidence_rows(m) for m in naming if m.kind == "names-games"],
        "allowed_naming_games": [
            {**evidence_rows(m), "reason": allowed[m.path]} for m in naming if m.kind == "allowed"
        ],
        "cycles": cycles,
        "cycles_import_time": cycles_top,
        "repeated": repeated,
    }
    if external:
        doc["external_duplicates"] = external_duplicates(repo, min_lines, {m.path: m.owner for m in ordered})
    return doc


def violations(
    doc: dict[str, Any],
    bounds: dict[str, int] | None = None,
    clean: tuple[str, ...] = (),
    clean_reaching: frozenset[str] = frozenset(),
) -> list[str]:
    """What ``--check`` fails on: with no ``bounds``, every measure that is not zero; with ``bounds`` (summary
    key -> highest value allowed), every figure above its bound; and every file under ``clean`` that holds game
    code, names a game or reaches one (``clean_reaching`` apart)."""
    s = doc["summary"]
    out = []
    if bounds is None:
        if s["game_files_outside_places"]:
            out.append(f"{s['game_lines_outside_places']} lines of game code outside its places")
        if s["reaching_one_game"]:
            out.append(f"{s['reaching_one_game']} shared modules reach one game through others")
        if s["shared_modules_naming_games"]:
            out.append(f"{s['shared_modules_naming_games']} shared modules name a game")
        if s["mixed_cycles"]:
            out.append(f"{s['mixed_cycles']} import cycles mix a game and the shared machinery")
        if s["repeated_pairs"]:
            out.append(f"{s['repeated_lines']} lines repeated across game boundaries")
    else:
        for key, bound in bounds.items():
            if s[key] > bound:
                out.append(f"{key} is {s[key]}, above its bound {bound} (tools/layout_audit.py BOUNDS)")
    if clean:
        for kind, rows in (
            ("holds game code", doc["outside_places"]),
            ("names a game", doc["shared_naming_games"]),
            ("reaches one game through others", doc["reaching_one_game"]),
        ):
            for r in rows:
                if r["path"].startswith(clean) and not (
                    kind.startswith("reaches") and r["path"] in clean_reaching
                ):
                    out.append(
                        f"{r['path']} {kind}, in a shared place that is done (tools/layout_audit.py CLEAN)"
                    )
    return out


def markdown(doc: dict[str, Any], most: int = 40) -> str:
    s = doc["summary"]
    lines = [
        f"# Layout audit{' of ' + doc['commit'] if doc['commit'] else ''}",
        "",
        "| measure | value |",
        "| --- | ---: |",
        f"| Python files / lines read | {s['python_files']} / {s['python_lines']} |",
        f"| game code outside its places: files / lines (code lines) | {s['game_files_outside_places']} / "
        f"{s['game_lines_outside_places']} ({s['game_code_lines_outside_places']}) |",
    ]
    for g, row in s["per_game"].items():
        lines.append(f"| &nbsp;&nbsp;of which {g}: files / lines | {row['files']} / {row['lines']} |")
    lines += [
        f"| shared modules that reach one game only through others: files / lines | {s['reaching_one_game']} / "
        f"{s['reaching_one_game_lines']} |",
        f"| shared modules that name a game (registry and allowed apart) | {s['shared_modules_naming_games']} |",
        f"| import cycles mixing a game and shared code (import time) | {s['mixed_cycles']} ({s['mixed_cycles_import_time']}) |",
        f"| file pairs repeating code across a boundary / comparable lines | {s['repeated_pairs']} / {s['repeated_lines']} |",
        f"| &nbsp;&nbsp;of which exact / between two games / game and shared / one game in two folders | "
        f"{s['repeated_lines_exact']} / "
        + " / ".join(str(v) for v in s["repeated_by_boundary"].values())
        + " |",
        "",
        "## Game code outside its places",
        "",
        "| file | game | how | lines | evidence |",
        "| --- | --- | --- | ---: | --- |",
    ]
    lines += [
        f"| `{r['path']}` | {r['owner']} | {r['kind']} | {r['lines']} | {r['why']} |"
        for r in doc["outside_places"]
    ]
    lines += ["", "## Shared modules that reach one game only through others", ""]
    lines += [
        f"- `{r['path']}` ({r['owner']}, {r['lines']} lines): {r['why']}" for r in doc["reaching_one_game"]
    ]
    lines += ["", "Other files of a game outside its places (data, configs, pages, weights):", ""]
    for g, row in doc["other_files_outside_places"].items():
        if row["files"]:
            lines.append(
                f"- {g}: {row['files']} files ({row['text_lines']} text lines) in {', '.join(f'`{f}`' for f in row['folders'])}"
            )
    lines += [
        "",
        "## Shared modules that name a game",
        "",
        "| file | lines | games | how |",
        "| --- | ---: | --- | --- |",
    ]
    for r in doc["shared_naming_games"] + doc["allowed_naming_games"]:
        how = []
        for kind in ("imports", "paths", "via"):
            for g, items in r[kind].items():
                how.append(
                    f"{kind} {g}: "
                    + ", ".join(f"`{i}`" for i in items[:3])
                    + (" ..." if len(items) > 3 else "")
                )
        for g, ns in r["names"].items():
            how.append(
                f"compares with {g!r} at lines {', '.join(map(str, ns[:6]))}{' ...' if len(ns) > 6 else ''}"
            )
        note = f" (allowed: {r['reason']})" if "reason" in r else ""
        lines.append(f"| `{r['path']}`{note} | {r['lines']} | {', '.join(r['games'])} | {'; '.join(how)} |")
    lines += ["", "## Import cycles that mix a game and the shared machinery", ""]
    for label, cycles in (
        ("imports anywhere", doc["cycles"]),
        ("import time only", doc["cycles_import_time"]),
    ):
        lines.append(f"{label}: {len(cycles)}")
        lines.append("")
        for c in cycles:
            lines.append(
                f"- {c['modules']} modules ({', '.join(c['games'])} with {len(c['shared_modules'])} shared), e.g. "
                + " -> ".join(f"`{n}`" for n in c["cycle"])
            )
        lines.append("")
    lines += [
        "## Code repeated across a boundary",
        "",
        f"Runs of {doc['min_lines']}+ comparable lines (names, strings and numbers folded); 'exact' lines are the "
        "same to the letter.",
        "",
        "| a | b | owners | lines (exact) | runs |",
        "| --- | --- | --- | ---: | --- |",
    ]
    for r in doc["repeated"][:most]:
        runs = ", ".join(r["runs"][:3]) + (f" (+{len(r['runs']) - 3})" if len(r["runs"]) > 3 else "")
        lines.append(
            f"| `{r['a']}` | `{r['b']}` | {' / '.join(r['owners'])} | {r['lines']} ({r['exact_lines']}) | {runs} |"
        )
    if len(doc["repeated"]) > most:
        lines.append(f"\n(+{len(doc['repeated']) - most} more pairs in the JSON)")
    ext = doc.get("external_duplicates")
    if isinstance(ext, str):
        lines += ["", f"External `duplicates`: {ext}"]
    elif ext is not None:
        lines += ["", f"External `duplicates` rows across a boundary: {len(ext)}", ""]
        lines += [f"- `{r['a']}` ~ `{r['b']}` ({' / '.join(r['owners'])}) {r['note']}" for r in ext]
    return "\n".join(lines) + "\n"


def check_table(places: Path | None) -> tuple[dict[str, int] | None, tuple[str, ...], frozenset[str]]:
    """What ``--check`` holds the tree to: this tree's :data:`BOUNDS`, :data:`CLEAN` and
    :data:`CLEAN_REACHING`; with a places file, its ``"bounds"`` (none: every measure zero) and ``"clean"``."""
    if places is None:
        return BOUNDS, CLEAN, CLEAN_REACHING
    raw = json.loads(places.read_text(encoding="utf-8"))
    bounds = raw.get("bounds")
    return (
        None if bounds is None else {str(k): int(v) for k, v in bounds.items()},
        tuple(raw.get("clean", ())),
        frozenset(raw.get("clean_reaching", ())),
    )


def load_places(path: Path) -> tuple[tuple[GamePlaces, ...], dict[str, str]]:
    """A places file: ``{"games": {name: {"places": [...], "packages": [...], "tokens": [...]}}, "allowed":
    {path: reason}}``."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        games = tuple(
            GamePlaces(
                name,
                tuple(g["places"]),
                tuple(g.get("packages", g["places"])),
                tuple(g.get("tokens", [name])),
            )
            for name, g in raw["games"].items()
        )
        allowed = {str(k): str(v) for k, v in raw.get("allowed", {}).items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise AuditError(f"{path}: not a places file ({type(e).__name__}: {e})") from None
    return games, allowed


def _write(path: Path, text: str) -> None:
    """Write ``text`` whole or not at all (the project's atomic write: the tool runs from a checkout)."""
    from ffo_env.atomic import atomic_write_text

    atomic_write_text(path, text)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python tools/layout_audit.py",
        description="How far the tree is from each game in its own places (issue 62): game code outside its "
        "places, shared modules that name a game, import cycles between a game and shared code, code repeated "
        "across game boundaries.",
    )
    p.add_argument("--repo", type=Path, default=ROOT, help="the checkout to read (default: this one)")
    p.add_argument("--json", metavar="PATH", help="write the figures as JSON here ('-': standard output)")
    p.add_argument(
        "--markdown", metavar="PATH", help="write the Markdown report here (default: standard output)"
    )
    p.add_argument("--places", type=Path, help="a JSON table of places to use instead of the built-in one")
    p.add_argument(
        "--min-lines", type=int, default=6, help="the shortest repeated run that counts (default 6)"
    )
    p.add_argument("--most", type=int, default=40, help="rows of repeated code in the Markdown (default 40)")
    p.add_argument("--no-duplicates", action="store_true", help="skip the repeated-code measure (faster)")
    p.add_argument("--external", action="store_true", help="also list the 'duplicates' command's rows")
    p.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if a figure is above its bound (BOUNDS) or a done shared place (CLEAN) holds or names game "
        "code; with --places, unless every measure is zero (or below the file's 'bounds')",
    )
    a = p.parse_args(argv)
    try:
        if a.min_lines < 2:
            raise AuditError(f"--min-lines must be 2 or more, got {a.min_lines}")
        games, allowed = load_places(a.places) if a.places else (GAMES, ALLOWED)
        doc = audit(a.repo.resolve(), games, allowed, a.min_lines, not a.no_duplicates, a.external)
    except AuditError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    text = json.dumps(doc, indent=1) + "\n"
    try:
        if a.json == "-":
            sys.stdout.write(text)
        elif a.json:
            _write(Path(a.json), text)
        if a.markdown and a.markdown != "-":
            _write(Path(a.markdown), markdown(doc, a.most))
        elif a.json != "-":
            sys.stdout.write(markdown(doc, a.most))
    except OSError as e:
        why = (
            f"cannot write {e.filename}: {e.strerror}" if e.filename else str(e)
        )  # the atomic write's own words
        print(f"error: {why}", file=sys.stderr)
        return 2
    if a.check:
        bad = violations(doc, *check_table(a.places))
        for v in bad:
            print(f"layout: {v}", file=sys.stderr)
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
