"""Bots of Springtime for Hitler (issue 41): ``make_agent(name, side, seed=...)``.

Names: ``random``, ``pass``, ``heuristic`` (one per side, :mod:`agents.springtime.heuristic`), ``expert``
(one per side, :mod:`agents.springtime.expert`). Every bot implements ``act_state(state) -> int``
and reads only what its side may see (``State.visible_to``, S59) besides the legal actions.
``agents.registry.make_agent(name, side, seed=..., game="springtime")`` forwards here. Trained policies:
``policy:PATH`` (a file of ``ffo train --game springtime``) and ``pretrained`` (the shipped pair),
:mod:`agents.springtime.policy`.
"""

from __future__ import annotations

from typing import Any

from agents.springtime.network_spec import NETWORK  # the training hook (agents/network_spec.py)
from agents.springtime.simple import PassAgent, RandomAgent

__all__ = ["AGENT_NAMES", "LADDER_AGENTS", "NETWORK", "make_agent"]

AGENT_NAMES = ("random", "pass", "heuristic", "expert", "pretrained")
LADDER_AGENTS = "random,pass,heuristic,expert"  # ffo ladder's default: the bots (pretrained is a policy)
SIDES = ("french", "german")


def make_agent(name: str, side: str, seed: int | None = None) -> Any:
    """The Springtime bot ``name`` playing ``side`` (``"french"`` = Allied, ``"german"`` = Axis)."""
    if side not in SIDES:
        raise ValueError(f"side must be 'french' or 'german', got {side!r}")
    if name.startswith("policy:") or name == "pretrained":
        from agents.policy_io import make_policy_agent
        from agents.springtime.policy import load_policy, load_pretrained

        load = (lambda _path: load_pretrained(side)) if name == "pretrained" else load_policy
        return make_policy_agent(name, side, seed, load)
    if name == "random":
        return RandomAgent(seed)
    if name == "pass":
        return PassAgent(seed)
    if name == "heuristic":
        from agents.springtime.heuristic import HeuristicAgent

        return HeuristicAgent(SIDES.index(side), seed)
    if name == "expert":
        from agents.springtime.expert import ExpertAgent

        return ExpertAgent(SIDES.index(side), seed)
    raise ValueError(f"unknown Springtime agent {name!r}; known agents: {', '.join(AGENT_NAMES)}")
