"""Agents: scripted bots and loaders of trained policies, behind one interface (:mod:`agents.base`).

Names for :func:`make_agent` are listed in :mod:`agents.registry`; the evaluation
harness (``ffo eval``, :func:`agents.harness.run_tournament`) plays them against
each other.
"""

from __future__ import annotations

from agents.base import Agent, ObservationAgent, RandomAgent
from agents.registry import AGENT_NAMES, make_agent, register
from agents.simple import PassAgent

__all__ = ["AGENT_NAMES", "Agent", "ObservationAgent", "PassAgent", "RandomAgent", "make_agent", "register"]
