"""The Combat Phase: odds, modifiers, the CRT, results and the counter-attack ([R Combat Phase], C§6, F21-F30).

An attack runs as decisions (:mod:`.flow`): target hex, attacking units, close support, the defender's
designation (only after the attacker has committed, F21, F60), then :func:`resolve` rolls and applies the
result; retreats, the defender's losses of 1CA / 2CA and the counter-attack's targets are queued as further
decisions of the player who owns the choice.
"""

from __future__ import annotations

from typing import Any

from ffo_env.france1940.core.data import GERMAN
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


def die_modifier(s: State, cmb: dict[str, Any]) -> tuple[int, bool]:
    """(modifier, whether a -2 penalty applied) of the attack ([R TEC] notes, F24, F32, F42)."""
    d = s.game.data
    targets = cmb["targets"]
    penalty = any(d.terrain[h] in "fs" for h in targets)  # a defender in forest or swamp
    pairs = [(s.hex[u], h) for u in cmb["attackers"] for h in targets if s.hex[u] in NEIGHBOURS[h]]
    if pairs and all(d.is_river(x, h) for x, h in pairs):
        penalty = True  # every adjacent attacker across a river from each target it touches (F24, F29)
    if (
        s.game.options.optional_mild_winter
        and s.phasing == GERMAN
        and any(h in d.mild_winter for h in targets)
    ):
        penalty = True  # [R Mild Winter Rule (B)], F42: never -4
    mod = int(d.tables["tec"]["river_die"]) if penalty else 0
    if cmb["support"] >= 0:
        mod = 0 if penalty else int(d.tables["tec"]["close_support"])  # [R Air Units (D)(1)], F32
    return mod, penalty


def strengths(s: State, cmb: dict[str, Any]) -> tuple[int, int]:
    """(attack total, defence total) at the moment of combat: supply judged now (F18, F20, F23, F25)."""
    targets = cmb["targets"]
    fort = all(s.fort_active(h) for h in targets)  # artillery's 10 only against fortified hexes (F30)
    sup = s.judge_supply(list(cmb["attackers"]) + list(cmb["designated"]))
    att = sum(s.attack_strength(u, fort, sup[u]) for u in cmb["attackers"])
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
    elif defenders:  # CA, 1CA, 2CA; an empty fortified hex ignores them (F25)
        losses = {"CA": 0, "1CA": 1, "2CA": 2}[res]
        for _ in range(losses):
            q.append({"kind": "lose", "side": 1 - s.phasing, "units": list(defenders), "why": res})
        q.append({"kind": "counter"})
    for item in q:  # F26: paratroops that must retreat are eliminated
        if item["kind"] == "retreat" and s.spec(item["unit"]).is_para:
            s.destroy(item["unit"], "paratroops cannot retreat")
    q = [item for item in q if not (item["kind"] == "retreat" and s.status[item["unit"]] != MAP)]
    s.queue[:0] = q


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
    dfn = sum(s.defence_strength(u, sup[u]) for u in targets)
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
