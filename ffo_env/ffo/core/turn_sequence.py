"""The order of the phases (rules 5.1, 5.2) and the German choice of moving or fighting first (rule 5.6)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.phases import Decision, Phase
from ffo_env.ffo.core.scenario import Side

if TYPE_CHECKING:
    from ffo_env.ffo.core.state import State

# the French player turn (rule 5.1, I.A-I.E)
FRENCH_TURN = (
    Phase.EVACUATION,
    Phase.FRENCH_MOVEMENT,
    Phase.FRENCH_COMBAT,
    Phase.REFUGEE_RECOVERY,
    Phase.PANZER_SCARE,
)

_NEXT = {
    Phase.SETUP_FRENCH: Phase.SETUP_GERMAN,
    Phase.SETUP_GERMAN: Phase.EVACUATION,
    **{ph: FRENCH_TURN[i + 1] for i, ph in enumerate(FRENCH_TURN[:-1])},
    Phase.PANZER_SCARE: Phase.GERMAN_ORDER,
    Phase.GERMAN_ORDER: Phase.REPLACEMENT,
    Phase.REPLACEMENT: Phase.LUFTWAFFE,
    Phase.REPLACEMENT_COMPLETION: Phase.REINFORCEMENT,
    Phase.REINFORCEMENT: Phase.REFUGEE_PLACEMENT,
    Phase.REFUGEE_PLACEMENT: Phase.SCARE_REMOVAL,
}


def phase_after(ph: Phase, german_move_first: bool) -> tuple[Phase, bool]:
    """Next phase and whether a new game turn starts (rules 5.1, 5.2, 5.6)."""
    nxt = _NEXT.get(ph)
    if nxt is not None:
        return nxt, False
    if ph == Phase.LUFTWAFFE:
        return (Phase.GERMAN_MOVEMENT if german_move_first else Phase.GERMAN_COMBAT), False
    if ph == Phase.GERMAN_MOVEMENT:
        return (Phase.GERMAN_COMBAT if german_move_first else Phase.REPLACEMENT_COMPLETION), False
    if ph == Phase.GERMAN_COMBAT:
        return (Phase.REPLACEMENT_COMPLETION if german_move_first else Phase.GERMAN_MOVEMENT), False
    return Phase.EVACUATION, True


def enter_german_order(s: State) -> bool:
    if s.turn == 1:
        s.german_move_first = True  # rule 5.4
        return False
    s._set(Decision.GERMAN_ORDER, Side.GERMAN)
    return True


def legal_german_order(s: State) -> list[int]:
    layout = s.game.layout
    return [layout.special(Special.MOVE_FIRST), layout.special(Special.FIGHT_FIRST)]


def apply_german_order(s: State, a: int) -> None:
    s.german_move_first = a == s.game.layout.special(Special.MOVE_FIRST)  # rule 5.6
    s.decision = Decision.END_PHASE
