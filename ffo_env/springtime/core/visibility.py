"""What each player may know (S13, S14, S59): the one place that redacts a position for a viewer.

Public: units, strengths, Leaders, control, Out of Supply markers, Morale, RPs, the Advantage, the
tracks, played markers, every die. Hidden: the identity of a held marker (its holder sees it), of every
discarded marker, and so the container's contents (a viewer sees its count and can deduce the rest).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from ffo_env.springtime.core.data import SIDE_NAMES
from ffo_env.springtime.core.state import FIELDS

if TYPE_CHECKING:
    from ffo_env.springtime.core.state import State

# fields whose value depends on the viewer; every other field of FIELDS is public
HIDDEN_FIELDS = ("held", "container", "draw_log", "dice_state")


def visible_to(s: State, side: int) -> dict[str, Any]:
    """The position as ``side`` sees it: a dict of the state's fields with the hidden ones redacted.

    ``held`` becomes ``[own marker, -1 if the opponent holds one else 0]`` ordered by side;
    ``container`` becomes its count; ``draw_log`` keeps only the viewer's own log; the other side's draws in
    ``dice_log`` lose their index (``pick`` -1); ``dice_state`` (the generator, which would reveal future
    rolls and draws) is dropped. The result is a copy: changing it changes nothing in the state.
    """
    out: dict[str, Any] = copy.deepcopy({f: getattr(s, f) for f in FIELDS if f not in HIDDEN_FIELDS})
    # a draw's index into the sorted container would tell the opponent which marker was drawn
    own = SIDE_NAMES[side]
    for entry in out["dice_log"]:
        if "pick" in entry and not str(entry.get("for", "")).startswith(own):
            entry["pick"] = -1
    held = [0, 0]
    held[side] = s.held[side]
    held[1 - side] = -1 if s.held[1 - side] else 0
    out["held"] = held
    out["container"] = len(s.container)
    out["draw_log"] = list(s.draw_log[side])
    out["viewer"] = side
    if s.phase == "setup":  # 18.2, S59 (e): free setups are secret until both are complete
        g = s.game
        out["loc"] = [s.loc[u] if g.unit_side[u] == side else -1 for u in range(g.n_units)]
        out["status"] = [s.status[u] if g.unit_side[u] == side else -1 for u in range(g.n_units)]
    return out


def possible_markers(s: State, side: int) -> list[int]:
    """Markers that may be in the container or the opponent's hand, as ``side`` knows it (S59 (c))."""
    public = set(s.turn_track) | set(s.impulse_track)
    return [n for n in range(1, 10) if n not in public and n != s.held[side]]
