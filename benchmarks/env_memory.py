"""Memory that outlives environments: RSS growth after creating, resetting and closing many envs.

Measured in a fresh subprocess so that nothing the caller has loaded counts; a few envs are made first
so that one-time costs (imports, the map tables, the first encoder) are not counted as growth.
"""

from __future__ import annotations

import json
import subprocess
import sys

from ffo_env.games import DEFAULT_GAME

_CHILD = r"""
import gc, json, sys
def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20
from ffo_env.games import game_info
make = game_info(sys.argv[2]).aec_env
n = int(sys.argv[1])
for i in range(5):
    e = make(); e.reset(seed=i); e.observe(e.agent_selection); e.close()
del e
gc.collect()
r0 = rss_mib()
for i in range(n):
    e = make(); e.reset(seed=i); e.observe(e.agent_selection); e.close()
del e
gc.collect()
print(json.dumps({"envs": n, "rss_growth_mib": rss_mib() - r0}))
"""


def env_churn_rss_mib(n_envs: int = 1000, game: str = DEFAULT_GAME) -> float:
    """RSS growth (MiB) of a fresh process after ``n_envs`` AEC envs of ``game`` (default: the registry's
    default game) were created, reset, observed and closed (issue bar: < 40 MiB for 1,000)."""
    if n_envs < 1:
        raise ValueError(f"n_envs must be positive, got {n_envs}")
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(n_envs), game],
        capture_output=True,
        text=True,
        timeout=1800,
        check=True,
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1])["rss_growth_mib"])
