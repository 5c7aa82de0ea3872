"""Rollout search for the expert bots: determinize, try each candidate, play on with the heuristics, score.

One evaluation of a candidate action: a determinized copy of the position as the searching side sees it
(:func:`ffo_env.ffo.core.determinize.determinize`: hidden enemy units resampled, fresh dice), the candidate
applied, then both sides played by their heuristic bots up to the horizon, and the position scored in
French VP-equivalents (:func:`french_value`). Every candidate is scored on the same determinizations
(common random numbers), so the differences between candidates are not drowned by the dice.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from agents.ffo.heuristic_base import HeuristicBot
from ffo_env.ffo.core.determinize import determinize
from ffo_env.ffo.core.phases import ON_MAP, RESERVE
from ffo_env.ffo.core.state import State

FRENCH, GERMAN = 0, 1


@dataclass(frozen=True)
class SearchSettings:
    determinizations: int  # samples of the hidden state per decision
    horizon_turns: int  # rollouts stop this many game turns later (at the same phase), or at the end
    step_value: float  # French VP-equivalent of one French step still in play (rule 4.3: future VP)
    garrison_value: float  # French VP-equivalent of a naval garrison on the map: its port stays open (R20)
    win_bonus: float  # French VP-equivalent of a French win at the end (rule 4.3)
    time_budget: float  # seconds per decision after which no new determinization starts (0: no limit)


def french_value(state: State, s: SearchSettings) -> float:
    """Score of a position for France: VP so far, the cities it holds (counted at the end, rule 4.3),
    its steps still in play and its naval garrisons (open ports, R20), and at the end the result itself."""
    tables = state.game.scenario.tables
    v = float(state.vp)
    if state.is_terminal():
        return v + (s.win_bonus if state.winner == FRENCH else -s.win_bonus)
    city_vp = tables.vp["city_at_end"]
    v += city_vp * sum(1 for h in state.game.tables.city_hexes if state.control[h] == FRENCH)
    status, steps, units = state.status, state.steps, state.units
    for u in state.game.side_unit_list[FRENCH]:
        if units[u].static:
            v += s.garrison_value if status[u] == ON_MAP else 0.0
        elif status[u] in (ON_MAP, RESERVE):
            v += s.step_value * steps[u]
    return v


def rollout(state: State, bots: dict[int, HeuristicBot], stop_turn: int, stop_phase: int, seed: int) -> State:
    """Play ``state`` on (in place) with the heuristic ``bots`` until (turn, phase) reaches the stop."""
    for side, bot in bots.items():
        bot.reset(seed + side)
    while not state.is_terminal():
        if state.turn > stop_turn or (state.turn == stop_turn and int(state.phase) >= stop_phase):
            break
        state.apply_action(bots[int(state.current_side)].act_state(state))
    return state


def score_candidates(
    state: State,
    side: int,
    candidates: list[int],
    bots: dict[int, HeuristicBot],
    s: SearchSettings,
    rng: random.Random,
) -> list[list[float | None]]:
    """Value to ``side`` (higher is better) of each candidate in each determinization; ``None`` where the
    candidate is not legal in that sample."""
    values: list[list[float | None]] = [[] for _ in candidates]
    stop_turn, stop_phase = state.turn + s.horizon_turns, int(state.phase)
    sign = 1.0 if side == FRENCH else -1.0
    t0 = time.perf_counter()
    for k in range(s.determinizations):
        if k and s.time_budget > 0 and time.perf_counter() - t0 > s.time_budget:
            break
        world = determinize(state, side, rng)
        seed = rng.getrandbits(32)
        for i, a in enumerate(candidates):
            sim = world.clone()
            if a not in sim.legal_actions():
                values[i].append(None)  # legal in the true state but not in this sample (hidden units matter)
                continue
            sim.apply_action(a)
            rollout(sim, bots, stop_turn, stop_phase, seed)
            values[i].append(sign * french_value(sim, s))
    return values


def paired_gain(base: list[float | None], other: list[float | None]) -> tuple[float, float]:
    """Mean gain of ``other`` over ``base`` on the samples where both were played, and its standard error
    (infinite with fewer than two such samples)."""
    diffs = [o - b for b, o in zip(base, other, strict=True) if b is not None and o is not None]
    if not diffs:
        return float("-inf"), float("inf")
    mean = sum(diffs) / len(diffs)
    if len(diffs) < 2:
        return mean, float("inf")
    var = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
    return mean, math.sqrt(var / len(diffs))
