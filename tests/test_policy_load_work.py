"""What starting a game costs (issue 39): ``ffo --help`` and games between bots import no torch; loading a policy
builds its network once, without an optimizer or torch._dynamo, and leaves torch's random stream alone. Checked
by what is imported and constructed, not by timing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _modules_after(code: str) -> dict[str, bool]:
    probe = (
        "import sys, json\n" + code + "\nprint(json.dumps({m: m in sys.modules for m in "
        "('torch', 'torch._dynamo', 'sympy', 'stable_baselines3', 'sb3_contrib')}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=600, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_help_and_a_game_between_bots_import_no_torch() -> None:
    code = (
        "from ffo_env.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "assert main(['play', '--french', 'random', '--german', 'pass', '--seed', '1']) == 0"
    )
    loaded = _modules_after(code)
    assert not any(loaded.values()), loaded


def test_loading_a_policy_builds_its_network_once_without_dynamo() -> None:
    pytest.importorskip("sb3_contrib")
    code = (
        "import agents.ffo.network as pn\n"
        "built = []\n"
        "init = pn.HexPolicy.__init__\n"
        "def counted(self, *a, **k):\n    built.append(1)\n    init(self, *a, **k)\n"
        "pn.HexPolicy.__init__ = counted\n"
        "from agents.ffo.pretrained import load_pretrained\n"
        "agent = load_pretrained('french')\n"
        "assert len(built) == 1, built\n"
        "assert not hasattr(agent.policy, 'action_net') or type(agent.policy.action_net).__name__ == 'HexActionHead'"
    )
    loaded = _modules_after(code)
    assert loaded["torch"] and not loaded["torch._dynamo"] and not loaded["sympy"], loaded


def test_loading_a_policy_leaves_torchs_random_stream_and_plays_as_built() -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from agents.ffo.pretrained import load_pretrained

    torch.manual_seed(3)
    expected = torch.rand(4)
    torch.manual_seed(3)
    agent = load_pretrained("german")
    assert torch.equal(torch.rand(4), expected)
    with pytest.raises(AttributeError, match="has no optimizer"):
        agent.policy.optimizer.step()
    # the weights are the file's, every one (the network built for inference has the file's keys exactly)
    saved = torch.load(ROOT / "agents" / "ffo" / "pretrained_policies" / "german.pt", weights_only=True)
    mine = agent.policy.state_dict()
    assert set(mine) == set(saved) and all(torch.equal(mine[k], saved[k]) for k in saved)


def test_metadata_asking_for_a_huge_network_is_refused_before_it_is_allocated(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    from agents.ffo.policy import PolicyLoadError, load_policy

    src = ROOT / "agents" / "ffo" / "pretrained_policies"
    shutil.copy(src / "french.pt", tmp_path / "p.pt")
    meta = json.loads((src / "french.json").read_text())
    meta["network"]["cnn_dim"] = meta["network"]["channels"] = 4096  # in range, ~4e9 parameters
    (tmp_path / "p.json").write_text(json.dumps(meta))
    with pytest.raises(PolicyLoadError, match="do not belong together"):
        load_policy(tmp_path / "p.pt")
