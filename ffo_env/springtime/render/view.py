"""What a viewer may see of a Springtime position: the core's own redaction, and one for spectators.

Everything the renderer draws comes from :func:`seen`, never from the State's hidden fields: a side's view
redacts what :mod:`ffo_env.springtime.core.visibility` declares hidden as ``visible_to`` does (its own held
marker by identity, the opponent's as "a marker", the container as a count, S59; during a free setup the
other side's units are not placed); the public view (a replay or a spectator) hides both held markers and
both setups. Units, strengths, control, Morale, RPs, the Advantage, the tracks and the dice are public (7.1).
"""

from __future__ import annotations

from typing import Any

from ffo_env.springtime.core.state import FIELDS, State
from ffo_env.springtime.core.visibility import HIDDEN_FIELDS

# the public fields the renderer draws (the logs and the history are left out: copying them at every
# decision of a replay would make drawing a game quadratic in its length)
DRAWN = tuple(
    f
    for f in FIELDS
    if f not in HIDDEN_FIELDS and f not in ("dice_log", "history", "morale_log", "dice_state")
)

PUBLIC: None = None  # the viewer of a replay or a spectator: no held marker is identified
HELD_HIDDEN = -1  # in ``held``: a marker is held, its identity is not shown to this viewer


def seen(state: State, viewer: int | None = PUBLIC) -> dict[str, Any]:
    """The fields of ``state`` that ``viewer`` (0 Allied, 1 Axis, or :data:`PUBLIC`) may see and the
    renderer draws (:data:`DRAWN`, read-only: the values are the state's own, not copies).

    Of the fields the core declares hidden (:data:`~ffo_env.springtime.core.visibility.HIDDEN_FIELDS`)
    only these are given, redacted as :func:`~ffo_env.springtime.core.visibility.visible_to` does:
    ``held[side]`` is the marker number for its holder, else :data:`HELD_HIDDEN` (held, identity hidden)
    or 0 (none); ``container`` is a count; ``viewer`` is the viewer given."""
    if viewer not in (PUBLIC, 0, 1):
        raise ValueError(f"viewer must be 0 (Allied), 1 (Axis) or None (public), not {viewer!r}")
    v: dict[str, Any] = {f: getattr(state, f) for f in DRAWN}
    v["held"] = [
        state.held[i] if i == viewer else (HELD_HIDDEN if state.held[i] else 0) for i in (0, 1)
    ]  # S59: a held marker is known to its holder only
    v["container"] = len(state.container)
    if state.phase == "setup" and viewer is not None:  # 18.2, S59 (e): the other side's setup is secret
        g = state.game
        v["loc"] = [state.loc[u] if g.unit_side[u] == viewer else -1 for u in range(g.n_units)]
        v["status"] = [state.status[u] if g.unit_side[u] == viewer else -1 for u in range(g.n_units)]
    elif state.phase == "setup":
        v["loc"] = [-1] * state.game.n_units
        v["status"] = [-1] * state.game.n_units
    v["viewer"] = viewer
    return v
