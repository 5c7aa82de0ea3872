"""Bots of France 1940 (issue 63 item 4): ``make_agent(name, side, seed=...)``.

Names: ``random`` (the suite's :class:`agents.base.RandomAgent`), ``pass`` (the core's ``done`` whenever it
is legal, else random), ``heuristic`` (one per side, :mod:`agents.france1940.heuristic`), ``expert`` (one
per side, :mod:`agents.france1940.expert`; the Allied expert plays session 45's defence, ``spread`` and
``safe_retreat``, since session 48: it beats the Allied heuristic on paired seeds, and on the default data
``f40-reconstruction-v3`` the two experts' historical games are inside 40-60 % German wins,
docs/france1940/bots.md), ``expert-defence`` (the same bot as ``expert``, its name of sessions 45-47, kept so
that their commands play the same games), ``expert-s41`` (session 41's Allied expert, without the defence: the
Allied ``expert`` of sessions 41-47, kept so that their results replay; as the German, the German expert) and
``expert-attack`` (German only: the German expert with session 46's attack settings, ``GERMAN_ATTACK`` of
:mod:`agents.france1940.expert`; as the Allied player it is one clear error, ``agent_sides`` says so).
Every bot implements ``act_state(state) -> int``, takes its choices from ``state.legal_actions()`` and reads
only what its side may see
(:mod:`ffo_env.france1940.core.visibility`: never the game's seed or dice). ``agents.registry.make_agent(name,
side, seed=..., game="france1940")`` forwards here; :mod:`agents.france1940.evaluate` plays them over fixed seeds.
Trained policies: ``policy:PATH`` (a file of ``ffo train --game france1940``) and ``pretrained`` (the shipped
pair), :mod:`agents.france1940.policy`; ``NETWORK`` is the game's training hook (:mod:`.network_spec`).
"""

from __future__ import annotations

from typing import Any

from agents.france1940.network_spec import NETWORK  # the training hook (agents/network_spec.py)

__all__ = ["AGENT_NAMES", "LADDER_AGENTS", "NETWORK", "agent_sides", "make_agent"]

AGENT_NAMES = (
    "random",
    "pass",
    "heuristic",
    "expert",
    "expert-defence",
    "expert-s41",
    "expert-attack",
    "pretrained",
)
LADDER_AGENTS = "random,pass,heuristic,expert"  # ffo ladder's default: the bots (pretrained is a policy)
SIDES = ("french", "german")
GERMAN_ONLY = ("expert-attack",)  # bots of one side: the German attack settings of session 46


def agent_sides(name: str) -> tuple[str, ...]:
    """The sides the bot called ``name`` can play: ``expert-attack`` the German only, every other both."""
    return ("german",) if name in GERMAN_ONLY else SIDES


def make_agent(name: str, side: str, seed: int | None = None) -> Any:
    """The France 1940 bot ``name`` playing ``side`` (``"french"`` = the Allied player, ``"german"``)."""
    if side not in SIDES:
        raise ValueError(f"side must be 'french' or 'german', got {side!r}")
    if name.startswith("policy:") or name == "pretrained":
        from agents.france1940.policy import load_policy, load_pretrained
        from agents.policy_io import make_policy_agent

        load = (lambda _path: load_pretrained(side)) if name == "pretrained" else load_policy
        return make_policy_agent(name, side, seed, load)
    if name == "random":
        from agents.france1940.simple import RandomAgent

        return RandomAgent(seed)
    if name == "pass":
        from agents.france1940.simple import PassAgent

        return PassAgent(seed)
    if name == "heuristic":
        from agents.france1940.heuristic import HeuristicAgent

        return HeuristicAgent(SIDES.index(side), seed)
    if name in ("expert", "expert-defence"):
        from agents.france1940.expert import ExpertAgent

        if side == "german":  # the defence is the Allied player's; the German plays its expert
            return ExpertAgent(1, seed)
        return ExpertAgent(0, seed, spread=True, safe_retreat=True)  # session 45's defence, `expert` since 48
    if name == "expert-s41":
        from agents.france1940.expert import ExpertAgent

        return ExpertAgent(SIDES.index(side), seed)  # the options off: session 41's bot, on either side
    if name == "expert-attack":
        from agents.france1940.expert import GERMAN_ATTACK, ExpertAgent

        if side != "german":
            raise ValueError(
                "'expert-attack' is the German expert's attack settings and plays only the German side; "
                "for the Allied player use 'expert'"
            )
        return ExpertAgent(1, seed, **GERMAN_ATTACK)
    raise ValueError(f"unknown France 1940 agent {name!r}; known agents: {', '.join(AGENT_NAMES)}")
