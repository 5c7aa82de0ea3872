"""A policy with a one-step lookahead on its own value head (issue 39): ``lookahead:<policy>``.

At a decision of the kinds in ``kinds`` where the policy's two most probable legal actions are closer than
``margin``, the agent applies each of the policy's ``top_k`` most probable legal actions to one copy of the
position and reads the policy's value head there, from its own side's observation; the candidate whose
value exceeds the policy's own choice by at least ``min_gain`` is played instead. Everywhere else it plays
the policy's argmax. This is the greedy policy-improvement step of policy iteration with the critic as the
action value: the policy proposes, its value head judges, no bot is consulted.

Only what the side may see (rule 3.6, R3, R37): the copy is made by :func:`ffo_env.ffo.core.determinize.determinize`
from the agent's own generator, so the hidden enemy units are dealt anew and the dice are a fresh sample.
Applying a candidate to the true position would leak both: declaring an attack reveals the defending stack
(R3), and an action after which the core resolves combat rolls the game's own future dice.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from ffo_env.ffo.core.phases import Decision
from ffo_env.ffo.core.sides import Side

PREFIX = "lookahead:"
KINDS = frozenset(d.name.lower() for d in Decision if 0 < d.value < 90)
TERMINAL_VALUE = 10.0  # a candidate that ends the game: beyond any value the head gives (its returns are +-1)


@dataclass(frozen=True)
class LookaheadSettings:
    """Where the agent looks ahead and when the value head's verdict replaces the policy's choice."""

    kinds: tuple[str, ...] = ("move_dest", "attack_target", "attack_add")
    margin: float = 0.5  # look ahead only where p(top) - p(second) < margin
    top_k: int = 3  # candidates: the policy's top_k legal actions
    min_gain: float = 0.01  # value units (the head's scale: a discounted +1 win / -1 loss)

    def __post_init__(self) -> None:
        bad = sorted(set(self.kinds) - KINDS)
        if bad:
            raise ValueError(f"lookahead: unknown decision {bad[0]!r}; known: {', '.join(sorted(KINDS))}")
        if not 0.0 <= self.margin <= 1.0:
            raise ValueError(f"lookahead: margin must be in [0, 1], got {self.margin!r}")
        if isinstance(self.top_k, bool) or not isinstance(self.top_k, int) or not 2 <= self.top_k <= 16:
            raise ValueError(f"lookahead: top_k must be an integer in [2, 16], got {self.top_k!r}")
        if not 0.0 <= self.min_gain <= 100.0:
            raise ValueError(f"lookahead: min_gain must be in [0, 100], got {self.min_gain!r}")


class LookaheadAgent:
    """``policy_agent`` (an :class:`agents.ffo.policy.PolicyAgent`) with the lookahead of the module doc.

    ``act_state`` returns one of ``state.legal_actions()`` and never changes ``state``; ``label(state)``
    returns that choice and the policy's own argmax. ``searched`` and ``changed`` count the decisions it
    looked ahead at and those where the value head overruled the policy."""

    def __init__(
        self, policy_agent: Any, settings: LookaheadSettings | None = None, seed: int | None = None
    ) -> None:
        if not hasattr(policy_agent, "policy") or not hasattr(policy_agent.policy, "predict_values"):
            raise ValueError(f"{PREFIX}: {getattr(policy_agent, 'name', policy_agent)!r} has no value head")
        self.policy_agent = policy_agent
        self.side = policy_agent.side
        self.viewer = int(Side.of(policy_agent.side))
        self.settings = settings or LookaheadSettings()
        self.kinds = frozenset(self.settings.kinds)
        self.rng = random.Random(seed)
        self.name = f"{PREFIX}{policy_agent.name}"
        self.searched = 0
        self.changed = 0

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)
        self.policy_agent.reset(seed)

    def _inputs(self, state: Any, legal: list[int]) -> tuple[dict[str, Any], np.ndarray]:
        import torch as th

        from ffo_env.ffo.encoding.observation import encoder_for

        enc = encoder_for(state.game)
        obs = enc.encode(state, self.viewer, legal=legal)
        return {k: th.as_tensor(np.asarray(v))[None] for k, v in obs.items()}, enc.mask(state, legal)

    def probabilities(self, state: Any, legal: list[int]) -> np.ndarray:
        """The policy's probabilities of ``legal`` (in that order) at ``state``, as its side sees it."""
        return np.asarray(self.policy_agent.probabilities(state, legal))

    def value(self, state: Any) -> float:
        """The value head's estimate at ``state`` from the agent's side's observation (a finished game: its
        result, +-``TERMINAL_VALUE``)."""
        import torch as th

        from agents.torch_threads import torch_threads

        if state.is_terminal():
            return TERMINAL_VALUE if state.winner == self.viewer else -TERMINAL_VALUE
        obs, _ = self._inputs(state, state.legal_actions())
        with torch_threads(self.policy_agent.threads), th.inference_mode():
            return float(self.policy_agent.policy.predict_values(obs)[0, 0])

    def candidate_values(self, state: Any, candidates: list[int]) -> list[float]:
        """The value after each candidate, on one determinized copy shared by all (common random numbers);
        ``-inf`` for a candidate the copy does not allow."""
        from ffo_env.ffo.core.determinize import determinize

        world = determinize(state, self.viewer, self.rng)  # rule 3.6, R3, R37: only what the side may see
        out = []
        for a in candidates:
            sim = world.clone()
            if a not in sim.legal_actions():
                out.append(float("-inf"))
                continue
            sim.apply_action(a)
            out.append(self.value(sim))
        return out

    def label(self, state: Any) -> tuple[int, int]:
        """``(chosen action, the policy's argmax)`` at ``state``."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0], legal[0]
        probs = self.probabilities(state, legal)
        order = np.argsort(-probs, kind="stable")
        own = legal[int(order[0])]
        s = self.settings
        if state.decision.name.lower() not in self.kinds or probs[order[0]] - probs[order[1]] >= s.margin:
            return own, own
        self.searched += 1
        cands = [legal[int(i)] for i in order[: s.top_k]]
        values = self.candidate_values(state, cands)
        best = max(range(len(cands)), key=lambda i: (values[i], -i))
        if best and values[best] - values[0] >= s.min_gain:
            self.changed += 1
            return cands[best], own
        return own, own

    def act_state(self, state: Any) -> int:
        return self.label(state)[0]
