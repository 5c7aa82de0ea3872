"""The compact position notation: positions round-trip through ``to_notation`` and bad lines are refused."""

from __future__ import annotations

import random

import pytest

from ffo_env.springtime.core import Game
from ffo_env.springtime.core.notation import NotationError, position, to_notation


def test_notation_round_trips_a_played_position() -> None:
    s = Game().new_initial_state(5)
    rng = random.Random(5)
    while not (s.turn == 3 and s.phase == "maneuver" and s.decision == "declare"):
        if s.is_terminal():
            pytest.skip("the game ended before turn 3")
        s.apply_action(rng.choice(s.legal_actions()))
    text = to_notation(s)
    t = position(text, run=False)
    for f in (
        "loc",
        "status",
        "reduced",
        "oos",
        "control",
        "morale",
        "rp",
        "held",
        "turn",
        "box",
        "advantage",
    ):
        assert getattr(t, f) == getattr(s, f), f
    assert to_notation(t) == text


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("allied: FR-XX@13", "unknown unit 'FR-XX'"),
        ("allied: FR-1A@99", "unknown location '99'"),
        ("axis: FR-1A@13", "FR-1A is not an axis unit"),
        ("flags: sunny", "unknown flag 'sunny'"),
        ("weather: rain", "unknown line"),
        ("turn 2 tide 3", "unknown key 'tide'"),
        ("last_assault: axis Q", "unknown Army Groups ['Q']"),
    ],
)
def test_notation_refuses_bad_lines(line: str, message: str) -> None:
    with pytest.raises(NotationError, match=message.replace("[", r"\[").replace("]", r"\]")):
        position("turn 2 box 2 advantage none\n" + line)
