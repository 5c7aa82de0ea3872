"""Freeze the fingerprints of the current task versions into ``data/fingerprints.json``.

    python -m benchmarks.protocol.freeze            # print the current fingerprints and what changed
    python -m benchmarks.protocol.freeze --write    # write them (after bumping the versions that changed)

A task's fingerprint changes when the rules, the data, the observation, its bots or its start states do
(:func:`benchmarks.protocol.tasks.fingerprint`). Refreezing a task without bumping its version would let
results of two different tasks be pooled as one: ``--write`` refuses to change the fingerprint of a task id
that already has one. A retired version (:data:`benchmarks.protocol.tasks.RETIRED`) keeps the fingerprint it
was frozen with.
"""

from __future__ import annotations

import argparse
import json
import sys

from benchmarks.protocol.tasks import FINGERPRINTS, RETIRED, TASKS, fingerprint
from ffo_env.atomic import atomic_write_text


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.protocol.freeze", description=__doc__.splitlines()[0]
    )
    p.add_argument("--write", action="store_true", help="write data/fingerprints.json")
    args = p.parse_args(argv)
    old = json.loads(FINGERPRINTS.read_text(encoding="utf-8")) if FINGERPRINTS.exists() else {}
    # a retired version cannot be played here: its frozen fingerprint stays as the record of what it was
    new = {tid: fingerprint(task) for tid, task in TASKS.items() if tid not in RETIRED}
    new.update({tid: old[tid] for tid in RETIRED if tid in old})
    changed = [tid for tid in new if tid in old and old[tid] != new[tid]]
    for tid, fp in new.items():
        mark = "" if old.get(tid) == fp else (" (new)" if tid not in old else f" (was {old[tid]})")
        print(f"{tid:32} {fp}{mark}")
    if args.write:
        if changed:
            print(
                f"error: {', '.join(changed)} changed: bump their versions instead of refreezing",
                file=sys.stderr,
            )
            return 2
        atomic_write_text(FINGERPRINTS, json.dumps(new, indent=1, sort_keys=True) + "\n")
        print(f"written to {FINGERPRINTS}")
    return 0


def run_cli(argv: list[str] | None = None) -> int:
    """:func:`main`, quiet when its reader goes away (``freeze | head``)."""
    from ffo_env.cli import reader_gone

    try:
        return main(argv)
    except BrokenPipeError:
        return reader_gone()


if __name__ == "__main__":
    sys.exit(run_cli())
