"""What each player may know (S13, S14, S59): the one place that redacts a position for a viewer.

Public: units, strengths, Leaders, control, Out of Supply markers, Morale, RPs, the Advantage, the
tracks, played markers, every die, every decision. Hidden: the identity of a held marker (its holder sees
it), of every discarded marker, and so the container's contents (a viewer sees its count and can deduce the
rest); the game's seed and its generator's state (with either, and the public dice, a viewer would compute
every future roll and draw, and so the markers drawn, S13, S54); during a Limited Free Setup, the other
side's placements, in the units and in the history of actions, until both setups are complete (18.2, S59
(e), S62). Which decisions a side is asked tells nothing hidden either: an Event window is opened whenever
its side holds a marker, whatever the marker (P10, :mod:`.flow`).

Two entry points share the redaction (:func:`_redacted`): :func:`visible_to` gives the whole view as a
private copy; :func:`visible_fields` gives only the named entries of that view without copying, for a
hot reader such as the observation encoder (a deep copy of the whole view, dominated by the growing
``dice_log`` and ``history``, cost about 5 ms per observation late in a game).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ffo_env.springtime.core.data import SIDE_NAMES
from ffo_env.springtime.core.state import FIELDS

if TYPE_CHECKING:
    from ffo_env.springtime.core.state import State

# fields whose value depends on the viewer or that no viewer sees (``seed`` and ``dice_state``: S13, S54,
# S59); every other field of FIELDS is public, except the entries redacted in ``_redacted`` below (the other
# side's draw picks, its free setup while the setup lasts)
HIDDEN_FIELDS = ("held", "container", "draw_log", "dice_state", "seed")
# the keys of a view, in order: the public fields, the redacted hidden ones, the viewer
VIEW_KEYS = (*(f for f in FIELDS if f not in HIDDEN_FIELDS), "held", "container", "draw_log", "viewer")
_PUBLIC = frozenset(VIEW_KEYS) - frozenset(HIDDEN_FIELDS)
# a history entry of the other side's secret free setup as a viewer sees it: who decided, not what (18.2)
SECRET = -1


def _redacted(s: State, side: int, key: str) -> Any:
    """The value of ``key`` in ``side``'s view; public values are the state's own objects (not copies)."""
    if key == "viewer":
        return side
    if key == "held":
        held = [0, 0]
        held[side] = s.held[side]
        held[1 - side] = -1 if s.held[1 - side] else 0
        return held
    if key == "container":
        return len(s.container)
    if key == "draw_log":
        return list(s.draw_log[side])
    if key == "dice_log":
        # a draw's index into the sorted container would tell the opponent which marker was drawn
        own = SIDE_NAMES[side]
        return [
            {**e, "pick": -1} if "pick" in e and not str(e.get("for", "")).startswith(own) else e
            for e in s.dice_log
        ]
    if key in ("loc", "status") and s.phase == "setup":  # 18.2, S59 (e): free setups are secret until both
        g = s.game  # are complete
        values = s.loc if key == "loc" else s.status
        return [values[u] if g.unit_side[u] == side else -1 for u in range(g.n_units)]
    if key == "history" and s.phase == "setup":
        # 18.2, S59 (e), S62: every decision so far is a placement; the other side's show who placed, not
        # where (nor whether the engine made it because only one Area was left, which would tell too)
        return [h if h[0] == side else [h[0], SECRET, SECRET] for h in s.history]
    if key not in _PUBLIC:
        raise KeyError(f"{key!r} is not a key of a player's view (see visibility.VIEW_KEYS)")
    return getattr(s, key)


def visible_to(s: State, side: int) -> dict[str, Any]:
    """The position as ``side`` sees it: a dict of the state's fields with the hidden ones redacted.

    ``held`` becomes ``[own marker, -1 if the opponent holds one else 0]`` ordered by side;
    ``container`` becomes its count; ``draw_log`` keeps only the viewer's own log; the other side's draws in
    ``dice_log`` lose their index (``pick`` -1); ``seed`` and ``dice_state`` (the generator: either would
    reveal future rolls and draws) are dropped; during a free setup the other side's units have ``loc`` and
    ``status`` -1 and its entries of ``history`` are ``[side, -1, -1]`` (18.2, S62). The result is a copy:
    changing it changes nothing in the state.
    """
    return copy.deepcopy({k: _redacted(s, side, k) for k in VIEW_KEYS})


def visible_fields(s: State, side: int, keys: Iterable[str]) -> dict[str, Any]:
    """The entries ``keys`` of ``visible_to(s, side)``, equal to them, at the cost of those entries only.

    Read-only: public values are the state's own lists and dicts, not copies, so a caller must not change
    them (the encoder only reads). A key that is not in a view (``dice_state``, a misspelling) is a
    ``KeyError``: no hidden value can be asked for by name.
    """
    return {k: _redacted(s, side, k) for k in keys}


def possible_markers(s: State, side: int) -> list[int]:
    """Markers that may be in the container or the opponent's hand, as ``side`` knows it (S59 (c))."""
    public = set(s.turn_track) | set(s.impulse_track)
    return [n for n in range(1, 10) if n not in public and n != s.held[side]]
