"""The potential of Springtime's shaped reward (``flow.french_potential``): French Morale on the game's
own scale, read from the core so that no environment re-derives it."""

from __future__ import annotations

import pytest

from ffo_env.springtime.core.flow import automatic_victory, french_potential

from .sfh_helpers import Game, RulesOptions, position


def test_5_1_3_potential_is_one_at_the_printed_starting_morale() -> None:
    assert french_potential(Game().new_initial_state(0)) == 1.0
    assert french_potential(Game(scenario="plan_red").new_initial_state(0)) == pytest.approx(20 / 30)


def test_17_1_a_bid_moves_the_starting_potential() -> None:
    s = Game(options=RulesOptions(morale_bid=-6)).new_initial_state(0)
    assert s.morale == 24 and french_potential(s) == pytest.approx(0.8)


def test_16_1_1_potential_is_zero_at_morale_zero_and_follows_morale_linearly() -> None:
    for morale in (0, 12, 45, -3):
        s = position(f"turn 2 box 2 morale {morale}\nallied: FR-2A@17\naxis: DE-XIX@11")
        assert french_potential(s) == pytest.approx(morale / 30)


def test_16_1_1_the_axis_wins_automatically_where_the_potential_reaches_zero() -> None:
    for morale, wins in ((1, False), (0, True), (-2, True)):
        s = position(f"turn 2 box 2 morale {morale}\nallied: FR-2A@17\naxis: DE-XIX@11")
        assert automatic_victory(s) == wins == (french_potential(s) <= 0.0)
