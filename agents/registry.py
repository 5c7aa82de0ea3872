"""Agents by name, for the command line and the evaluation harness."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.base import RandomAgent

_FACTORIES: dict[str, Callable[..., Any]] = {
    "random": lambda side, seed=None, **kw: RandomAgent(seed=seed),
}
AGENT_NAMES: list[str] = sorted(_FACTORIES)


def register(name: str, factory: Callable[..., Any]) -> None:
    _FACTORIES[name] = factory
    if name not in AGENT_NAMES:
        AGENT_NAMES.append(name)
        AGENT_NAMES.sort()


def make_agent(name: str, side: str, seed: int | None = None, **kwargs: Any) -> Any:
    """Build the agent called ``name`` to play ``side`` (``"french"`` or ``"german"``)."""
    if side not in ("french", "german"):
        raise ValueError(f"side must be 'french' or 'german', got {side!r}")
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(AGENT_NAMES)}")
    return factory(side, seed=seed, **kwargs)
