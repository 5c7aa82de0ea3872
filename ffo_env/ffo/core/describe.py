"""Text forms of a state: what an action does in the current decision, the decision, the position."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.evacuation import rail_route_to
from ffo_env.ffo.core.phases import DEAD, EVACUATED, Decision
from ffo_env.ffo.core.scenario import Side

if TYPE_CHECKING:
    from ffo_env.ffo.core.state import State

_PASS_TEXT = {
    Decision.MOVE_UNIT: "end the movement phase",
    Decision.ATTACK_TARGET: "end the combat phase",
    Decision.ATTACK_ADD: "done adding attackers",
    Decision.EVACUATE: "end evacuation",
    Decision.RAIL_UNIT: "no rail move",
    Decision.ADVANCE_UNIT: "no (further) advance",
    Decision.ADVANCE_SECOND: "stay in the target hex",
    Decision.AIR_TARGET: "no air strike",
    Decision.REPLACEMENT: "no replacement",
}
_SPECIAL_TEXT = {
    Special.MOVE_FIRST: "move first, then fight",
    Special.FIGHT_FIRST: "fight first, then move",
    Special.STUKA: "commit the 8th Fliegerkorps",
    Special.NAVAL_FRENCH: "commit French naval gunfire",
    Special.NAVAL_BRITISH: "commit British naval gunfire",
}
_UNIT_VERB = {
    Decision.SETUP_UNIT: "place",
    Decision.EVACUATE: "evacuate",
    Decision.RAIL_UNIT: "rail",
    Decision.MOVE_UNIT: "move",
    Decision.ATTACK_ADD: "attack with",
    Decision.STEP_LOSS: "lose a step of",
    Decision.ADVANCE_UNIT: "advance",
    Decision.REPLACEMENT: "replace",
    Decision.SCARE_UNIT: "scare",
    Decision.OVERSTACK_REMOVE: "remove",
}
_HEX_VERB = {
    Decision.SETUP_HEX: "place in",
    Decision.RAIL_DEST: "rail to",
    Decision.ATTACK_TARGET: "attack",
    Decision.RETREAT: "retreat to",
    Decision.ADVANCE_SECOND: "advance on to",
    Decision.AIR_TARGET: "air strike on",
    Decision.REINFORCE_HEX: "enter at",
    Decision.REFUGEE_HEX: "refugees in",
}


def action_text(s: State, a: int) -> str:
    """What action ``a`` (already checked to be in the action space) does in the current decision."""
    layout = s.game.layout
    kind = layout.kind(a)
    d = s.decision
    if kind == "special":
        k = a - layout.special_base
        if k >= int(Special.LOWER_0):
            return f"lower the differential by {k - int(Special.LOWER_0)} column(s)"
        name = Special(k)
        if name == Special.PASS:
            return _PASS_TEXT.get(d, "pass")
        return _SPECIAL_TEXT[name]
    if kind == "unit":
        spec = s.units[a - layout.unit_base]
        where = f" in {hg.hex_name(s.loc[spec.index])}" if s.loc[spec.index] >= 0 else ""
        return f"{_UNIT_VERB.get(d, 'choose')} {spec.id}{where}"
    h = hg.hex_name(a)
    ctx = s._ctx
    if d == Decision.MOVE_DEST and ctx.unit is not None and ctx.dests is not None:
        u = ctx.unit
        if a == s.loc[u]:
            return f"{s.units[u].id} stays in {h}"
        r = ctx.dests[a]
        extra = f", -{r.vp} VP refugees" if r.vp else ""
        return f"move {s.units[u].id} to {h} ({r.mp} MP{extra})"
    if d == Decision.RAIL_DEST and ctx.unit is not None and a in s.legal_actions():
        u = ctx.unit
        route = " - ".join(hg.hex_name(x) for x in (s.loc[u], *rail_route_to(s, u, a)))
        return f"rail {s.units[u].id} to {h} via {route}"  # R17: the route taken
    return f"{_HEX_VERB.get(d, 'hex')} {h}"


def decision_text(s: State) -> str:
    return f"GT{s.turn} {s.phase.name} {s.player.agent} {s.decision.name}"


def position_text(s: State) -> str:
    lines = [
        f"France Fights On - GT{s.turn} {s.phase.name}; {s.player.agent} to decide {s.decision.name};"
        f" French VP {s.vp}"
    ]
    for side in (Side.FRENCH, Side.GERMAN):
        parts = []
        for u in s.on_map_units(side):
            spec = s.units[u]
            red = "" if s.is_full(u) else "(r)"
            parts.append(f"{spec.id}{red}@{hg.hex_name(s.loc[u])}")
        lines.append(f"{side.agent}: " + " ".join(parts))
    if s.refugees:
        lines.append(
            "refugees: "
            + " ".join(hg.hex_name(h) + ("*" if f else "") for h, f in sorted(s.refugees.items()))
        )
    dead = [s.units[u].id for u in range(len(s.units)) if s.status[u] == DEAD]
    evac = [s.units[u].id for u in range(len(s.units)) if s.status[u] == EVACUATED]
    lines.append(f"dead: {' '.join(dead) or '-'}; evacuated: {' '.join(evac) or '-'}")
    if s.is_terminal():
        lines.append(f"GAME OVER: {'French' if s.winner == Side.FRENCH else 'German'} victory with {s.vp} VP")
    return "\n".join(lines)
