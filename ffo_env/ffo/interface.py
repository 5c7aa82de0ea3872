"""France Fights On's part of the game interface: the functions the registry's ``GameInfo`` names by lazy
``"module:attr"`` paths (:mod:`ffo_env.games`), in one call shape for every game of the suite.

Each imports the rules core only when called, so that ``import ffo_env.games`` imports no game.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

# the kinds of Victory Points a game's row breaks its VP into (rule 19; harness's games.csv columns)
VP_KINDS = ("evacuation", "german_losses", "cities", "naval", "refugees", "british_51")


def new_state(seed: int, scenario: str | None, options: dict[str, Any]) -> Any:
    """A fresh game with game seed ``seed`` (``options``: fields of ``RulesOptions``, such as ``setup``)."""
    from ffo_env.ffo.core.game import Game, RulesOptions
    from ffo_env.ffo.core.scenario import default_scenario, scenario_for

    sc = default_scenario() if scenario is None else scenario_for(scenario)
    return Game(scenario=sc, options=RulesOptions.from_dict(options)).new_initial_state(seed)


def state_from_dict(d: object) -> Any:
    """A saved state (a JSON object), checked on load."""
    from ffo_env.ffo.core.game import Game
    from ffo_env.ffo.core.state import State

    if not isinstance(d, dict):
        raise ValueError(f"a saved state must be a JSON object, found {type(d).__name__}")
    return State.from_dict(Game(), d)


def replay(record: object) -> Any:
    """The final state of ``record`` replayed and verified (one ``ValueError`` naming the first divergence)."""
    from ffo_env.ffo.core.record import check_record_shape
    from ffo_env.ffo.core.record import replay as replay_record

    check_record_shape(record)
    assert isinstance(record, dict)
    return replay_record(record)


# the one-side env's action layouts: one action per hex, unit and special of the core, or the candidate slots
# of issue 60 (compact observation only)
ACTION_LAYOUTS = ("core", "slots")


def single_agent_env(action_layout: str = "core", **kwargs: Any) -> Any:
    """The one-side env (``side``, ``opponent``: an agent object or None for random, ...): ``action_layout="core"``
    :class:`~ffo_env.ffo.single_agent.FFOSingleAgentEnv`, ``"slots"`` :class:`~ffo_env.ffo.slot_env.FFOSlotEnv`."""
    if action_layout not in ACTION_LAYOUTS:
        raise ValueError(f"action_layout must be one of {ACTION_LAYOUTS}, got {action_layout!r}")
    if action_layout == "slots":
        from ffo_env.ffo.slot_env import FFOSlotEnv

        return FFOSlotEnv(**kwargs)
    from ffo_env.ffo.single_agent import FFOSingleAgentEnv

    return FFOSingleAgentEnv(**kwargs)


def score_columns(state: Any) -> dict[str, Any]:
    """A finished game's own columns in a result row: its VP and their breakdown by kind."""
    bd = state.vp_breakdown()
    return {"vp": state.vp, **{f"vp_{k}": bd.get(k, 0) for k in VP_KINDS}}


def observation_spec() -> dict[str, Any]:
    """The observation layout: group names, sizes and array shapes (what a policy file was trained on)."""
    from ffo_env.ffo.core.game import Game
    from ffo_env.ffo.core.scenario import MAX_CF
    from ffo_env.ffo.encoding import observation as ob

    return {
        "planes": [[g[0], g[1]] for g in ob.PLANE_GROUPS],
        "globals": [[g[0], g[1]] for g in ob.GLOBAL_GROUPS],
        "units": [[g[0], g[1]] for g in ob.UNIT_GROUPS],
        "shapes": {k: list(v) for k, v in ob.encoder_for(Game()).spec.shapes.items()},
        "cf_scale": MAX_CF,  # unit-table CFs are divided by it: a policy trained with another scale is refused
    }


def observation_spec_hash(spec: dict[str, Any] | None = None) -> str:
    """The first 16 hex digits of the SHA-256 of the observation spec as sorted JSON."""
    text = json.dumps(spec if spec is not None else observation_spec(), sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def versions(setup: str = "random") -> dict[str, str]:
    """The versions a result or tournament records: engine, game data (of the games ``setup`` plays, R37)
    and observation spec hash."""
    from ffo_env.ffo.adapter import make_game
    from ffo_env.ffo.core.game import ENGINE_VERSION

    return {
        "engine": ENGINE_VERSION,
        "data": make_game(setup).scenario.version,
        "observation_spec": observation_spec_hash(),
    }
