"""Scripted bots of Springtime for Hitler, one per side: a priority over the legal actions by decision.

The Axis wins by Morale or by linking Paris and three supply zones to the east (16.1, S47); the Allies
win by lasting (16.3). So the Axis bot attacks with everything and drives towards Paris and the supply
zones; the Allied bot counterattacks with every Army Group it may, holds its ground rather than retreat
when the retreat is its choice, leads with its strongest unit, uses air support and falls back towards
Paris. (Variants tried on 40 heuristic-vs-heuristic games, seeds 0-39, Allied wins: passing 0, regroup
0, assault 0, never stopping a move 0; holding ground 8, holding + regroup 10, holding + assault 20.) Both read only public facts (the map, units, strengths,
Leaders) and the legal actions, never a hidden Event marker (S59).
"""

from __future__ import annotations

import random
from collections import deque

from ffo_env.springtime.core import actions as A
from ffo_env.springtime.core.data import ALLIED, AXIS
from ffo_env.springtime.core.game import Game
from ffo_env.springtime.core.state import State

_DIST: dict[int, tuple[int, ...]] = {}


def distance_to_objectives(game: Game) -> tuple[int, ...]:
    """Per location, the number of boundaries to Paris or a supply zone (the Axis objectives, S47)."""
    key = id(game.data)
    if key not in _DIST:
        targets = {game.paris, *game.supply_zones}
        dist = [10**6] * game.n_locs
        todo = deque(targets)
        for t in targets:
            dist[t] = 0
        while todo:
            x = todo.popleft()
            for n, _b in game.data.adjacency[x]:
                if dist[n] > dist[x] + 1:
                    dist[n] = dist[x] + 1
                    todo.append(n)
        _DIST[key] = tuple(dist)
    return _DIST[key]


def _strength(s: State, u: int) -> int:
    return s.cv(u) + s.leader_rating(u)


class HeuristicAgent:
    """The scripted bot of ``side`` (0 Allied / ``french``, 1 Axis / ``german``)."""

    def __init__(self, side: int, seed: int | None = None) -> None:
        self.side = side
        self.name = "heuristic"
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)

    def act_state(self, state: State) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        scores = [self.score(state, a) + self.rng.random() * 1e-3 for a in legal]
        return legal[max(range(len(legal)), key=scores.__getitem__)]

    def score(self, s: State, a: int) -> float:
        """The priority of legal action ``a`` at ``s`` (higher first); the expert orders its candidates by it."""
        dec = s.decision
        axis = self.side == AXIS
        dist = distance_to_objectives(s.game)
        if dec == "declare":
            if A.ASSAULT <= a < A.REDEPLOY:  # more Army Groups, more attacks (Allied counterattacks too)
                return 10.0 + bin(a - A.ASSAULT).count("1")
            return 0.0 if a == A.PASS else -1.0
        if dec == "act":
            if A.COMBAT <= a < A.UNIT:  # resolve combat where we are strongest
                loc = a - A.COMBAT
                own = sum(_strength(s, u) for u in s.units_at(loc, self.side))
                other = sum(_strength(s, u) for u in s.units_at(loc, 1 - self.side))
                return 20.0 + own - other
            if A.UNIT <= a < A.REBUILD_FULL:  # move a unit still far from the objectives
                u = a - A.UNIT
                return 10.0 + dist[s.loc[u]] / 10.0 if axis else 1.0
            return 0.0  # end the impulse last
        if dec in ("step", "regroup_dest", "retreat_dest", "refit_loc", "event_loc", "setup_place"):
            if A.LOC <= a < A.COMBAT:
                loc = a - A.LOC
                d = dist[loc]
                if axis:  # forward, into contact (not during a free setup: the Allied one is secret, 18.2)
                    return 10.0 - d + (0.5 if s.phase != "setup" and s.has(loc, ALLIED) else 0.0)
                return 10.0 - d + 0.1 * s.count(loc, ALLIED)  # Allies: towards Paris, stacked
            return 0.0 if dec == "step" and not axis else -1.0  # stop
        if dec in ("lead_att", "lead_def") and A.UNIT <= a < A.REBUILD_FULL:
            return float(_strength(s, a - A.UNIT))
        if dec in ("participants", "event_units", "regroup_pick", "redeploy_pick"):
            return 1.0 if a != A.NO else 0.0
        if dec == "retreat_pick":  # the Allies hold their ground unless made to retreat (10.5.1)
            return (1.0 if a != A.NO else 0.0) if axis else (1.0 if a == A.NO else 0.0)
        if dec in ("air_att", "air_def", "soldier_on", "event", "convert", "regroup_k"):
            return 1.0 if a == A.YES else 0.0
        if dec == "refit":  # full rebuilds first, then reduced, then flips; done last
            if A.REBUILD_FULL <= a < A.REBUILD_RED:
                return 3.0
            if A.REBUILD_RED <= a < A.AG:
                return 2.0
            return 1.0 if a != A.NO else 0.0
        if dec == "advantage":
            return 1.0 if a == A.NO else 0.0  # keep the Advantage for combat conversions
        if dec == "draw":
            return 1.0 if a == A.NO else 0.0
        return 0.0
