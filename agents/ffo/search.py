"""Policy + search: the policy-improvement operator of expert iteration (issue 39).

At a decision the policy is unsure of, the agent compares the policy's most probable legal actions by
short rollouts from determinized copies of the position, and plays (or, as a teacher, labels) the one
the rollouts score best when its gain over the policy's own choice is clear; everywhere else it plays the
policy's choice. The policy's play proposes, the rollouts judge: what the student then learns from these
labels comes from its own candidates, not from a bot's choice.

One search (:func:`agents.ffo.expert_search.score_candidates`, the expert bots' rollout search):

* the position as the searching side sees it is resampled ``determinizations`` times
  (:func:`ffo_env.ffo.core.determinize.determinize`: hidden enemy units dealt anew, fresh dice; rule 3.6, R3,
  R37), from a generator seeded by the agent's own generator, never from the true hidden state;
* every candidate is applied in each sample (common random numbers) and both sides play on for
  ``horizon_turns`` game turns (at least the rest of the game with 20), and the position is scored in French
  VP-equivalents (:func:`agents.ffo.expert_search.french_value`). Who plays on is ``rollout``: ``bots`` (the
  default), fast scripted bots (own side: its expert's tuned bot; the opponent: its default heuristic), or
  ``policy``, the policy itself (its argmax) for its own side and a fresh ``opponent_model`` agent, seeded
  alike for every candidate of a sample, for the other: the value of a choice under the policy's own
  follow-up, which the bots' follow-up is not;
* the best alternative replaces the policy's choice only for a mean paired gain of at least ``min_gain``
  and ``min_z`` paired standard errors.

Searched decisions: the decision kinds in ``decisions`` where the policy's top probability exceeds the
second by at most ``margin`` (1.0: every such decision with a choice). Candidates are the policy's
``top_k`` most probable legal actions, its argmax first, so an illegal action is never scored or played.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.ffo.expert_search import SearchSettings, paired_gain, score_candidates
from agents.ffo.heuristic_base import HeuristicBot
from ffo_env.ffo.core.phases import Decision
from ffo_env.ffo.core.sides import Side
from ffo_env.ffo.core.state import State

DECISION_NAMES = frozenset(d.name.lower() for d in Decision if 0 < d.value < 90)
ROLLOUTS = ("bots", "policy")


@dataclass(frozen=True)
class TeacherSettings:
    """How the search teacher picks, scores and accepts alternatives to the policy's choice."""

    decisions: tuple[str, ...] = ("attack_target", "evacuate", "german_order")
    margin: float = 1.0  # search only where p(top) - p(second) <= margin
    top_k: int = 2  # candidates: the policy's top_k legal actions
    determinizations: int = 4
    horizon_turns: int = 2
    min_gain: float = 1.0
    min_z: float = 1.0
    step_value: float = 0.5
    garrison_value: float = 3.0
    win_bonus: float = 5.0
    rollout: str = "bots"  # who plays on in a rollout: 'bots' or 'policy' (module doc)
    opponent_model: str = "heuristic"  # with rollout 'policy': the agent playing the other side

    def __post_init__(self) -> None:
        bad = sorted(set(self.decisions) - DECISION_NAMES)
        if bad:
            raise ValueError(
                f"search teacher: unknown decision {bad[0]!r}; known: {', '.join(sorted(DECISION_NAMES))}"
            )
        if not 0.0 <= self.margin <= 1.0:
            raise ValueError(f"search teacher: margin must be in [0, 1], got {self.margin!r}")
        if not 2 <= self.top_k <= 16:
            raise ValueError(f"search teacher: top_k must be in [2, 16], got {self.top_k!r}")
        if not 1 <= self.determinizations <= 64:
            raise ValueError(
                f"search teacher: determinizations must be in [1, 64], got {self.determinizations!r}"
            )
        if not 0 <= self.horizon_turns <= 20:
            raise ValueError(f"search teacher: horizon_turns must be in [0, 20], got {self.horizon_turns!r}")
        if self.rollout not in ROLLOUTS:
            raise ValueError(
                f"search teacher: rollout must be one of {', '.join(ROLLOUTS)}, got {self.rollout!r}"
            )
        from agents.registry import is_agent_name

        if not is_agent_name(self.opponent_model):
            raise ValueError(f"search teacher: opponent_model {self.opponent_model!r} is not an agent name")

    def search_settings(self) -> SearchSettings:
        return SearchSettings(
            self.determinizations,
            self.horizon_turns,
            self.step_value,
            self.garrison_value,
            self.win_bonus,
            0.0,
        )


def rollout_bots(side: int, state: State) -> dict[int, HeuristicBot]:
    """The fast bots the rollouts play in ``state``'s game: the side's expert's tuned bot (the parameters
    tuned for the game's data version, as the expert plays them) and the opponent's default heuristic."""
    expert = _expert(side)
    key: str | None = state.game.scenario.version
    if key not in expert._rollout_bots:
        key = None
    return expert._rollout_bots[key]


_EXPERTS: dict[int, Any] = {}


def _expert(side: int) -> Any:
    if side not in _EXPERTS:
        from agents.ffo.expert import make_expert

        _EXPERTS[side] = make_expert("french" if side == 0 else "german", seed=0)
    return _EXPERTS[side]


@dataclass
class SearchStats:
    decisions: int = 0
    searched: int = 0
    changed: int = 0
    seconds: float = 0.0
    by_kind: dict[str, list[int]] = field(default_factory=dict)  # kind -> [searched, changed]

    def as_dict(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions,
            "searched": self.searched,
            "changed": self.changed,
            "search_seconds": round(self.seconds, 2),
            "by_kind": {k: {"searched": v[0], "changed": v[1]} for k, v in sorted(self.by_kind.items())},
        }


class PolicySearchAgent:
    """A policy agent (:class:`agents.ffo.policy.PolicyAgent`) whose uncertain choices are checked by search.

    ``act_state`` returns one of ``state.legal_actions()``; ``label(state)`` returns that choice and the
    policy's own argmax. It reads the state only through the policy's observation of its side and
    through determinized copies (module doc), so two states that look the same to its side give the same
    choice for the same seed."""

    def __init__(self, policy_agent: Any, settings: TeacherSettings, seed: int | None = None) -> None:
        self.policy_agent = policy_agent
        self.side = int(Side.of(policy_agent.side))
        self.settings = settings
        self.search_settings = settings.search_settings()
        self.decisions = frozenset(settings.decisions)
        self.rng = random.Random(seed)
        self.name = f"search:{policy_agent.name}"
        self.stats = SearchStats()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)
        self.policy_agent.reset(seed)

    def probabilities(self, state: State, legal: list[int]) -> np.ndarray:
        """The policy's probabilities of ``legal`` (in that order) at ``state``, as its side sees it."""
        return np.asarray(self.policy_agent.probabilities(state, legal))

    def label(self, state: State) -> tuple[int, int]:
        """``(chosen action, the policy's argmax)`` at ``state``."""
        legal = state.legal_actions()
        self.stats.decisions += 1
        if len(legal) == 1:
            return legal[0], legal[0]
        probs = self.probabilities(state, legal)
        order = np.argsort(-probs, kind="stable")
        choice = legal[int(order[0])]
        kind = state.decision.name.lower()
        if kind not in self.decisions or probs[order[0]] - probs[order[1]] > self.settings.margin:
            return choice, choice
        cands = [legal[int(i)] for i in order[: self.settings.top_k]]
        t0 = time.perf_counter()
        # the samples' seed comes from the agent's own generator: reproducible, and blind to hidden units
        rng = random.Random(self.rng.getrandbits(64))
        if self.settings.rollout == "policy":
            values = self._policy_rollouts(state, cands, rng)
        else:
            values = score_candidates(
                state, self.side, cands, rollout_bots(self.side, state), self.search_settings, rng
            )
        self.stats.seconds += time.perf_counter() - t0
        self.stats.searched += 1
        per = self.stats.by_kind.setdefault(kind, [0, 0])
        per[0] += 1
        gains = [paired_gain(values[0], v) for v in values]
        best = max(range(1, len(cands)), key=lambda i: (gains[i][0], -i))
        mean, se = gains[best]
        s = self.settings
        if mean >= s.min_gain and (s.min_z == 0 or mean >= s.min_z * se):
            self.stats.changed += 1
            per[1] += 1
            return cands[best], choice
        return choice, choice

    def act_state(self, state: State) -> int:
        return self.label(state)[0]

    def _policy_rollouts(
        self, state: State, cands: list[int], rng: random.Random
    ) -> list[list[float | None]]:
        """:func:`agents.ffo.expert_search.score_candidates` with the policy playing on for its side: value to
        the side of each candidate in each determinization (None where it is not legal in that sample)."""
        from agents.ffo.expert_search import french_value
        from agents.registry import make_agent
        from ffo_env.ffo.core.determinize import determinize

        s = self.search_settings
        values: list[list[float | None]] = [[] for _ in cands]
        stop_turn, stop_phase = state.turn + s.horizon_turns, int(state.phase)
        sign = 1.0 if self.side == 0 else -1.0
        other = "german" if self.side == 0 else "french"
        for _ in range(s.determinizations):
            world = determinize(state, self.side, rng)  # rule 3.6, R3, R37: only what the side may see
            seed = rng.getrandbits(32)
            for i, a in enumerate(cands):
                sim = world.clone()
                if a not in sim.legal_actions():
                    values[i].append(None)
                    continue
                sim.apply_action(a)
                opponent = make_agent(
                    self.settings.opponent_model, other, seed=seed
                )  # the same for every candidate
                while not sim.is_terminal():
                    if sim.turn > stop_turn or (sim.turn == stop_turn and int(sim.phase) >= stop_phase):
                        break
                    if int(sim.current_side) != self.side:
                        sim.apply_action(opponent.act_state(sim))
                        continue
                    legal = sim.legal_actions()
                    sim.apply_action(legal[0] if len(legal) == 1 else self.policy_agent.act_state(sim))
                values[i].append(sign * french_value(sim, s))
        return values
