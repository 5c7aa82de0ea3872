"""The old import paths of modules that issue 62 moved into each game's own package, kept for one release.

The refactor (``docs/guide/suite_layout.md``) moves France Fights On's modules from the top of ``ffo_env``
into ``ffo_env/ffo/`` (and later its bots into ``agents/ffo/``). Code, SB3 ``.zip`` checkpoints loaded with
``--trust-pickle`` (their cloudpickled data names ``agents.policy_net.HexPolicy``) and RLlib checkpoints (their
pickled config names the module of the env creator) still name the old paths. This module answers those
names with one import hook: importing an old name gives **the same module object** as its new name (so
``isinstance`` checks, module-level state and pickles agree; nothing is imported twice) and warns once with a
:class:`DeprecationWarning` naming the new path.

:data:`MOVED` maps an old module name to its new one; an entry also covers every submodule of the old name
(``ffo_env.render`` -> ``ffo_env.ffo.render`` answers ``ffo_env.render.svgboard`` with
``ffo_env.ffo.render.svgboard``).
``ffo_env`` installs the hook when imported (:func:`install`), and so do ``agents``, ``training``,
``webplay`` and ``benchmarks``; a name that has no new module (a typo under an old package) fails as any missing module
does. The hook names modules of a game by design: it is listed in the layout audit's ``ALLOWED``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Mapping, Sequence
from types import ModuleType

# old module name -> new module name (an entry covers the old name's submodules too); grows as modules move
# France Fights On's rules core moved module by module: ffo_env.core keeps what every game's core shares
_FFO_CORE = (
    "actions combat combat_odds contexts datasets describe determinize evacuation game hexgrid mapdata "
    "mapfile masks movement notation panzer_scare phase_handlers phases record refugees reinforcements "
    "replacement scenario search setup_phase setup_rules sides stacking state state_check state_io "
    "turn_sequence version victory visibility"
).split()
# France Fights On's bots and policy modules moved under their own names (agents.policy_net is renamed)
_FFO_AGENTS = (
    "bot_tuning botconfig expert expert_search flat_policy french_heuristic german_heuristic heuristic_base "
    "knowledge lookahead policy pretrained simple"
).split()
MOVED: dict[str, str] = {
    # step 3: France Fights On's rules core, encoding, rendering and env modules into ffo_env/ffo/
    **{f"ffo_env.core.{m}": f"ffo_env.ffo.core.{m}" for m in _FFO_CORE},
    "ffo_env.encoding": "ffo_env.ffo.encoding",
    "ffo_env.render": "ffo_env.ffo.render",
    "ffo_env.envs.aec": "ffo_env.ffo.env",
    "ffo_env.envs.single_agent": "ffo_env.ffo.single_agent",
    "ffo_env.envs.ffo_adapter": "ffo_env.ffo.adapter",
    "ffo_env.envs.spaces": "ffo_env.ffo.spaces",
    "ffo_env.envs.flat": "ffo_env.ffo.encoding.flat",
    "ffo_env.envs.render": "ffo_env.ffo.render.env_frames",
    "ffo_env.envs.openspiel_game": "ffo_env.ffo.openspiel_game",
    # step 4: France Fights On's bots, policy files, network and search teacher into agents/ffo/
    **{f"agents.{m}": f"agents.ffo.{m}" for m in _FFO_AGENTS},
    "agents.policy_net": "agents.ffo.network",
    "training.search_teacher": "agents.ffo.search",
    # step 5: each game's web play into webplay/<game>/
    "webplay.session": "webplay.ffo.session",
    "webplay.springtime_session": "webplay.springtime.session",
    "webplay.springtime_page": "webplay.springtime.page",
    # step 6: Springtime for Hitler's own training pipeline gave way to the one pipeline of every game
    "training.springtime": "training",
    "training.springtime.command": "training.train_command",
    "training.springtime.config": "training.config",
    "training.springtime.imitation": "training.imitation",
    "training.springtime.opponents": "training.opponents",
    "training.springtime.ppo": "training.model",
    "training.springtime.release": "training.release",
    # step 7: each game's part of the benchmark into benchmarks/<game>/
    "benchmarks.protocol.springtime": "benchmarks.springtime",
    "benchmarks.protocol.states": "benchmarks.ffo.states",
}


def new_name(old: str, moved: Mapping[str, str] | None = None) -> str | None:
    """The module ``old`` moved to (by its entry or its nearest moved parent package), or None: not moved."""
    table = MOVED if moved is None else moved
    if old in table:
        return table[old]
    head, _, tail = old.rpartition(".")
    parts = [tail]
    while head:
        if head in table:
            return ".".join([table[head], *reversed(parts)])
        head, _, tail = head.rpartition(".")
        parts.append(tail)
    return None


class _AliasLoader(importlib.abc.Loader):
    """Loads an old name as the module object of its new name (imported first, under its new name)."""

    def __init__(self, old: str, new: str) -> None:
        self.old = old
        self.new = new
        self._spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.new)
        self._spec = module.__spec__  # the import system sets __spec__ to the old name's next: put back
        warnings.warn(
            f"{self.old} moved to {self.new} (issue 62); import {self.new}: the old name goes in a later release",
            DeprecationWarning,
            stacklevel=2,
        )
        return module

    def get_code(self, fullname: str) -> object:
        """The new module's code, so that ``python -m OLD.NAME`` runs the new module as ``__main__`` (runpy
        asks the loader of the old name for it)."""
        del fullname
        spec = importlib.util.find_spec(self.new)
        loader = spec.loader if spec is not None else None
        if loader is None or not hasattr(loader, "get_code"):
            raise ImportError(f"{self.new} has no code to run (the new module of {self.old})")
        return loader.get_code(self.new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run (the module was executed once, under its new name); its own spec is put back, so
        that ``importlib.resources`` and ``importlib.reload`` see the package it is."""
        module.__spec__ = self._spec


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """The import hook: first on ``sys.meta_path``, so an old name never loads its new module's file a
    second time under the old name."""

    def __init__(self, moved: Mapping[str, str] | None = None) -> None:
        self._moved = moved

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        new = new_name(fullname, MOVED if self._moved is None else self._moved)
        if new is None:
            return None
        try:
            if importlib.util.find_spec(new) is None:
                return None
        except ModuleNotFoundError:  # a parent of the new name is missing: the old name is not answered
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(fullname, new))


_FINDER = MovedModuleFinder()


def install() -> None:
    """Put the hook first on ``sys.meta_path`` (once; a second call does nothing)."""
    if not any(isinstance(f, MovedModuleFinder) and f is _FINDER for f in sys.meta_path):
        sys.meta_path.insert(0, _FINDER)
