"""Springtime for Hitler's part of the game interface: the functions the registry's ``GameInfo`` names by
lazy ``"module:attr"`` paths (:mod:`ffo_env.games`), in the call shape every game of the suite shares.

Each imports the rules core only when called, so that ``import ffo_env.games`` imports no game.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any


def new_state(seed: int, scenario: str | None, options: dict[str, Any]) -> Any:
    """A fresh game of ``scenario`` (None: the campaign) with game seed ``seed`` and these rules options."""
    from ffo_env.springtime.core.game import Game, RulesOptions

    return Game(scenario=scenario or "campaign", options=RulesOptions.from_dict(options)).new_initial_state(
        seed
    )


def save_record(record: dict[str, Any], path: str | Path) -> None:
    """Write ``record`` to ``path`` (atomically, by the core's writer)."""
    from ffo_env.springtime.core.record import write_record

    write_record(path, record)


def score_columns(state: Any) -> dict[str, Any]:
    """A finished game's own columns in a result row: the game has no VP; its result and final French
    Morale."""
    return {"result": getattr(state, "result", ""), "morale": getattr(state, "morale", None)}


def observation_spec_hash() -> str:
    """A hash of the observation layout: block names and sizes, and the feature names of each table."""
    from ffo_env.springtime import encoding as E

    spec = {
        "layout": list(E.LAYOUT),
        "size": E.OBS_SIZE,
        "areas": list(E.AREA_FEATURES),
        "units": list(E.UNIT_FEATURES),
        "tracks": list(E.TRACK_FEATURES),
    }
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]


def versions(setup: str = "random") -> dict[str, str]:
    """The versions a result or tournament records: engine, game data and observation spec hash (the game
    has one data set; ``setup`` is France Fights On's and ignored here)."""
    from ffo_env.springtime.core.data import DATA_VERSION
    from ffo_env.springtime.core.game import ENGINE_VERSION

    return {"engine": ENGINE_VERSION, "data": DATA_VERSION, "observation_spec": observation_spec_hash()}
