"""The compact position notation (ffo_env.ffo.core.notation)."""

from __future__ import annotations

import doctest

import pytest

from ffo_env.ffo.core import notation
from ffo_env.ffo.core.notation import dice_with, position, to_notation


def test_docstring_examples():
    res = doctest.testmod(notation)
    assert res.failed == 0 and res.attempted >= 3


def test_round_trip():
    text = """turn 4 phase GERMAN_MOVEMENT vp 3 stuka_used
        french: fr-I@4512 fr-GC@4513(r) br-51@4512
        german: de-III@4612 de-XXXIX@4611 de-X@5810
        refugees: 4410 4411*
        ever_german: 4912
        naval_used: british
        dead: fr-XII"""
    s = position(text, run=False)
    t = position(to_notation(s), run=False)
    assert to_notation(t) == to_notation(s)
    assert t.stacks == s.stacks and t.steps == s.steps and t.status == s.status and t.refugees == s.refugees
    assert t.left_green == s.left_green and t.naval_used == [False, True] and t.vp == 3


def test_dice_with():
    d = dice_with([6, 1, 3])
    assert [d.roll() for _ in range(3)] == [6, 1, 3]


@pytest.mark.parametrize(
    "bad",
    [
        "french: fr-I@4512",
        "turn 3 phase NOPE",
        "phase GERMAN_COMBAT\nfrench: xx@4512",
        "phase GERMAN_COMBAT\nfrench: de-III@4512",
        "phase GERMAN_COMBAT\nfrench: fr-I@0101",
        "phase GERMAN_COMBAT\nwhat: 1",
    ],
)
def test_errors(bad):
    with pytest.raises(ValueError):
        position(bad)
