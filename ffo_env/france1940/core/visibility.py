"""What each player may know (F60, P3): the fog facts of *France, 1940*, kept in one place.

Everything on the map is open information. Hidden are:

- always: the generator's seed and state (``seed``, ``dice_state``) — a player must never be handed the
  chance source (the next die would be known);
- with ``RulesOptions.hidden_obac``: the opponent's Order of Battle Alternative column and the arrival
  schedule of its units not yet on the map (which would betray the column).

The defender's designation of defending units (F21, F60) is hidden by the order of decisions itself: the
attacker commits attackers and close support before the defender is asked, so no field needs masking.
:func:`view` is a player's view of a state; states that differ only in hidden facts give equal views.
"""

from __future__ import annotations

from typing import Any

from ffo_env.france1940.core.state import FIELDS, OUT, State

ALWAYS_HIDDEN = ("seed", "dice_state")
UNKNOWN = "?"


def hidden_fields(s: State, player: int) -> tuple[str, ...]:
    """Names of the state's fields ``player`` may not see at all."""
    return ALWAYS_HIDDEN


def view(s: State, player: int, fields: tuple[str, ...] = FIELDS) -> dict[str, Any]:
    """The fields of ``s`` that ``player`` (0 Allied, 1 German) may see; hidden values are masked. ``fields``:
    only these (the observation encoder asks for the ones it reads, not the game's growing history)."""
    if player not in (0, 1):
        raise ValueError(f"player must be 0 (french) or 1 (german), found {player!r}")
    hidden = hidden_fields(s, player)
    out: dict[str, Any] = {}
    for f in fields:
        if f in hidden:
            continue
        v = getattr(s, f)
        out[f] = list(v) if isinstance(v, list) else v
    if s.game.options.hidden_obac:
        enemy = 1 - player
        if "columns" in out:
            out["columns"] = [c if i == player else UNKNOWN for i, c in enumerate(s.columns)]
        if "arrive" in out:
            out["arrive"] = [
                UNKNOWN if s.side_of(u) == enemy and s.status[u] == OUT else a for u, a in enumerate(s.arrive)
            ]
        if "rolls" in out:
            out["rolls"] = [r for r in s.rolls if r[0] not in ("allied_obac", "german_obac")]
        if "log" in out:
            # P4: a unit of the hidden column that found no setup hex never reaches the map; its "unplaced"
            # event names it, which would tell the other side which column was drawn (P3)
            ids = s.game.unit_ids
            enemy_ids = {ids[u] for u in s.game.side_units[enemy]}
            out["log"] = [e for e in s.log if not (e and e[0] == "unplaced" and e[1] in enemy_ids)]
    return out
