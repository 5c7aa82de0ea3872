"""The Combat Phase: odds, modifiers, the CRT, results and the counter-attack ([R Combat Phase], C§6, F21-F30).

An attack runs as decisions (:mod:`.flow`): target hex, attacking units, close support, the defender's
designation (only after the attacker has committed, F21, F60), then :func:`resolve` rolls and applies the
result; retreats, the defender's losses of 1CA / 2CA and the counter-attack's targets are queued as further
decisions of the player who owns the choice.
"""

from __future__ import annotations

from typing import Any

from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.hexgrid import NEIGHBOURS
from ffo_env.france1940.core.state import MAP, State


def odds_column(att: int, dfn: int) -> int:
    """CRT column index (0 = 1-3 … 7 = 6-1) for attack ``att`` against defence ``dfn``, rounded in the
    defender's favour ([R Combat Phase (I)], F23)."""
    if dfn <= 0:
        return 7  # a defence of 0 uses 6-1 (F23)
    if att <= 0:
        return 0  # F23: an attack of 0 is never offered; read as 1-3 should a data edit produce one
    if att >= dfn:
        return 1 + min(6, att // dfn)  # 1-1 -> 2, ..., 6-1 -> 7
    n = -(-dfn // att)  # ceil(D / A)
    return 1 if n == 2 else 0  # 1-2, or 1-3 for anything worse (F23)


def nearest_column(att: int, dfn: int) -> int:
    """CRT column with the odds rounded to the nearest column, halves to the attacker (F50)."""
    if dfn <= 0:
        return 7
    if att <= 0:
        return 0
    if att >= dfn:
        return 1 + min(6, (2 * att + dfn) // (2 * dfn))  # floor(A/D + 1/2)
    n = -((att - 2 * dfn) // (2 * att))  # ceil(D/A - 1/2)
    return 2 if n <= 1 else (1 if n == 2 else 0)


def _penalties(s: State, cmb: dict[str, Any]) -> tuple[bool, bool, bool]:
    """(die penalty, every attacker across a river, a target in forest or swamp) (F24, F29, F42)."""
    d = s.game.data
    targets = cmb["targets"]
    woods = any(d.terrain[h] in "fs" for h in targets)
    pairs = [(s.hex[u], h) for u in cmb["attackers"] for h in targets if s.hex[u] in NEIGHBOURS[h]]
    river = bool(pairs) and all(d.is_river(x, h) for x, h in pairs)
    mild = (
        s.game.options.optional_mild_winter
        and s.phasing == GERMAN
        and any(h in d.mild_winter for h in targets)
    )
    return woods or river or bool(mild), river, woods


def armor_penalties(s: State, cmb: dict[str, Any]) -> dict[int, int]:
    """BEF: attack factors each armor or armored-cavalry attacker loses for the engagement (F55, F56):
    2 across a river hexside of its own or into a city (class C); 1 across a river when two air strikes
    cancel the river-and-forest penalty; none when an air strike cancels them."""
    if not s.game.options.bef_variant:
        return {}
    d = s.game.data
    die_pen, river_all, woods = _penalties(s, cmb)
    strikes = len(cmb["supports"])
    out: dict[int, int] = {}
    for u in cmb["attackers"]:
        if s.spec(u).type.symbol not in ("armor", "armored_cav"):
            continue  # mechanized infantry never (F55)
        touch = [h for h in cmb["targets"] if s.hex[u] in NEIGHBOURS[h]]
        across = any(d.is_river(s.hex[u], h) for h in touch)
        city = any(d.cities.get(h, ("", ""))[0] == "C" for h in cmb["targets"])
        if across or city:
            out[u] = 2
    if not out:
        return out
    if river_all and woods:  # F56: one strike changes nothing; two cancel the -2, river armor loses 1
        return {u: (1 if strikes >= 2 else p) for u, p in out.items()}
    if (strikes >= 1 and not die_pen) or strikes >= 2:
        return {}  # F55: the first strike cancels the armor penalties when no die penalty applies
    return out


def second_strike_allowed(s: State, cmb: dict[str, Any]) -> bool:
    """F55: a second air strike only when both a die penalty and armor penalties apply (F56 likewise)."""
    if not s.game.options.bef_variant or len(cmb["supports"]) != 1:
        return False
    die_pen, _r, _w = _penalties(s, cmb)
    return die_pen and bool(armor_penalties(s, {**cmb, "supports": []}))


def die_modifier(s: State, cmb: dict[str, Any]) -> tuple[int, bool]:
    """(modifier, whether a -2 penalty applied) of the attack ([R TEC] notes, F24, F32, F42, F55, F56)."""
    d = s.game.data
    penalty, river_all, woods = _penalties(s, cmb)  # F42: the Mild Winter line never makes it -4
    mod = int(d.tables["tec"]["river_die"]) if penalty else 0
    strikes = len(cmb["supports"])
    if s.game.options.bef_variant and river_all and woods:
        return (0 if strikes >= 2 else mod), penalty  # F56: one strike changes nothing, two cancel
    if strikes:
        if penalty:
            mod = 0  # [R Air Units (D)(1)], F32: the strike cancels the -2
        elif not (s.game.options.bef_variant and armor_penalties(s, {**cmb, "supports": []})):
            mod = int(d.tables["tec"]["close_support"])  # +2, unless it cancelled armor penalties (F55)
    return mod, penalty


def strengths(s: State, cmb: dict[str, Any]) -> tuple[int, int]:
    """(attack total, defence total) at the moment of combat: supply judged now (F18, F20, F23, F25)."""
    targets = cmb["targets"]
    fort = all(s.fort_active(h) for h in targets)  # artillery's 10 only against fortified hexes (F30)
    sup = s.judge_supply(list(cmb["attackers"]) + list(cmb["designated"]))
    pen = armor_penalties(s, cmb)
    cmb["armor_pen"] = {str(u): p for u, p in pen.items()}  # persists into the counter-attack (F55)
    att = sum(max(0, s.attack_strength(u, fort, sup[u]) - pen.get(u, 0)) for u in cmb["attackers"])
    dfn = sum(s.defence_strength(u, sup[u]) for u in cmb["designated"])
    for h in targets:  # F29: the defence is the sum over the targets, each with its fortress value
        if s.fort_active(h):
            dfn += s.fort_side(h, [s.hex[u] for u in cmb["attackers"]])  # [R Maginot Line], F25
    return att, dfn


def resolve(s: State) -> None:
    """Roll and apply the attack of ``s.cmb`` ([R Combat Phase] Procedure, C§6.3, F25-F27)."""
    cmb = s.cmb
    assert cmb is not None  # the flow calls this only inside an attack
    h = cmb["target"]
    targets = cmb["targets"]
    att, dfn = strengths(s, cmb)
    col = odds_column(att, dfn)
    o = s.game.options
    armored = [u for u in cmb["attackers"] if s.spec(u).type.symbol in ("armor", "armored_cav", "mech_inf")]
    if o.bef_variant and s.phasing == ALLIED and len(armored) >= o.bef_armor_threshold:
        col = nearest_column(att, dfn)  # [BEF Special Attack Rules for Allied Armor Units], F50
    mod, _pen = die_modifier(s, cmb)
    die = s.roll(f"combat @{h}")
    res = s.game.data.crt(col, die + mod)
    cmb.update(att=att, dfn=dfn, column=col, die=die, mod=mod, result=res)
    where = "" if len(targets) == 1 else " @" + "+".join(str(t) for t in targets)
    s.log.append(["combat", h, f"{att}:{dfn} col {col} die {die}{mod:+d} {res}{where}"])
    forts = [t for t in targets if s.fort_active(t)]
    fort = bool(forts)
    # the result applies to every unit of every target hex, except units attacked earlier this phase (F29)
    defenders = [
        v for t in targets for v in s.occupants(t) if not s.attacked[v] and s.side_of(v) != s.phasing
    ]
    for v in defenders:
        s.attacked[v] = True  # no unit is attacked twice in a Combat Phase (F29)
    retreating_attackers = [u for u in cmb["attackers"] if not (fort and s.spec(u).is_art)]  # F30
    q: list[dict[str, Any]] = []
    n_ret = s.game.options.retreat_hexes
    if s.game.options.bef_variant and s.phasing == GERMAN and len(targets) == 1 and fort:
        s.queue[:0] = fortress_result(s, cmb, res, defenders, retreating_attackers)  # F49
        return
    if res == "DX":
        for v in defenders:
            s.destroy(v, "DX")
        for f in forts:
            s.fort_destroyed.append(f)  # only DX destroys a fortified hex ([R Maginot Line], F25)
            s.touch()
            s.log.append(["fortress destroyed", f, ""])
    elif res == "DR":
        q += [{"kind": "retreat", "unit": v, "n": n_ret} for v in defenders]
    elif res == "AR":
        q += [{"kind": "retreat", "unit": u, "n": n_ret} for u in retreating_attackers]
    elif res == "BR":
        # P9: one unit at a time, roster order, the defenders first
        q += [{"kind": "retreat", "unit": v, "n": n_ret} for v in defenders]
        q += [{"kind": "retreat", "unit": u, "n": n_ret} for u in retreating_attackers]
    elif defenders and s.game.options.bef_variant and s.phasing == ALLIED:
        q.append({"kind": "bef_ca", "res": res, "units": list(defenders)})  # F51: the Allies choose
    elif defenders:  # CA, 1CA, 2CA; an empty fortified hex ignores them (F25)
        q += ca_items(s, res, defenders)
    for item in q:  # F26: paratroops that must retreat are eliminated
        if item["kind"] == "retreat" and s.spec(item["unit"]).is_para:
            s.destroy(item["unit"], "paratroops cannot retreat")
    q = [item for item in q if not (item["kind"] == "retreat" and s.status[item["unit"]] != MAP)]
    s.queue[:0] = q


def fortress_result(
    s: State, cmb: dict[str, Any], res: str, defenders: list[int], attackers: list[int]
) -> list[dict[str, Any]]:
    """[BEF Combat with Fortress Units], F49: a German attack on an undestroyed fortress. No counter-attack
    ever; DR, 1CA, 2CA empty the fortress and CA costs a German unit and one Allied unit's place, and the
    German may renew the engagement; an empty fortress gets exactly one more round, where only BR (the
    attackers retreat) and DX count."""
    h = cmb["target"]
    n_ret = s.game.options.retreat_hexes

    def retreat(us: list[int]) -> list[dict[str, Any]]:
        return [{"kind": "retreat", "unit": u, "n": n_ret} for u in us]

    if res == "DX":
        for v in defenders:
            s.destroy(v, "DX")
        s.fort_destroyed.append(h)
        s.touch()
        s.log.append(["fortress destroyed", h, "BEF"])
        return []
    if not defenders:  # the one round against an empty fortress
        return retreat(attackers) if res == "BR" else []
    if res == "AR":
        return retreat(attackers)
    if res == "BR":
        return retreat(defenders) + retreat(attackers)
    q: list[dict[str, Any]] = []
    if res in ("DR", "1CA", "2CA"):
        q = retreat(defenders)  # every Allied unit leaves; it may enter another fortress
    elif res == "CA":
        losers = [u for u in cmb["attackers"] if not s.spec(u).is_art and s.status[u] == MAP]
        if losers:
            q.append({"kind": "lose", "side": GERMAN, "units": losers, "why": "BEF fortress CA"})
        q.append({"kind": "bef_fort_out", "units": list(defenders), "hex": h})
    q.append({"kind": "bef_renew"})
    return q


def renew(s: State) -> None:
    """F49: a new round of the same engagement; attackers are chosen again (earlier ones may stay, units
    held back may join), the air strike carries over, the defender designates again."""
    cmb = s.cmb
    assert cmb is not None
    s.queue = [q for q in s.queue if q["kind"] not in ("end_attack", "overstack")]
    cmb["engaged"] = sorted(set(cmb["engaged"]) | set(cmb["attackers"]))
    cmb.update(attackers=[], designated=[], stage="attackers", renewal=True, round=cmb.get("round", 1) + 1)
    for v in s.occupants(cmb["target"]):
        s.attacked[v] = False  # the same engagement: the garrison defends again
    s.attacked_hexes = [t for t in s.attacked_hexes if t != cmb["target"]]
    s.log.append(["BEF: renewed", cmb["target"], str(cmb["round"])])


def ca_items(s: State, res: str, defenders: list[int]) -> list[dict[str, Any]]:
    """The defender's losses of 1CA / 2CA, then the counter-attack (C§6.3, F27)."""
    q: list[dict[str, Any]] = []
    for _ in range({"CA": 0, "1CA": 1, "2CA": 2}[res]):
        q.append({"kind": "lose", "side": 1 - s.phasing, "units": list(defenders), "why": res})
    q.append({"kind": "counter"})
    return q


def bef_ca_choice(s: State, item: dict[str, Any], as_dr: bool) -> None:
    """F51: an Allied CA / 1CA / 2CA read as DR, or kept with the German counter-attack bound to take at
    least two (CA), three (1CA) or all (2CA) participating Allied armor units as targets."""
    cmb = s.cmb
    assert cmb is not None
    defenders = [v for v in item["units"] if s.status[v] == MAP]
    if as_dr:
        cmb["result"] = "DR"
        s.log.append(["BEF: read as DR", cmb["target"], item["res"]])
        q = [{"kind": "retreat", "unit": v, "n": s.game.options.retreat_hexes} for v in defenders]
        for it in q:
            if s.spec(it["unit"]).is_para:
                s.destroy(it["unit"], "paratroops cannot retreat")
        s.queue[:0] = [it for it in q if s.status[it["unit"]] == MAP]
        return
    armor = [u for u in cmb["attackers"] if s.spec(u).type.symbol in ("armor", "armored_cav")]
    need = {"CA": 2, "1CA": 3, "2CA": len(armor)}[item["res"]]
    cmb["armor_need"] = min(need, len(armor))
    s.queue[:0] = ca_items(s, item["res"], defenders)


def overstack_extras(s: State, cmb: dict[str, Any], before: dict[str, int]) -> list[int]:
    """F54: the units whose weight took their hex past one corps-equivalent in this attack."""
    run = dict(before)
    extras = []
    for u in cmb["attackers"]:
        key = str(s.hex[u])
        w = s.spec(u).type.weight
        if run.get(key, 0) + w > 3:
            extras.append(u)
        run[key] = run.get(key, 0) + w
    return extras


def counter_attackers(s: State, cmb: dict[str, Any]) -> list[int]:
    """Surviving designated defenders still in their hex with attack >= 1 now (F27, F20, F29)."""
    alive = [v for v in cmb["designated"] if s.status[v] == MAP and s.hex[v] in cmb["targets"]]
    sup = s.judge_supply(alive)
    return [v for v in alive if s.attack_strength(v, False, sup[v]) >= 1]


def resolve_counter(s: State) -> None:
    """The counter-attack on the chosen hexes: no modifiers, one step, never a chain (C§6.3, F27)."""
    cmb = s.cmb
    assert cmb is not None
    cas = counter_attackers(s, cmb)
    targets = [u for u in cmb["attackers"] if s.status[u] == MAP and s.hex[u] in cmb["ca_hexes"]]
    sup = s.judge_supply(cas + targets)
    att = sum(s.attack_strength(v, False, sup[v]) for v in cas)
    pen = {int(k): v for k, v in cmb.get("armor_pen", {}).items()}  # F55: the penalty persists
    dfn = sum(max(0, s.defence_strength(u, sup[u]) - pen.get(u, 0)) for u in targets)
    col = min(7, odds_column(att, dfn) + s.game.options.counterattack_shift)  # F27 tuning knob
    die = s.roll(f"counter-attack @{cmb['target']}")
    res = s.game.data.crt(col, die)  # no modifiers [R TEC] notes
    cmb.update(ca_att=att, ca_dfn=dfn, ca_column=col, ca_die=die, ca_result=res)
    s.log.append(["counter-attack", cmb["target"], f"{att}:{dfn} col {col} die {die} {res}"])
    n_ret = s.game.options.retreat_hexes
    q: list[dict[str, Any]] = []
    if res == "AR":
        q += [{"kind": "retreat", "unit": v, "n": n_ret} for v in cas]
    elif res == "BR":
        q += [{"kind": "retreat", "unit": u, "n": n_ret} for u in targets]
        q += [{"kind": "retreat", "unit": v, "n": n_ret} for v in cas]
    elif res == "DR":
        q += [{"kind": "retreat", "unit": u, "n": n_ret} for u in targets]
    elif res == "DX":
        for u in targets:
            s.destroy(u, "counter-attack DX")
    elif res in ("1CA", "2CA"):
        for _ in range({"1CA": 1, "2CA": 2}[res]):
            q.append(
                {"kind": "lose", "side": s.phasing, "units": list(targets), "why": "counter-attack " + res}
            )
    s.queue[:0] = q
