"""France Fights On as an OpenSpiel game (``python_france_fights_on``), built on the rules core.

    import pyspiel, ffo_env.ffo.openspiel_game  # registers the game
    game = pyspiel.load_game("python_france_fights_on")

OpenSpiel's algorithms then run on it unchanged (its MCTS bot, ``pyspiel.random_sim_test``, CFR-style tree
walkers on small budgets). A thin translation layer: the core owns legality, dice and the turn sequence.

- Players: 0 = France, 1 = Germany; the current player is the core's decider (retreats, step losses and
  over-stack removals belong to their owner even in the other side's phase).
- Chance: one explicit chance node at the start picks the game seed among ``num_seeds`` (uniform); every
  later die comes from the core's generator seeded with it (R37). Algorithms that clone states therefore
  share the dice of the game they search; sample several seeds for an honest estimate.
- Actions: the 1607 action ids of the core (:mod:`ffo_env.ffo.env` lists the ranges).
- Imperfect information (rule 3.6, R3): the observation tensor is the player's flat observation under fog
  of war (:mod:`ffo_env.ffo.encoding.flat`); the observation string is the decision and what is public.
- Utility: zero-sum, +1 / -1 at the end (rule 4.3).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.state import State
from ffo_env.ffo.encoding.flat import flat_layout
from ffo_env.ffo.encoding.observation import encoder_for

__all__ = ["FranceFightsOnGame", "FranceFightsOnState"]

SHORT_NAME = "python_france_fights_on"
_GAME = Game()
_DEFAULT_SEEDS = 1000
# a generous bound on decisions per game (random play takes ~700-3,000)
_MAX_GAME_LENGTH = 100_000

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="France Fights On (World at War #39)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"num_seeds": _DEFAULT_SEEDS, "setup": "random"},
)


def _info(num_seeds: int) -> pyspiel.GameInfo:
    return pyspiel.GameInfo(
        num_distinct_actions=_GAME.num_distinct_actions,
        max_chance_outcomes=num_seeds,
        num_players=2,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=_MAX_GAME_LENGTH,
    )


class FranceFightsOnGame(pyspiel.Game):
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_GAME_TYPE.parameter_specification, **(params or {})}
        self.num_seeds = int(params["num_seeds"])
        if self.num_seeds < 1:
            raise ValueError(f"num_seeds must be positive, got {self.num_seeds}")
        self.core = Game(options=RulesOptions(setup=str(params["setup"])))
        super().__init__(_GAME_TYPE, _info(self.num_seeds), params)

    def new_initial_state(self) -> FranceFightsOnState:
        return FranceFightsOnState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> FogObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        return FogObserver(self.core)


class FranceFightsOnState(pyspiel.State):
    def __init__(self, game: FranceFightsOnGame) -> None:
        super().__init__(game)
        self._ffo_game = game
        self.core: State | None = None  # None until the chance node has picked the seed

    def current_player(self) -> int:
        if self.core is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.core.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self.core.player)

    def _legal_actions(self, player: int) -> list[int]:
        assert self.core is not None
        return sorted(self.core.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        n = self._ffo_game.num_seeds
        return [(s, 1.0 / n) for s in range(n)]

    def _apply_action(self, action: int) -> None:
        if self.core is None:
            self.core = self._ffo_game.core.new_initial_state(int(action))
        else:
            self.core.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if self.core is None:
            return f"game seed {action}"
        return self.core.action_to_string(int(action))

    def is_terminal(self) -> bool:
        return self.core is not None and self.core.is_terminal()

    def returns(self) -> list[float]:
        if self.core is None or not self.core.is_terminal():
            return [0.0, 0.0]
        return [float(r) for r in self.core.returns()]

    def __str__(self) -> str:
        return "chance: game seed" if self.core is None else str(self.core)


class FogObserver:
    """OpenSpiel's PyObserver: the player's flat observation under fog of war (rule 3.6)."""

    def __init__(self, game: Game) -> None:
        self._encoder = encoder_for(game)
        self._flat = flat_layout(game)
        self.tensor = np.zeros(self._flat.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: FranceFightsOnState, player: int) -> None:
        if state.core is None:
            self.tensor.fill(0.0)
            return
        self._flat.flatten(self._encoder.encode(state.core, int(player), False), out=self.tensor)

    def string_from(self, state: FranceFightsOnState, player: int) -> str:
        s = state.core
        if s is None:
            return "before the game seed"
        return f"{s.decision_string()} VP {s.vp}; viewer {'french' if player == 0 else 'german'}"


pyspiel.register_game(_GAME_TYPE, FranceFightsOnGame)
