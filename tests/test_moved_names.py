"""The import hook of the modules issue 62 moves (ffo_env/_moved.py): an old name is the new module object,
warns once, and a pickle naming the old path loads."""

from __future__ import annotations

import importlib
import pickle
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from ffo_env import _moved
from ffo_env._moved import MOVED, MovedModuleFinder, new_name

OLD, NEW = "i62probe_old", "i62probe_new"  # the same length: a pickle's names are length-prefixed


@pytest.fixture
def probe(tmp_path: Path) -> Iterator[MovedModuleFinder]:
    """A package ``i62probe_new`` (``mod.Thing``, ``sub/deep.py``) on sys.path and a hook mapping
    ``i62probe_old`` to it, removed afterwards."""
    pkg = tmp_path / NEW
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text(
        "LOADS = []\nLOADS.append(1)\n\n\nclass Thing:\n    def __init__(self, x):\n        self.x = x\n"
    )
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "deep.py").write_text("VALUE = 42\n")
    finder = MovedModuleFinder({OLD: NEW, "i62probe_gone": "i62probe_nowhere"})
    sys.path.insert(0, str(tmp_path))
    sys.meta_path.insert(0, finder)
    try:
        yield finder
    finally:
        sys.meta_path.remove(finder)
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n.split(".")[0] in (OLD, NEW)]:
            del sys.modules[name]


def test_new_name_by_entry_and_by_moved_parent() -> None:
    table = {"a.core": "a.game.core", "a.envs.aec": "a.game.env"}
    assert new_name("a.core", table) == "a.game.core"
    assert new_name("a.core.state", table) == "a.game.core.state"
    assert new_name("a.core.x.y", table) == "a.game.core.x.y"
    assert new_name("a.envs.aec", table) == "a.game.env"
    assert new_name("a.envs.wrappers", table) is None
    assert new_name("a.corex", table) is None


def test_an_old_name_is_the_same_module_object_and_warns_once(probe: MovedModuleFinder) -> None:
    with pytest.warns(DeprecationWarning, match=f"moved to {NEW}") as caught:
        old = importlib.import_module(f"{OLD}.mod")
    assert sorted(str(w.message).split()[0] for w in caught) == [OLD, f"{OLD}.mod"]  # the package, the module
    new = importlib.import_module(f"{NEW}.mod")
    assert old is new
    assert new.LOADS == [1]  # executed once, under its new name
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a second import of the old name: no second warning
        again = importlib.import_module(f"{OLD}.mod")
        from i62probe_old import mod
    assert again is new and mod is new
    assert isinstance(mod.Thing(1), new.Thing)


def test_submodules_of_an_old_package_resolve_to_the_new_ones(probe: MovedModuleFinder) -> None:
    with pytest.warns(DeprecationWarning, match=f"moved to {NEW}"):
        deep = importlib.import_module(f"{OLD}.sub.deep")
    assert deep is importlib.import_module(f"{NEW}.sub.deep")
    assert deep.VALUE == 42
    assert sys.modules[f"{OLD}.sub"] is sys.modules[f"{NEW}.sub"]


def test_a_missing_module_under_an_old_name_fails_as_any_missing_module(probe: MovedModuleFinder) -> None:
    with pytest.warns(DeprecationWarning, match=f"moved to {NEW}"), pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"{OLD}.nothing_here")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("i62probe_gone.mod")  # its new package does not exist


def test_a_pickle_naming_an_old_path_loads_as_the_new_class(probe: MovedModuleFinder) -> None:
    new = importlib.import_module(f"{NEW}.mod")
    for protocol in (0, 2, pickle.HIGHEST_PROTOCOL):
        data = pickle.dumps(new.Thing(7), protocol=protocol)
        old_data = data.replace(NEW.encode(), OLD.encode())
        assert OLD.encode() in old_data and NEW.encode() not in old_data
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            obj = pickle.loads(old_data)
        assert type(obj) is new.Thing and obj.x == 7


def test_ffo_env_installs_the_hook_first_on_the_meta_path() -> None:
    import ffo_env  # noqa: F401

    assert _moved._FINDER in sys.meta_path
    _moved.install()  # a second install does nothing
    assert sum(1 for f in sys.meta_path if f is _moved._FINDER) == 1


@pytest.mark.parametrize("old", sorted(MOVED) or ["(none moved yet)"])
def test_every_moved_name_resolves_to_its_new_module(old: str) -> None:
    if old not in MOVED:
        assert MOVED == {}
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])
    assert module.__name__ == MOVED[old]
    assert module.__spec__ is not None and module.__spec__.name == MOVED[old]  # its own spec, kept


def test_a_moved_package_keeps_its_spec_and_resources() -> None:
    from importlib import resources

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = importlib.import_module("ffo_env.render")
    assert old.__spec__ is not None and old.__spec__.submodule_search_locations
    assert resources.files("ffo_env.ffo.render").joinpath("static").is_dir()


def test_the_rewrite_tool_rewrites_old_names_and_paths_once_and_leaves_lookalikes() -> None:
    import importlib.util

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location(
        "rewrite_moved_imports", root / "tools/rewrite_moved_imports.py"
    )
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    old = (
        "from ffo_env.core import hexgrid as hg\nfrom ffo_env.core import dice\n"
        "from ffo_env.core.state import State\nimport ffo_env.envs.aec\nfrom ffo_env.envs import adapter\n"
        'x = "ffo_env.core.record:Recorder ffo_env/core/state.py ffo_env/data/reconstruction-v1/map.csv"\n'
        'y = "ffo_env/French-flat-v0 ffo_env.renderer ffo_env.render.svgboard ffo_env/envs/aec.py"\n'
    )
    new = tool.rewrite(old)
    assert new == (
        "from ffo_env.ffo.core import hexgrid as hg\nfrom ffo_env.core import dice\n"
        "from ffo_env.ffo.core.state import State\nimport ffo_env.ffo.env\nfrom ffo_env.envs import adapter\n"
        'x = "ffo_env.ffo.core.record:Recorder ffo_env/ffo/core/state.py ffo_env/ffo/data/reconstruction-v1/map.csv"\n'
        'y = "ffo_env/French-flat-v0 ffo_env.renderer ffo_env.ffo.render.svgboard ffo_env/ffo/env.py"\n'
    )
    assert tool.rewrite(new) == new


def test_the_rewrite_tool_rewrites_the_bots_moved_in_step_4() -> None:
    """Step 4 moved France Fights On's bots to agents/ffo/ (agents.policy_net renamed agents.ffo.network) and
    training.search_teacher to agents.ffo.search; names of shared modules that look alike stay."""
    import importlib.util

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location(
        "rewrite_moved_imports", root / "tools/rewrite_moved_imports.py"
    )
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    old = (
        "from agents import knowledge as kn\nfrom agents import harness, policy\nfrom agents import policy_io\n"
        "from agents.policy_net import HexPolicy\nimport training.search_teacher\n"
        'x = "agents/pretrained_policies/german.pt agents.policy_io agents/springtime/pretrained_policies"\n'
        'y = "self.agents.expert agents/expert.py agents.simple:PassAgent"\n'
    )
    new = tool.rewrite(old)
    assert new == (
        "from agents.ffo import knowledge as kn\nfrom agents import harness, policy\nfrom agents import policy_io\n"
        "from agents.ffo.network import HexPolicy\nimport agents.ffo.search\n"
        'x = "agents/ffo/pretrained_policies/german.pt agents.policy_io agents/springtime/pretrained_policies"\n'
        'y = "self.agents.expert agents/ffo/expert.py agents.ffo.simple:PassAgent"\n'
    )
    assert tool.rewrite(new) == new


def test_a_pickle_naming_the_old_network_module_loads_the_network_class() -> None:
    """What an SB3 ``.zip`` checkpoint loaded with ``--trust-pickle`` holds: a class named by its module path of
    before step 4 (``agents.policy_net.HexPolicy``)."""
    pytest.importorskip("torch")
    from agents.ffo.network import HexPolicy

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        importlib.import_module("agents.policy_net")  # the old name, for the pickler's lookup below
    for protocol in (0, 2, pickle.HIGHEST_PROTOCOL):
        HexPolicy.__module__ = "agents.policy_net"  # pickled by reference under the old module path
        try:
            data = pickle.dumps(HexPolicy, protocol=protocol)
        finally:
            HexPolicy.__module__ = "agents.ffo.network"
        assert b"agents.policy_net" in data and b"agents.ffo.network" not in data
        for name in [m for m in sys.modules if m == "agents.policy_net"]:
            del sys.modules[name]  # a fresh process: the old name is not imported yet
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            assert pickle.loads(data) is HexPolicy
