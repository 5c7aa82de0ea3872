"""Shared machinery of the scripted French and German bots.

A bot answers every :class:`~ffo_env.ffo.core.state.Decision` through a handler
``_d_<decision name>``; a handler returns an action or ``None`` ("no opinion"),
and the bot then falls back to the first legal action. Whatever a handler
returns is checked against ``state.legal_actions()`` (``strict=True`` raises
instead of falling back, for tests).

Battles are valued in French VP, from the point of view of the side deciding:
the step losses each side would suffer under every CRT result (rules 13.5-13.7,
R27-R29), weighted by the exact probabilities of the column (support dice,
city die) and of the die, with the attacker's best lowering (rule 13.19).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from agents.ffo import knowledge as kn
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.combat_odds import city_die_applies, known_shifts
from ffo_env.ffo.core.state import ON_MAP, State

FRENCH, GERMAN = 0, 1


class BotError(RuntimeError):
    """A handler chose an action that is not legal (only raised with ``strict=True``)."""


@dataclass
class BattleValues:
    """Value of each CRT result for the attacker, from the deciding side's point of view."""

    AE: float
    AS: float
    BB: float
    DR: float
    DE: float

    def of(self, r: str) -> float:
        return float(getattr(self, r))


class HeuristicBot:
    """Base class: dispatch, legality guard, per-phase caches, battle values."""

    name = "heuristic"
    side = FRENCH

    def __init__(self, params: Any, seed: int | None = None, strict: bool = False) -> None:
        self.params = params
        self.strict = strict
        self.rng = random.Random(seed)
        self.fallbacks = 0
        self._cache: dict[Any, Any] = {}
        self._cache_key: Any = None
        self._plan: dict[str, Any] = {}

    # ------------------------------------------------------------ protocol

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)
        self._cache = {}
        self._cache_key = None
        self._plan = {}
        self.fallbacks = 0

    def act_state(self, state: State) -> int:
        legal = state.legal_actions()
        self.L = state.game.layout
        handler = getattr(self, "_d_" + state.decision.name.lower(), None)
        a = handler(state, legal) if handler is not None else None
        if a is None or a not in legal:
            if a is not None and self.strict:
                raise BotError(f"{self.name}: chose illegal action {a} at {state.decision_string()}")
            self.fallbacks += 1
            return legal[0]
        return int(a)

    # -------------------------------------------------------------- caches

    def phase_cache(self, state: State) -> dict[Any, Any]:
        """A dict emptied whenever the turn or phase changes (a bot is made anew or ``reset`` for every game).

        The key once held the game's seed too: a bot must not read it, since every future die follows from it
        (issue 61), even to tell games apart."""
        key = (state.turn, int(state.phase))
        if key != self._cache_key:
            self._cache_key = key
            self._cache = {}
            self._plan = {}
        return self._cache

    # ------------------------------------------------------- action helpers

    def pass_action(self) -> int:
        return self.L.special(Special.PASS)

    def unit_of(self, a: int) -> int:
        return a - self.L.unit_base

    def units_in(self, legal: list[int]) -> list[int]:
        ub, sb = self.L.unit_base, self.L.special_base
        return [a - ub for a in legal if ub <= a < sb]

    @staticmethod
    def hexes_in(legal: list[int]) -> list[int]:
        return [a for a in legal if a < hg.N_HEX]

    # --------------------------------------------------------- loss values

    def french_delta(self, state: State, u: int) -> float:
        """Change of the French VP-equivalent when unit ``u`` loses one step.

        German units: the VP the French score (rule 4.3, 4.6). French units: minus the
        bot's estimate of what the step is worth to France (evacuation VP, a port).
        """
        spec = state.units[u]
        vp = state.game.scenario.tables.vp
        p = self.params
        if spec.side == GERMAN:
            if state.steps[u] >= 2:
                return float(vp["german_mech_reduced" if spec.mechanized else "german_infantry_reduced"])
            if spec.type == "mountain":
                return float(vp["german_mountain_division_eliminated"])
            return float(vp["german_mech_eliminated" if spec.mechanized else "german_infantry_eliminated"])
        if spec.static:
            return -p.value_garrison
        return -(p.value_mech_step if spec.mechanized else p.value_other_step)

    def step_value(self, state: State, u: int) -> float:
        """Value to this bot of one step loss of ``u`` (own losses weighted by ``loss_aversion``)."""
        f = self.french_delta(state, u)
        mine = f if self.side == FRENCH else -f
        if state.units[u].side == self.side:
            mine *= self.params.loss_aversion
        return mine

    # ------------------------------------------------------- battle values

    def battle_values(
        self,
        state: State,
        attacker_side: int,
        attackers: list[int],
        target: int,
        defenders: list[int],
        hidden: int,
        air: bool = False,
    ) -> BattleValues:
        """Value to this bot of each CRT result (rules 13.5-13.7, 12.4, R27-R30)."""
        v = lambda u: self.step_value(state, u)  # noqa: E731
        def_side = 1 - attacker_side
        hv = 0.0 if def_side == self.side else self.params.hidden_value
        defs = [u for u in defenders if state.status[u] == ON_MAP]
        atks = [u for u in attackers if state.status[u] == ON_MAP]

        def owner_pick(units: list[int], chooser: int) -> float:
            if not units:
                return 0.0
            return max(v(u) for u in units) if chooser == self.side else min(v(u) for u in units)

        if air:
            nonstatic = [u for u in defs if not state.units[u].static]
            bb = owner_pick(nonstatic, GERMAN) if nonstatic else hv * (hidden > 0)
            de = sum(v(u) for u in nonstatic) + hv * hidden
            return BattleValues(0.0, 0.0, bb, 0.0, de)
        origins = {state.loc[u] for u in atks}
        dr = 0.0
        vacate_dr = hidden == 0
        for u in defs:
            if state.units[u].static or not kn.has_retreat(state, u, origins):
                dr += v(u)  # rule 13.6, 13.20: no retreat, DE instead
                if state.steps[u] >= 2 and not state.units[u].static:
                    vacate_dr = False
            else:
                dr += self.params.retreat_value * (1 if state.units[u].side != self.side else -1)
        dr += 0.5 * hv * hidden
        vacate_de = hidden == 0 and all(state.steps[u] <= 1 for u in defs)
        vac = self._vacate_value(state, attacker_side, atks, target)
        bb_def = owner_pick(defs, def_side) if defs else hv
        return BattleValues(
            AE=sum(v(u) for u in atks),
            AS=0.0,
            BB=owner_pick(atks, attacker_side) + bb_def,
            DR=dr + (vac if vacate_dr else 0.0),
            DE=sum(v(u) for u in defs) + hv * hidden + (vac if vacate_de else 0.0),
        )

    def _vacate_value(self, state: State, attacker_side: int, attackers: list[int], target: int) -> float:
        """Value to this bot of the target hex being emptied (advance after combat); bots refine it."""
        return 0.0

    def battle_ev(
        self,
        state: State,
        bs: kn.BattleSetup,
        vals: BattleValues,
        att_support: tuple[tuple[int, float], ...] = ((0, 1.0),),
        def_support: tuple[tuple[int, float], ...] = ((0, 1.0),),
    ) -> float:
        """Expected value to me; the attacker lowers to its best column (rule 13.19) if that is me."""
        cols = kn.column_probs(state, bs, att_support, def_support)
        colv = self.column_values(state, vals)
        if bs.attacker_side == self.side:
            best = []
            run = float("-inf")
            for c in range(len(colv)):
                run = max(run, colv[c])
                best.append(run)
        else:
            best = colv  # assume the opponent does not lower (it never pays on this CRT)
        return sum(p * best[c] for c, p in cols.items())

    def column_values(self, state: State, vals: BattleValues) -> list[float]:
        """The expected value of each CRT column: its six results summed in die order, over 6."""
        value = {r: vals.of(r) for r in ("AE", "AS", "BB", "DR", "DE")}
        # results[die - 1][column]: zip gives each column's results in die order
        columns = zip(*state.game.scenario.tables.crt.results, strict=True)
        return [sum(value[r] for r in col) / 6 for col in columns]

    # ------------------------------------------------------------ planning

    def can_attack(self, state: State, u: int, target: int) -> bool:
        """Public form of the engine's attack eligibility (rules 11.7, 8.2, 13.9, 13.16, R23, R24)."""
        spec = state.units[u]
        if spec.static or state.status[u] != ON_MAP or state.attacked[u] or state.no_attack[u]:
            return False
        d = kn.direction(state.loc[u], target)
        if d < 0 or state.game.tables.blocked_side[state.loc[u]][d]:
            return False
        if spec.is_panzer and state.game.tables.city[target]:
            return False
        return True

    def defenders_seen(self, state: State, target: int) -> tuple[list[int], int]:
        s = kn.seen_stack(state, self.side, target)
        if s is None:
            return [], 0
        return list(s.known), s.hidden

    def best_attack(self, state: State, target: int, max_enum: int = 6) -> tuple[float, list[int]]:
        """Best attacker set against ``target`` by expected value (subsets of the eligible units)."""
        p = self.params
        defs, hidden = self.defenders_seen(state, target)
        if not defs and not hidden:
            return float("-inf"), []
        cands = [
            u
            for n in hg.NEIGHBOR_LISTS[target]
            for u in state.stacks.get(n, ())
            if state.units[u].side == self.side and self.can_attack(state, u, target)
        ]
        groups: list[list[int]] = []
        if self.side == GERMAN:
            west = [u for u in cands if state.units[u].west]
            main = [u for u in cands if not state.units[u].west]
            groups = [g for g in (main, west) if g]  # rule 9.5
        elif cands:
            groups = [cands]
        best = (float("-inf"), [])
        for g in groups:
            g = sorted(g, key=lambda u: (-state.cf(u), u))
            if len(g) <= max_enum:
                subsets = [list(c) for k in range(1, len(g) + 1) for c in combinations(g, k)]
            else:
                subsets = [g[:k] for k in range(1, len(g) + 1)]
            for sub in subsets:
                bs = kn.battle_setup(state, sub, target, p.hidden_cf, self.side)
                vals = self.battle_values(state, self.side, sub, target, defs, hidden)
                ev = self.battle_ev(state, bs, vals)
                if ev > best[0] + 1e-9:
                    best = (ev, sub)
        return best

    # ------------------------------------------------- shared battle decisions

    def _battle(self, state: State) -> Mapping[str, Any]:
        b = state.battle
        if b is None:
            raise RuntimeError(f"no battle is being fought at {state.decision_string()}")
        return b

    def _d_attack_add(self, state: State, legal: list[int]) -> int | None:
        b = self._battle(state)
        plan = self._plan.get("attack")
        cands = self.units_in(legal)
        if plan is None or plan[0] != b["target"]:
            _ev, sub = self.best_attack(state, b["target"])
            plan = (b["target"], sub)
            self._plan["attack"] = plan
        for u in plan[1]:
            if u in cands and u not in b["attackers"]:
                return self.L.unit_action(u)
        if not b["attackers"] and cands:
            return self.L.unit_action(max(cands, key=lambda u: (state.cf(u), -u)))
        return self.pass_action()

    def _current_setup(self, state: State) -> tuple[kn.BattleSetup, BattleValues]:
        b = self._battle(state)
        defs = [u for u in b["defenders"] if state.status[u] == ON_MAP]
        target, support = b["target"], b.get("att_support", 0)
        if b["air"]:  # the engine's shifts of an air strike (R26): terrain and defender supply only
            shifts = known_shifts(
                state,
                target,
                [],
                defs,
                air=True,
                attacker_side=b["attacker"],
                att_oos=False,
                def_oos=bool(b["def_oos"]),
                att_supplied_mech=False,
                origins=[],
            )
            bs = kn.BattleSetup(
                target,
                b["attacker"],
                [],
                float(support),
                float(sum(state.cf(u) for u in defs)),
                sum(shifts.values()),
                city_die_applies(state, target, defs),
            )
        else:
            pv = state.battle_preview(target, list(b["attackers"]), att_support=support)
            bs = kn.BattleSetup(
                target,
                b["attacker"],
                list(b["attackers"]),
                float(pv.att_cf),
                float(pv.def_cf),
                sum(s.columns for s in pv.shifts),
                pv.city_die,
            )
        vals = self.battle_values(state, b["attacker"], b["attackers"], b["target"], defs, 0, air=b["air"])
        return bs, vals

    def _support_dist(self, state: State, key: str) -> tuple[tuple[int, float], ...]:
        spec = state.game.scenario.tables.support[key]
        return kn.dice_dist(spec.dice, spec.divisor)

    def _d_lower(self, state: State, legal: list[int]) -> int | None:
        b = self._battle(state)
        _bs, vals = self._current_setup(state)
        colv = self.column_values(state, vals)
        col = b["column"]
        best_k = max(range(col + 1), key=lambda k: (colv[col - k] + 1e-9 * (k == 0), -k))
        return self.L.lower(best_k)

    def _d_step_loss(self, state: State, legal: list[int]) -> int | None:
        b = self._battle(state)
        victim = b["loss_queue"][0][1]
        units = self.units_in(legal)
        if victim == self.side:  # the cheapest own step (rule 13.7)
            u = max(units, key=lambda u: (self.step_value(state, u), -state.cf(u), -u))
        else:  # air-only BB: the German picks the French step (R29)
            u = max(units, key=lambda u: (self.step_value(state, u), state.cf(u), -u))
        return self.L.unit_action(u)

    def _d_overstack_remove(self, state: State, legal: list[int]) -> int | None:
        units = self.units_in(legal)  # the opponent's units; the one removed is eliminated (rule 6.5, R9)

        def gain(u: int) -> float:
            spec = state.units[u]
            if spec.side == GERMAN:
                vp = state.game.scenario.tables.vp
                f = float(
                    vp["german_mountain_division_eliminated"]
                    if spec.type == "mountain"
                    else vp["german_mech_eliminated" if spec.mechanized else "german_infantry_eliminated"]
                )
            else:
                f = self.french_delta(state, u) * state.steps[u]
            return f if self.side == FRENCH else -f

        return self.L.unit_action(max(units, key=lambda u: (gain(u), state.cf(u), -u)))
