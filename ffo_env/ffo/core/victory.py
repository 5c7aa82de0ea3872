"""The end of the game (rule 4.3, R21): the French cities' VP and the result."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.contexts import PhaseContext
from ffo_env.ffo.core.phases import Decision, Phase
from ffo_env.ffo.core.scenario import Side

if TYPE_CHECKING:
    from ffo_env.ffo.core.state import State


def french_cities(s: State) -> list[int]:
    """The city hexes under French control now, in hex order (rules 3.7, 4.3)."""
    control = s.control
    return [h for h in s.game.tables.city_hexes if control[h] == Side.FRENCH]


def city_vp_if_ended(s: State) -> int:
    """The city VP the French would add if the game ended in this position (rule 4.3: one per city hex under
    French control at the end; R21 also when the last French unit has left). 0 once the game is over: the
    cities are in ``vp`` then. ``vp + pending_overstack_vp() + city_vp_if_ended()`` is the final score this
    position would give (the envs' ``reward="potential"``)."""
    if s.phase == Phase.GAME_OVER:
        return 0
    return len(french_cities(s)) * int(s.game.scenario.tables.vp["city_at_end"])


def finish(s: State) -> None:
    """Final VP (rule 4.3 cities, R21) and the result (rule 4.3: 25+ VP is a French win)."""
    vp = s.game.scenario.tables.vp["city_at_end"]
    for h in french_cities(s):
        s._award(vp, "cities", f"{s.game.scenario.map.city[h]} ({hg.hex_name(h)}) French at the end")
    s.winner = Side.FRENCH if s.vp >= s.game.scenario.tables.victory_vp else Side.GERMAN
    s.phase = Phase.GAME_OVER
    s.decision = Decision.NONE
    s._ctx = PhaseContext()
