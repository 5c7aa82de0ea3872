"""The expert bot of France 1940, one per side (issue 63 item 4): the heuristic with a one-step lookahead on
the core's combat odds.

Before each attack it scores every legal target hex by the expected value of the attack over the six die
rolls, in victory points weighed by the victory conditions ([R Standard Game Victory Conditions]: the German
needs three times the Allied VP, so an Allied VP costs the German three of his own): the core gives the
odds and modifier (``combat.strengths``, ``combat.die_modifier`` on the planned combat), the result of each
roll (``Data.crt``), the units' VP (``State.unit_vp``) and whether a retreating unit has a hex to go to
(``rules.retreat_hexes``; without one it is destroyed, F26). A CA / 1CA / 2CA result is scored with the
counter-attack it brings (F27), again at the core's odds. It attacks the best target while its value is
above a margin: the German at -0.3 VP with every attacker it can bring (German attacks cost him little: the
review notes of components.md), the Allies at +0.05 VP with only the attackers that the best odds column
needs (the rest stay free for other attacks and out of the counter-attack). While three times the Allied VP
is well below the German's 25, an Allied VP costs the German one VP in its valuation, else three. Close
support flies only where it raises the value.

The Allied defence of session 45 (docs/france1940/bots.md; off by default in the class, on in the Allied bot
``expert`` since session 48 and in ``expert-defence``, its earlier name; ``expert-s41`` plays it off):
``spread`` -- no Allied unit retreats, steps (within two hexes of the enemy) or arrives into a hex whose
designated defence is already full (the defender designates weight 3 a hex, F22: a second corps there adds
nothing and shares the hex's DX or retreat); ``safe_retreat`` -- a retreating Allied unit goes where it keeps
two hexes to retreat into again (``rules.can_enter``, German ZOC for retreats from
``State.enemy_zoc_for_supply``, room to stack; a DR with no hex destroys it, F26), then as the heuristic.

The German attack of session 46 (docs/france1940/bots.md; off by default, on in the German bot
``expert-attack``, ``GERMAN_ATTACK``): ``margin=-1.0`` -- the German attacks while the expected value is
above -1.0 VP instead of -0.3 (against the Allied defence of session 45, one corps a hex, the attacks the
expert declined scored more than they cost). Measured and not shipped (the table in bots.md): ``trim`` (the
attackers the best column needs, as the Allied expert), ``trim`` with ``margin=-1.0``, and
``air_superiority`` -- up to that many German aircraft a game-turn fly Air Superiority at the Allied GSEs in
range (2 VP each, F35, F38; odds from the core's table); off (0) by default.

Options of an Allied defence (session 41, each measured in docs/france1940/bots.md, all off by default: none
beat the heuristic against both German bots): ``reserve`` -- the British ground units, 3 VP each to the German
([R Standard Game Victory Conditions]), set up, arrive and fall back as a reserve around Paris; ``ca_value``
-- a counter-attack hits the eligible hex of best expected value at the core's odds and table
(``combat.counter_attackers``, ``State.defence_strength``, ``Data.crt``), not simply the weakest; ``depth``
-- the Belgians set up beside the French on the Franco-Belgian frontier and the Dutch as far from Germany as
they can (they may not move before the invasion, F6), ``depth_mid`` -- the Belgians halfway. Everything else is the heuristic's (:mod:`agents.france1940.heuristic`).
It reads no hidden fact and no die: the lookahead is over the six faces, never the game's generator.
"""

from __future__ import annotations

from typing import Any

from agents.france1940.heuristic import COLUMN_3_1, FRENCH_FRONT, GERMAN_FRONT, HeuristicAgent
from ffo_env.france1940.core import actions as A
from ffo_env.france1940.core import air, rules
from ffo_env.france1940.core.combat import counter_attackers, die_modifier, odds_column, strengths
from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.hexgrid import NEIGHBOURS, distance
from ffo_env.france1940.core.state import MAP, State

GERMAN_MARGIN = -0.3  # the German attacks while the expected value is above this (VP)
ALLIED_MARGIN = 0.05
ALLIED_VP_WEIGHT = 0.5  # an Allied VP to the Allies while the 3:1 ratio cannot bind (else 3)
PUSH = 0.25  # value of pushing one defender back a hex (the German advance; an Allied gain of time)
RESERVE_NATIONS = ("GB",)  # the Allied reserve: a destroyed British unit scores the German 3 VP, others 1
RESERVE_KEEP = 1  # the reserve stands within this many hexes of Paris (the 10 VP the German also goes for)
# the German bot ``expert-attack`` (session 46, docs/france1940/bots.md): ``ExpertAgent(1, seed, **GERMAN_ATTACK)``
GERMAN_ATTACK: dict[str, Any] = {"margin": -1.0}


class ExpertAgent(HeuristicAgent):
    """The expert of ``side`` (0 Allied = ``french``, 1 ``german``)."""

    name = "expert"

    def __init__(
        self,
        side: int,
        seed: int | None = None,
        margin: float | None = None,
        trim: bool | None = None,
        ratio_aware: bool = True,
        min_column: int | None = None,
        reserve: bool | None = None,
        ca_value: bool | None = None,
        depth: bool | None = None,
        depth_mid: bool = False,
        reserve_keep: int = RESERVE_KEEP,
        spread: bool = False,
        safe_retreat: bool = False,
        air_superiority: int = 0,
    ) -> None:
        super().__init__(side, seed)
        german = side == GERMAN
        # measured (docs/france1940/bots.md): the German gains by attacking nearly everything, with every
        # attacker; the Allies by attacking only at a clear gain, with only the attackers the column needs
        self.margin = margin if margin is not None else (GERMAN_MARGIN if german else ALLIED_MARGIN)
        self.trim = trim if trim is not None else not german
        # the Allies attack only where the heuristic would (3-1 or better) and the value says so
        self.min_column = min_column if min_column is not None else (0 if german else COLUMN_3_1)
        self._own_vp_weight = 3.0
        self.ratio_aware = ratio_aware
        self._enemy_vp_weight = 3.0
        self._plan: tuple[int, list[int], list[int]] | None = None  # (target hex, attackers, supports)
        # the Allied defence options of session 41, every one measured in docs/france1940/bots.md and off by
        # default (none beat the heuristic against both German bots): ``reserve``, the British units (3 VP
        # each) as a reserve around Paris; ``ca_value``, a counter-attack on the hex of best expected value;
        # ``depth`` / ``depth_mid``, the Belgians (and with depth the Dutch) set up away from the German border
        # -- far better against the German heuristic, but the German expert's armour then reaches Paris
        self.reserve = bool(reserve)
        self.reserve_keep = reserve_keep
        self.ca_value = bool(ca_value)
        self.depth = bool(depth)
        self.depth_mid = depth_mid  # the Belgians halfway between the German and the French frontiers
        # session 45 (docs/france1940/bots.md): an Allied defence that keeps a unit out of a hex whose designated
        # defence is full (``spread``) and retreats where it can retreat again (``safe_retreat``). Off in the
        # class so that session 41's Allied expert (``expert-s41``) replays; on in the Allied ``expert`` since
        # session 48, with the data f40-reconstruction-v3 (P20) that restores the experts' balance (on v2 the
        # German expert won 16 of 60 against it). The German expert has no such defence (session 40's play).
        if german and (spread or safe_retreat):
            raise ValueError("spread and safe_retreat are options of the Allied expert only")
        self.spread = spread
        self.safe_retreat = safe_retreat
        # session 46 (docs/france1940/bots.md): the German flies Air Superiority against the Allied GSEs
        # (2 VP each, F38) with up to this many aircraft a game-turn; 0 (the default, and ``expert``) never
        if air_superiority and not german:
            raise ValueError("air_superiority is an option of the German expert only")
        self.air_superiority = int(air_superiority)

    # ------------------------------------------------------------------ valuation
    def weight(self, side: int) -> float:
        """Value to this bot of one VP scored by ``side``: German VP count 1, Allied VP count the victory
        ratio (3) for the Allies; for the German they cost the ratio only while it binds (see
        :meth:`_set_weights`)."""
        if self.side == GERMAN:
            return 1.0 if side == GERMAN else -self._enemy_vp_weight
        return self._own_vp_weight if side != GERMAN else -1.0

    def _set_weights(self, s: State) -> None:
        """The German needs 25 VP and three times the Allied VP: while three times the Allied VP (with a
        margin of two) is below the 25, an Allied VP does not move the goal and costs him one."""
        vic = s.game.data.tables["victory"]
        ratio, floor = float(vic["german_min_ratio"]), float(vic["german_min_vp"])
        binding = ratio * (s.vp[0] + 2) >= floor
        self._enemy_vp_weight = ratio if (binding or not self.ratio_aware) else 1.0
        # the Allies: their VP help only where three times them can reach the German's score (and 25)
        allied_binding = ratio * (s.vp[0] + 2) >= max(floor, float(s.vp[1]))
        self._own_vp_weight = ratio if (allied_binding or not self.ratio_aware) else ALLIED_VP_WEIGHT

    def _lost(self, s: State, units: list[int], retreat: bool) -> float:
        """Value to this bot of ``units`` retreating (``retreat``) or being destroyed."""
        v = 0.0
        for u in units:
            side = s.side_of(u)
            if retreat and rules.retreat_hexes(s, u):
                v += PUSH if side != self.side else -PUSH
            else:
                v += self.weight(1 - side) * s.unit_vp(u)
        return v

    def _counter(self, s: State, cmb: dict[str, Any], survivors: list[int]) -> float:
        """Expected value of the counter-attack by the surviving designated defenders on the weakest hex of
        attackers (C§6.3, F27), at the core's odds and table, no modifiers."""
        sup = s.judge_supply(survivors)
        ca_att = sum(
            s.attack_strength(v, False, sup[v]) for v in survivors if s.attack_strength(v, False, sup[v]) >= 1
        )
        if ca_att <= 0:
            return 0.0
        hexes: dict[int, list[int]] = {}
        for u in cmb["attackers"]:
            if any(s.hex[u] in NEIGHBOURS[h] for h in cmb["targets"]):
                hexes.setdefault(s.hex[u], []).append(u)
        if not hexes:
            return 0.0
        asup = s.judge_supply([u for us in hexes.values() for u in us])
        worst = 0.0
        first = True
        for us in hexes.values():
            dfn = sum(s.defence_strength(u, asup[u]) for u in us)
            col = min(7, odds_column(ca_att, dfn) + s.game.options.counterattack_shift)
            ev = 0.0
            for die in range(1, 7):
                res = s.game.data.crt(col, die)
                ev += self._ca_result(s, res, us, survivors) / 6
            if first or ev < worst:
                worst, first = ev, False
        return worst

    def _ca_result(self, s: State, res: str, targets: list[int], cas: list[int]) -> float:
        cheap = sorted(targets, key=lambda u: s.unit_vp(u))
        if res == "DX":
            return self._lost(s, targets, False)
        if res == "1CA":
            return self._lost(s, cheap[:1], False)
        if res == "2CA":
            return self._lost(s, cheap[:2], False)
        if res == "DR":
            return self._lost(s, targets, True)
        if res == "AR":
            return self._lost(s, cas, True)
        if res == "BR":
            return self._lost(s, targets, True) + self._lost(s, cas, True)
        return 0.0

    def attack_value(self, s: State, cmb: dict[str, Any]) -> float:
        """Expected value of the planned attack ``cmb`` over the six faces of the die."""
        if not cmb["attackers"]:
            return -1e9
        att, dfn = strengths(s, cmb)
        col = odds_column(att, dfn)
        mod, _pen = die_modifier(s, cmb)
        defenders = rules.defenders_left(s, cmb["targets"][0])
        attackers = [
            u for u in cmb["attackers"] if not (s.fort_active(cmb["targets"][0]) and s.spec(u).is_art)
        ]
        cheap = sorted(cmb["designated"] or defenders, key=lambda v: s.unit_vp(v))
        ev = 0.0
        for die in range(1, 7):
            res = s.game.data.crt(col, die + mod)
            if res == "DX":
                v = self._lost(s, defenders, False)
            elif res == "DR":
                v = self._lost(s, defenders, True)
            elif res == "AR":
                v = self._lost(s, attackers, True)
            elif res == "BR":
                v = self._lost(s, defenders, True) + self._lost(s, attackers, True)
            else:  # CA, 1CA, 2CA: the defender's losses, then the counter-attack
                k = {"CA": 0, "1CA": 1, "2CA": 2}.get(res, 0)
                dead = cheap[:k]
                survivors = [v for v in cmb["designated"] if v not in dead]
                v = self._lost(s, dead, False) + self._counter(s, cmb, survivors)
            ev += v / 6
        return ev

    def best_plan(self, s: State, h: int) -> tuple[float, dict[str, Any]]:
        """The planned attack on ``h`` with close support if an aircraft may fly it, trimmed to the attackers
        the best column needs, and its value."""
        cmb = self.plan_attack(s, h)
        sup = rules.support_units(s, [h])
        if sup:
            cmb["supports"] = [sup[0]]
        if not cmb["attackers"] or not self.trim:
            return (self.attack_value(s, cmb) if cmb["attackers"] else -1e9), cmb
        fort = s.fort_active(h)
        asup = s.judge_supply(cmb["attackers"])
        col = odds_column(cmb["att"], cmb["dfn"])
        keep = list(cmb["attackers"])
        for u in sorted(keep, key=lambda u: (s.attack_strength(u, fort, asup[u]), -u)):  # weakest first
            trial = [v for v in keep if v != u]
            att = sum(s.attack_strength(v, fort, asup[v]) for v in trial)
            if trial and odds_column(att, cmb["dfn"]) >= col:
                keep = trial
        cmb["attackers"] = keep
        value = self.attack_value(s, cmb)
        if cmb["supports"]:  # close support is worth flying only when it raises the value
            plain = self.attack_value(s, {**cmb, "supports": []})
            if plain >= value:
                cmb["supports"], value = [], plain
        return value, cmb

    # ------------------------------------------------------------------ the decisions it changes
    def _attack(self, s: State, legal: list[int]) -> int:
        self._set_weights(s)
        best, best_v, best_plan = A.DONE, self.margin, None
        for a in legal:
            if a == A.DONE:
                continue
            v, plan = self.best_plan(s, A.action_hex(a))
            if odds_column(plan.get("att", 0), plan.get("dfn", 0)) < self.min_column:
                continue
            if v > best_v:
                best, best_v, best_plan = a, v, plan
        if best_plan is None:
            self._plan = None
            return A.DONE
        self._plan = (A.action_hex(best), list(best_plan["attackers"]), list(best_plan["supports"]))
        return best

    def _attackers(self, s: State, legal: list[int]) -> int:
        cmb = s.cmb or {}
        if self._plan is None or self._plan[0] not in cmb.get("targets", []):
            return super()._attackers(s, legal)
        for u in self._plan[1]:
            if A.unit_action(u) in legal:
                return A.unit_action(u)
        return A.DONE if A.DONE in legal else super()._attackers(s, legal)

    def _support(self, s: State, legal: list[int]) -> int:
        cmb = s.cmb or {}
        if self._plan is None or self._plan[0] not in cmb.get("targets", []):
            return super()._support(s, legal)
        for u in self._plan[2]:
            if A.unit_action(u) in legal and u not in cmb.get("supports", []):
                return A.unit_action(u)
        return A.DONE

    # ------------------------------------------------------------------ the Allied defence
    def in_reserve(self, s: State, u: int) -> bool:
        """A unit of the Allied reserve: a British ground unit (not a GSE, bomber or base), 3 VP if lost."""
        spec = s.spec(u)
        return (
            self.reserve
            and spec.side != GERMAN
            and spec.nation in RESERVE_NATIONS
            and not (spec.is_gse or spec.is_bomber or spec.is_base)
        )

    def setup_score(self, s: State, u: int, h: int) -> int:
        spec = s.spec(u)
        if self.in_reserve(s, u):
            return abs(distance(h, s.game.data.paris[0]) - self.reserve_keep)
        if self.depth_mid and spec.nation == "BE" and not spec.is_gse:
            to_de, to_fr = (min(distance(h, b) for b in f) for f in (GERMAN_FRONT, FRENCH_FRONT))
            return abs(to_de - to_fr) * 2 + to_fr
        if self.depth and spec.nation == "BE" and not spec.is_gse:  # beside the French on their border
            return min(distance(h, b) for b in FRENCH_FRONT)
        if self.depth and spec.nation == "NL" and not spec.is_gse:  # as far from Germany as it can
            return -min(distance(h, g) for g in GERMAN_FRONT)
        return super().setup_score(s, u, h)

    def _reinforce(self, s: State, legal: list[int]) -> int:
        u = s.queue[0]["unit"]
        if self.in_reserve(s, u):
            paris = s.game.data.paris[0]
            return min(legal, key=lambda a: (abs(distance(A.action_hex(a), paris) - self.reserve_keep), a))
        if self.spread and not s.spec(u).is_gse:  # not into a hex whose designated defence is full (F22)
            free = [a for a in legal if not self.redundant(s, u, A.action_hex(a))]
            if free:
                return min(free, key=lambda a: (self.enemy_distance(s, A.action_hex(a), self.side), a))
        return super()._reinforce(s, legal)

    def allied_mover(self, s: State, units: list[int]) -> int | None:
        paris = s.game.data.paris
        if any(s.side_at(h) == ALLIED for h in paris):  # Paris held: the reserve falls back to it first
            zoc = s.zoc_hexes(GERMAN)
            for u in units:
                if (
                    self.in_reserve(s, u)
                    and s.hex[u] not in zoc
                    and distance(s.hex[u], paris[0]) > self.reserve_keep
                ):
                    return u
        return super().allied_mover(s, [u for u in units if not self.in_reserve(s, u)] or units)

    def step_goal(self, s: State, u: int) -> tuple[int, int]:
        if self.in_reserve(s, u):
            return s.game.data.paris[0], self.reserve_keep
        return super().step_goal(s, u)

    def _ca_targets(self, s: State, legal: list[int]) -> int:
        """The counter-attack on the one eligible hex of best expected value (the heuristic: the weakest)."""
        hexes = [a for a in legal if A.HEX <= a < A.UNIT]
        cmb = s.cmb or {}
        if not self.ca_value or not hexes or cmb.get("ca_hexes"):
            return super()._ca_targets(s, legal)
        self._set_weights(s)
        cas = counter_attackers(s, cmb)
        sup = s.judge_supply(cas)
        att = sum(s.attack_strength(v, False, sup[v]) for v in cas)

        def value(a: int) -> tuple[float, int]:
            h = A.action_hex(a)
            targets = [u for u in cmb["attackers"] if s.status[u] == MAP and s.hex[u] == h]
            tsup = s.judge_supply(targets)
            dfn = sum(s.defence_strength(u, tsup[u]) for u in targets)
            col = min(7, odds_column(att, dfn) + s.game.options.counterattack_shift)
            ev = sum(self._ca_result(s, s.game.data.crt(col, die), targets, cas) for die in range(1, 7)) / 6
            return ev, -a

        return max(hexes, key=value)

    # ------------------------------------------------------------------ stacking and retreats (session 45)
    def hex_weight(self, s: State, h: int) -> int:
        """Stacking weight of the Allied units in ``h`` (F13: corps 3, smaller 1)."""
        return sum(s.spec(v).type.weight for v in s.occupants(h) if s.side_of(v) == ALLIED)

    def redundant(self, s: State, u: int, h: int) -> bool:
        """``u`` in ``h`` would add no designated defence: the defender designates weight 3 a hex (F22), so
        a unit past that weight only shares the hex's result (a DX or a retreat with no hex kills it too)."""
        return s.hex[u] != h and self.hex_weight(s, h) + s.spec(u).type.weight > 3

    def exits(self, s: State, u: int, h: int) -> int:
        """Hexes next to ``h`` that ``u`` could retreat into now (no German ZOC unless an Allied unit holds
        it, room to stack; ``rules.can_enter``), the hex it leaves not counted."""
        ezoc = s.enemy_zoc_for_supply(ALLIED, retreat=True)
        return sum(
            1
            for m in NEIGHBOURS[h]
            if m != s.hex[u] and m not in ezoc and s.stack_count(m) < 3 and rules.can_enter(s, u, m)
        )

    def _retreat(self, s: State, legal: list[int]) -> int:
        u = s.queue[0]["unit"]
        if not (self.safe_retreat or self.spread) or s.side_of(u) != ALLIED:
            return super()._retreat(s, legal)

        def key(a: int) -> tuple[int, int, int, int]:
            h = A.action_hex(a)
            alone = 0 if (self.spread and self.redundant(s, u, h)) else 1
            out = min(2, self.exits(s, u, h)) if self.safe_retreat else 0
            return alone, out, self.enemy_distance(s, h, ALLIED), -a

        return max(legal, key=key)

    def _step(self, s: State, legal: list[int]) -> int:
        u = s.mover
        if not self.spread or self.side != ALLIED or self.in_reserve(s, u):
            return super()._step(s, legal)
        h = s.hex[u]
        steps = [a for a in legal if A.HEX <= a < A.UNIT]
        if not steps or (h in s.zoc_hexes(GERMAN) and A.DONE in legal):
            return super()._step(s, legal)
        goal, keep = self.step_goal(s, u)
        here = distance(h, goal)
        # near the enemy, a step into a hex whose designated defence is full is left out (F22)
        good = [
            a
            for a in steps
            if keep <= distance(A.action_hex(a), goal) < here
            and not (
                self.redundant(s, u, A.action_hex(a)) and self.enemy_distance(s, A.action_hex(a), ALLIED) <= 2
            )
        ]
        if good:
            return min(good, key=lambda a: (distance(A.action_hex(a), goal), a))
        return super()._step(s, legal)

    # ------------------------------------------------------------------ German Air Superiority (session 46)
    def _sup_odds(self, s: State, tgt: int, extra: int) -> int:
        """Destroying faces of the die (of six) against the Allied GSE ``tgt`` with ``extra`` more attackers
        than allotted so far: the core's table at attackers : (1 + the Allied CAP over its hex), rounded
        in the defender's favour (F35, asked of the core); the CAP in the air is open to both players."""
        att = len((s.air.get("allot") or {}).get(str(tgt), [])) + extra
        cap = sum(
            1 for v in s.game.side_units[ALLIED] if s.ac_mission[v] == "cap" and s.ac_hex[v] == s.hex[tgt]
        )
        return air.airsup_destroy_faces(s, att, 1 + cap)

    def _airsup(self, s: State, legal: list[int]) -> int:
        """Send the next aircraft while the budget allows and one more raises the odds of a kill."""
        if not self.air_superiority or self.side != GERMAN:
            return self.default(legal)
        flown = sum(len(v) for v in (s.air.get("allot") or {}).values())
        if flown >= self.air_superiority:
            return A.DONE if A.DONE in legal else self.default(legal)
        for a in legal:
            if a < A.UNIT:
                continue
            if any(
                self._sup_odds(s, t, 1) > self._sup_odds(s, t, 0) for t in air.airsup_targets(s, a - A.UNIT)
            ):
                return a
        return A.DONE if A.DONE in legal else self.default(legal)

    def _airsup_target(self, s: State, legal: list[int]) -> int:
        """The GSE where one more attacker raises the kill odds most; ties: the one with most attackers."""
        if not self.air_superiority or self.side != GERMAN:
            return self.default(legal)
        allot = s.air.get("allot") or {}

        def gain(a: int) -> tuple[int, int, int]:
            t = a - A.UNIT
            return self._sup_odds(s, t, 1) - self._sup_odds(s, t, 0), len(allot.get(str(t), [])), -a

        return max(legal, key=gain)
