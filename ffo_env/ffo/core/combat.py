"""Combat (rules 13.1-13.20, R22-R31) and support (rules 12.1-12.8, R18, R32): declaring attacks, air and
naval support, the column (R26), the CRT result and its losses, retreats and advances; the Luftwaffe's
air-only strike (rule 12.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core import masks
from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.combat_odds import attack_strength, city_die_applies, direction, known_shifts
from ffo_env.ffo.core.contexts import Battle, BattleOutcome, FoughtBattle
from ffo_env.ffo.core.mapdata import ColoredRow
from ffo_env.ffo.core.movement import blocked_for
from ffo_env.ffo.core.phases import ON_MAP, Decision, Phase
from ffo_env.ffo.core.scenario import Side

if TYPE_CHECKING:
    from ffo_env.ffo.core.state import State

FRENCH = Side.FRENCH
GERMAN = Side.GERMAN


def _battle(s: State) -> Battle:
    b = s._ctx.battle
    if b is None:
        raise RuntimeError(f"engine error: no battle under way at {s.decision.name} in {s._where()}")
    return b


# ----------------------------------------------------------------------------- declaration


def enter_combat(s: State) -> bool:
    side = FRENCH if s.phase == Phase.FRENCH_COMBAT else GERMAN
    if side == FRENCH and s.turn == 1:
        return False  # rule 5.3
    s.attacked = [False] * len(s.attacked)
    s._ctx.attacked_hexes = []
    if not attack_targets(s, side):
        return False
    s._set(Decision.ATTACK_TARGET, side)
    return True


def can_attack(s: State, u: int, target: int) -> bool:
    """May unit ``u`` attack hex ``target`` (apart from grouping)? (rules 11.7, 8.2, 13.9, 13.16, 13.20, R23, R24)"""
    spec = s.units[u]
    if spec.static or s.attacked[u] or s.no_attack[u] or s.status[u] != ON_MAP:
        return False
    h = s.loc[u]
    d = direction(h, target)
    if d < 0 or s.game.tables.blocked_side[h][d]:
        return False
    if spec.is_panzer and s.game.tables.city[target]:
        return False  # rule 13.16, R24
    return True


def attack_targets(s: State, side: int) -> list[int]:
    # can_attack inlined: a unit that may attack at all, across an open hexside
    # (mt.open_nb), a panzer corps not against a city (rule 13.16, R24)
    enemy_bits = masks.occupied_bits(s, 1 - side)
    out: set[int] = set()
    done = () if s.game.options.repeat_attacks else (s._ctx.attacked_hexes or ())  # R23
    game = s.game
    mt = game.tables
    open_nb = mt.open_nb
    city = mt.city
    static = game.unit_static
    panzer = game.unit_panzer
    loc = s.loc
    attacked = s.attacked
    no_attack = s.no_attack
    for u in s.on_map_units(side):
        if static[u] or attacked[u] or no_attack[u]:
            continue
        pz = panzer[u]
        for n in open_nb[loc[u]]:
            if n in out or not (enemy_bits >> n) & 1 or n in done or (pz and city[n]):
                continue
            out.add(n)
    return sorted(out)


def legal_attack_target(s: State) -> list[int]:
    return attack_targets(s, s.player) + [s.game.layout.special(Special.PASS)]


def apply_attack_target(s: State, a: int) -> None:
    if a == s.game.layout.special(Special.PASS):
        s.decision = Decision.END_PHASE
        return
    s.revealed[s.player].add(a)  # rule 3.6, R3: declared, revealed, cannot be called off
    attacked_hexes = s._ctx.attacked_hexes
    if attacked_hexes is None:
        attacked_hexes = s._ctx.attacked_hexes = []
    attacked_hexes.append(a)
    s._ctx.battle = Battle(
        target=a, attacker=int(s.player), air=False, attackers=[], defenders=list(s.stacks[a])
    )
    s._set(Decision.ATTACK_ADD, s.player)


def attack_candidates(s: State) -> list[int]:
    b = _battle(s)
    target = b.target
    atk = b.attackers
    group_west = s.units[atk[0]].west if atk else None
    out = []
    for n in hg.NEIGHBOR_LISTS[target]:
        for u in s.stacks.get(n, ()):
            spec = s.units[u]
            if spec.side != s.player or u in atk:
                continue
            if group_west is not None and spec.west != group_west:
                continue  # rule 9.5
            if can_attack(s, u, target):
                out.append(u)
    return out


def legal_attack_add(s: State) -> list[int]:
    layout = s.game.layout
    out = [layout.unit_action(u) for u in attack_candidates(s)]
    if _battle(s).attackers:
        out.append(layout.special(Special.PASS))
    return out


def apply_attack_add(s: State, a: int) -> None:
    layout = s.game.layout
    b = _battle(s)
    if a != layout.special(Special.PASS):
        b.attackers.append(a - layout.unit_base)
        if attack_candidates(s):
            return
    judge_battle_supply(s, b)
    after_attack_support_choice(s, first=True)


def judge_battle_supply(s: State, b: Battle) -> None:
    # R11: supply of every involved unit judged once, at the declaration, and kept per unit;
    # rule 7.9: a scared corps attacks as if OOS
    sup = {u: s._supplied_for_action(u) for u in b.attackers}
    b.att_supplied = sup
    b.att_oos = not all(sup.values())  # rule 7.4
    b.def_oos = any(not s.is_supplied(u) for u in b.defenders)
    b.att_supplied_mech = bool(b.attackers) and all(
        s.units[u].mechanized and sup[u] for u in b.attackers
    )  # rule 13.13
    for u in b.attackers:
        s.attacked[u] = True  # R23
    b.origins = sorted({s.loc[u] for u in b.attackers})


# ----------------------------------------------------------------------------- support


def support_options(s: State, for_attacker: bool) -> list[int]:
    b = _battle(s)
    layout = s.game.layout
    side = b.attacker if for_attacker else 1 - b.attacker
    target = b.target
    mt = s.game.tables
    out = []
    if side == GERMAN:
        if not s.stuka_used and not b.air:
            out.append(layout.special(Special.STUKA))  # rule 12.1, R32
    else:
        if b.naval_kind is None and (mt.coastal[target] or mt.inland1[target]):  # R32 range
            if not s.naval_used[0]:
                out.append(layout.special(Special.NAVAL_FRENCH))
            if not s.naval_used[1]:
                out.append(layout.special(Special.NAVAL_BRITISH))
    return out


def after_attack_support_choice(s: State, first: bool) -> None:
    if first:
        opts = support_options(s, True)
        if opts:
            s._set(Decision.SUPPORT_ATTACK, _battle(s).attacker)
            return
    opts = support_options(s, False)
    if opts:
        s._set(Decision.SUPPORT_DEFENCE, 1 - _battle(s).attacker)
        return
    prepare_lower(s)


def legal_support(s: State) -> list[int]:
    for_attacker = s.decision == Decision.SUPPORT_ATTACK
    return support_options(s, for_attacker) + [s.game.layout.special(Special.PASS)]


def apply_support(s: State, a: int) -> None:
    layout = s.game.layout
    b = _battle(s)
    for_attacker = s.decision == Decision.SUPPORT_ATTACK
    mt = s.game.tables
    sup = s.game.scenario.tables.support
    target = b.target
    strength: int | None = None
    if a == layout.special(Special.STUKA):
        s.stuka_used = True
        spec = sup["stuka_attack"] if for_attacker else sup["stuka_defence"]  # rule 12.5
        strength = support_dice(
            s, spec, "8th Fliegerkorps " + ("attack" if for_attacker else "defence") + " (rule 12.5)"
        )
    elif a in (layout.special(Special.NAVAL_FRENCH), layout.special(Special.NAVAL_BRITISH)):
        which = 0 if a == layout.special(Special.NAVAL_FRENCH) else 1
        s.naval_used[which] = True
        b.naval_kind = which
        coastal = mt.coastal[target]
        if for_attacker:
            spec = sup["naval_attack_coastal"] if coastal else sup["naval_attack_inland"]
        else:
            spec = sup["naval_defence_coastal"] if coastal else sup["naval_defence_inland"]
        name = "French" if which == 0 else "British"
        strength = support_dice(s, spec, f"{name} naval gunfire (rule 12.8)")
        loss = s._roll(f"{name} naval gunfire VP loss (rule 4.4, R18)")
        if s.game.options.naval_vp_loss == "die_minus_one":
            loss -= 1
        s._award(-loss, "naval", f"{name} naval gunfire at {hg.hex_name(target)}")
    if strength is not None:
        if for_attacker:
            b.att_support = strength
        else:
            b.def_support = strength
    if for_attacker:
        after_attack_support_choice(s, first=False)
    else:
        prepare_lower(s)


def support_dice(s: State, spec: Any, purpose: str) -> int:
    total = sum(s._roll(purpose) for _ in range(spec.dice))
    return int(total // spec.divisor)


# ----------------------------------------------------------------------------- column and result


def prepare_lower(s: State) -> None:
    """Roll the city die (rule 13.16) and compute the column before lowering (R22.6, R26)."""
    b = _battle(s)
    target = b.target
    t = s.game.scenario.tables
    defenders = [u for u in b.defenders if s.status[u] == ON_MAP]
    b.defenders = defenders
    shifts: dict[str, int] = {}
    if city_die_applies(s, target, defenders):
        die = s._roll(f"city defence of {hg.hex_name(target)} (rule 13.16)")
        shifts["city"] = -(die // t.city_die_divisor)
    air = b.air
    shifts.update(
        known_shifts(
            s,
            target,
            b.attackers,
            defenders,
            air=air,
            attacker_side=b.attacker,
            att_oos=bool(b.att_oos),
            def_oos=bool(b.def_oos),
            att_supplied_mech=bool(b.att_supplied_mech),
            origins=b.origins or [],
        )
    )
    att_cf = (b.att_support or 0) + (0 if air else attack_strength(s, target, b.attackers))
    def_cf = sum(s.cf(u) for u in defenders) + (b.def_support or 0)
    diff = att_cf - def_cf
    crt = t.crt
    base = crt.column_of(diff)
    col = max(0, min(len(crt.columns) - 1, base + sum(shifts.values())))  # R26, rule 13.18
    b.att_cf, b.def_cf, b.differential, b.shifts, b.column = att_cf, def_cf, diff, shifts, col
    s._set(Decision.LOWER, b.attacker)


def legal_lower(s: State) -> list[int]:
    col = _battle(s).column
    assert col is not None
    return [s.game.layout.lower(k) for k in range(col + 1)]


def apply_lower(s: State, a: int) -> None:
    b = _battle(s)
    assert b.column is not None
    k = a - s.game.layout.lower(0)
    b.lowered = k
    col = b.column - k  # rule 13.19
    b.final_column = col
    die = s._roll(f"combat at {hg.hex_name(b.target)} (rule 13.12)")
    res = s.game.scenario.tables.crt.result(col, die)
    b.die = die
    b.result = res
    if s._ctx.log is None:
        s._ctx.log = []
    s._ctx.log.append(FoughtBattle(b.target, col, die, res, b.air))
    apply_result(s, b, res)


def apply_result(s: State, b: Battle, res: str) -> None:
    air = b.air
    if air and res in ("AS", "AE", "DR"):
        res = "AS"  # rule 12.4, R30
    if res == "AE":
        for u in list(b.attackers):
            if s.status[u] == ON_MAP:
                s._lose_step(u, "AE")  # rule 13.5, R27
        battle_done(s)
        return
    if res == "AS":
        battle_done(s)  # rule 13.8
        return
    if res == "DE":
        for u in list(b.defenders):
            if air and s.units[u].static:
                continue  # R30: naval garrisons survive an air-only DE
            s._lose_step(u, "DE")  # rule 13.5, R27
        start_advance(s)
        return
    if res == "DR":
        queue = []
        for u in reversed(b.defenders):  # top unit first
            if s.units[u].static:
                s._lose_step(u, "DR: naval garrison (rule 13.20)")
            else:
                queue.append(u)
        b.retreat_queue = queue
        next_retreat(s)
        return
    # BB, rule 13.7, R29
    if air:
        b.loss_queue = [(int(GERMAN), int(FRENCH))]
    else:
        b.loss_queue = [(b.attacker, b.attacker), (1 - b.attacker, 1 - b.attacker)]
    next_loss(s)


# ----------------------------------------------------------------------------- step losses (BB)


def loss_candidates(s: State, victim: int) -> list[int]:
    b = _battle(s)
    pool = b.attackers if victim == b.attacker else b.defenders
    out = [u for u in pool if s.status[u] == ON_MAP]
    if b.air:
        out = [u for u in out if not s.units[u].static]  # rule 12.4, R29
    return out


def next_loss(s: State) -> None:
    b = _battle(s)
    queue = b.loss_queue or []
    while queue:
        chooser, victim = queue[0]
        if loss_candidates(s, victim):
            s._set(Decision.STEP_LOSS, chooser)
            return
        queue.pop(0)
    start_advance(s)


def legal_step_loss(s: State) -> list[int]:
    layout = s.game.layout
    queue = _battle(s).loss_queue
    assert queue
    return [layout.unit_action(u) for u in loss_candidates(s, queue[0][1])]


def apply_step_loss(s: State, a: int) -> None:
    queue = _battle(s).loss_queue
    assert queue
    queue.pop(0)
    s._lose_step(a - s.game.layout.unit_base, "BB")
    next_loss(s)


# ----------------------------------------------------------------------------- retreat


def retreat_hexes(s: State, u: int) -> list[int]:
    """Rule 13.6, R28, R5, R8."""
    b = _battle(s)
    h = s.loc[u]
    spec = s.units[u]
    blocked = blocked_for(s, u)
    origins = b.origins or ()
    row = s.game.tables.row
    limit = s.game.scenario.tables.stack_limit
    out = []
    for _d, n, _r in s.game.tables.moves[h]:
        if blocked[n] or n in origins:
            continue
        if spec.side == GERMAN and row[n] == ColoredRow.RED:
            continue  # rule 5.5, R38: a German unit never ends a retreat in the red row (else DE, rule 13.6)
        if not spec.free_stacking and s._counted(n) >= limit:
            continue
        out.append(n)
    return out


def next_retreat(s: State) -> None:
    b = _battle(s)
    queue = b.retreat_queue or []
    while queue:
        u = queue[0]
        if s.status[u] != ON_MAP:
            queue.pop(0)
            continue
        if retreat_hexes(s, u):
            s._set(Decision.RETREAT, s.units[u].side)
            return
        queue.pop(0)
        s._lose_step(u, "DR with no retreat (rule 13.6)")
    start_advance(s)


def legal_retreat(s: State) -> list[int]:
    queue = _battle(s).retreat_queue
    assert queue
    return retreat_hexes(s, queue[0])


def apply_retreat(s: State, a: int) -> None:
    queue = _battle(s).retreat_queue
    assert queue
    u = queue.pop(0)
    s._move_to(u, a)
    next_retreat(s)


# ----------------------------------------------------------------------------- advance


def advance_ok(s: State, u: int, h: int) -> bool:
    if blocked_for(s, u)[h]:
        return False
    spec = s.units[u]
    if spec.side == GERMAN and s.game.tables.row[h] == ColoredRow.RED:
        return False  # rule 5.5 via R31
    if s.side_at(h) == 1 - spec.side:
        return False
    if not spec.free_stacking and s._counted(h) >= s.game.scenario.tables.stack_limit:
        return False
    return True


def start_advance(s: State) -> None:
    b = _battle(s)
    if b.air or s.stacks.get(b.target):
        battle_done(s)
        return
    b.advanced = []
    next_advance(s)


def advance_candidates(s: State) -> list[int]:
    b = _battle(s)
    target = b.target
    advanced = b.advanced or ()
    return [
        u for u in b.attackers if s.status[u] == ON_MAP and u not in advanced and advance_ok(s, u, target)
    ]


def next_advance(s: State) -> None:
    if advance_candidates(s):
        s._set(Decision.ADVANCE_UNIT, _battle(s).attacker)
    else:
        battle_done(s)


def legal_advance_unit(s: State) -> list[int]:
    layout = s.game.layout
    return [layout.unit_action(u) for u in advance_candidates(s)] + [layout.special(Special.PASS)]


def apply_advance_unit(s: State, a: int) -> None:
    layout = s.game.layout
    b = _battle(s)
    if a == layout.special(Special.PASS):
        battle_done(s)
        return
    u = a - layout.unit_base
    if b.advanced is None:
        b.advanced = []
    b.advanced.append(u)
    s._move_to(u, b.target)
    spec = s.units[u]
    if spec.is_british_51:
        s._award(
            s.game.scenario.tables.vp["british_51_advance"],
            "british_51",
            f"51st advanced into {hg.hex_name(b.target)}",
        )  # rule 4.3, R31
    # rule 13.2, R31: only a German mechanized unit supplied at the declaration (R11; a scared
    # corps counts as OOS, rule 7.9) may go on to a second hex
    if spec.side == GERMAN and spec.mechanized and second_hexes(s, u):
        b.second = u
        s._set(Decision.ADVANCE_SECOND, GERMAN)
        return
    next_advance(s)


def second_hexes(s: State, u: int) -> list[int]:
    """R31: second hex of a supplied German mechanized advance."""
    b = _battle(s)
    target = b.target
    mt = s.game.tables
    if mt.mountain[target] or not (b.att_supplied or {}).get(u, False):
        return []
    out = []
    for _d, n, _r in mt.moves[target]:
        if mt.mountain[n]:
            continue
        if advance_ok(s, u, n):
            out.append(n)
    return out


def legal_advance_second(s: State) -> list[int]:
    u = _battle(s).second
    assert u is not None
    return second_hexes(s, u) + [s.game.layout.special(Special.PASS)]


def apply_advance_second(s: State, a: int) -> None:
    b = _battle(s)
    u = b.second
    assert u is not None
    b.second = None
    if a != s.game.layout.special(Special.PASS):
        s._move_to(u, a)
    next_advance(s)


def battle_done(s: State) -> None:
    b = _battle(s)
    s._ctx.battle = None
    assert b.result is not None and b.die is not None and b.column is not None
    s._ctx.last_battle = BattleOutcome(b.target, b.result, b.die, b.column)
    if b.air:
        s.decision = Decision.END_PHASE  # one air-only strike per phase
        return
    side = b.attacker
    if attack_targets(s, side):
        s._set(Decision.ATTACK_TARGET, side)
    else:
        s.decision = Decision.END_PHASE


# ----------------------------------------------------------------------------- Luftwaffe


def enter_luftwaffe(s: State) -> bool:
    if s.stuka_used or not s.on_map_units(FRENCH):
        return False
    s._set(Decision.AIR_TARGET, GERMAN)
    return True


def legal_air_target(s: State) -> list[int]:
    targets = sorted(h for h, st in s.stacks.items() if s.units[st[0]].side == FRENCH)
    return targets + [s.game.layout.special(Special.PASS)]


def apply_air_target(s: State, a: int) -> None:
    if a == s.game.layout.special(Special.PASS):
        s.decision = Decision.END_PHASE
        return
    s.stuka_used = True  # rule 12.1, R32
    # R3: the strike is declared on the hex, so its stack is revealed to the German player; his
    # STEP_LOSS choice among the French defenders of a BB (rule 13.7, R29) shows nothing new
    s.revealed[GERMAN].add(a)
    b = Battle(
        target=a,
        attacker=int(GERMAN),
        air=True,
        attackers=[],
        defenders=list(s.stacks[a]),
        att_supplied={},
        att_oos=False,
        att_supplied_mech=False,
        origins=[],
    )
    b.def_oos = any(not s.is_supplied(u) for u in b.defenders)
    s._ctx.battle = b
    b.att_support = support_dice(
        s, s.game.scenario.tables.support["stuka_attack"], "8th Fliegerkorps air strike (rule 12.5)"
    )
    after_attack_support_choice(s, first=False)
