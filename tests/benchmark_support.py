"""Killing a benchmark run part way, for the tests that resume it (tests/test_benchmark_protocol_slow.py,
tests/test_examples.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path


def progress_rows(folder: Path, seed: int = 0) -> int:
    """How many evaluation points seed ``seed`` of the run in ``folder`` has written (0 before the first)."""
    try:
        return len(json.loads((folder / f"seed-{seed}" / "progress.json").read_text())["rows"])
    except (OSError, ValueError, KeyError):
        return 0


def kill_after_points(cmd: list[str], folder: Path, points: int, cwd: Path, timeout: float = 900) -> int:
    """Start ``cmd`` (a benchmark run writing into ``folder``), SIGKILL its process group once seed 0 has
    written ``points`` evaluation points, and return how many it had written when it died."""
    proc = subprocess.Popen(cmd, cwd=cwd, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.time() + timeout
        while progress_rows(folder) < points and proc.poll() is None and time.time() < deadline:
            time.sleep(0.2)
        assert proc.poll() is None, "the run ended before it could be killed"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    return progress_rows(folder)
