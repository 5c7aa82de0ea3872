"""The turn sequence (rule 5.1) as phases, the decisions an agent makes in them, and unit status codes.

A leaf module: the state machine, the phase modules and the saved-state checker all name these.
"""

from __future__ import annotations

from enum import IntEnum


class Phase(IntEnum):
    SETUP_FRENCH = 0  # rule 3.3, R2
    SETUP_GERMAN = 1  # rule 3.4, R2
    EVACUATION = 2  # I.A, rule 11.6
    FRENCH_MOVEMENT = 3  # I.B
    FRENCH_COMBAT = 4  # I.C
    REFUGEE_RECOVERY = 5  # I.D, rule 10.5
    PANZER_SCARE = 6  # I.E, rule 7.9
    GERMAN_ORDER = 7  # start of II, rule 5.6
    REPLACEMENT = 8  # II.A, rule 8.2
    LUFTWAFFE = 9  # II.B, rule 12.4
    GERMAN_MOVEMENT = 10  # II.C or II.D
    GERMAN_COMBAT = 11  # II.D or II.C
    REPLACEMENT_COMPLETION = 12  # II.E, rule 8.3
    REINFORCEMENT = 13  # II.F, rule 9
    REFUGEE_PLACEMENT = 14  # II.G, rule 10.1
    SCARE_REMOVAL = 15  # II.H, rule 7.9
    GAME_OVER = 16


class Decision(IntEnum):
    NONE = 0  # terminal
    SETUP_UNIT = 1  # unit to place next (R2)
    SETUP_HEX = 2  # hex for it
    GERMAN_ORDER = 3  # move-first / fight-first (rule 5.6)
    EVACUATE = 4  # unit to evacuate, or pass (rule 11.6)
    RAIL_UNIT = 5  # unit to rail, or pass (rule 11.7)
    RAIL_DEST = 6  # destination city
    MOVE_UNIT = 7  # unit to move, or end the phase (R13)
    MOVE_DEST = 8  # destination hex (own hex = stay)
    ATTACK_TARGET = 9  # target hex, or end the phase (R22.1)
    ATTACK_ADD = 10  # attacking unit, or done (R22.2)
    SUPPORT_ATTACK = 11  # R22.4
    SUPPORT_DEFENCE = 12  # R22.5
    LOWER = 13  # R22.7, rule 13.19
    STEP_LOSS = 14  # BB loss (rule 13.7, R29)
    RETREAT = 15  # retreat hex of one unit (rule 13.6, R28)
    ADVANCE_UNIT = 16  # unit to advance, or done (rule 13.2, R31)
    ADVANCE_SECOND = 17  # second hex of a German mechanized advance, or stay
    AIR_TARGET = 18  # Luftwaffe air-only strike target, or pass (rule 12.4)
    REPLACEMENT = 19  # unit to designate, or pass (rule 8.2)
    REINFORCE_HEX = 20  # entry hex of a reinforcement (rule 9, R34)
    REFUGEE_HEX = 21  # refugee marker hex (rule 10.2, R35)
    SCARE_UNIT = 22  # German unit that gets the panzer scare (rule 7.9)
    OVERSTACK_REMOVE = 23  # unit removed from an over-stacked hex by the opponent (rule 6.5, R9)
    # internal, never seen by an agent
    ENTER = 90
    END_PHASE = 91


# unit status
RESERVE = 0  # not placed yet (setup) or a reinforcement off map
ON_MAP = 1
DEAD = 2
EVACUATED = 3
STATUS_NAMES = ("reserve", "on_map", "dead", "evacuated")

SETUP_PHASES = (Phase.SETUP_FRENCH, Phase.SETUP_GERMAN)
MOVEMENT_PHASES = (Phase.FRENCH_MOVEMENT, Phase.GERMAN_MOVEMENT)
COMBAT_PHASES = (Phase.FRENCH_COMBAT, Phase.GERMAN_COMBAT)
