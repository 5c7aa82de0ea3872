"""Gymnasium spaces of the France Fights On environments (shared by the AEC and single-agent envs)."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from ffo_env.ffo.core.game import Game
from ffo_env.ffo.encoding.compact import compact_encoder_for
from ffo_env.ffo.encoding.observation import (
    GLOBAL_HIGH,
    GLOBAL_LOW,
    GRID_SHAPE,
    N_GLOBALS,
    N_PLANES,
    N_UNIT_FEATURES,
    PLANE_HIGH,
)


def observation_dict_space(game: Game) -> spaces.Dict:
    """``{"planes": Box(C, 60, 26) uint8, "globals": Box(G) float32, "units": Box(U, F) float32}``.

    The plane bounds are per channel (1 for binary planes), so stable-baselines3 does
    not mistake the planes for an image (no /255 scaling, no NatureCNN by default).
    """
    high = np.broadcast_to(PLANE_HIGH[:, None, None], (N_PLANES, *GRID_SHAPE)).copy()
    n_units = len(game.scenario.units)
    return spaces.Dict(
        {
            "planes": spaces.Box(low=0, high=high, shape=(N_PLANES, *GRID_SHAPE), dtype=np.uint8),
            "globals": spaces.Box(low=GLOBAL_LOW, high=GLOBAL_HIGH, shape=(N_GLOBALS,), dtype=np.float32),
            "units": spaces.Box(low=0.0, high=1.0, shape=(n_units, N_UNIT_FEATURES), dtype=np.float32),
        }
    )


def compact_space(game: Game) -> spaces.Box:
    """The 1-D float32 ``Box`` of the compact observation (layout: :mod:`ffo_env.ffo.encoding.compact`)."""
    lay = compact_encoder_for(game).layout
    return spaces.Box(low=lay.low, high=lay.high, shape=(lay.size,), dtype=np.float32)


def action_mask_space(game: Game) -> spaces.Box:
    return spaces.Box(low=0, high=1, shape=(game.num_distinct_actions,), dtype=np.int8)


def action_space(game: Game) -> spaces.Discrete:
    return spaces.Discrete(game.num_distinct_actions)
