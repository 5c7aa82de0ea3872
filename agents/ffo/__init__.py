"""France Fights On's agents by name (issue 62: its bots live in ``agents/ffo/``); the suite's registry,
:func:`agents.registry.make_agent` with ``game="ffo"`` (the default), forwards here.

Names (``make_agent(name, side, seed)``):

=================================  ============================================================
``random``                         uniform over the legal actions (either side)
``pass``                           PASS whenever legal, else the first legal action (either side)
``heuristic``                      the scripted bot of the side asked for
``heuristic:<level>``              the same with ``configs/ffo/bots/<side>_heuristic_<level>.yaml``
                                   (levels shipped: ``cautious``, ``aggressive``)
``pretrained``                     the trained policy shipped with the package for the side asked for
                                   (``agents/ffo/pretrained_policies/``; see :mod:`agents.ffo.pretrained`)
``policy:PATH``                    a trained policy file (``ffo train`` writes them)
``lookahead:pretrained``,          that policy with a one-step lookahead on its own value head at its
``lookahead:policy:PATH``          uncertain choices (:mod:`agents.ffo.lookahead`)
``french_heuristic[_<level>]``     the scripted French bot (French side only)
``german_heuristic[_<level>]``     the scripted German bot (German side only)
``expert``                         the side's expert bot: tuned scripted bot, lookahead where it pays
                                   (:mod:`agents.ffo.expert`, ``configs/ffo/bots/expert/``)
``expert:<level>``                 the same at another level (``fast``, ``strong``)
``french_expert``, ``german_expert`` the expert of one side (that side only)
=================================  ============================================================

Every ``configs/ffo/bots/<side>_heuristic*.yaml`` file is registered under its file name.
``make_agent(..., config=PATH)`` gives a heuristic bot an explicit parameter file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.base import RandomAgent
from agents.ffo.botconfig import available_configs
from agents.ffo.network_spec import NETWORK  # the training hook (agents/network_spec.py)
from agents.ffo.simple import PassAgent
from agents.policy_files import peek_metadata
from ffo_env.ffo.core.sides import SIDE_NAMES

__all__ = [
    "AGENT_NAMES",
    "LADDER_AGENTS",
    "NETWORK",
    "PassAgent",
    "agent_sides",
    "is_agent_name",
    "make_agent",
    "register",
]

_FACTORIES: dict[str, Callable[..., Any]] = {}
_SIDES: dict[str, tuple[str, ...]] = {}  # the sides an agent can play, by name
AGENT_NAMES: list[str] = []
LADDER_AGENTS = "random,pass,heuristic:cautious,heuristic,heuristic:aggressive"  # ffo ladder's default


def is_agent_name(name: object) -> bool:
    """A registered name, or ``policy:PATH`` (whether PATH loads is checked when the agent is made)."""
    if not isinstance(name, str):
        return False
    if name.startswith("lookahead:"):
        inner = name.removeprefix("lookahead:")
        return inner == "pretrained" or (inner.startswith("policy:") and len(inner) > len("policy:"))
    return name in AGENT_NAMES or (name.startswith("policy:") and len(name) > len("policy:"))


def register(name: str, factory: Callable[..., Any], sides: tuple[str, ...] = SIDE_NAMES) -> None:
    """Register ``factory(side, seed=None, **kwargs) -> agent`` under ``name``, an agent that plays ``sides``."""
    _FACTORIES[name] = factory
    _SIDES[name] = sides
    if name not in AGENT_NAMES:
        AGENT_NAMES.append(name)
        AGENT_NAMES.sort()


def agent_sides(name: str) -> tuple[str, ...]:
    """The sides the agent called ``name`` can play: a ``policy:PATH`` the side its metadata names (both if the
    metadata cannot be read: making the agent then says what is wrong), a registered name the sides it was
    registered with."""
    if name.startswith("policy:"):
        meta = peek_metadata(name.split(":", 1)[1])
        side = meta.get("side") if meta is not None else None
        return (side,) if side in SIDE_NAMES else SIDE_NAMES
    return _SIDES.get(name, SIDE_NAMES)


def _heuristic(side: str, level: str | None, seed: int | None, **kw: Any) -> Any:
    if side == "french":
        from agents.ffo.french_heuristic import make_french

        return make_french(level, seed=seed, **kw)
    from agents.ffo.german_heuristic import make_german

    return make_german(level, seed=seed, **kw)


def _pretrained(side: str, seed: int | None) -> Any:
    from agents.ffo.pretrained import load_pretrained

    agent = load_pretrained(side)
    agent.reset(seed)
    return agent


def _expert(side: str, level: str | None, seed: int | None, only: str | None = None, **kw: Any) -> Any:
    from agents.ffo.expert import make_expert

    if only is not None and side != only:
        raise ValueError(
            f"agent {only}_expert plays the {only} side only, not {side!r}; use 'expert' to pick the side's bot"
        )
    return make_expert(side, level, seed=seed, **kw)


def _side_bot(bot_side: str, level: str | None) -> Callable[..., Any]:
    def factory(side: str, seed: int | None = None, **kw: Any) -> Any:
        if side != bot_side:
            raise ValueError(
                f"agent {bot_side}_heuristic{'_' + level if level else ''} plays the {bot_side} side only,"
                f" not {side!r}; use 'heuristic' to pick the side's bot"
            )
        return _heuristic(side, level, seed, **kw)

    return factory


def _level_of(cfg: str, side: str) -> str | None:
    rest = cfg[len(f"{side}_heuristic") :]
    return rest[1:] if rest.startswith("_") else None


register("random", lambda side, seed=None, **kw: RandomAgent(seed=seed))
register("pass", lambda side, seed=None, **kw: PassAgent(seed=seed))
register("pretrained", lambda side, seed=None, **kw: _pretrained(side, seed))
register("heuristic", lambda side, seed=None, **kw: _heuristic(side, None, seed, **kw))
register("expert", lambda side, seed=None, **kw: _expert(side, None, seed, **kw))
for _elvl in ("fast", "strong"):
    register(f"expert:{_elvl}", lambda side, seed=None, _l=_elvl, **kw: _expert(side, _l, seed, **kw))
for _eside in SIDE_NAMES:
    register(
        f"{_eside}_expert",
        lambda side, seed=None, _s=_eside, **kw: _expert(side, None, seed, _s, **kw),
        (_eside,),
    )
for _cfg in available_configs():
    for _side in SIDE_NAMES:
        if _cfg == f"{_side}_heuristic" or _cfg.startswith(f"{_side}_heuristic_"):
            _lvl = _level_of(_cfg, _side)
            register(_cfg, _side_bot(_side, _lvl), (_side,))
            if _lvl:
                register(
                    f"heuristic:{_lvl}",
                    lambda side, seed=None, _l=_lvl, **kw: _heuristic(side, _l, seed, **kw),
                )


def make_agent(name: str, side: str, seed: int | None = None, **kwargs: Any) -> Any:
    """Build the agent called ``name`` to play ``side`` (``"french"`` or ``"german"``).

    ``policy:PATH`` loads a trained policy (``agents.ffo.policy.load_policy``); ``lookahead:...`` wraps
    ``pretrained`` or ``policy:PATH`` in a one-step lookahead (:mod:`agents.ffo.lookahead`)."""
    if side not in SIDE_NAMES:
        raise ValueError(f"side must be 'french' or 'german', got {side!r}")
    if name.startswith("lookahead:"):
        from agents.ffo.lookahead import LookaheadAgent

        inner = name.removeprefix("lookahead:")
        if not (inner == "pretrained" or inner.startswith("policy:")):
            raise ValueError(f"{name}: expected lookahead:pretrained or lookahead:policy:PATH")
        return LookaheadAgent(make_agent(inner, side, seed=seed), seed=seed)
    if name.startswith("policy:"):
        # a trained policy file: "policy:runs/<run>/policies/french.pt"
        from agents.ffo.flat_policy import is_flat_policy, load_flat_policy
        from agents.policy_io import make_policy_agent

        path = name.split(":", 1)[1]
        if (peek_metadata(path) or {}).get("game") == "springtime":  # issue 41: the other game's file
            raise ValueError(f"{name}: a Springtime for Hitler policy; play it with --game springtime")
        if is_flat_policy(path):  # an MLP over the flat observation (ffo train --backend rllib)
            return make_policy_agent(name, side, seed, load_flat_policy)
        from agents.ffo.policy import load_policy

        return make_policy_agent(name, side, seed, load_policy)
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(AGENT_NAMES)}")
    return factory(side, seed=seed, **kwargs)
