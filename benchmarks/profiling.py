"""Where the time of one AEC step goes: a per-function breakdown and a cProfile/pyinstrument report."""

from __future__ import annotations

import cProfile
import io
import marshal
import pstats
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.env_speed import _default_env, aec_random
from benchmarks.speed_parts import profile_targets, profile_top_level
from ffo_env.atomic import atomic_write_bytes, atomic_write_text


def step_breakdown(seconds: float, seed: int = 0) -> dict[str, Any]:
    """Microseconds per AEC step of the default game spent in the main functions of its speed part's
    ``PROFILE_TARGETS`` (timing wrappers, no profiler).

    Nested figures are part of their parents'; ``other`` is the AEC loop minus the part's top-level figures
    (``PROFILE_TOP_LEVEL``: France Fights On's ``apply_action`` and ``observe``), i.e. PettingZoo wrappers,
    rewards, the benchmark's own random choice."""
    import importlib

    targets, top = profile_targets(), profile_top_level()
    acc: defaultdict[str, float] = defaultdict(float)  # seconds per label
    calls: Counter[str] = Counter()
    patched: list[tuple[Any, str, Any]] = []
    pc = time.perf_counter

    def timed(label: str, f: Callable[..., Any]) -> Callable[..., Any]:
        def w(*a: Any, **k: Any) -> Any:
            t0 = pc()
            try:
                return f(*a, **k)
            finally:
                acc[label] += pc() - t0
                calls[label] += 1

        return w

    for label, module, owner, name in targets:
        mod = importlib.import_module(module)
        obj = getattr(mod, owner) if owner else mod
        f = getattr(obj, name, None)
        if f is None:
            continue
        patched.append((obj, name, f))
        setattr(obj, name, timed(label, f))
    try:
        steps, dt = aec_random(_default_env, seconds, seed)
    finally:
        for obj, name, f in reversed(patched):
            setattr(obj, name, f)
    per = {label: acc[label] / steps * 1e6 for label, *_ in targets if label in acc}
    total = dt / steps * 1e6
    per["other (wrappers, rewards, bench loop)"] = total - sum(per.get(label, 0.0) for label in top)
    return {
        "steps": steps,
        "us_per_step_total": total,
        "us_per_step": per,
        "calls_per_step": {label: calls[label] / steps for label, *_ in targets if label in calls},
        "note": "timing wrappers add ~0.3 us per call; nested figures are included in their parents'",
    }


def profile_aec(seconds: float, path: Path, profiler: str = "cprofile") -> dict[str, Any]:
    """Profile the AEC loop: a text report (and a .prof file for cProfile) next to ``path``."""
    text = io.StringIO()
    out: dict[str, Any] = {"profiler": profiler}
    bd = step_breakdown(seconds)
    out["breakdown"] = bd
    text.write(f"AEC env, random play, {bd['steps']} steps: {bd['us_per_step_total']:.1f} us per step\n\n")
    text.write("per-step breakdown (timing wrappers; nested figures are included in their parents'):\n")
    for label, us in bd["us_per_step"].items():
        text.write(f"  {label:<42} {us:8.1f} us  ({bd['calls_per_step'].get(label, 0):.2f} calls/step)\n")
    text.write("\n")
    if profiler == "pyinstrument":
        from pyinstrument import Profiler

        prof = Profiler(interval=0.0002)
        prof.start()
        steps, _dt = aec_random(_default_env, seconds)
        prof.stop()
        text.write(prof.output_text(unicode=False, color=False, show_all=False))
        html = path.with_suffix(".html")
        atomic_write_text(html, prof.output_html())
        out["html"] = str(html)
    else:
        pr = cProfile.Profile()
        pr.enable()
        steps, _dt = aec_random(_default_env, seconds)
        pr.disable()
        prof_path = path.with_suffix(".prof")
        pr.create_stats()  # what Profile.dump_stats writes, but through the atomic writer
        atomic_write_bytes(prof_path, marshal.dumps(pr.stats))
        out["prof"] = str(prof_path)
        text.write(f"cProfile of {steps} AEC steps (times include the profiler's overhead)\n")
        for key in ("tottime", "cumulative"):
            s = io.StringIO()
            pstats.Stats(pr, stream=s).strip_dirs().sort_stats(key).print_stats(25)
            text.write(f"\n---- sorted by {key}\n{s.getvalue()}")
    atomic_write_text(path, text.getvalue())
    out["report"] = str(path)
    return out
