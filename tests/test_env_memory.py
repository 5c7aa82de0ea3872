"""Creating, resetting and closing envs leaves no memory behind (the bar: < 40 MiB for 1,000 envs).

Before the fix every env kept ~0.4 MiB (the encoder cache's weak keys were held by the encoders
themselves): 300 envs grew a process by ~119 MiB. 300 envs under 12 MiB is the same bar, pro rata,
and keeps this test at a few seconds; ``ffo bench`` reports the 1,000-env figure.
"""

from __future__ import annotations

from benchmarks.env_memory import env_churn_rss_mib


def test_env_churn_leaves_no_memory_behind():
    assert env_churn_rss_mib(300) < 12.0
