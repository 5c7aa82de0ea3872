"""Golden playthroughs (OpenSpiel style): seeded random games written as text, one line per decision with
the position's headline, diffed against ``tests/springtime/fixtures/playthrough_*.txt``. A rules change
that alters play shows up here line by line; a deliberate one bumps ``ENGINE_VERSION`` and regenerates:

    .venv/bin/python -m tests.springtime.test_golden --write   # from the repository root
    (or: .venv/bin/python tests/springtime/test_golden.py --write)
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from ffo_env.atomic import atomic_write_text
from ffo_env.springtime.core import ENGINE_VERSION, Game

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CASES = {"campaign": ("campaign", 0), "plan_red": ("plan_red", 1)}


def playthrough(scenario: str, seed: int) -> str:
    s = Game(scenario=scenario).new_initial_state(seed)
    rng = random.Random(seed)
    lines = [
        f"# {ENGINE_VERSION} scenario {scenario} seed {seed} (random legal actions, random.Random({seed}))"
    ]
    while not s.is_terminal():
        legal = s.legal_actions()
        a = rng.choice(legal)
        lines.append(
            f"T{s.turn} {s.phase[:4]} b{s.box} M{s.morale} {s.current_agent} {s.decision} ({len(legal)})"
            f" -> {s.action_to_string(a)}"
        )
        s.apply_action(a)
    lines.append(f"result {s.result} winner {s.winner} morale {s.morale} dice {len(s.dice_log)}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_s54_golden_playthrough(name: str) -> None:
    path = FIXTURES / f"playthrough_{name}.txt"
    want = path.read_text(encoding="utf-8")
    got = playthrough(*CASES[name])
    if got != want:
        diff = next(
            i for i, (a, b) in enumerate(zip(got.splitlines(), want.splitlines(), strict=False)) if a != b
        )
        raise AssertionError(
            f"{path.name} differs from line {diff + 1}: {got.splitlines()[diff]!r} != {want.splitlines()[diff]!r}"
            " (a deliberate rules change bumps ENGINE_VERSION and regenerates with --write)"
        )


if __name__ == "__main__":
    if "--write" not in sys.argv:
        sys.exit("usage: test_golden.py --write (regenerates the golden playthroughs)")
    FIXTURES.mkdir(exist_ok=True)
    for case, (sc, sd) in CASES.items():
        atomic_write_text(FIXTURES / f"playthrough_{case}.txt", playthrough(sc, sd))
        print(f"wrote {FIXTURES / f'playthrough_{case}.txt'}")
