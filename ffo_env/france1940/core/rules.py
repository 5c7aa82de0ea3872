"""Legality in one place: the legal actions of every decision, and the rule queries they rest on.

Masks, bots and the validation of a submitted action all call :func:`legal_actions`; the flow
(:mod:`.flow`) applies only actions found here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ffo_env.france1940.core import actions as A
from ffo_env.france1940.core import air, airborne
from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.hexgrid import NEIGHBOURS, distance
from ffo_env.france1940.core.state import MAP, OUT, State

# ---------------------------------------------------------------- setup and reinforcements


def setup_hexes(s: State, u: int) -> list[int]:
    """Hexes where ``u`` may be placed at setup ([R Initial Unit Placement Procedure], C§3.4, F5, F13)."""
    spec = s.spec(u)
    d = s.game.data
    area = d.setup_areas[spec.nation]
    out = []
    for h in range(1, len(d.terrain)):
        if d.country[h] not in area or not d.playable(h):
            continue
        if s.stack_count(h) >= 3 and not spec.is_para:
            continue
        if spec.side == GERMAN and s.side_at(h) == ALLIED:
            continue  # German units on border hexes only if no Allied unit is there (F5)
        if not bef_stack_ok(s, u, h):
            continue
        out.append(h)
    return out


def reinforcement_hexes(s: State, u: int) -> list[int]:
    """Entry hexes for reinforcement ``u`` ([R Initial Set-up (A)(B)], F17)."""
    d = s.game.data
    spec = s.spec(u)

    def room(h: int) -> bool:
        return s.side_at(h) != 1 - spec.side and s.stack_count(h) < 3 and bef_stack_ok(s, u, h)

    if spec.side == GERMAN:
        return [h for h in d.german_edge if room(h)]
    paris_taken = any(s.side_at(h) == GERMAN for h in d.paris)  # "if Paris is at all occupied"
    if not paris_taken:
        inside = [h for h in d.paris if room(h)]
        if inside:
            return inside
    return [h for h in d.allied_west_edge if room(h)]  # F17: units that do not fit go to the west edge


def bef_stack_ok(s: State, u: int, h: int) -> bool:
    """F53: with the BEF variant British units never end in a hex with French, Belgian or Dutch units, nor
    the reverse, except French units with British GSEs."""
    if not s.game.options.bef_variant or s.side_of(u) != ALLIED:
        return True
    spec = s.spec(u)
    for v in s.occupants(h):
        if v == u or s.side_of(v) != ALLIED:
            continue
        other = s.spec(v)
        if (spec.nation == "GB") != (other.nation == "GB"):
            gb, non = (spec, other) if spec.nation == "GB" else (other, spec)
            if not ((gb.is_gse or gb.is_base) and non.nation == "FR"):
                return False
    return True


# ---------------------------------------------------------------- movement (F12-F16)


def can_move_in_phase(s: State, u: int) -> bool:
    """May ``u`` start a move in the current movement phase? (F12, F15, F31, F6 b, F11)"""
    spec = s.spec(u)
    if s.status[u] != MAP or s.moved[u] or spec.side != s.phasing or spec.is_para:
        return False
    if spec.nation in ("BE", "NL") and spec.home not in s.invaded:
        return False  # [R Belgian and Dutch Neutrality], F6 b
    if s.phase == "mech" and not spec.mech:
        return False  # [R Sequence of Play], F15
    if spec.is_gse:
        if s.phase != "initial" or s.ac_mission[u] or s.ac_turn[u] == s.turn or s.restricted[u]:
            return False  # [R Air Units (C)], F31, F11
    return s.ma(u) > 0


def step_cost(s: State, u: int, frm: int, to: int, ezoc: set[int]) -> int:
    """MP for ``u`` to enter ``to`` from ``frm`` (C§5, [R Zones of Control (A)-(D)], F14, F42, F61)."""
    d = s.game.data
    spec = s.spec(u)
    tec = d.tables["tec"]
    row = tec["forest" if d.terrain[to] == "f" else "swamp" if d.terrain[to] == "s" else "clear"]
    heavy = spec.mech or spec.is_gse  # mechanized units and GSEs pay 2 in forest and swamp [R TEC]
    cost = int(row["mp_mech"] if heavy else row["mp"])
    # ZOC costs; enemy paratroops alone are passed "as if it were a Zone of Control" (F41 e)
    enter = to in ezoc or (spec.side == ALLIED and airborne.paras_alone(s, to))
    leave = frm in ezoc or (spec.side == ALLIED and airborne.paras_alone(s, frm))
    if enter and leave:
        cost += int(tec["zoc_both"])
    elif enter:
        cost += int(tec["zoc_enter"])
    elif leave:
        cost += int(tec["zoc_leave"])
    if s.game.options.optional_mild_winter and spec.side == GERMAN and heavy and to in d.mild_winter:
        cost += int(tec["mild_winter_mp"])  # [R Mild Winter Rule (B)], F42, F61: on top, no cap
    return cost


def can_enter(s: State, u: int, h: int) -> bool:
    """Terrain, enemy units, fortified hexes, neutrality (F12, F6 c, F25)."""
    if not s.game.data.playable(h):
        return False
    if s.side_at(h) == 1 - s.side_of(u):
        return False
    return not s.closed_to(u, h)


def fortress_bonus(s: State, u: int) -> bool:
    """BEF: an Allied unit starting its move in a fortress may move along the fortress chain (F47)."""
    return s.game.options.bef_variant and s.side_of(u) == ALLIED and s.fort_active(s.hex[u])


def fortress_step(s: State, u: int, m: int) -> bool:
    """Is ``m`` a fortress hex of the chain next to ``u`` with room (F46 "fortress chain", F13)?"""
    return m in NEIGHBOURS[s.hex[u]] and s.fort_active(m) and s.stack_count(m) < 3 and bef_stack_ok(s, u, m)


def steps(s: State, u: int) -> list[tuple[int, int]]:
    """(hex, cost) of every legal next step of the moving unit ``u`` with ``s.mp_left`` (F12, F13); with
    the BEF variant, free steps along the fortress chain (F47, F48)."""
    return list(iter_steps(s, u))


def has_step(s: State, u: int) -> bool:
    """Whether ``u`` has any legal next step (:func:`steps` without building the list: the movement decision
    asks it of every unit, and the first step found settles it)."""
    return next(iter_steps(s, u), None) is not None


def iter_steps(s: State, u: int) -> Iterator[tuple[int, int]]:
    """The steps of :func:`steps`, in its order, one at a time."""
    h = s.hex[u]
    if s.phase == "fort_react":  # F48: up to four fortress hexes, no MP, ZOC ignored
        yield from ((m, 1) for m in NEIGHBOURS[h] if s.mp_left >= 1 and fortress_step(s, u, m))
        return
    free = [m for m in NEIGHBOURS[h] if fortress_step(s, u, m)] if s.fort_free >= 0 else []
    yield from ((m, 0) for m in free)
    if s.fort_free > 4:
        return  # F47 (a): past four fortress hexes the whole move stays in the chain
    ezoc = s.zoc_hexes(1 - s.side_of(u))
    for m in NEIGHBOURS[h]:
        if m in free:
            continue
        through = s.side_of(u) == ALLIED and airborne.paras_alone(s, m)
        if not through and (not can_enter(s, u, m) or s.stack_count(m) >= 3):
            continue
        if through and not s.game.data.playable(m):
            continue
        c = step_cost(s, u, h, m, ezoc)
        if c > s.mp_left:
            continue
        through = through or not bef_stack_ok(s, u, m)  # F53, P17: British and French may pass, not stop
        if through and not _can_leave(s, u, m, s.mp_left - c, ezoc):
            continue  # F41 e, F53: may pass through, never stop there
        yield (m, c)


def _can_leave(s: State, u: int, m: int, mp: int, ezoc: set[int]) -> bool:
    return any(
        n != s.hex[u]
        and can_enter(s, u, n)
        and s.stack_count(n) < 3
        and bef_stack_ok(s, u, n)
        and step_cost(s, u, m, n, ezoc) <= mp
        for n in NEIGHBOURS[m]
    )


def exit_cost(s: State, u: int) -> int:
    """MP to leave the map from a south-edge hex: 1, +2 if leaving an enemy-controlled hex (F16); 0 if
    the unit is not on the south edge."""
    h = s.hex[u]
    if h not in s.game.data.allied_south_edge:
        return 0
    ezoc = s.zoc_hexes(1 - s.side_of(u))
    return 1 + (int(s.game.data.tables["tec"]["zoc_leave"]) if h in ezoc else 0)


# ---------------------------------------------------------------- combat (F21-F30)


def is_fort_target(s: State, h: int) -> bool:
    return s.fort_active(h)


def attacker_in_reach(s: State, u: int, h: int) -> bool:
    """Adjacent, or German artillery within two hexes of an undestroyed fortified hex (F21, F30)."""
    if h in NEIGHBOURS[s.hex[u]]:
        return True
    return (
        s.spec(u).is_art
        and s.fort_active(h)
        and distance(s.hex[u], h) <= int(s.game.data.tables["ranges"]["artillery"])
    )


def can_attack_with(s: State, u: int, h: int | list[int], chosen: list[int], committed: bool = False) -> bool:
    """May ``u`` join the attack on the hex(es) ``h`` given the units ``chosen`` so far? (F21, F22, F23,
    F29: every attacking unit is in reach of every target, F30)"""
    targets = h if isinstance(h, list) else [h]
    renewal = s.cmb.get("renewal", False) if s.cmb else False  # F49: a renewed round of the engagement
    again = renewal and s.cmb is not None and u in s.cmb["engaged"]
    if s.status[u] != MAP or s.side_of(u) != s.phasing or (s.attacked[u] and not committed and not again):
        return False
    if u in chosen:
        return False
    spec = s.spec(u)
    if spec.nation in ("BE", "NL") and spec.home not in s.invaded:
        return False  # F6 b: no attacks before the invasion
    if not all(attacker_in_reach(s, u, t) for t in targets):
        return False
    sup = s.judge_supply([u])[u]  # P11: supply now is supply at the moment of combat
    if s.attack_strength(u, all(s.fort_active(t) for t in targets), sup) < 1:
        return False  # F20, F23: attack 0 cannot attack
    if committed:
        return True
    src = s.hex[u]
    base = s.cmb["hw_before"] if renewal and s.cmb is not None else s.hex_weight  # per round (F49)
    used = base.get(str(src), 0) + sum(s.spec(v).type.weight for v in chosen if s.hex[v] == src)
    if s.game.options.bef_variant and s.phasing == GERMAN:
        return used <= 3  # [BEF Special Stacking Rules], F54: one corps-equivalent plus one more unit (P15)
    return used + s.spec(u).type.weight <= 3  # one corps-equivalent from a hex per Combat Phase (F22)


def defenders_left(s: State, h: int) -> list[int]:
    """Enemy units in ``h`` not yet attacked this Combat Phase ([R Combat Phase (C)], F29)."""
    return [v for v in s.occupants(h) if s.side_of(v) != s.phasing and not s.attacked[v]]


def attack_targets(s: State, also: list[int] | None = None, chosen: list[int] | None = None) -> list[int]:
    """Hexes the phasing player may attack now (F21, F25, F29); with ``also``, the hexes that may join
    the combat on the targets ``also`` (every unit ``chosen`` so far, and at least one unit, in reach of
    all of them, F29)."""
    cand: set[int] = set()
    mine = s.on_map(s.phasing)
    for u in mine:
        if s.attacked[u]:
            continue
        for m in NEIGHBOURS[s.hex[u]]:
            cand.add(m)
        if s.spec(u).is_art:
            for f in s.game.data.fortified:
                if s.fort_active(f) and distance(s.hex[u], f) <= 2:
                    cand.add(f)
    # who might join an attack on a hex: the units next to it and the artillery (in reach of every target,
    # F21, F30), so that each candidate hex asks a few units rather than the whole army
    near: dict[int, list[int]] = {}
    artillery = []
    for u in mine:
        if s.spec(u).is_art:
            artillery.append(u)
        else:
            for m in NEIGHBOURS[s.hex[u]]:
                near.setdefault(m, []).append(u)
    out = []
    for h in sorted(cand):
        if h in s.attacked_hexes or (also and h in also):
            continue
        enemy = [v for v in s.occupants(h) if s.side_of(v) != s.phasing]
        if enemy:
            if not defenders_left(s, h):
                continue
        elif not (s.phasing == GERMAN and s.fort_active(h)):
            continue  # an empty hex is no target, except an empty fortified hex (F25)
        targets = [*(also or []), h]
        if chosen and not all(can_attack_with(s, u, targets, [], committed=True) for u in chosen):
            continue  # every unit chosen so far must still reach, and count against, every target
        # units chosen so far passed the check above, so they are on the map and reach every target
        if chosen or any(can_attack_with(s, u, targets, []) for u in (*near.get(h, ()), *artillery)):
            out.append(h)
    return out


def support_units(s: State, targets: list[int]) -> list[int]:
    """GSEs whose Aircraft Element may fly Close Support over the target hexes now (F31, F32, F11)."""
    if any(s.ac_mission[v] == "cap" and s.ac_hex[v] in targets for v in s.game.side_units[1 - s.phasing]):
        return []  # not into a hex under enemy CAP (F32)
    # taken off at most once a game-turn; a GSE that moved keeps its aircraft grounded (F31, F11, F58)
    return [
        u
        for u in air.available(s, s.phasing)
        if all(distance(air.home(s, u), h) <= air.reach(s, u) for h in targets)
    ]


def designate_units(s: State, cmb: dict[str, Any]) -> list[int]:
    """Units the defender may still designate: weight 3 in each target hex, no paratroops (F22, F29);
    "done" always (P13)."""
    out = []
    for h in cmb["targets"]:
        used = sum(s.spec(v).type.weight for v in cmb["designated"] if s.hex[v] == h)
        out += [
            v
            for v in defenders_left(s, h)
            if v not in cmb["designated"] and not s.spec(v).is_para and used + s.spec(v).type.weight <= 3
        ]
    return sorted(out)


def retreat_hexes(s: State, u: int, no_fort: bool = False) -> list[int]:
    """Legal retreat hexes of ``u`` (F26, F33, F4: never off the map; ``no_fort``: not into a fortress,
    the BEF's CA retreat, F49)."""
    side = s.side_of(u)
    ezoc = s.enemy_zoc_for_supply(side, retreat=True)
    out = []
    for m in NEIGHBOURS[s.hex[u]]:
        if not can_enter(s, u, m) or m in ezoc or (no_fort and s.fort_active(m)):
            continue
        if s.stack_count(m) + (0 if s.spec(u).is_para else 1) > 3:
            continue
        out.append(m)  # F53 (b): a retreat may create a mixed BEF stack
    return out


def counter_target_hexes(s: State, cmb: dict[str, Any]) -> list[int]:
    """Hexes adjacent to a defended hex holding participating attackers, not yet chosen (F27, F29, F30)."""
    out = set()
    for u in cmb["attackers"]:
        if s.status[u] == MAP and any(s.hex[u] in NEIGHBOURS[h] for h in cmb["targets"]):
            out.add(s.hex[u])
    return sorted(out - set(cmb["ca_hexes"]))


# ---------------------------------------------------------------- the legal actions of the decision


def legal_actions(s: State) -> list[int]:
    if s.is_terminal() or s.player < 0:
        return []
    dec = s.decision
    q = s.queue[0] if s.queue else {}
    if dec == "place":
        return [A.hex_action(h) for h in setup_hexes(s, q["unit"])]
    if dec == "restrict":
        return [
            A.unit_action(u)
            for u in s.game.side_units[GERMAN]
            if s.spec(u).is_gse and s.arrive[u] == 0 and not s.restricted[u]
        ]
    if dec == "reinforce":
        return [A.hex_action(h) for h in reinforcement_hexes(s, q["unit"])]
    if dec == "move":
        movable = [
            u for u in s.game.side_units[s.phasing] if can_move_in_phase(s, u) and _has_step(s, u)
        ]  # P1
        acts = [A.unit_action(u) for u in movable]
        if not any(not bef_stack_ok(s, u, s.hex[u]) for u in movable):
            acts.append(A.DONE)  # F53 (b), P17: break up a mixed stack
        if s.phase == "initial" and s.phasing == GERMAN and s.game.options.optional_airborne:
            paras = airborne.pool(s, "paratroop")
            if paras and airborne.drop_hexes(s):  # F41 b: drops between unit moves
                acts += [A.unit_action(u) for u in paras]
        return sorted(acts)
    if dec == "step":
        u = s.mover
        stay = not (s.side_of(u) == ALLIED and airborne.paras_alone(s, s.hex[u])) and bef_stack_ok(
            s, u, s.hex[u]
        )
        acts = [A.DONE] if stay else []  # F41 e, F53: no stop among enemy paratroops or in a mixed stack
        c = exit_cost(s, u)
        if c and c <= s.mp_left and s.phase != "fort_react" and s.fort_free <= 4:
            acts.append(A.EXIT)
        acts += [A.hex_action(m) for m, _c in steps(s, u)]
        return acts
    if dec == "remove_french":
        return [A.unit_action(u) for u in s.on_map(ALLIED) if s.spec(u).nation == "FR"]
    if dec == "attack":
        return [A.DONE] + [A.hex_action(h) for h in attack_targets(s)]
    if dec == "attackers":
        cmb = s.cmb or {}
        acts = [A.DONE] if cmb.get("attackers") else []
        acts += [
            A.unit_action(u)
            for u in s.on_map(s.phasing)
            if can_attack_with(s, u, cmb["targets"], cmb["attackers"])
        ]
        more = attack_targets(s, also=cmb["targets"], chosen=cmb["attackers"])  # F29: several target hexes
        return sorted(acts + [A.hex_action(h) for h in more])
    if dec == "support":
        cmb = s.cmb or {}
        return [A.DONE] + [
            A.unit_action(u) for u in support_units(s, cmb["targets"]) if u not in cmb["supports"]
        ]
    if dec == "designate":
        return [A.DONE] + [A.unit_action(u) for u in designate_units(s, s.cmb or {})]
    if dec == "lose":
        return [A.unit_action(u) for u in q["units"] if s.status[u] == MAP]
    if dec == "retreat":
        return [A.hex_action(h) for h in retreat_hexes(s, q["unit"], bool(q.get("no_fort")))]
    if dec == "ca_targets":
        cmb = s.cmb or {}
        more = counter_target_hexes(s, cmb)
        acts = [A.DONE] if cmb.get("ca_hexes") and (armor_need_met(s, cmb) or not more) else []
        return acts + [A.hex_action(h) for h in counter_target_hexes(s, cmb)]  # P10: one or more, then done
    if dec == "react":  # F48
        units = [u for u in s.on_map(ALLIED) if s.fort_active(s.hex[u]) and not s.moved[u]]
        saved = s.mp_left
        s.mp_left = 4
        try:
            movable = [u for u in units if has_step(s, u)]
        finally:
            s.mp_left = saved
        return [A.DONE] + [A.unit_action(u) for u in movable]
    if dec == "bef_renew":
        cmb = s.cmb or {}
        can_renew = any(can_attack_with(s, u, cmb["targets"], []) for u in s.on_map(GERMAN))
        return [A.DONE, A.YES] if can_renew else [A.DONE]  # F49: renewing is optional
    if dec == "bef_fort_out":
        return [A.unit_action(u) for u in q["units"] if s.status[u] == MAP and s.hex[u] == q["hex"]]
    if dec == "rebase":
        return [A.DONE, A.YES]
    if dec == "bef_ca":
        return [A.DONE, A.YES]  # F51: let the CA stand (DONE) or read it as DR (YES)
    if dec in ("bef_move1", "bef_move2"):
        return [A.DONE] + [A.unit_action(u) for u in special_movers(s, q)]
    ab = airborne.legal(s, dec, q)
    if ab is not None:
        return ab
    return air.legal(s, dec, q)


def may_rebase(s: State) -> bool:
    """F58 (P16): from game-turn 5 Bomber Command may rebase to Paris once, if the base hex holds no German
    unit and has room, and a bomber is still in play."""
    if not s.game.options.bef_bomber_command:
        return False
    bc = s.game.data.bomber_command
    base = int(bc["base"])
    unplaced = [u for u in s.game.side_units[ALLIED] if s.spec(u).is_base and s.arrive[u] == -1]
    bombers = [u for u in s.game.side_units[ALLIED] if s.spec(u).is_bomber and s.in_air_play(u)]
    return (
        s.turn >= int(bc["rebase_from_turn"])
        and bool(unplaced)
        and bool(bombers)
        and s.side_at(base) != GERMAN
        and s.stack_count(base) < 3
    )


def armor_need_met(s: State, cmb: dict[str, Any]) -> bool:
    """F51: the German counter-attack on an Allied attack takes at least the required number of the
    participating Allied armor and armored-cavalry units among its targets."""
    need = int(cmb.get("armor_need", 0))
    hit = [
        u
        for u in cmb["attackers"]
        if s.status[u] == MAP
        and s.hex[u] in cmb["ca_hexes"]
        and s.spec(u).type.symbol in ("armor", "armored_cav")
    ]
    return len(hit) >= need


def special_movers(s: State, q: dict[str, Any]) -> list[int]:
    """F52: Allied units that may make the special move into ``q["hex"]`` (adjacent, stacking, terrain,
    neutrality, F53; the first mover may not move again)."""
    h = q["hex"]
    if s.side_at(h) == GERMAN or s.stack_count(h) >= 3:
        return []
    out = []
    for m in NEIGHBOURS[h]:
        for v in s.occupants(m):
            if s.side_of(v) != ALLIED or v == q.get("first", -1) or s.spec(v).is_gse and s.ac_mission[v]:
                continue
            if can_enter(s, v, h) and bef_stack_ok(s, v, h):
                out.append(v)
    return sorted(out)


def _has_step(s: State, u: int) -> bool:
    saved, saved_free = s.mp_left, s.fort_free
    s.mp_left = s.ma(u)
    s.fort_free = 0 if fortress_bonus(s, u) else -1  # F47: as the move would start
    try:
        if has_step(s, u):
            return True
        c = exit_cost(s, u)
        return bool(c and c <= s.mp_left)
    finally:
        s.mp_left, s.fort_free = saved, saved_free


def reinforcements_due(s: State, side: int) -> list[int]:
    """Units of ``side`` arriving now, late ones first (F17)."""
    due = [u for u in s.game.side_units[side] if s.status[u] == OUT and 0 < s.arrive[u] <= s.turn]
    return sorted(due, key=lambda u: (s.arrive[u], u))
