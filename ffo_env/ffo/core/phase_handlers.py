"""Which rule module enters each phase, lists the legal actions of each decision and applies them.

The state machine (:mod:`ffo_env.ffo.core.state`) looks every phase and decision up here; the functions live
in the module of their rule section.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ffo_env.ffo.core import (
    combat,
    evacuation,
    movement,
    panzer_scare,
    refugees,
    reinforcements,
    replacement,
    setup_phase,
    stacking,
    turn_sequence,
)
from ffo_env.ffo.core.phases import Decision, Phase

if TYPE_CHECKING:
    from ffo_env.ffo.core.state import State

ENTER: dict[Phase, Callable[[State], bool]] = {
    Phase.SETUP_FRENCH: setup_phase.enter_setup_french,
    Phase.SETUP_GERMAN: setup_phase.enter_setup_german,
    Phase.EVACUATION: evacuation.enter_evacuation,
    Phase.FRENCH_MOVEMENT: movement.enter_movement,
    Phase.FRENCH_COMBAT: combat.enter_combat,
    Phase.REFUGEE_RECOVERY: refugees.enter_refugee_recovery,
    Phase.PANZER_SCARE: panzer_scare.enter_panzer_scare,
    Phase.GERMAN_ORDER: turn_sequence.enter_german_order,
    Phase.REPLACEMENT: replacement.enter_replacement,
    Phase.LUFTWAFFE: combat.enter_luftwaffe,
    Phase.GERMAN_MOVEMENT: movement.enter_movement,
    Phase.GERMAN_COMBAT: combat.enter_combat,
    Phase.REPLACEMENT_COMPLETION: replacement.enter_replacement_completion,
    Phase.REINFORCEMENT: reinforcements.enter_reinforcement,
    Phase.REFUGEE_PLACEMENT: refugees.enter_refugee_placement,
    Phase.SCARE_REMOVAL: panzer_scare.enter_scare_removal,
}

LEGAL: dict[Decision, Callable[[State], list[int]]] = {
    Decision.SETUP_UNIT: setup_phase.legal_setup_unit,
    Decision.SETUP_HEX: setup_phase.legal_setup_hex,
    Decision.GERMAN_ORDER: turn_sequence.legal_german_order,
    Decision.EVACUATE: evacuation.legal_evacuate,
    Decision.RAIL_UNIT: evacuation.legal_rail_unit,
    Decision.RAIL_DEST: evacuation.legal_rail_dest,
    Decision.MOVE_UNIT: movement.legal_move_unit,
    Decision.MOVE_DEST: movement.legal_move_dest,
    Decision.ATTACK_TARGET: combat.legal_attack_target,
    Decision.ATTACK_ADD: combat.legal_attack_add,
    Decision.SUPPORT_ATTACK: combat.legal_support,
    Decision.SUPPORT_DEFENCE: combat.legal_support,
    Decision.LOWER: combat.legal_lower,
    Decision.STEP_LOSS: combat.legal_step_loss,
    Decision.RETREAT: combat.legal_retreat,
    Decision.ADVANCE_UNIT: combat.legal_advance_unit,
    Decision.ADVANCE_SECOND: combat.legal_advance_second,
    Decision.AIR_TARGET: combat.legal_air_target,
    Decision.REPLACEMENT: replacement.legal_replacement,
    Decision.REINFORCE_HEX: reinforcements.legal_reinforce_hex,
    Decision.REFUGEE_HEX: refugees.legal_refugee_hex,
    Decision.SCARE_UNIT: panzer_scare.legal_scare_unit,
    Decision.OVERSTACK_REMOVE: stacking.legal_overstack,
}

APPLY: dict[Decision, Callable[[State, int], None]] = {
    Decision.SETUP_UNIT: setup_phase.apply_setup_unit,
    Decision.SETUP_HEX: setup_phase.apply_setup_hex,
    Decision.GERMAN_ORDER: turn_sequence.apply_german_order,
    Decision.EVACUATE: evacuation.apply_evacuate,
    Decision.RAIL_UNIT: evacuation.apply_rail_unit,
    Decision.RAIL_DEST: evacuation.apply_rail_dest,
    Decision.MOVE_UNIT: movement.apply_move_unit,
    Decision.MOVE_DEST: movement.apply_move_dest,
    Decision.ATTACK_TARGET: combat.apply_attack_target,
    Decision.ATTACK_ADD: combat.apply_attack_add,
    Decision.SUPPORT_ATTACK: combat.apply_support,
    Decision.SUPPORT_DEFENCE: combat.apply_support,
    Decision.LOWER: combat.apply_lower,
    Decision.STEP_LOSS: combat.apply_step_loss,
    Decision.RETREAT: combat.apply_retreat,
    Decision.ADVANCE_UNIT: combat.apply_advance_unit,
    Decision.ADVANCE_SECOND: combat.apply_advance_second,
    Decision.AIR_TARGET: combat.apply_air_target,
    Decision.REPLACEMENT: replacement.apply_replacement,
    Decision.REINFORCE_HEX: reinforcements.apply_reinforce_hex,
    Decision.REFUGEE_HEX: refugees.apply_refugee_hex,
    Decision.SCARE_UNIT: panzer_scare.apply_scare_unit,
    Decision.OVERSTACK_REMOVE: stacking.apply_overstack,
}
