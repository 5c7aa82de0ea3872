"""The sequence of play ([R Sequence of Play], C§10, C§11, F9, F10): setup, then per game-turn a German and
an Allied player-turn of reinforcements, Initial Movement, Combat, Mechanized Movement and the air steps.

:func:`advance` runs every automatic step until the next decision; :func:`apply` makes one decision (already
checked legal by :meth:`State.check_action`). Pending sub-decisions (placements, retreats, losses,
counter-attack targets) wait in ``State.queue`` and are asked before the phase goes on.
"""

from __future__ import annotations

from typing import Any

from ffo_env.france1940.core import actions as A
from ffo_env.france1940.core import air, airborne, combat, rules
from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.options import ALLIED_COLUMNS, GERMAN_COLUMNS, RANDOM
from ffo_env.france1940.core.state import BOMBERS, EXITED, MAP, OUT, REMOVED, State

PHASES = ("reinforce", "intercept", "initial", "airsup", "fort_react", "combat", "mech", "missions")
_DEFENDER_DECISIONS = ("designate", "cap_allot")  # F21 (3), F35: the non-phasing player answers
_OWNER_FIXED = {
    "restrict": GERMAN,
    "remove_french": ALLIED,
    "airborne_remove": GERMAN,
    "drop": GERMAN,
    "assault_ac": GERMAN,
    "airland": GERMAN,
    "bef_ca": ALLIED,
    "rebase": ALLIED,
    "bef_fort_out": ALLIED,
    "bef_renew": GERMAN,
    "bef_move1": ALLIED,
    "bef_move2": ALLIED,
}


# ---------------------------------------------------------------- setup (C§10, F44, F11)


def start(s: State) -> None:
    g = s.game
    d = g.data
    cols = list(s.columns)
    if cols[ALLIED] == RANDOM:  # a seeded, recorded draw of the Allied column (F44, P3)
        cols[ALLIED] = ALLIED_COLUMNS[s.draw(len(ALLIED_COLUMNS), "allied_obac")]
    if cols[GERMAN] == RANDOM:
        cols[GERMAN] = GERMAN_COLUMNS[s.draw(len(GERMAN_COLUMNS), "german_obac")]
    s.columns = cols
    for side, obac in ((ALLIED, d.allied_obac), (GERMAN, d.german_obac)):
        ci = obac.column(cols[side])
        pools: dict[str, list[int]] = {}
        for u in g.side_units[side]:
            pools.setdefault(g.units[u].type.id, []).append(u)
        for t, counts in obac.start.items():
            for _ in range(counts[ci]):
                s.arrive[pools[t].pop(0)] = 0
        rows = sorted(
            ((g.options.de_gt1_second_row_turn if turn == 0 else turn), t, counts)
            for turn, t, counts in obac.reinforcements
        )
        for turn, t, counts in rows:
            for _ in range(counts[ci]):
                s.arrive[pools[t].pop(0)] = turn  # F45: the unlabelled German row is turn 1 or 2
    q: list[dict[str, Any]] = []
    if g.options.optional_airborne:  # F41 a: the airborne units wait off the map; two corps-equivalents go
        for t, n in d.airborne.items():
            if t in d.types:
                for u in [u for u in g.side_units[GERMAN] if g.units[u].type.id == t][:n]:
                    s.arrive[u] = airborne.POOL
        q.append({"kind": "airborne_remove", "left": int(d.airborne["remove_weight"])})
    if g.options.bef_bomber_command:  # F58: the two bombers start based in Britain
        for u in g.side_units[ALLIED]:
            if g.units[u].is_bomber:
                s.arrive[u] = BOMBERS
    q += [{"kind": "place", "unit": u} for u in g.side_units[ALLIED] if s.arrive[u] == 0]
    if not g.options.optional_airborne:  # F11: four German air units named at setup stay grounded on GT1
        gses = [u for u in g.side_units[GERMAN] if s.arrive[u] == 0 and g.units[u].is_gse]
        q += [{"kind": "restrict"} for _ in range(min(4, len(gses)))]
    q += [{"kind": "place", "unit": u} for u in g.side_units[GERMAN] if s.arrive[u] == 0]
    s.queue = q
    s.phase = "setup"
    advance(s)


# ---------------------------------------------------------------- the phase machine


def enter(s: State, phase: str) -> None:
    s.phase = phase
    side = s.phasing
    if phase == "reinforce":  # step 1 (F17)
        s.queue += [{"kind": "reinforce", "unit": u} for u in rules.reinforcements_due(s, side)]
    elif phase == "fort_react":
        s.mover = -1
        for u in s.game.side_units[ALLIED]:
            s.moved[u] = False
    elif phase in ("initial", "mech"):  # supply judged at the start of each movement phase (F18)
        if phase == "initial" and side == ALLIED and rules.may_rebase(s):
            s.queue.append({"kind": "rebase"})  # F58: at the start of an Allied Initial Movement Phase
        units = s.on_map(side)
        sup = s.judge_supply(units)
        for u in units:
            s.supply[u] = sup[u]
            s.moved[u] = False
        s.mover = -1
    elif phase == "combat":
        s.attacked = [False] * len(s.attacked)
        s.attacked_hexes = []
        s.hex_weight = {}
        s.cmb = None
    elif phase == "intercept":
        air.enter_intercept(s)
    elif phase == "airsup":
        air.enter_airsup(s)
    elif phase == "missions":
        air.enter_missions(s)


def _next_phase(s: State) -> None:
    if s.phase == "setup":
        s.turn, s.phasing = 1, GERMAN
        enter(s, "reinforce")
        return
    if s.phase == "initial" and s.turn == 1 and s.phasing == GERMAN and not s.game.options.optional_airborne:
        s.belgian_area = False  # [R Maginot Line], F8: ceases after the first German Initial Movement Phase
        s.touch()
    if s.phase == "combat":
        air.land_air_superiority(s)  # step 7
        airborne.land_assault_aircraft(s)  # F41 c
    if s.game.options.optional_airborne and s.phasing == GERMAN and s.phase != "setup":
        airborne.withdraw(s)  # F41 f: at the end of each German phase
    i = PHASES.index(s.phase)
    if i + 1 < len(PHASES):
        enter(s, PHASES[i + 1])
        return
    # end of the player-turn: the enemy's CAP and Interdiction from its last player-turn land (step 9)
    air.land_enemy_missions(s)
    if s.phasing == GERMAN:
        s.phasing = ALLIED
    elif s.turn >= s.game.last_turn:
        _end_game(s)
        return
    else:
        s.turn += 1
        s.phasing = GERMAN
        s.restricted = [False] * len(s.restricted)  # F11: the restriction is for game-turn 1 only
    enter(s, "reinforce")


def _end_game(s: State) -> None:
    """Victory after the last Allied player-turn ([R Standard Game Victory Conditions], F10, F39, F40)."""
    vic = s.game.data.tables["victory"]
    if s.paris_held():
        s.vp[GERMAN] += int(vic["vp_paris"])
        s.log.append(["paris", "", "+10 German VP"])
    g_vp, a_vp = s.vp[GERMAN], s.vp[ALLIED]
    if s.game.options.optional_variable_victory:
        s.result = "allied"
        for name, ratio, strict, floor in vic["variable"]:  # F40: from the top, a level's floor or fall
            ok_ratio = a_vp == 0 or (g_vp > ratio * a_vp if strict else g_vp >= ratio * a_vp)
            if ok_ratio and g_vp >= floor and g_vp > 0:
                s.result = f"german_{name}"
                break
        s.winner = GERMAN if s.result != "allied" else ALLIED
    else:
        ok = g_vp >= int(vic["german_min_vp"]) and (a_vp == 0 or g_vp >= int(vic["german_min_ratio"]) * a_vp)
        s.winner = GERMAN if ok else ALLIED
        s.result = "german" if ok else "allied"
    s.phase = "over"
    s.decision = "none"
    s.player = -1
    s.queue = []


# ---------------------------------------------------------------- deciding who decides


def _owner(s: State, item: dict[str, Any]) -> int:
    kind = item["kind"]
    if kind in _OWNER_FIXED:
        return _OWNER_FIXED[kind]
    if kind == "lose":
        return int(item["side"])
    if kind == "ca_targets":
        return 1 - s.phasing
    if "unit" in item:
        return s.side_of(item["unit"])
    return air.owner(s, item)


def _auto_item(s: State, item: dict[str, Any]) -> bool:
    """Run an automatic queue item; True if it was one."""
    kind = item["kind"]
    if kind == "counter":
        s.queue.pop(0)
        cmb = s.cmb
        assert cmb is not None
        if combat.counter_attackers(s, cmb) and rules.counter_target_hexes(s, cmb):
            s.queue.insert(0, {"kind": "ca_targets"})  # F27: compulsory when it can happen
        return True
    if kind == "end_attack":
        s.queue.pop(0)
        _end_attack(s)
        return True
    if kind == "overstack":  # F54: one extra unit (or another participant) is lost at the end
        s.queue.pop(0)
        cmb = s.cmb
        assert cmb is not None
        alive = [u for u in cmb["extra"] if s.status[u] == MAP] or [
            u for u in cmb["attackers"] if s.status[u] == MAP
        ]
        if alive:
            s.queue.insert(0, {"kind": "lose", "side": GERMAN, "units": alive, "why": "over-stacked assault"})
        return True
    if kind == "bef_special":  # F52: after an Allied attack, each defended hex left with no German unit
        s.queue.pop(0)
        cmb = s.cmb
        assert cmb is not None
        emptied = [t for t in cmb["targets"] if s.side_at(t) != GERMAN]
        s.queue[:0] = [{"kind": "bef_move1", "hex": t} for t in emptied]
        return True
    return air.auto_item(s, item)


def _empty_item(s: State, item: dict[str, Any]) -> None:
    """A queued decision with no legal action."""
    s.queue.pop(0)
    kind = item["kind"]
    if kind == "retreat":
        s.destroy(item["unit"], "no retreat")  # F26, F4, P9: no decision
    elif kind == "remove_french":
        s.owed = 0
    elif kind == "ca_targets":
        pass
    elif kind == "place":
        s.log.append(["unplaced", s.uid(item["unit"]), "no legal setup hex"])  # P4
        s.arrive[item["unit"]] = -1


def _phase_decision(s: State) -> str:
    if s.phase in ("initial", "mech"):
        return "step" if s.mover >= 0 else "move"
    if s.phase == "fort_react":  # [BEF Fortress Movement Bonus], F48: step 5 of the German player-turn
        if not (s.game.options.bef_variant and s.phasing == GERMAN):
            return ""
        return "step" if s.mover >= 0 else "react"
    if s.phase == "combat":
        if s.cmb is None:
            return "attack"
        return str(s.cmb["stage"])
    return air.phase_decision(s)


def advance(s: State) -> None:
    """Run automatic steps until a decision with a choice (or the end)."""
    while s.phase != "over":
        if s.queue:
            item = s.queue[0]
            if _auto_item(s, item):
                continue
            s.decision = item["kind"]
            s.player = _owner(s, item)
        else:
            dec = _phase_decision(s)
            if not dec:
                _next_phase(s)
                continue
            s.decision = dec
            # F21 (3), F35: the defender answers; F48: the Allied fortress reaction in the German turn
            s.player = 1 - s.phasing if dec in _DEFENDER_DECISIONS or s.phase == "fort_react" else s.phasing
        s._legal = None
        legal = s.legal_actions()
        if not legal:
            s._legal = None
            if s.queue:
                _empty_item(s, s.queue[0])
                continue
            _next_phase(s)
            continue
        if len(legal) == 1 and s.game.options.skip_forced:  # P2
            _do(s, legal[0], auto=True)
            continue
        return


def apply(s: State, a: int) -> None:
    _do(s, a, auto=False)
    advance(s)


# ---------------------------------------------------------------- applying a decision


def _do(s: State, a: int, auto: bool) -> None:
    s._legal = None
    s.history.append([s.player, a, auto])
    dec = s.decision
    q = s.queue[0] if s.queue else {}
    if dec in ("place", "reinforce"):
        u = q["unit"]
        s.queue.pop(0)
        s.status[u] = MAP
        s.move_unit(u, A.action_hex(a))
        if dec == "reinforce":
            s.supply[u] = True
            s.moved[u] = False
    elif dec == "restrict":
        s.queue.pop(0)
        s.restricted[a - A.UNIT] = True
    elif dec == "move":
        if a == A.DONE:
            _next_phase(s)
        else:
            u = a - A.UNIT
            if s.status[u] == OUT:  # a paratroop from the pool: it drops (F41 b)
                s.queue.insert(0, {"kind": "drop", "unit": u})
                return
            s.mover, s.mp_left, s.moved[u] = u, s.ma(u), True
            s.fort_free = 0 if rules.fortress_bonus(s, u) else -1  # F47
            if s.spec(u).is_gse:
                s.gse_moved_turn[u] = s.turn  # its Aircraft Element stays grounded this game-turn (F31)
    elif dec == "react":  # F48: an Allied unit in a fortress moves up to four fortress hexes
        if a == A.DONE:
            _next_phase(s)
        else:
            u = a - A.UNIT
            s.mover, s.mp_left, s.moved[u], s.fort_free = u, 4, True, -1
    elif dec == "step":
        _step(s, a)
    elif dec == "remove_french":
        u = a - A.UNIT
        s.owed -= s.spec(u).type.defence  # P14: printed Defense Strength
        s.remove(u, REMOVED, "removed for a German exit")  # F16: no VP
        if s.owed <= 0:
            s.owed = 0
            s.queue.pop(0)
    elif dec == "attack":
        if a == A.DONE:
            _next_phase(s)
        else:
            _declare(s, A.action_hex(a))
    elif dec in ("attackers", "support", "designate"):
        _commit(s, dec, a)
    elif dec == "lose":
        s.queue.pop(0)
        s.destroy(a - A.UNIT, str(q.get("why", "loss")))
    elif dec == "retreat":
        u = q["unit"]
        s.queue.pop(0)
        s.move_unit(u, A.action_hex(a))
        if s.side_of(u) == GERMAN:
            s.invade(s.invades_on_entry(s.hex[u]), "retreat")
        if q["n"] > 1:
            s.queue.insert(0, {"kind": "retreat", "unit": u, "n": q["n"] - 1})
    elif dec == "rebase":  # F58: once and for good; neither bomber flies this game-turn
        s.queue.pop(0)
        if a == A.YES:
            bc = s.game.data.bomber_command
            for u in s.game.side_units[ALLIED]:
                if s.spec(u).is_base and s.arrive[u] == -1:
                    s.status[u], s.arrive[u] = MAP, 0
                    s.move_unit(u, int(bc["base"]))
                elif s.spec(u).is_bomber and s.in_air_play(u):
                    s.ac_turn[u] = s.turn
            s.log.append(["bomber command rebased", "", str(bc["base"])])
    elif dec == "bef_renew":
        s.queue.pop(0)
        if a == A.YES:
            combat.renew(s)
    elif dec == "bef_fort_out":  # F49: one Allied unit leaves the fortress for a hex that is no fortress
        s.queue.pop(0)
        s.queue.insert(
            0, {"kind": "retreat", "unit": a - A.UNIT, "n": s.game.options.retreat_hexes, "no_fort": True}
        )
    elif dec == "bef_ca":
        s.queue.pop(0)
        combat.bef_ca_choice(s, q, as_dr=a == A.YES)
    elif dec in ("bef_move1", "bef_move2"):
        s.queue.pop(0)
        if a != A.DONE:  # [BEF Special Attack Rules], F52: no MP, ZOC ignored
            v = a - A.UNIT
            former = s.hex[v]
            s.move_unit(v, q["hex"])
            s.log.append(["BEF special move", s.uid(v), str(q["hex"])])
            if dec == "bef_move1":
                s.queue.insert(0, {"kind": "bef_move2", "hex": former, "first": v})
    elif dec == "ca_targets":
        cmb = s.cmb
        assert cmb is not None
        if a == A.DONE:
            s.queue.pop(0)
            combat.resolve_counter(s)
        else:
            cmb["ca_hexes"].append(A.action_hex(a))
    elif not airborne.do(s, dec, a):
        air.do(s, dec, a)


def _step(s: State, a: int) -> None:
    u = s.mover
    if a == A.DONE:
        s.mover, s.fort_free = -1, -1
        return
    if a == A.EXIT:  # [R Off-Map Movement], F16
        s.mover = -1
        if s.side_of(u) == ALLIED:
            if s.game.options.allied_exit_scores_vp:
                s.destroy(u, "left the map")  # counts as destroyed (F16)
            else:
                s.remove(u, EXITED, "left the map")
        else:
            s.owed += s.spec(u).type.defence
            s.remove(u, EXITED, "left the map")
            if not any(item["kind"] == "remove_french" for item in s.queue):
                s.queue.insert(0, {"kind": "remove_french"})
        return
    h = A.action_hex(a)
    if s.phase == "fort_react":
        s.mp_left -= 1  # F48: one of four fortress hexes, no MP, ZOC ignored
    elif s.fort_free >= 0 and rules.fortress_step(s, u, h):
        s.fort_free += 1  # F47: a free step along the fortress chain
    else:
        ezoc = s.zoc_hexes(1 - s.side_of(u))
        s.mp_left -= rules.step_cost(s, u, s.hex[u], h, ezoc)
        s.fort_free = -1  # normal movement has begun: no more free fortress steps
    s.move_unit(u, h)
    if s.side_of(u) == GERMAN:
        s.invade(s.invades_on_entry(h), f"{s.uid(u)} entered {h}")  # F6 a


def _declare(s: State, h: int) -> None:
    s.cmb = {
        "target": h,
        "targets": [h],
        "attackers": [],
        "supports": [],
        "designated": [],
        "ca_hexes": [],
        "stage": "attackers",
        "engaged": [],
        "hw_before": dict(s.hex_weight),
    }
    _invade_target(s, h)


def _invade_target(s: State, h: int) -> None:
    if s.phasing == GERMAN:  # F6 a: attacking a Belgian/Dutch unit or a unit in such a hex invades
        cs = set(s.invades_on_entry(h))
        cs |= {s.spec(v).home for v in s.occupants(h) if s.spec(v).nation in ("BE", "NL")}
        s.invade(cs, f"attack on {h}")


def _commit(s: State, dec: str, a: int) -> None:
    cmb = s.cmb
    assert cmb is not None
    if dec == "attackers":
        if A.HEX <= a < A.UNIT:  # F29: another target hex for the same combat
            h = A.action_hex(a)
            cmb["targets"].append(h)
            _invade_target(s, h)
            return
        if a != A.DONE:
            cmb["attackers"].append(a - A.UNIT)
            return
        base = cmb["hw_before"] if cmb.get("renewal") else s.hex_weight
        cmb["extra"] = cmb.get("extra", []) + combat.overstack_extras(s, cmb, base)  # F54 (BEF only)
        for u in cmb["attackers"]:  # committed: no unit attacks twice; one corps-equivalent per hex (F22)
            s.attacked[u] = True
            key = str(s.hex[u])
            s.hex_weight[key] = s.hex_weight.get(key, 0) + s.spec(u).type.weight
        s.attacked_hexes += [t for t in cmb["targets"] if t not in s.attacked_hexes]
        for t in list(cmb["targets"]):
            if airborne.paras_alone(s, t, 1 - s.phasing):  # F41 e: paratroops attacked alone are destroyed
                for v in list(s.occupants(t)):
                    s.destroy(v, "attacked alone")
                cmb["targets"].remove(t)
        if not cmb["targets"]:
            s.queue.append({"kind": "end_attack"})
            cmb["stage"] = "resolved"
            return
        cmb["stage"] = "designate" if cmb.get("renewal") else "support"  # F49: the air strike carries over
        return
    if dec == "support":
        if a != A.DONE:
            u = a - A.UNIT
            cmb["supports"].append(u)
            s.ac_mission[u], s.ac_hex[u], s.ac_turn[u] = "cs", cmb["target"], s.turn
            if s.phasing == GERMAN:
                for t in cmb["targets"]:
                    s.invade(s.invades_on_entry(t), "close support")  # F6 a
            if combat.second_strike_allowed(s, cmb):
                return  # [BEF Terrain Effects], F55: a second air strike may be flown
        cmb["stage"] = "designate"
        return
    if a != A.DONE:
        cmb["designated"].append(a - A.UNIT)
        return
    cmb["stage"] = "resolved"
    if cmb.get("extra"):
        s.queue.append({"kind": "overstack"})  # F54
    if s.game.options.bef_variant and s.phasing == ALLIED:
        s.queue.append({"kind": "bef_special"})  # F52
    s.queue.append({"kind": "end_attack"})
    combat.resolve(s)


def _end_attack(s: State) -> None:
    cmb = s.cmb
    assert cmb is not None
    for u in cmb["supports"]:
        if s.ac_mission[u] == "cs":
            s.ac_mission[u], s.ac_hex[u] = "", 0  # close support lands after the attack (F32)
    s.log.append(["attack done", cmb["target"], str(cmb.get("result", ""))])
    s.cmb = None
