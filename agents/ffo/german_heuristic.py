"""The scripted German player: pursue, close the ports, take the cities, spend few steps.

* **Order** (rule 5.6): move first unless attacks already in reach are worth
  ``fight_first_min_ev``.
* **Movement**: each unit descends a potential map: distance (German MP) to the
  nearest objective plus the objective's offset — hexes next to open ports
  (closing them, rule 11.6), French cities free to enter (rule 4.3, 7.8), and
  attack positions next to French stacks (with a bonus for a second attack
  side, rules 13.13-13.14). Mechanized units weigh ports first, infantry cities
  and attack positions. Destinations where French counterattacks would be
  costly are penalised by ``risk_weight``; nothing is ever over-stacked.
* **Combat**: against each reachable French stack, the best attacker set by
  expected VP (exact CRT odds; French steps are worth their evacuation VP,
  German steps the VP they give away, rule 4.3); attack if it clears
  ``attack_min_ev``; lower the column only where that pays (rule 13.19); the
  8th Fliegerkorps where its expected gain clears a threshold (air-only strike
  in II.B, attack or defence support otherwise, rule 12).
* **Refugees** (rule 10): on the hexes the French columns will cross next.
* **Reinforcements** (rule 9): the entry hex nearest to the objectives.
* **Replacements** (rule 8): the reduced unit worth most.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.ffo import knowledge as kn
from agents.ffo.botconfig import load_params, param
from agents.ffo.heuristic_base import FRENCH, GERMAN, HeuristicBot
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.state import ON_MAP, State


@dataclass(frozen=True)
class GermanParams:
    aggression: str = param(
        "normal", "label of the level (documentation only)", choices=("cautious", "normal", "aggressive")
    )
    hidden_cf: float = param(
        2.0, "assumed combat factor of a French unit hidden under a top unit (rule 3.6)", min=0
    )
    hidden_value: float = param(1.0, "value of a step loss of a hidden French unit", min=0)
    loss_aversion: float = param(
        1.0, "weight of German step losses (VP to France) against French losses", min=0
    )
    retreat_value: float = param(0.2, "value of a French retreat that costs it nothing", min=0)
    value_mech_step: float = param(
        2.0, "value of destroying a French mechanized step (its evacuation VP)", min=0
    )
    value_other_step: float = param(1.0, "value of destroying a French non-mechanized step", min=0)
    value_garrison: float = param(3.0, "value of destroying a naval garrison (its step and its port)", min=0)
    city_value: float = param(1.5, "value of taking a French city by advancing into it", min=0)
    attack_min_ev: float = param(0.3, "smallest expected value for which the Germans attack", min=-10, max=10)
    fight_first_min_ev: float = param(
        4.0, "total value of attacks in reach that makes the Germans fight first", min=0
    )
    order: str = param("auto", "move/fight order (rule 5.6)", choices=("auto", "move_first", "fight_first"))
    air_strike_min_ev: float = param(
        0.9, "smallest expected value of an air-only strike (rule 12.4)", min=-10
    )
    stuka_attack_min_gain: float = param(
        0.5, "expected gain for which the 8th supports a ground attack", min=-10
    )
    stuka_defence_min_gain: float = param(1.0, "expected gain for which the 8th supports a defence", min=-10)
    risk_weight: float = param(
        2.0, "MP-equivalent cost per expected VP a French counterattack would take", min=0
    )
    mech_port_offset: float = param(
        0.0, "potential offset of a hex next to an open port, mechanized units", min=0
    )
    mech_city_offset: float = param(
        4.0, "potential offset of an enterable French city, mechanized units", min=0
    )
    mech_attack_offset: float = param(6.0, "potential offset of an attack position, mechanized units", min=0)
    mech_depth_weight: float = param(
        0.3, "mechanized units: MP preference per hex an objective lies beyond the green row", min=0
    )
    inf_port_offset: float = param(4.0, "potential offset of a hex next to an open port, infantry", min=0)
    inf_city_offset: float = param(0.0, "potential offset of an enterable French city, infantry", min=0)
    inf_attack_offset: float = param(2.0, "potential offset of an attack position, infantry", min=0)
    use_replacements: bool = param(True, "designate replacements (rule 8.2)")
    refugee_lookahead: int = param(8, "MP of the French routes on which refugees are placed", min=1, max=30)


class GermanHeuristic(HeuristicBot):
    side = GERMAN

    def __init__(
        self,
        params: GermanParams | None = None,
        seed: int | None = None,
        name: str = "german_heuristic",
        strict: bool = False,
    ) -> None:
        super().__init__(params or GermanParams(), seed, strict)
        self.name = name

    # ------------------------------------------------------------ knowledge

    def _french(self, state: State) -> list[kn.SeenStack]:
        return kn.enemy_stacks(state, GERMAN)

    def open_ports(self, state: State) -> list[int]:
        """Ports that can still evacuate: garrisoned, never German, no German adjacent (rule 11.6, R20)."""
        out = []
        for u in state.game.port_units:
            if state.status[u] != ON_MAP:
                continue
            h = state.loc[u]
            if state.ever_german[h]:
                continue
            if any(state.side_at(n) == GERMAN for n in hg.NEIGHBOR_LISTS[h]):
                continue
            out.append(h)
        return sorted(out)

    def _key(self, state: State) -> tuple[Any, ...]:
        fr = tuple((s.hex, s.known, s.hidden) for s in self._french(state))
        cities = tuple(state.control[h] for h in state.game.tables.city_hexes)
        return fr, cities, tuple(self.open_ports(state))

    def potential(self, state: State, mech: bool) -> list[float]:
        """MP distance to the nearest objective plus its offset (see the module docstring)."""
        cache = self.phase_cache(state)
        key = ("pot", mech, self._key(state))
        hit = cache.get(key)
        if hit is not None:
            return hit
        p = self.params
        mt = state.game.tables
        po, co, ao = (
            (p.mech_port_offset, p.mech_city_offset, p.mech_attack_offset)
            if mech
            else (p.inf_port_offset, p.inf_city_offset, p.inf_attack_offset)
        )
        offs: dict[int, float] = {}
        forbidden = state.game.forbidden[GERMAN]
        dg = state.game.dist_green
        depth = p.mech_depth_weight if mech else 0.0
        far = max(dg[h] for h in mt.port_hexes) if mt.port_hexes else 0

        def put(h: int, o: float) -> None:
            o += depth * max(0, far - dg[h])  # mechanized units drive deep (ports first)
            if not forbidden[h] and not mt.colored[h] and o < offs.get(h, kn.INF):
                offs[h] = o

        french = self._french(state)
        occupied = {s.hex for s in french}
        for h in self.open_ports(state):
            for n in hg.NEIGHBOR_LISTS[h]:
                if n not in occupied:
                    put(n, po)
        for h in mt.city_hexes:
            if state.control[h] == FRENCH and h not in occupied:
                put(h, co)
        for s in french:
            if all(state.units[u].static for u in s.known) and not s.hidden:
                extra = -1.0  # a lone naval garrison: its port
            else:
                extra = 0.0
            for n in hg.NEIGHBOR_LISTS[s.hex]:
                if n not in occupied:
                    put(n, ao + extra)
        hit = kn.distance_map(state, GERMAN, list(offs), offs) if offs else [0.0] * hg.N_HEX
        cache[key] = hit
        return hit

    def french_dist(self, state: State) -> list[int]:
        cache = self.phase_cache(state)
        key = ("fd", self._key(state)[0])
        hit = cache.get(key)
        if hit is None:
            hit = kn.hex_distance_to([s.hex for s in self._french(state)])
            cache[key] = hit
        return hit

    def risk(self, state: State, u: int, h: int) -> float:
        """Expected VP a French counterattack on ``u`` at ``h`` would give away (public estimate)."""
        fd = self.french_dist(state)
        if fd[h] > 1:
            return 0.0
        p = self.params
        mt = state.game.tables
        att = 0.0
        sides = set()
        for n in hg.NEIGHBOR_LISTS[h]:
            s = kn.seen_stack(state, GERMAN, n)
            if s is None or s.side != FRENCH:
                continue
            c = sum(state.cf(x) for x in s.known if not state.units[x].static) + p.hidden_cf * s.hidden
            if c > 0:
                att += c
                sides.add(kn.direction(h, n))
        if att <= 0:
            return 0.0
        if mt.coastal[h]:
            att += 3.5  # naval gunfire (rule 12.8), expected
        t = state.game.scenario.tables
        shift = 0
        if mt.city[h] and not state.units[u].is_panzer:
            shift -= 1
        elif mt.mountain[h]:
            shift += 0 if state.units[u].mechanized else mt.defence_shift[h]
        elif not mt.city[h]:
            shift += mt.defence_shift[h]
        if any((s + 3) % 6 in sides for s in sides) or len(sides) >= 4:
            shift += 1
        col = max(0, min(len(t.crt.columns) - 1, t.crt.column_of(int(att - state.cf(u))) + shift))
        probs = kn.result_probs(state, col)
        p_loss = probs.get("DE", 0) + probs.get("BB", 0) + 0.3 * probs.get("DR", 0)
        return p_loss * self.french_delta(state, u)

    # ------------------------------------------------------------ decisions

    def _d_setup_unit(self, state: State, legal: list[int]) -> int | None:
        units = self.units_in(legal)
        return self.L.unit_action(max(units, key=lambda u: (state.units[u].mechanized, state.cf(u), -u)))

    def _d_setup_hex(self, state: State, legal: list[int]) -> int | None:
        fd = self.french_dist(state)
        return min(self.hexes_in(legal), key=lambda h: (kn.counted_own(state, h), fd[h], h))

    def _d_german_order(self, state: State, legal: list[int]) -> int | None:
        p = self.params
        if p.order == "move_first":
            return self.L.special(Special.MOVE_FIRST)
        if p.order == "fight_first":
            return self.L.special(Special.FIGHT_FIRST)
        total = 0.0
        for s in self._french(state):
            ev, sub = self.best_attack(state, s.hex, max_enum=4)
            if sub and ev >= p.attack_min_ev:
                total += ev
        return self.L.special(Special.FIGHT_FIRST if total >= p.fight_first_min_ev else Special.MOVE_FIRST)

    def _d_replacement(self, state: State, legal: list[int]) -> int | None:
        units = self.units_in(legal)
        if not units or not self.params.use_replacements:
            return self.pass_action()
        fd = self.french_dist(state)
        u = max(
            units, key=lambda u: (state.units[u].cf_full - state.units[u].cf_reduced, fd[state.loc[u]], -u)
        )
        return self.L.unit_action(u)

    def _air_setup(self, state: State, target: int) -> tuple[float, list[int], int]:
        defs, hidden = self.defenders_seen(state, target)
        mt = state.game.tables
        shift = 0
        if mt.mountain[target]:
            if any(not state.units[u].mechanized for u in defs) or hidden:
                shift += mt.defence_shift[target]
        elif not mt.city[target]:
            shift += mt.defence_shift[target]
        if any(not state.is_supplied(u) for u in defs):
            shift += state.game.scenario.tables.shifts["defender_oos"]
        bs = kn.BattleSetup(
            target,
            GERMAN,
            [],
            0.0,
            sum(state.cf(u) for u in defs) + self.params.hidden_cf * hidden,
            shift,
            bool(mt.city[target]),
        )
        vals = self.battle_values(state, GERMAN, [], target, defs, hidden, air=True)
        return self.battle_ev(state, bs, vals, self._support_dist(state, "stuka_attack")), defs, hidden

    def _d_air_target(self, state: State, legal: list[int]) -> int | None:
        best = None
        for t in self.hexes_in(legal):
            if self.would_end_game(state, t):
                continue
            ev, _d, _h = self._air_setup(state, t)
            if best is None or ev > best[0]:
                best = (ev, t)
        if best is None or best[0] < self.params.air_strike_min_ev:
            return self.pass_action()
        return best[1]

    def _d_move_unit(self, state: State, legal: list[int]) -> int | None:
        units = self.units_in(legal)
        if not units:
            return self.pass_action()
        pm, pi = self.potential(state, True), self.potential(state, False)

        def key(u: int) -> tuple[Any, ...]:
            mech = state.units[u].mechanized
            return (not mech, (pm if mech else pi)[state.loc[u]], u)

        return self.L.unit_action(min(units, key=key))

    def _d_move_dest(self, state: State, legal: list[int]) -> int | None:
        u = state.selected_unit()
        here = state.loc[u]
        mech = state.units[u].mechanized
        pot = self.potential(state, mech)
        p = self.params
        free = state.units[u].free_stacking
        limit = state.game.scenario.tables.stack_limit
        fd = self.french_dist(state)
        best = None
        for h in self.hexes_in(legal):
            over = not free and kn.counted_own(state, h, exclude=u) >= limit
            score = -pot[h] if pot[h] < kn.INF else -1000.0
            if fd[h] <= 1:
                score -= p.risk_weight * self.risk(state, u, h)
            if h == here:
                score += 0.01
            k = (not over, score, -h)
            if best is None or k > best[0]:
                best = (k, h)
        return best[1] if best else None

    def _vacate_value(self, state: State, attacker_side: int, attackers: list[int], target: int) -> float:
        if attacker_side != GERMAN:
            return 0.0
        mt = state.game.tables
        if mt.city[target] and state.control[target] == FRENCH:
            return self.params.city_value
        return 0.0

    def would_end_game(self, state: State, target: int) -> bool:
        """True if wiping out ``target`` could remove the last French unit while French cities remain
        to be taken: the game would end then and count them for France (rules 4.1, 4.3, R21)."""
        return state.destroying_ends_game(target)

    def _d_attack_target(self, state: State, legal: list[int]) -> int | None:
        best = None
        for t in self.hexes_in(legal):
            if self.would_end_game(state, t):
                continue
            ev, sub = self.best_attack(state, t)
            if sub and ev >= self.params.attack_min_ev and (best is None or ev > best[0]):
                best = (ev, t, sub)
        if best is None:
            return self.pass_action()
        self._plan["attack"] = (best[1], best[2])
        return best[1]

    def _d_support_attack(self, state: State, legal: list[int]) -> int | None:
        a = self.L.special(Special.STUKA)
        if a not in legal:
            return self.pass_action()
        bs, vals = self._current_setup(state)
        gain = self.battle_ev(state, bs, vals, self._support_dist(state, "stuka_attack")) - self.battle_ev(
            state, bs, vals
        )
        return a if gain >= self.params.stuka_attack_min_gain else self.pass_action()

    def _d_support_defence(self, state: State, legal: list[int]) -> int | None:
        a = self.L.special(Special.STUKA)
        if a not in legal:
            return self.pass_action()
        bs, vals = self._current_setup(state)
        gain = self.battle_ev(
            state, bs, vals, def_support=self._support_dist(state, "stuka_defence")
        ) - self.battle_ev(state, bs, vals)
        return a if gain >= self.params.stuka_defence_min_gain else self.pass_action()

    def _d_retreat(self, state: State, legal: list[int]) -> int | None:
        u = self._battle(state)["retreat_queue"][0]
        pot = self.potential(state, state.units[u].mechanized)
        return max(self.hexes_in(legal), key=lambda h: (-self.risk(state, u, h), -pot[h], -h))

    def _d_advance_unit(self, state: State, legal: list[int]) -> int | None:
        b = self._battle(state)
        if b.get("advanced"):
            return self.pass_action()
        units = self.units_in(legal)
        target = b["target"]
        mt = state.game.tables
        if mt.city[target]:  # rule 3.7: entering takes the city; infantry holds it better (rule 13.16)
            u = min(units, key=lambda u: (state.units[u].is_panzer, -state.cf(u), u))
        else:
            u = max(units, key=lambda u: (state.units[u].mechanized, state.cf(u), -u))
        if self.risk(state, u, target) > 1.5 and not mt.city[target]:
            return self.pass_action()
        return self.L.unit_action(u)

    def _d_advance_second(self, state: State, legal: list[int]) -> int | None:
        u = self._battle(state)["second"]
        pot = self.potential(state, True)
        here = state.loc[u]
        best = (-pot[here] - self.params.risk_weight * self.risk(state, u, here) + 0.01, self.pass_action())
        for h in self.hexes_in(legal):
            sc = -pot[h] - self.params.risk_weight * self.risk(state, u, h)
            if sc > best[0]:
                best = (sc, h)
        return best[1]

    def _d_reinforce_hex(self, state: State, legal: list[int]) -> int | None:
        u = state.decision_unit()
        pot = self.potential(state, state.units[u].mechanized)
        return min(self.hexes_in(legal), key=lambda h: (pot[h], h))

    def _french_routes(self, state: State) -> dict[int, float]:
        """Hexes the French columns are likely to cross next (greedy descent of their port distance)."""
        cache = self.phase_cache(state)
        hit = cache.get("routes")
        if hit is not None:
            return hit
        ports = [h for h in self.open_ports(state)]
        if not ports:
            ports = [h for h in state.game.tables.port_hexes if not state.ever_german[h]]
        dmap = kn.distance_map(state, FRENCH, ports) if ports else [0.0] * hg.N_HEX
        moves = state.game.tables.moves
        forbidden = state.game.forbidden[FRENCH]
        flow: dict[int, float] = {}
        for s in self._french(state):
            if all(state.units[u].static for u in s.known) and not s.hidden:
                continue
            h = s.hex
            budget = self.params.refugee_lookahead
            while budget > 0 and dmap[h] > 0:
                nxt = min(
                    (n for _d, n, _r in moves[h] if not forbidden[n]),
                    key=lambda n: (dmap[n], n),
                    default=None,
                )
                if nxt is None or dmap[nxt] >= dmap[h]:
                    break
                budget -= dmap[h] - dmap[nxt]
                h = nxt
                flow[h] = flow.get(h, 0.0) + 1.0 + 0.1 * budget
        cache["routes"] = flow
        return flow

    def _d_refugee_hex(self, state: State, legal: list[int]) -> int | None:
        flow = self._french_routes(state)
        hexes = self.hexes_in(legal)
        cand = [h for h in hexes if h in flow]
        if cand:
            return max(cand, key=lambda h: (flow[h], -h))
        fd = self.french_dist(state)
        return min(hexes, key=lambda h: (fd[h], h))


def make_german(
    level: str | None = None, seed: int | None = None, config: str | None = None, strict: bool = False
) -> GermanHeuristic:
    """The German bot with ``configs/ffo/bots/german_heuristic[_<level>].yaml`` (or an explicit config path)."""
    name = "german_heuristic" + (f"_{level}" if level else "")
    params = load_params(config or name, GermanParams, "german")
    return GermanHeuristic(params, seed=seed, name=name, strict=strict)
