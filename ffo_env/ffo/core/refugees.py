"""Refugees (rules 10.1-10.5, R35): placement by the German player and recovery; the French movement
cost and VP of overrunning them are movement's (rules 10.3, 10.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ffo_env.ffo.core import masks
from ffo_env.ffo.core.phases import Decision
from ffo_env.ffo.core.scenario import Side

if TYPE_CHECKING:
    from ffo_env.ffo.core.state import State


def enter_refugee_recovery(s: State) -> bool:
    if s.turn >= 2:
        s.refugees = {}  # rule 10.5
    return False


def refugee_base(s: State) -> list[int]:
    """Land hexes outside the colored rows, not German-occupied or adjacent to a German unit (R35)."""
    key = s._pos_version[Side.GERMAN]
    hit: tuple[Any, list[int]] | None = s._cache.get("refB")
    if hit is not None and hit[0] == key:
        return hit[1]
    adj = masks.adj_enemy_mask(s, Side.FRENCH)  # German-occupied or adjacent to a German unit
    out = [h for h in s.game.tables.land_not_colored if not adj[h]]
    s._cache["refB"] = (key, out)
    return out


def refugee_hexes(s: State) -> list[int]:
    """R35."""
    refugees = s.refugees
    base = refugee_base(s)
    if not refugees:
        return list(base)
    return [h for h in base if h not in refugees]


def any_refugee_hex(s: State) -> bool:
    refugees = s.refugees
    return any(h not in refugees for h in refugee_base(s))


def enter_refugee_placement(s: State) -> bool:
    t = s.game.scenario.tables
    if s.turn < t.refugee_first_turn:
        return False
    die = s._roll("refugees (rule 10.1)")
    s._ctx.refugees_left = min(die, t.refugee_max)
    if not any_refugee_hex(s):
        return False
    s._set(Decision.REFUGEE_HEX, Side.GERMAN)
    return True


def legal_refugee_hex(s: State) -> list[int]:
    return refugee_hexes(s)


def apply_refugee_hex(s: State, a: int) -> None:
    s.refugees[a] = False
    left = (s._ctx.refugees_left or 0) - 1
    s._ctx.refugees_left = left
    if left <= 0 or not any_refugee_hex(s):
        s.decision = Decision.END_PHASE
