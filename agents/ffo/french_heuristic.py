"""The scripted French player: get the army to the ports and off the map.

Plan, each French player turn:

* **Evacuation** (rule 11.6, R20): from every open port take the unit worth most
  VP (mechanized 2 VP a step, full units first); a naval garrison leaves only on
  the last turn or when Germans are about to reach its port.
* **Roles**: the units that can still reach an open port and be evacuated before
  the end (by VP value, within the ports' remaining capacity of one unit per port
  per turn) march on the ports; the others hold the deepest French cities
  (+1 VP each at the end, rule 4.3) and keep their supply (rule 7.8).
* **Rail** (rule 11.7): the first move of the phase rails the unit that gains the
  most VP-weighted distance to a port, if that beats walking. With ``rail_stage`` > 0,
  that many far units (most VP-turns saved first) walk to the nearest city from which a
  rail move reaches a port, instead of walking all the way: one rail move a turn is
  allowed and without a unit in such a city the turn's move is lost.
* **Movement** (R13): front units first; a destination is scored by its distance
  to the role's goal, refugee VP (rule 10.4), German attack exposure and
  stacking (never over-stack, rule 6.5).
* **Combat**: counterattack only where the expected VP of the battle (exact CRT
  odds, rule 13.12-13.19) clears ``attack_min_ev``; naval gunfire only when its
  expected gain beats its expected VP cost (rules 4.4, 12.8, R18).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from agents.ffo import knowledge as kn
from agents.ffo.botconfig import load_params, param
from agents.ffo.heuristic_base import FRENCH, GERMAN, HeuristicBot
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.state import ON_MAP, State


@dataclass(frozen=True)
class FrenchParams:
    hidden_cf: float = param(
        2.0, "assumed combat factor of an enemy unit hidden under a stack's top unit (rule 3.6)", min=0
    )
    hidden_value: float = param(1.0, "VP value of a step loss of a hidden enemy unit", min=0)
    loss_aversion: float = param(1.2, "weight of own losses against enemy losses in battle values", min=0)
    retreat_value: float = param(0.1, "value of an enemy retreat that costs it nothing", min=0)
    value_mech_step: float = param(2.0, "VP a French mechanized step is worth (its evacuation VP)", min=0)
    value_other_step: float = param(1.0, "VP a French non-mechanized step is worth", min=0)
    value_garrison: float = param(2.0, "VP a naval garrison is worth (its step and its port)", min=0)
    attack_min_ev: float = param(
        0.4, "smallest expected VP gain for which the French attack", min=-10, max=10
    )
    naval_min_gain: float = param(
        0.0, "expected VP a naval gunfire support must gain beyond its expected VP cost"
    )
    refugee_penalty: float = param(
        5.0, "MP-equivalent cost of one VP lost overrunning refugees (rule 10.4)", min=0
    )
    exposure_weight: float = param(
        1.0, "MP-equivalent cost of one expected VP lost to German attack at a destination", min=0
    )
    threat_offset: float = param(
        6.0, "extra MP distance charged to a port with Germans within 3 hexes", min=0
    )
    hold_depth_weight: float = param(
        0.5, "MP preference per hex of a city's distance from the green row (hold role)", min=0
    )
    evac_slack: int = param(
        0, "extra turns a unit must have in hand to take the evacuation role", min=0, max=15
    )
    garrison_threat_distance: int = param(
        2, "evacuate a port's garrison when a German is this close (hexes)", min=0, max=10
    )
    use_rail: bool = param(True, "use strategic rail movement (rule 11.7)")
    rail_stage: int = param(
        0,
        "units sent to a city from which a rail move reaches a port (rule 11.7), when walking is slower"
        " (on v3: more rail moves, no more wins; README)",
        min=0,
        max=8,
    )
    hold_cities: bool = param(True, "units that cannot be evacuated hold cities")
    advance_51: bool = param(True, "always advance the 51st after a won battle (+1 VP, rule 4.3)")


class FrenchHeuristic(HeuristicBot):
    side = FRENCH

    def __init__(
        self,
        params: FrenchParams | None = None,
        seed: int | None = None,
        name: str = "french_heuristic",
        strict: bool = False,
    ) -> None:
        super().__init__(params or FrenchParams(), seed, strict)
        self.name = name

    # ------------------------------------------------------------ knowledge

    def _german_hexes(self, state: State) -> list[int]:
        return list(state.occupied_hexes(GERMAN))

    def open_ports(self, state: State) -> list[int]:
        """Ports that can still evacuate: garrisoned, never German (R20)."""
        st, loc, ever = state.status, state.loc, state.ever_german
        return sorted(loc[u] for u in state.game.port_units if st[u] == ON_MAP and not ever[loc[u]])

    def _key(self, state: State) -> tuple[Any, ...]:
        return (tuple(self._german_hexes(state)), tuple(self.open_ports(state)), bytes(state.control))

    def port_map(self, state: State) -> list[float]:
        cache = self.phase_cache(state)
        key = ("port", self._key(state))
        hit = cache.get(key)
        if hit is None:
            ports = self.open_ports(state)
            germans = self._german_hexes(state)
            dg = kn.hex_distance_to(germans) if germans else [kn.INF] * hg.N_HEX
            offsets = {}
            for h in ports:
                if dg[h] <= 1:
                    offsets[h] = (
                        3 * self.params.threat_offset
                    )  # closed while a German is adjacent (rule 11.6)
                elif dg[h] <= 3:
                    offsets[h] = self.params.threat_offset
            hit = kn.distance_map(state, FRENCH, ports, offsets) if ports else [float(kn.INF)] * hg.N_HEX
            cache[key] = hit
        return hit

    def german_dist(self, state: State) -> list[int]:
        cache = self.phase_cache(state)
        key = ("gd", tuple(self._german_hexes(state)))
        hit = cache.get(key)
        if hit is None:
            g = self._german_hexes(state)
            hit = kn.hex_distance_to(g) if g else [kn.INF] * hg.N_HEX
            cache[key] = hit
        return hit

    def hold_cities(self, state: State, exclude: int = -1) -> list[int]:
        """French cities never German and not held by another French (non-free-stacking) unit."""
        mt = state.game.tables
        out = []
        for h in mt.city_hexes:
            if state.ever_german[h] or state.control[h] != FRENCH:
                continue
            st = state.stacks.get(h, ())
            if st and state.units[st[0]].side == GERMAN:
                continue
            if any(
                u != exclude
                and not state.units[u].free_stacking
                and not state.units[u].static
                and self.roles(state).get(u) == "hold"
                for u in st
            ):
                continue
            out.append(h)
        return out

    def hold_map(self, state: State, u: int) -> list[float]:
        cities = self.hold_cities(state, exclude=u)
        cache = self.phase_cache(state)
        key = ("hold", tuple(cities), self._key(state))
        hit = cache.get(key)
        if hit is None:
            dg = state.game.dist_green
            far = max((dg[c] for c in cities), default=0)
            offs = {c: (far - dg[c]) * self.params.hold_depth_weight for c in cities}
            hit = kn.distance_map(state, FRENCH, cities, offs) if cities else [float(kn.INF)] * hg.N_HEX
            cache[key] = hit
        return hit

    def unit_vp(self, state: State, u: int) -> float:
        spec = state.units[u]
        vp = state.game.scenario.tables.vp
        per = vp["evacuated_step_mechanized"] if spec.mechanized else vp["evacuated_step_non_mechanized"]
        return float(per * state.steps[u])

    def roles(self, state: State) -> dict[int, str]:
        """``evac`` for the units that can make it to a port in time (by VP, within capacity), else ``hold``."""
        cache = self.phase_cache(state)
        hit = cache.get("roles")
        if hit is not None:
            return hit
        dmap = self.port_map(state)
        last = state.game.scenario.tables.last_turn
        ports = self.open_ports(state)
        turns_left = last - state.turn  # evacuation phases still to come after this movement
        capacity = len(ports) * max(0, turns_left)
        cands = []
        for u in state.on_map_units(FRENCH):
            spec = state.units[u]
            if spec.static:
                continue
            d = dmap[state.loc[u]]
            eta = 0 if d <= 0 else math.ceil(d / max(1, state.mf(u)))
            if d < kn.INF and state.turn + max(1, eta) + self.params.evac_slack <= last:
                cands.append((-self.unit_vp(state, u), eta, u))
        cands.sort()
        roles = {u: "hold" for u in state.on_map_units(FRENCH) if not state.units[u].static}
        for i, (_v, _eta, u) in enumerate(cands):
            if i < capacity or not self.params.hold_cities:
                roles[u] = "evac"
        if self.params.rail_stage > 0 and turns_left > 1:
            smap = self.stage_map(state)
            staged = []
            for u, role in roles.items():
                d, ds = dmap[state.loc[u]], smap[state.loc[u]]
                if role != "evac" or d <= 0 or ds >= kn.INF:
                    continue
                mf = max(1, state.mf(u))
                walk = math.ceil(d / mf)
                by_rail = math.ceil(ds / mf) + 1  # walk to the city, then one turn's rail move
                if walk > by_rail:
                    staged.append(((walk - by_rail) * self.unit_vp(state, u), -u))
            for _gain, neg_u in sorted(staged, reverse=True)[: self.params.rail_stage]:
                roles[-neg_u] = "stage"
        cache["roles"] = roles
        return roles

    def stage_map(self, state: State) -> list[float]:
        """Movement cost to the nearest city (not a port) from which a rail move reaches an open port now."""
        cache = self.phase_cache(state)
        key = ("stage", self._key(state))
        hit = cache.get(key)
        if hit is None:
            ports = set(self.open_ports(state))
            cities = [h for h, dests in state.rail_origins().items() if h not in ports and ports & set(dests)]
            hit = kn.distance_map(state, FRENCH, cities) if cities else [float(kn.INF)] * hg.N_HEX
            cache[key] = hit
        return hit

    def exposure(self, state: State, u: int, h: int) -> float:
        """Expected VP lost if the Germans around ``h`` attack ``u`` there (a rough, public estimate)."""
        gd = self.german_dist(state)
        if gd[h] > 2:
            return 0.0
        p = self.params
        att = 0.0
        sides = set()
        for g in self._german_hexes(state):
            dist = hg.DISTANCE[h, g]
            if dist <= 2:
                s = kn.seen_stack(state, FRENCH, g)
                if s is None:
                    continue
                att += kn.stack_cf(state, s, p.hidden_cf)
                if dist == 1:
                    sides.add(kn.direction(h, g))
        mt = state.game.tables
        t = state.game.scenario.tables
        shift = 0
        if mt.city[h]:
            shift -= 1
        elif mt.mountain[h]:
            shift += mt.defence_shift[h] if not state.units[u].mechanized else 0
        else:
            shift += mt.defence_shift[h]
        if len(sides) >= 2:
            shift += 2
        col = max(0, min(len(t.crt.columns) - 1, t.crt.column_of(int(att - state.cf(u))) + shift))
        probs = kn.result_probs(state, col)
        p_loss = probs.get("DE", 0) + probs.get("BB", 0) + 0.4 * probs.get("DR", 0)
        return p_loss * -self.french_delta(state, u)

    # ------------------------------------------------------------ decisions

    def _d_setup_unit(self, state: State, legal: list[int]) -> int | None:
        units = self.units_in(legal)
        return self.L.unit_action(max(units, key=lambda u: (state.units[u].mechanized, state.cf(u), -u)))

    def _d_setup_hex(self, state: State, legal: list[int]) -> int | None:
        dmap = self.port_map(state)
        return min(self.hexes_in(legal), key=lambda h: (kn.counted_own(state, h), dmap[h], h))

    def _d_evacuate(self, state: State, legal: list[int]) -> int | None:
        units = self.units_in(legal)
        last = state.game.scenario.tables.last_turn
        gd = self.german_dist(state)
        best = None
        for u in units:
            spec = state.units[u]
            h = state.loc[u]
            if spec.static:
                others = [x for x in state.stacks.get(h, ()) if x != u]
                threatened = gd[h] <= self.params.garrison_threat_distance
                if others or not (state.turn >= last or threatened):
                    continue  # rule 11.6: keep the garrison, the port still works
                key = (1.0, 0)
            else:
                key = (self.unit_vp(state, u), state.cf(u))
            if best is None or key > best[0]:
                best = (key, u)
        if best is None:
            return self.pass_action()
        return self.L.unit_action(best[1])

    def _d_rail_unit(self, state: State, legal: list[int]) -> int | None:
        if not self.params.use_rail:
            return self.pass_action()
        rail = state.rail_options()
        dmap = self.port_map(state)
        roles = self.roles(state)
        best = None
        for u, dests in rail.items():
            if roles.get(u) not in ("evac", "stage"):
                continue
            ok = [c for c in dests if state.units[u].free_stacking or kn.counted_own(state, c) == 0]
            if not ok:
                continue
            c = min(ok, key=lambda c: (dmap[c], c))
            gain = dmap[state.loc[u]] - dmap[c] - 1.5 * state.mf(u)
            if gain <= 0:
                continue
            score = gain * self.unit_vp(state, u)
            if best is None or score > best[0]:
                best = (score, u)
        if best is None:
            return self.pass_action()
        self._plan["rail"] = best[1]
        return self.L.unit_action(best[1])

    def _d_rail_dest(self, state: State, legal: list[int]) -> int | None:
        u = state.selected_unit()
        dmap = self.port_map(state)
        ok = [
            c for c in self.hexes_in(legal) if state.units[u].free_stacking or kn.counted_own(state, c) == 0
        ]
        return min(ok or self.hexes_in(legal), key=lambda c: (dmap[c], c))

    def _goal_map(self, state: State, u: int) -> list[float]:
        role = self.roles(state).get(u)
        if role == "stage":
            return self.stage_map(state)
        if role == "hold":
            hm = self.hold_map(state, u)
            if hm[state.loc[u]] < kn.INF:
                return hm
        return self.port_map(state)

    def _d_move_unit(self, state: State, legal: list[int]) -> int | None:
        units = self.units_in(legal)
        if not units:
            return self.pass_action()
        dmap = self.port_map(state)
        roles = self.roles(state)
        # front of the column first (frees the road); evacuees before holders
        u = min(units, key=lambda u: (roles.get(u) != "evac", dmap[state.loc[u]], -state.mf(u), u))
        return self.L.unit_action(u)

    def _d_move_dest(self, state: State, legal: list[int]) -> int | None:
        u = state.selected_unit()
        dests = state.move_destinations()
        here = state.loc[u]
        goal = self._goal_map(state, u)
        p = self.params
        free = state.units[u].free_stacking
        limit = state.game.scenario.tables.stack_limit
        mt = state.game.tables
        hold = self.roles(state).get(u) == "hold"
        best = None
        for h in self.hexes_in(legal):
            over = not free and kn.counted_own(state, h, exclude=u) >= limit
            score = -goal[h] if goal[h] < kn.INF else -1000.0
            if h != here:
                score -= p.refugee_penalty * dests[h].vp
            score -= p.exposure_weight * self.exposure(state, u, h)
            if hold and mt.city[h] and not state.ever_german[h]:
                score += 0.5
            if h == here:
                score += 0.01  # stay on a tie
            key = (not over, score, -h)
            if best is None or key > best[0]:
                best = (key, h)
        return best[1] if best else None

    # --------------------------------------------------------------- combat

    def _vacate_value(self, state: State, attacker_side: int, attackers: list[int], target: int) -> float:
        if attacker_side != FRENCH:
            return 0.0
        v = 0.0
        if (
            self.params.advance_51
            and any(state.units[u].is_british_51 for u in attackers)
            and not state.game.forbidden[FRENCH][target]
        ):
            v += state.game.scenario.tables.vp["british_51_advance"]  # rule 4.3, R31
        if state.game.tables.city[target] and not state.game.forbidden[FRENCH][target]:
            v += 0.3
        return v

    def _d_attack_target(self, state: State, legal: list[int]) -> int | None:
        best = None
        for t in self.hexes_in(legal):
            ev, sub = self.best_attack(state, t)
            if sub and ev >= self.params.attack_min_ev and (best is None or ev > best[0]):
                best = (ev, t, sub)
        if best is None:
            return self.pass_action()
        self._plan["attack"] = (best[1], best[2])
        return best[1]

    def _naval_cost(self, state: State) -> float:
        return 2.5 if state.game.options.naval_vp_loss == "die_minus_one" else 3.5  # rule 4.4, R18

    def _naval_choice(self, legal: list[int]) -> int | None:
        for s in (Special.NAVAL_BRITISH, Special.NAVAL_FRENCH):
            if self.L.special(s) in legal:
                return self.L.special(s)
        return None

    def _d_support_attack(self, state: State, legal: list[int]) -> int | None:
        a = self._naval_choice(legal)
        if a is None:
            return self.pass_action()
        b = self._battle(state)
        bs, vals = self._current_setup(state)
        key = "naval_attack_coastal" if state.game.tables.coastal[b["target"]] else "naval_attack_inland"
        gain = self.battle_ev(state, bs, vals, self._support_dist(state, key)) - self.battle_ev(
            state, bs, vals
        )
        if gain - self._naval_cost(state) >= self.params.naval_min_gain:
            return a
        return self.pass_action()

    def _d_support_defence(self, state: State, legal: list[int]) -> int | None:
        a = self._naval_choice(legal)
        if a is None:
            return self.pass_action()
        b = self._battle(state)
        bs, vals = self._current_setup(state)
        key = "naval_defence_coastal" if state.game.tables.coastal[b["target"]] else "naval_defence_inland"
        gain = self.battle_ev(state, bs, vals, def_support=self._support_dist(state, key)) - self.battle_ev(
            state, bs, vals
        )
        if gain - self._naval_cost(state) >= self.params.naval_min_gain:
            return a
        return self.pass_action()

    def _d_retreat(self, state: State, legal: list[int]) -> int | None:
        u = self._battle(state)["retreat_queue"][0]
        goal = self._goal_map(state, u)
        return max(
            self.hexes_in(legal),
            key=lambda h: (-goal[h] - self.params.exposure_weight * self.exposure(state, u, h), -h),
        )

    def _d_advance_unit(self, state: State, legal: list[int]) -> int | None:
        b = self._battle(state)
        target = b["target"]
        units = self.units_in(legal)
        for u in units:
            if state.units[u].is_british_51 and self.params.advance_51:
                return self.L.unit_action(u)  # rule 4.3: +1 VP
        mt = state.game.tables
        if mt.city[target] and units and not b.get("advanced"):
            return self.L.unit_action(min(units, key=lambda u: (state.units[u].mechanized, -state.cf(u), u)))
        for u in units:
            goal = self._goal_map(state, u)
            if goal[target] + 1 < goal[state.loc[u]]:
                return self.L.unit_action(u)
        return self.pass_action()

    def _d_scare_unit(self, state: State, legal: list[int]) -> int | None:
        ports = self.open_ports(state)
        dp = kn.hex_distance_to(ports) if ports else [0] * hg.N_HEX
        return self.L.unit_action(
            min(self.units_in(legal), key=lambda u: (dp[state.loc[u]], -state.cf(u), u))
        )


def make_french(
    level: str | None = None, seed: int | None = None, config: str | None = None, strict: bool = False
) -> FrenchHeuristic:
    """The French bot with ``configs/ffo/bots/french_heuristic[_<level>].yaml`` (or an explicit config path)."""
    name = "french_heuristic" + (f"_{level}" if level else "")
    params = load_params(config or name, FrenchParams, "french")
    return FrenchHeuristic(params, seed=seed, name=name, strict=strict)
