"""Combat (rule 10, C§7.2-C§7.5, S30-S39) and retreats (10.5, S37, S38).

The combat's working data is ``State.cmb``: ``loc``; ``att`` / ``dfn`` the two sides; ``parts`` the
participants; ``mandatory`` (10.1); ``cstart`` whether the location was Contested at the declaration;
``lead_att``, ``lead_def``; ``air_att``, ``air_def`` the committed markers ("" none); ``dr_att``,
``dr_def``; ``av``, ``dv``; ``result`` repulse|stalemate|success|overrun; ``defenders`` the defending
units when the dice were rolled. Retreats: ``State.ret`` with ``segs`` [[side, must, may, attacker]],
``unit``, ``cur``, ``visited``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ffo_env.springtime.core import actions as A
from ffo_env.springtime.core.data import ALLIED, AXIS
from ffo_env.springtime.core.state import MAP

if TYPE_CHECKING:
    from ffo_env.springtime.core.state import State

AIR_MARKERS = {"DE": ("DE0", "DE1"), "FR": ("FR",), "GB": ("GB",)}


# ------------------------------------------------------------------ declaration (S30, S31)


def eligible(s: State, loc: int) -> list[int]:
    """Active units that may take part in a combat at ``loc`` (9.1, 10.0, 10.3, S29, S31)."""
    imp = s.imp
    out = []
    for u in imp["active"]:
        if s.status[u] != MAP or s.loc[u] != loc or u in imp["attacked"]:
            continue
        # 9.1: units that began the impulse there and have not moved (the location was then Contested: a
        # retreating enemy never enters a location held by the other side alone, S37), or that entered it
        if imp["entered"][u] == loc or (u not in imp["moved"] and imp["moving"] != u):
            out.append(u)
    return out


def combat_locations(s: State) -> list[int]:
    imp = s.imp
    enemy = 1 - s.active
    return [
        loc
        for loc in range(s.game.n_locs)
        if loc not in imp["done"] and loc != s.game.zone_f and s.has(loc, enemy) and eligible(s, loc)
    ]


def declare(s: State, loc: int) -> None:
    imp = s.imp
    att = s.active
    cstart = loc in imp["cstart"]
    s.cmb = {
        "loc": loc,
        "att": att,
        "dfn": 1 - att,
        "parts": [],
        "mandatory": loc in imp["mandatory"],
        "cstart": cstart,
        "lead_att": -1,
        "lead_def": -1,
        "air_att": "",
        "air_def": "",
        "dr_att": 0,
        "dr_def": 0,
        "av": 0,
        "dv": 0,
        "result": "",
        "defenders": [],
        "converted": False,
    }
    if s.cmb["mandatory"]:
        s.cmb["parts"] = [u for u in eligible(s, loc) if imp["entered"][u] == loc]  # 10.1: every entrant
    if [u for u in eligible(s, loc) if u not in s.cmb["parts"]]:
        s.ask("participants", att)  # 10.2, 10.3, S31: any further eligible units may join
    else:
        s.ask("lead_att", att)


def participants_legal(s: State) -> list[int]:
    c = s.cmb
    assert c is not None
    parts = c["parts"]
    cands = [u for u in eligible(s, c["loc"]) if u not in parts]
    if s.imp["multi"] and parts:  # S52: one Army Group per combat
        ag = s.imp["ag"][parts[0]]
        cands = [u for u in cands if s.imp["ag"][u] == ag]
    return [A.UNIT + u for u in cands] + ([A.NO] if parts else [])


def participants_apply(s: State, a: int) -> None:
    c = s.cmb
    assert c is not None
    if a == A.NO:
        s.ask("lead_att", c["att"])
        return
    c["parts"].append(a - A.UNIT)
    s.ask("participants", c["att"])


def lead_att_legal(s: State) -> list[int]:
    assert s.cmb is not None
    return [A.UNIT + u for u in s.cmb["parts"]]


def lead_att_apply(s: State, a: int) -> None:
    c = s.cmb
    assert c is not None
    c["lead_att"] = a - A.UNIT
    s.ask("lead_def", c["dfn"])


def lead_def_legal(s: State) -> list[int]:
    c = s.cmb
    assert c is not None
    return [A.UNIT + u for u in s.units_at(c["loc"], c["dfn"])]


def lead_def_apply(s: State, a: int) -> None:
    c = s.cmb
    assert c is not None
    c["lead_def"] = a - A.UNIT
    _air_step(s, "att")


# ------------------------------------------------------------------ Air Support (9.4, S35)


def air_marker(s: State, lead: int) -> str:
    """The marker that may support ``lead`` now, or "" (9.4.1, S35)."""
    for m in AIR_MARKERS.get(s.units[lead].nation, ()):
        if m not in s.air_used:
            return m
    return ""


def air_value(s: State, marker: str) -> int:
    nat = marker[:2]
    _count, full, reduced = s.game.data.tables["air"][nat]
    is_full = s.german_air_full if nat == "DE" else s.allied_air_full
    return int(full if is_full else reduced)


def _air_step(s: State, who: str) -> None:
    c = s.cmb
    assert c is not None
    while who in ("att", "def"):
        lead = c["lead_att"] if who == "att" else c["lead_def"]
        if air_marker(s, lead):
            s.ask("air_" + who, c["att"] if who == "att" else c["dfn"])
            return
        who = "def" if who == "att" else ""
    roll_combat(s)


def air_apply(s: State, a: int, who: str) -> None:
    c = s.cmb
    assert c is not None
    if a == A.YES:
        lead = c["lead_att"] if who == "att" else c["lead_def"]
        m = air_marker(s, lead)
        s.air_used.append(m)
        c["air_" + who] = m
    if who == "att":
        _air_step(s, "def")
    else:
        roll_combat(s)


# ------------------------------------------------------------------ resolution (10.4)


def values(s: State, c: dict[str, Any]) -> tuple[int, int]:
    """AV and DV (C§7.2, C§7.3, S33, S34)."""
    g = s.game
    t = g.data.tables
    loc = c["loc"]
    parts = c["parts"]
    la, ld = c["lead_att"], c["lead_def"]
    defenders = s.units_at(loc, c["dfn"])
    av = s.cv(la) + t["attack"]["extra_unit"] * (len(parts) - 1) + s.leader_rating(la)
    if c["air_att"]:
        av += air_value(s, c["air_att"])
    dv = s.cv(ld) + t["defense"]["extra_unit"] * (len(defenders) - 1) + s.leader_rating(ld)
    dv += g.data.locations[loc].tem  # rule 3.1.2
    if c["air_def"]:
        dv += air_value(s, c["air_def"])
    any_unit = g.options.oos_combat_penalty == "any_unit"
    if s.oos[la] or (any_unit and any(s.oos[u] for u in parts)):
        av += t["attack"]["out_of_supply"]  # 13.2.2, S33
    if s.oos[ld] or (any_unit and any(s.oos[u] for u in defenders)):
        dv += t["defense"]["out_of_supply"]
    imp = s.imp
    crossed = [imp["cross"][u] if imp["entered"][u] == loc else "" for u in parts]
    if s.imp.get("airdrop", -1) == loc and not all(x == "M" for x in crossed):
        crossed = [""]  # rule 18.1.1, S34: the Air Landing Corps cancels the River modifier
    if all(x in ("R", "M") for x in crossed):  # S34
        if all(x == "M" for x in crossed):
            dv += t["defense"]["maginot"]
        elif all(x == "R" for x in crossed):
            dv += t["defense"]["river"]
        else:
            dv += t["defense"]["mixed"]
    return av, dv


def outcome(s: State, av: int, dv: int, dr_att: int, dr_def: int, lead_armor: bool) -> str:
    at, dt = av + dr_att, dv + dr_def
    if at < dt:
        return "repulse"
    if at == dt:
        return "stalemate"
    return "overrun" if lead_armor else "success"  # 10.4.4, S36


def roll_combat(s: State) -> None:
    c = s.cmb
    assert c is not None
    c["av"], c["dv"] = values(s, c)
    name = s.game.loc_ids[c["loc"]]
    c["dr_att"] = s.roll(f"attack DR die 1 at {name}") + s.roll(f"attack DR die 2 at {name}")  # 10.4.1, S54
    c["dr_def"] = s.roll(f"defense DR die 1 at {name}") + s.roll(f"defense DR die 2 at {name}")
    c["defenders"] = s.units_at(c["loc"], c["dfn"])
    c["result"] = outcome(s, c["av"], c["dv"], c["dr_att"], c["dr_def"], s.units[c["lead_att"]].armor)
    holder = s.advantage
    if holder >= 0 and s.adv_used_by < 0:  # S39
        if holder == c["att"] and c["result"] == "repulse":  # 11.1.3 Maximum Attack
            s.ask("convert", holder)
            return
        if holder == c["dfn"] and c["result"] in ("success", "overrun"):  # 11.1.2 Heroic Defense
            s.ask("convert", holder)
            return
    resolve(s)


def convert_apply(s: State, a: int) -> None:
    c = s.cmb
    assert c is not None
    if a == A.YES:
        s.adv_used_by = s.player
        c["result"] = "stalemate"
        c["converted"] = True
    resolve(s)


def resolve(s: State) -> None:
    """Losses, Morale, Command Confidence, then retreats (S32 (9)-(13))."""
    c = s.cmb
    assert c is not None
    g = s.game
    t = g.data.tables
    r = c["result"]
    la, ld = c["lead_att"], c["lead_def"]
    lead_def_nation = s.units[ld].nation
    if r == "repulse":
        s.lose_step(la, "repulse")
    elif r == "stalemate":
        s.lose_step(la, "stalemate")
        s.lose_step(ld, "stalemate")
    elif r == "success":
        s.lose_step(ld, "success")
        if not c["converted"] and c["dr_def"] >= t["results"]["success_attacker_loss_dr"]:
            s.lose_step(la, "success, defender DR >= 8")
    else:
        s.eliminate(ld, "overrun")
        if c["dr_def"] >= t["results"]["overrun_attacker_loss_dr"]:
            s.lose_step(la, "overrun, defender DR >= 10")
    m = t["morale"]
    if r in ("success", "overrun"):
        if c["att"] == ALLIED:
            s.change_morale(m["allied_attack_success"], "Allied attack succeeds")  # C§7.6
        elif r == "overrun" and lead_def_nation in ("FR", "GB"):
            s.change_morale(m["axis_overrun_french_lead"], "Axis Overrun")
        if c["att"] == AXIS and s.cc_flag:  # 6.1.3, S11
            for u in c["parts"]:
                if s.units[u].nation == "DE":
                    for ld_ in (g.leader_of[u], g.kleist if s.kleist_unit == u else -1):
                        if ld_ >= 0:
                            s.flipped[ld_] = True
            for u in c["defenders"]:
                if g.leader_of[u] >= 0:
                    s.flipped[g.leader_of[u]] = True
    s.imp["attacked"].extend(u for u in c["parts"] if u not in s.imp["attacked"])
    _start_retreats(s)


# ------------------------------------------------------------------ retreats (10.5, S37, S38)


def _start_retreats(s: State) -> None:
    c = s.cmb
    assert c is not None
    loc, r = c["loc"], c["result"]
    att_units = [u for u in c["parts"] if s.status[u] == MAP]
    def_units = s.units_at(loc, c["dfn"])
    segs: list[list[Any]] = []
    if r == "repulse":
        if c["mandatory"]:
            segs.append([c["att"], att_units, [], True])  # 10.1
        segs.append([c["dfn"], [], def_units, False])  # 10.5.3
    elif r == "stalemate":
        segs.append([c["dfn"], [], def_units, False])  # 10.4.4: Defender decides first
        if not c["cstart"]:
            segs.append([c["att"], [], att_units, True])  # S31: never from a Contested start
    else:
        stay = [u for u in def_units if _may_stay(s, u, c)]
        segs.append([c["dfn"], [u for u in def_units if u not in stay], stay, False])
    s.ret = {"segs": segs, "unit": -1, "cur": -1, "visited": []}
    next_retreat(s)


def _may_stay(s: State, u: int, c: dict[str, Any]) -> bool:
    """rule 10.5.4, S38: Allied units in the Maginot Areas or Paris (not an Open City)."""
    if c["att"] != AXIS or s.units[u].side != ALLIED:
        return False
    loc = s.game.data.locations[c["loc"]]
    return loc.maginot or (loc.paris and not s.open_city)


def next_retreat(s: State) -> None:
    ret = s.ret
    c = s.cmb
    assert ret is not None and c is not None
    while ret["segs"]:
        side, must, may, _att = ret["segs"][0]
        ret["segs"][0][1] = [u for u in must if s.status[u] == MAP and s.loc[u] == c["loc"]]
        ret["segs"][0][2] = [u for u in may if s.status[u] == MAP and s.loc[u] == c["loc"]]
        if ret["segs"][0][1] or ret["segs"][0][2]:
            s.ask("retreat_pick", side)
            return
        ret["segs"].pop(0)
    _end_combat(s)


def retreat_pick_legal(s: State) -> list[int]:
    ret = s.ret
    assert ret is not None
    _side, must, may, _att = ret["segs"][0]
    if must:
        return [A.UNIT + u for u in must]  # required retreats first (S32 (12))
    return [A.UNIT + u for u in may] + [A.NO]


def retreat_pick_apply(s: State, a: int) -> None:
    ret = s.ret
    c = s.cmb
    assert ret is not None and c is not None
    if a == A.NO:
        ret["segs"].pop(0)
        next_retreat(s)
        return
    u = a - A.UNIT
    seg = ret["segs"][0]
    for lst in (seg[1], seg[2]):
        if u in lst:
            lst.remove(u)
    ret["unit"] = u
    ret["cur"] = c["loc"]
    ret["visited"] = [c["loc"]]
    if seg[3]:  # an attacker goes back where it came from (10.5, S37, P3)
        back = s.imp["came"][u]
        if back >= 0:
            _retreat_to(s, back)
            return
        # P8: the Air Landing Corps entered from nowhere: it retreats by the priorities of 10.5.2
    _continue_retreat(s)


def candidates(s: State, u: int, cur: int, visited: list[int]) -> list[tuple[int, int, int]]:
    """(priority, tie key, location) for each possible retreat step of ``u`` from ``cur`` (10.5.2, S37)."""
    g = s.game
    side = s.units[u].side
    nat = s.units[u].nation
    out = []
    for n, _b in s.neighbours(cur):
        if n in visited:
            continue
        if nat == "BE" and n not in g.belgian:
            continue  # 10.5.6
        if nat == "NL" and n not in g.dutch:
            continue
        if n == g.zone_f and side == ALLIED:
            continue  # S41
        friends = s.has(n, side)
        if s.control[n] != side and not friends:
            continue  # S37: never a candidate
        if s.full(n, side):
            out.append((4, 0, n))  # D
        elif s.free(n, side):
            key = sum(1 for m, _ in s.neighbours(n) if s.control[m] != side)
            out.append((1, key, n))  # A
        elif s.control[n] == side:
            out.append((2, 0, n))  # B
        else:
            out.append((3, 0, n))  # C
    return out


def best_candidates(s: State, u: int, cur: int, visited: list[int]) -> list[int]:
    cands = candidates(s, u, cur, visited)
    if not cands:
        return []
    best = min((p, k) for p, k, _n in cands)
    group = [n for p, k, n in cands if (p, k) == best]
    f = s.game.zone_f
    if f in group and len(group) > 1 and s.units[u].nation != "IT":
        group.remove(f)  # S41: Zone F only if no other candidate of the same priority
    return sorted(group)


def _continue_retreat(s: State) -> None:
    ret = s.ret
    assert ret is not None
    u = ret["unit"]
    group = best_candidates(s, u, ret["cur"], ret["visited"])
    if not group:
        s.eliminate(u, "retreat")  # 10.5.6
        next_retreat(s)
        return
    if len(group) == 1:
        _retreat_to(s, group[0])
        return
    s.ask("retreat_dest", s.units[u].side)


def retreat_dest_legal(s: State) -> list[int]:
    ret = s.ret
    assert ret is not None
    return [A.LOC + n for n in best_candidates(s, ret["unit"], ret["cur"], ret["visited"])]


def retreat_dest_apply(s: State, a: int) -> None:
    _retreat_to(s, a - A.LOC)


def _retreat_to(s: State, n: int) -> None:
    ret = s.ret
    assert ret is not None
    u = ret["unit"]
    if n == s.game.zone_f and s.units[u].nation != "IT":
        s.eliminate(u, "retreat into Zone F")  # 14.3
        next_retreat(s)
        return
    side = s.units[u].side
    if s.full(n, side):  # S37: pass through a full location and continue
        s.move(u, n)
        ret["cur"] = n
        ret["visited"].append(n)
        _continue_retreat(s)
        return
    s.move(u, n)
    next_retreat(s)


def _end_combat(s: State) -> None:
    c = s.cmb
    assert c is not None
    imp = s.imp
    imp["done"].append(c["loc"])
    if c["loc"] in imp["mandatory"]:
        imp["mandatory"].remove(c["loc"])
    s.cmb = None
    s.ret = None
    s.ask("act", s.active)
