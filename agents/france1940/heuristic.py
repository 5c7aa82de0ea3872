"""The scripted bot of France 1940, one per side (issue 63 item 4).

It reads the open position (units, hexes, zones of control, supply: everything on the map is open, F60) and
never the game's seed or dice (:mod:`ffo_env.france1940.core.visibility`); every choice is one of
``state.legal_actions()`` and every strength or odds figure comes from the core (``State.attack_strength``,
``rules.can_attack_with``, ``combat.odds_column``). Ties are broken by the lowest action, so a game is
reproduced exactly from the game's seed and the bot's seed (the bot's generator only breaks the rare
fallback of an unknown decision).

German: sets up on the western frontier; in each movement phase advances every unit toward the nearest
Allied unit (mechanized units toward Paris in the Mechanized Movement Phase), stopping in an Allied zone of
control; attacks every hex where the strongest legal attack reaches ``attack_column`` (2-1) with close
support when an aircraft is free. Allied: sets up on the Belgian frontier with the fortress divisions in the
Maginot Line and the Belgians and Dutch at home, holds Paris with a unit when one can reach it, brings units
that are far from the enemy up to two hexes from it, and attacks only at ``attack_column`` (3-1) or better.
Both: the defender designates its strongest units, retreats go away from the enemy, losses take the unit
worth the fewest victory points, counter-attacks hit the weakest hex.
"""

from __future__ import annotations

import random
from typing import Any

from ffo_env.france1940.core import actions as A
from ffo_env.france1940.core import rules
from ffo_env.france1940.core.combat import odds_column
from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.hexgrid import distance
from ffo_env.france1940.core.state import State

COLUMN_2_1 = 3  # CRT column index (0 = 1-3 ... 7 = 6-1)
COLUMN_3_1 = 4
# hexes the setup aims at (components.md §1-§3): the German western frontier, the Belgian and Dutch
# defence lines, the Franco-Belgian frontier
GERMAN_FRONT = (276, 305, 248, 300)
LOW_COUNTRIES_LINE = (244, 296, 305)
FRENCH_FRONT = (411, 535, 631, 725, 819, 914)


class HeuristicAgent:
    """The scripted bot of ``side`` (0 Allied = ``french``, 1 ``german``)."""

    name = "heuristic"

    def __init__(self, side: int, seed: int | None = None, attack_column: int | None = None) -> None:
        if side not in (ALLIED, GERMAN):
            raise ValueError(f"side must be 0 (french) or 1 (german), found {side!r}")
        self.side = side
        self.rng = random.Random(seed)
        self._setup_cache: dict[str, dict[int, int]] = {}
        self.attack_column = (
            attack_column if attack_column is not None else (COLUMN_2_1 if side == GERMAN else COLUMN_3_1)
        )

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)

    # ------------------------------------------------------------------ the dispatcher
    def act_state(self, s: State) -> int:
        legal = s.legal_actions()
        if len(legal) == 1:
            return legal[0]
        handler = getattr(self, "_" + s.decision, None)
        a = handler(s, legal) if handler is not None else self.default(legal)
        return a if a in legal else self.default(legal)

    def default(self, legal: list[int]) -> int:
        """Decline when the core offers it (air missions, optional moves); otherwise the first action."""
        return A.DONE if A.DONE in legal else legal[0]

    # ------------------------------------------------------------------ helpers on the open position
    def enemies(self, s: State, side: int) -> list[int]:
        return [s.hex[u] for u in s.on_map(1 - side) if not s.spec(u).is_gse]

    def nearest_enemy(self, s: State, h: int, side: int) -> int:
        enemies = self.enemies(s, side)
        if not enemies:
            return s.game.data.paris[0]
        return min(enemies, key=lambda e: (distance(h, e), e))

    def enemy_distance(self, s: State, h: int, side: int) -> int:
        enemies = self.enemies(s, side)
        return min((distance(h, e) for e in enemies), default=99)

    # ------------------------------------------------------------------ setup and reinforcements
    def _place(self, s: State, legal: list[int]) -> int:
        u = s.queue[0]["unit"]
        free = [a for a in legal if s.stack_count(A.action_hex(a)) == 0] or legal
        key = s.spec(u).type.id
        if key not in self._setup_cache:  # the score depends on the counter type and hex only
            self._setup_cache[key] = {}
        cache = self._setup_cache[key]

        def score(a: int) -> tuple[int, int]:
            h = A.action_hex(a)
            if h not in cache:
                cache[h] = self.setup_score(s, u, h)
            return cache[h], a

        return min(free, key=score)

    def setup_score(self, s: State, u: int, h: int) -> int:
        """Lower is better."""
        spec = s.spec(u)
        if spec.is_gse:
            return distance(h, s.game.data.paris[0]) if spec.side == ALLIED else -distance(h, 1)
        if spec.side == ALLIED:
            if spec.nation in ("BE", "NL"):
                return min(distance(h, g) for g in LOW_COUNTRIES_LINE)
            if spec.type.id == "FR-FORT" and h in s.game.data.fortified:
                return -100
            return min(distance(h, b) for b in FRENCH_FRONT)
        return min(distance(h, b) for b in GERMAN_FRONT)

    def _reinforce(self, s: State, legal: list[int]) -> int:
        u = s.queue[0]["unit"]
        if s.spec(u).is_gse:
            return legal[0]
        return min(legal, key=lambda a: (self.enemy_distance(s, A.action_hex(a), self.side), a))

    def _restrict(self, s: State, legal: list[int]) -> int:
        return legal[0]

    def _remove_french(self, s: State, legal: list[int]) -> int:
        return min(legal, key=lambda a: (s.spec(a - A.UNIT).type.defence, a))

    def _lose(self, s: State, legal: list[int]) -> int:
        return min(legal, key=lambda a: (s.unit_vp(a - A.UNIT), s.spec(a - A.UNIT).type.defence, a))

    def _retreat(self, s: State, legal: list[int]) -> int:
        side = s.side_of(s.queue[0]["unit"])
        return max(legal, key=lambda a: (self.enemy_distance(s, A.action_hex(a), side), -a))

    # ------------------------------------------------------------------ movement
    def _move(self, s: State, legal: list[int]) -> int:
        units = [a - A.UNIT for a in legal if a >= A.UNIT]
        if self.side == ALLIED:
            u = self.allied_mover(s, units)
        else:
            u = self.german_mover(s, units)
        return A.unit_action(u) if u is not None else A.DONE

    def german_mover(self, s: State, units: list[int]) -> int | None:
        zoc = s.zoc_hexes(ALLIED)
        for u in units:
            spec = s.spec(u)
            if spec.is_para or spec.is_gse or s.hex[u] in zoc:
                continue
            return u
        return None

    def allied_mover(self, s: State, units: list[int]) -> int | None:
        paris = s.game.data.paris
        if not any(s.side_at(h) == ALLIED for h in paris):
            cands = [u for u in units if not s.spec(u).is_gse and s.spec(u).type.defence >= 1]
            if cands:  # the nearest unit goes to hold Paris (10 VP)
                return min(cands, key=lambda u: (distance(s.hex[u], paris[0]), u))
        zoc = s.zoc_hexes(GERMAN)
        for u in units:
            spec = s.spec(u)
            if spec.is_gse or s.hex[u] in zoc or s.hex[u] in paris or spec.type.id == "FR-FORT":
                continue
            if self.enemy_distance(s, s.hex[u], ALLIED) > 3:
                return u
        return None

    def step_goal(self, s: State, u: int) -> tuple[int, int]:
        """(goal hex, distance at which to stop)."""
        h = s.hex[u]
        paris = s.game.data.paris
        if self.side == ALLIED:
            if not any(s.side_at(p) == ALLIED for p in paris) and distance(h, paris[0]) < 99:
                near = [p for p in paris if s.stack_count(p) < 3]
                if near and self.enemy_distance(s, h, ALLIED) > 3:
                    return min(near, key=lambda p: distance(h, p)), 0
            return self.nearest_enemy(s, h, ALLIED), 2
        if s.phase == "mech":
            return paris[0], 0
        return self.nearest_enemy(s, h, GERMAN), 1

    def _step(self, s: State, legal: list[int]) -> int:
        u = s.mover
        h = s.hex[u]
        steps = [a for a in legal if A.HEX <= a < A.UNIT]
        stop = A.DONE if A.DONE in legal else None
        if not steps or (h in s.zoc_hexes(1 - self.side) and stop is not None):
            return stop if stop is not None else legal[0]
        goal, keep = self.step_goal(s, u)
        here = distance(h, goal)
        best = min(steps, key=lambda a: (distance(A.action_hex(a), goal), a))
        d = distance(A.action_hex(best), goal)
        if d < here and d >= keep:
            return best
        return stop if stop is not None else best

    # ------------------------------------------------------------------ combat
    def plan_attack(self, s: State, h: int) -> dict[str, Any]:
        """The strongest attack on ``h`` the core allows now, as a combat dict of the core's shape
        (``targets``, ``attackers``, ``designated``, ``supports``) plus ``att``, ``dfn``: attackers added
        strongest first while ``rules.can_attack_with`` allows; the defence assumes the defender designates
        its strongest units (the core's ``designate_units``)."""
        fort = s.fort_active(h)
        chosen: list[int] = []
        cands = [u for u in s.on_map(s.phasing) if rules.can_attack_with(s, u, h, [])]
        sup = s.judge_supply(cands)
        for u in sorted(cands, key=lambda u: (-s.attack_strength(u, fort, sup[u]), u)):
            if rules.can_attack_with(s, u, h, chosen):
                chosen.append(u)
        att = sum(s.attack_strength(u, fort, sup[u]) for u in chosen)
        cmb: dict[str, Any] = {"targets": [h], "attackers": chosen, "designated": [], "supports": []}
        while True:
            cand = rules.designate_units(s, cmb)
            if not cand:
                break
            cmb["designated"].append(max(cand, key=lambda v: (s.spec(v).type.defence, -v)))
        dsup = s.judge_supply(cmb["designated"])
        dfn = sum(s.defence_strength(v, dsup[v]) for v in cmb["designated"])
        if fort:
            dfn += s.fort_side(h, [s.hex[u] for u in chosen])
        cmb.update(att=att, dfn=dfn)
        return cmb

    def _attack(self, s: State, legal: list[int]) -> int:
        best, best_col = A.DONE, -1
        for a in legal:
            if a == A.DONE:
                continue
            plan = self.plan_attack(s, A.action_hex(a))
            col = odds_column(plan["att"], plan["dfn"])
            if col > best_col:
                best, best_col = a, col
        return best if best_col >= self.attack_column else A.DONE

    def _attackers(self, s: State, legal: list[int]) -> int:
        units = [a for a in legal if a >= A.UNIT]
        if not units:
            return A.DONE
        cmb = s.cmb or {}
        fort = all(s.fort_active(t) for t in cmb.get("targets", []))
        sup = s.judge_supply([a - A.UNIT for a in units])
        return max(units, key=lambda a: (s.attack_strength(a - A.UNIT, fort, sup[a - A.UNIT]), -a))

    def _support(self, s: State, legal: list[int]) -> int:
        cmb = s.cmb or {}
        units = [a for a in legal if a >= A.UNIT]
        if units and not cmb.get("supports"):
            return units[0]  # one close support strike when an aircraft is free
        return A.DONE

    def _designate(self, s: State, legal: list[int]) -> int:
        units = [a for a in legal if a >= A.UNIT]
        if not units:
            return A.DONE
        return max(units, key=lambda a: (s.spec(a - A.UNIT).type.defence, -a))

    def _ca_targets(self, s: State, legal: list[int]) -> int:
        hexes = [a for a in legal if A.HEX <= a < A.UNIT]
        cmb = s.cmb or {}
        if hexes and not cmb.get("ca_hexes"):
            return min(hexes, key=lambda a: (self.hex_defence(s, A.action_hex(a)), a))
        return A.DONE if A.DONE in legal else legal[0]

    def hex_defence(self, s: State, h: int) -> int:
        us = s.occupants(h)
        sup = s.judge_supply(us)
        return sum(s.defence_strength(u, sup[u]) for u in us)
