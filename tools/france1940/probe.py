"""Early balance probe of France 1940 (not a bot of the suite): scripted greedy players, seeded games.

The German player sets up on the western frontier, advances every unit toward the nearest Allied unit
(mechanized units toward Paris in the Mechanized Movement Phase) and attacks every hex it can reach at
the best odds it can muster (close support when an aircraft is free), if the odds reach ``--german-odds``.
The Allied player sets up on the Belgian frontier and the Maginot Line, stands, and attacks only at
``--allied-odds`` or better. Defenders designate their strongest corps-equivalent; retreats go away from
the enemy; losses take the weakest unit. Prints one line per game and a summary (German VP, Allied VP,
German losses, winner), so that the CRT's balance (components.md §6.4) can be measured before bots exist.

    python tools/france1940/probe.py --games 20 --seed 0
"""

from __future__ import annotations

import argparse
import statistics
import time

from ffo_env.france1940.core import actions as A
from ffo_env.france1940.core import rules
from ffo_env.france1940.core.combat import odds_column
from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.hexgrid import distance
from ffo_env.france1940.core.options import RulesOptions
from ffo_env.france1940.core.state import ELIM, MAP, State

PARIS = 1023


def nearest_enemy(s: State, h: int, side: int) -> int:
    enemies = [s.hex[u] for u in s.on_map(1 - side) if not s.spec(u).is_gse]
    return min(enemies, key=lambda e: (distance(h, e), e)) if enemies else PARIS


def setup_score(s: State, u: int, h: int) -> tuple[int, int]:
    """Lower is better: Allied units near the Belgian frontier (GSEs near Paris); German near the west."""
    d = s.game.data
    spec = s.spec(u)
    if spec.is_gse:
        return (distance(h, PARIS) if spec.side == ALLIED else -distance(h, 1), h)
    if spec.side == ALLIED:
        if spec.nation in ("BE", "NL"):
            return (min(distance(h, g) for g in (244, 296, 305)), h)
        if spec.type.id == "FR-FORT" and h in d.fortified:
            return (-100, h)
        return (min(distance(h, b) for b in (411, 535, 631, 725, 819, 914)), h)
    return (min(distance(h, b) for b in (276, 305, 248, 300)), h)


def choose(s: State, g_odds: int, a_odds: int) -> int:
    dec, side, legal = s.decision, s.current_player, s.legal_actions()
    q = s.queue[0] if s.queue else {}
    if dec == "place":
        u = q["unit"]
        free = [a for a in legal if s.stack_count(A.action_hex(a)) == 0] or legal
        return min(free, key=lambda a: setup_score(s, u, A.action_hex(a)))
    if dec in ("restrict", "reinforce", "remove_french", "airborne_remove"):
        if dec == "remove_french":
            return min(legal, key=lambda a: s.spec(a - A.UNIT).type.defence)
        return legal[0]
    if dec == "lose":
        return min(legal, key=lambda a: (s.unit_vp(a - A.UNIT), s.spec(a - A.UNIT).type.defence))
    if dec == "retreat":
        return max(legal, key=lambda a: distance(A.action_hex(a), nearest_enemy(s, A.action_hex(a), side)))
    if dec == "move":
        if side == ALLIED:
            return A.DONE  # the Allies stand
        units = [a for a in legal if a != A.DONE and s.spec(a - A.UNIT).type.symbol != "paratroop"]
        for a in units:
            u = a - A.UNIT
            if s.hex[u] not in s.zoc_hexes(ALLIED) and not s.spec(u).is_gse:
                return a
        return A.DONE
    if dec == "step":
        u = s.mover
        h = s.hex[u]
        goal = PARIS if s.phase == "mech" else nearest_enemy(s, h, side)
        here = distance(h, goal)
        steps = [a for a in legal if A.HEX <= a < A.UNIT]
        if h in s.zoc_hexes(1 - side) or not steps:
            return A.DONE if A.DONE in legal else legal[0]
        best = min(steps, key=lambda a: (distance(A.action_hex(a), goal), a))
        return best if distance(A.action_hex(best), goal) < here else (A.DONE if A.DONE in legal else best)
    if dec == "attack":
        return best_attack(s, legal, g_odds if side == GERMAN else a_odds)
    if dec == "attackers":
        units = [a for a in legal if a >= A.UNIT]
        fort = s.cmb is not None and s.fort_active(s.cmb["target"])
        if units:
            return max(units, key=lambda a: s.attack_strength(a - A.UNIT, fort, True))
        return A.DONE
    if dec == "support":
        return legal[-1]  # fly close support when an aircraft is free
    if dec == "designate":
        units = [a for a in legal if a >= A.UNIT]
        return max(units, key=lambda a: s.spec(a - A.UNIT).type.defence) if units else A.DONE
    if dec == "ca_targets":
        hexes = [a for a in legal if A.HEX <= a < A.UNIT]
        if hexes and not (s.cmb and s.cmb["ca_hexes"]):
            return min(hexes, key=lambda a: sum(s.spec(u).type.defence for u in s.occupants(A.action_hex(a))))
        return A.DONE if A.DONE in legal else legal[0]
    return A.DONE if A.DONE in legal else legal[0]


def best_attack(s: State, legal: list[int], threshold: int) -> int:
    best, best_col = A.DONE, -1
    for a in legal:
        if a == A.DONE:
            continue
        h = A.action_hex(a)
        fort = s.fort_active(h)
        used: dict[int, int] = {}
        att = 0
        cands = [u for u in s.on_map(s.phasing) if rules.can_attack_with(s, u, h, [])]
        for u in sorted(cands, key=lambda u: -s.attack_strength(u, fort, True)):
            w = s.spec(u).type.weight
            src = s.hex[u]
            if used.get(src, 0) + w + s.hex_weight.get(str(src), 0) <= 3:
                used[src] = used.get(src, 0) + w
                att += s.attack_strength(u, fort, s.supply[u])
        dfn_units = sorted((s.spec(v).type.defence for v in rules.defenders_left(s, h)), reverse=True)
        dfn = (
            sum(dfn_units[:1])
            if any(s.spec(v).type.size == "corps" for v in s.occupants(h))
            else sum(dfn_units[:3])
        )
        if fort:
            dfn += 10
        col = odds_column(att, dfn)
        if col > best_col:
            best, best_col = a, col
    return best if best_col >= threshold else A.DONE


def play(seed: int, opts: RulesOptions, g_odds: int, a_odds: int) -> State:
    s = Game(opts).new_initial_state(seed)
    while not s.is_terminal():
        s.apply_action(choose(s, g_odds, a_odds))
    return s


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=10, help="number of seeded games")
    p.add_argument("--seed", type=int, default=0, help="first seed")
    p.add_argument("--german-odds", type=int, default=3, help="CRT column index the German needs (3 = 2-1)")
    p.add_argument("--allied-odds", type=int, default=4, help="CRT column index the Allies need (4 = 3-1)")
    p.add_argument("--shift", type=int, default=0, help="RulesOptions.counterattack_shift")
    p.add_argument("--allied-obac", default="Hist")
    p.add_argument("--german-obac", default="I")
    a = p.parse_args()
    opts = RulesOptions(allied_obac=a.allied_obac, german_obac=a.german_obac, counterattack_shift=a.shift)
    rows = []
    t0 = time.perf_counter()
    for seed in range(a.seed, a.seed + a.games):
        s = play(seed, opts, a.german_odds, a.allied_odds)
        g_lost = sum(1 for u in s.game.side_units[GERMAN] if s.status[u] == ELIM)
        a_lost = sum(1 for u in s.game.side_units[ALLIED] if s.status[u] == ELIM)
        attacks = sum(1 for e in s.log if e[0] == "combat")
        paris = any(e[0] == "paris" for e in s.log)
        rows.append((s.vp[GERMAN], s.vp[ALLIED], g_lost, a_lost, attacks, s.winner, paris))
        print(
            f"seed {seed}: German VP {s.vp[GERMAN]:3d} Allied VP {s.vp[ALLIED]:2d} German units lost {g_lost:2d}"
            f" Allied units lost {a_lost:2d} attacks {attacks:3d} Paris {paris} winner {('allied', 'german')[s.winner]}"
            f" on map: {sum(1 for u in s.game.side_units[GERMAN] if s.status[u] == MAP)} German",
            flush=True,
        )
    n = len(rows)
    print(
        f"{n} games in {time.perf_counter() - t0:.0f}s: German wins {sum(r[5] == GERMAN for r in rows)}/{n};"
        f" mean German VP {statistics.mean(r[0] for r in rows):.1f}, Allied VP {statistics.mean(r[1] for r in rows):.1f},"
        f" German units lost {statistics.mean(r[2] for r in rows):.2f} (max {max(r[2] for r in rows)}),"
        f" Allied units lost {statistics.mean(r[3] for r in rows):.1f}, attacks {statistics.mean(r[4] for r in rows):.0f},"
        f" Paris taken {sum(r[6] for r in rows)}/{n}"
    )


if __name__ == "__main__":
    main()
