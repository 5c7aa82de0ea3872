"""The scripted bots need neither torch nor the policy network (agents/ffo/network.py is for the train extra)."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
sys.modules["torch"] = None  # any import of torch now raises ImportError
import agents
from agents import make_agent
from agents.ffo.policy import PolicyLoadError, spec_hash

bot = make_agent("heuristic", "german", seed=0)
assert spec_hash() and PolicyLoadError
assert "agents.ffo.network" not in sys.modules
print("ok")
"""


def test_agents_and_the_policy_loader_module_import_without_torch() -> None:
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
