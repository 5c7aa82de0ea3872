"""What the suite's registry (:mod:`ffo_env.games`) asks of *France, 1940*: the hooks its ``GameInfo`` entry
names, in the one call shape every game of the suite offers.

- :func:`new_state` (``seed``, ``scenario``: None or ``"standard"``, ``options``: ``RulesOptions`` fields);
- :func:`state_from_dict` / :func:`state_to_dict`: saved states, checked by the core on load;
- :func:`recorder`, :func:`replay`, :func:`load_record`, :func:`save_record`: the core's game records;
- :func:`aec_env`, :func:`parallel_env`, :func:`single_agent_env`, :func:`env_adapter`: the environments
  (:mod:`ffo_env.france1940.env`); :func:`write_viewer`: the HTML replay viewer;
- :func:`score_columns`: a finished game's own columns in a tournament's rows (VP of each side, the result,
  the armies played).

Everything is imported when called, so ``import ffo_env.games`` imports no game.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = [
    "GYM_IDS",
    "aec_env",
    "env_adapter",
    "load_record",
    "new_state",
    "parallel_env",
    "recorder",
    "replay",
    "save_record",
    "score_columns",
    "single_agent_env",
    "state_from_dict",
    "state_to_dict",
    "write_viewer",
]

# the Gymnasium ids of each side: structured, flat and compact observations
GYM_IDS: dict[str, tuple[str, ...]] = {
    "french": (
        "ffo_env/France1940-French-v0",
        "ffo_env/France1940-French-flat-v0",
        "ffo_env/France1940-French-compact-v0",
    ),
    "german": (
        "ffo_env/France1940-German-v0",
        "ffo_env/France1940-German-flat-v0",
        "ffo_env/France1940-German-compact-v0",
    ),
}


def new_state(seed: int = 0, scenario: str | None = None, options: dict[str, Any] | None = None) -> Any:
    from ffo_env.france1940.core.game import new_state as core_new_state

    return core_new_state(seed, scenario, dict(options or {}))


def state_from_dict(d: object) -> Any:
    """A saved state (``ValueError`` naming the first fault, for anything but a saved state's object)."""
    from ffo_env.france1940.core.state_io import state_from_dict as load

    return load(d)


def state_to_dict(state: Any) -> dict[str, Any]:
    from ffo_env.france1940.core.state_io import state_to_dict as save

    d: dict[str, Any] = save(state)
    return d


def recorder(state: Any) -> Any:
    from ffo_env.france1940.core.record import Recorder

    return Recorder(state)


def replay(record: object) -> Any:
    from ffo_env.france1940.core.record import replay as core_replay

    return core_replay(record)


def load_record(path: str | Path) -> dict[str, Any]:
    from ffo_env.france1940.core.record import load_record as load

    return load(path)


def save_record(record: dict[str, Any], path: str | Path) -> None:
    from ffo_env.france1940.core.record import save_record as save

    save(record, path)


def aec_env(**kwargs: Any) -> Any:
    from ffo_env.france1940.env import env

    return env(**kwargs)


def parallel_env(**kwargs: Any) -> Any:
    from ffo_env.france1940.env import parallel_env as make

    return make(**kwargs)


def single_agent_env(**kwargs: Any) -> Any:
    from ffo_env.france1940.env import France1940SingleAgentEnv

    return France1940SingleAgentEnv(**kwargs)


def env_adapter(**kwargs: Any) -> Any:
    from ffo_env.france1940.env import make_adapter

    return make_adapter(**kwargs)


def write_viewer(record: dict[str, Any], path: str | Path) -> int:
    from ffo_env.france1940.viewer import write_viewer as write

    return write(record, path)


def score_columns(state: Any) -> dict[str, Any]:
    """A finished game's columns in a tournament row: the result, each side's VP and the margin of the 3:1
    victory ratio (``3 * Allied VP - German VP``, the paired score of ``ffo compare``)."""
    return {
        "result": str(state.result),
        "vp_allied": int(state.vp[0]),
        "vp_german": int(state.vp[1]),
        "vp_margin": 3 * int(state.vp[0]) - int(state.vp[1]),
    }


def versions(setup: str = "random") -> dict[str, str]:
    """The versions a result or tournament records: engine, game data and observation spec hash (``setup`` is
    France Fights On's and ignored here; the armies are env options)."""
    from ffo_env.france1940.core.data import data_choice
    from ffo_env.france1940.core.game import ENGINE_VERSION
    from ffo_env.france1940.encoding import spec_hash

    return {"engine": ENGINE_VERSION, "data": data_choice(), "observation_spec": spec_hash()}
