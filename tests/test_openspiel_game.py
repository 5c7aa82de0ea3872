"""The OpenSpiel bridge (ffo_env.ffo.openspiel_game): the core's legality, dice and results, seen through
pyspiel, and OpenSpiel's own random-simulation test."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="open_spiel is not installed (pip install 'ffo_env[openspiel]')"
)

import ffo_env.ffo.openspiel_game  # noqa: E402, F401
from ffo_env.ffo.core.game import Game, RulesOptions  # noqa: E402


def test_random_sim_test_passes():
    pyspiel.random_sim_test(
        pyspiel.load_game("python_france_fights_on", {"num_seeds": 20}),
        num_sims=2,
        serialize=False,
        verbose=False,
    )


def test_a_game_through_pyspiel_is_the_core_game_of_that_seed():
    game = pyspiel.load_game("python_france_fights_on", {"num_seeds": 100})
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 100
    state.apply_action(42)
    core = Game(options=RulesOptions(setup="random")).new_initial_state(42)
    rng = np.random.RandomState(0)
    while not state.is_terminal():
        assert state.current_player() == int(core.player)
        assert state.legal_actions() == sorted(core.legal_actions())
        a = int(rng.choice(state.legal_actions()))
        assert state.action_to_string(state.current_player(), a) == core.action_to_string(a)
        state.apply_action(a)
        core.apply_action(a)
    assert state.returns() == [float(r) for r in core.returns()] and sum(state.returns()) == 0


def test_observation_is_under_fog_of_war():
    game = pyspiel.load_game("python_france_fights_on")
    state = game.new_initial_state()
    state.apply_action(3)
    mine, theirs = np.array(state.observation_tensor(0)), np.array(state.observation_tensor(1))
    assert mine.shape == theirs.shape and not np.array_equal(mine, theirs)
    assert "viewer german" in state.observation_string(1)
