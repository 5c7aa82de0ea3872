"""France Fights On's part of ``ffo bench`` (:mod:`benchmarks.speed_parts`): the options its core is timed
with, its unwrapped AEC env, and the functions ``ffo bench --profile`` times per AEC step."""

from __future__ import annotations

from typing import Any

__all__ = ["CORE_OPTIONS", "PROFILE_TARGETS", "PROFILE_TOP_LEVEL", "raw_env"]

# the random setup (R2): the rules' default, 'decide', would time the setup decisions of every game
CORE_OPTIONS = {"setup": "random"}

# (label, module, owner attribute path, method): timed per AEC step by benchmarks.profiling.step_breakdown;
# nested entries are included in their parents' time
PROFILE_TARGETS = (
    ("core: State.apply_action", "ffo_env.ffo.core.state", "State", "apply_action"),
    ("core: State.legal_actions", "ffo_env.ffo.core.state", "State", "legal_actions"),
    ("core: supply flood (supply masks)", "ffo_env.ffo.core.masks", None, "flood_bits"),
    ("core: supply flood (rail, evacuation)", "ffo_env.ffo.core.evacuation", None, "flood_bits"),
    ("env: raw_env.observe (obs + mask)", "ffo_env.ffo.env", "raw_env", "observe"),
    ("encoder: encode", "ffo_env.ffo.encoding.observation", "ObservationEncoder", "encode"),
    ("encoder: _sync (shared unit data)", "ffo_env.ffo.encoding.observation", "ObservationEncoder", "_sync"),
    ("encoder: _derive_shared", "ffo_env.ffo.encoding.observation", "ObservationEncoder", "_derive_shared"),
    (
        "encoder: _view (per-viewer buffers)",
        "ffo_env.ffo.encoding.observation",
        "ObservationEncoder",
        "_view",
    ),
    ("encoder: _fill_view", "ffo_env.ffo.encoding.observation", "ObservationEncoder", "_fill_view"),
    (
        "encoder: _supplied (core supply masks)",
        "ffo_env.ffo.encoding.observation",
        "ObservationEncoder",
        "_supplied",
    ),
)

# the AEC step's two parts that nest in no other figure
PROFILE_TOP_LEVEL = ("core: State.apply_action", "env: raw_env.observe (obs + mask)")


def raw_env() -> Any:
    """The unwrapped AEC env (no PettingZoo order-enforcing wrappers)."""
    from ffo_env.ffo.env import raw_env as make

    return make()
