"""The expert bot of Springtime for Hitler, one per side: the heuristic with a lookahead at the choices that
shape a turn.

At an Impulse declaration (8.1: Pass, Regroup, Redeploy, Assault with which Army Groups) and at a few other
choices with lasting effect (``SEARCHED``), it tries each candidate on copies of the position and plays the
rest of the turn out with the heuristic bot on both sides (:mod:`agents.springtime.heuristic`), then scores
the position reached (:func:`evaluate`: French Morale, the Armistice risk, the combat values on the map, the
objectives the Axis holds linked to the east) and keeps the candidate with the best mean over ``samples``
playouts. Every candidate is played on the same samples (common random numbers), so the comparison between
candidates is paired. Every other decision is the heuristic's.

Fog of war (S59): before a playout the copy is *determinized* from what the side may see
(:func:`determinize`): the opponent's held marker and the container are drawn again from the markers it
may hold (:func:`ffo_env.springtime.core.visibility.possible_markers`), the private logs are left
out and the dice get a generator of the bot's own. The hidden fields of the real state
(``visibility.HIDDEN_FIELDS``) are therefore never read, and the choice does not depend on them
(``tests/test_springtime_expert.py``).
"""

from __future__ import annotations

import copy
import random

from agents.springtime.heuristic import HeuristicAgent
from ffo_env.core.dice import Dice
from ffo_env.springtime.core import actions as A
from ffo_env.springtime.core.data import ALLIED, AXIS
from ffo_env.springtime.core.flow import axis_linked
from ffo_env.springtime.core.state import FIELDS, State
from ffo_env.springtime.core.visibility import possible_markers

# the decisions searched by playouts; the others are the heuristic's
SEARCHED = ("declare",)
# the logs grow with the game and no rule reads them: a playout copy starts them empty (a deep copy of
# them was nine tenths of the cost of a search)
_LOGS = frozenset({"history", "dice_log", "morale_log", "draw_log"})
# nor are the game's seed and generator read: no rule uses the seed, and determinize gives the dice a
# generator of the bot's own (either real one would tell every future roll, S54, S59)
_COPIED = tuple(f for f in FIELDS if f not in _LOGS and f not in ("seed", "dice_state"))


def _search_copy(state: State, dice_seed: int) -> State:
    """``state.clone()`` without its logs and with dice of ``dice_seed``: the same position for play, not for
    a record."""
    s = State(state.game, _blank=True)
    for f in _COPIED:
        setattr(s, f, copy.deepcopy(getattr(state, f)))
    s.history, s.dice_log, s.morale_log, s.draw_log = [], [], [], [[], []]
    s.seed = dice_seed
    s.dice_state = Dice(dice_seed).state
    return s


WIN = 1000.0  # the value of a finished game, far above any Morale difference


def determinize(state: State, side: int, rng: random.Random) -> State:
    """A copy of ``state`` whose hidden fields (S59) are drawn from what ``side`` may see: the same public
    position, the side's own marker, a random opponent marker and container, and fresh dice."""
    opp = 1 - side
    unknown = possible_markers(state, side)  # public tracks and the side's own marker only
    rng.shuffle(unknown)
    s = _search_copy(state, rng.getrandbits(62))  # the real generator would reveal future rolls
    if state.held[opp]:  # that the opponent holds a marker is public, which one is not
        s.held[opp] = unknown.pop()
    s.container = sorted(unknown[: len(state.container)])
    return s


def evaluate(s: State) -> float:
    """The position's value for the Allies (the Axis maximises its negative)."""
    if s.is_terminal():
        return WIN if s.winner == ALLIED else -WIN
    g = s.game
    v = float(s.morale)
    if s.morale <= 5:  # rule 16.2, S48: the Armistice dr ends the game on a roll above Morale
        v -= 40.0 * max(0, 6 - s.morale) / 6.0
    cv = [0, 0]
    for u in s.on_map():
        cv[g.unit_side[u]] += s.cv(u)
    v += 0.25 * (cv[ALLIED] - cv[AXIS])
    # rule 16.1, S47: Paris and three supply zones linked to the east win for the Axis
    zones = sum(1 for z in g.supply_zones if axis_linked(s, z))
    v -= 2.0 * zones + (6.0 * zones if axis_linked(s, g.paris) else 0.0)
    return v


class ExpertAgent:
    """The expert of ``side`` (0 Allied / ``french``, 1 Axis / ``german``)."""

    def __init__(
        self,
        side: int,
        seed: int | None = None,
        samples: int = 2,
        max_candidates: int = 8,
        horizon: str = "impulse",
        searched: tuple[str, ...] = SEARCHED,
    ) -> None:
        self.side = side
        self.searched = searched
        self.horizon = horizon
        self.name = "expert"
        self.samples = samples
        self.max_candidates = max_candidates
        self.rng = random.Random(seed)
        self.base = HeuristicAgent(side, seed)
        self.rollout = (HeuristicAgent(ALLIED), HeuristicAgent(AXIS))

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)
            self.base.reset(seed)

    def act_state(self, state: State) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if state.decision in self.searched and state.player == self.side:
            return self._search(state, legal)
        return self.base.act_state(state)

    def candidates(self, state: State, legal: list[int]) -> list[int]:
        """At most ``max_candidates`` of ``legal``, the heuristic's preferred first."""
        scored = sorted(legal, key=lambda a: -self.base.score(state, a))
        if state.decision == "declare":  # every Assault, Pass, Regroup; only the best-placed Redeploys
            keep = [a for a in scored if not (A.REDEPLOY <= a < A.LOC)]
            keep += [a for a in scored if A.REDEPLOY <= a < A.LOC][:2]
            scored = [a for a in scored if a in keep]
        return scored[: self.max_candidates]

    def _search(self, state: State, legal: list[int]) -> int:
        cands = self.candidates(state, legal)
        seeds = [self.rng.getrandbits(62) for _ in range(self.samples)]
        sign = 1.0 if self.side == ALLIED else -1.0
        best, best_v = cands[0], -float("inf")
        for a in cands:
            total = 0.0
            for sd in seeds:
                s = determinize(state, self.side, random.Random(sd))
                s.apply_action(a)
                total += sign * self._playout(s, sd)
            if total > best_v + 1e-9:  # ties keep the heuristic's order
                best, best_v = a, total
        return best

    def _playout(self, s: State, seed: int) -> float:
        """Play the heuristic on both sides to the end of the turn (``horizon="turn"``) or to the side's next
        Impulse declaration in the turn (``"impulse"``); the value of the position reached."""
        turn = s.turn
        for i, bot in enumerate(self.rollout):
            bot.reset(seed + i)
        while not s.is_terminal() and s.turn == turn:
            if self.horizon == "impulse" and s.decision == "declare" and s.player == self.side:
                break
            s.apply_action(self.rollout[s.player].act_state(s))
        return evaluate(s)
