"""Agents: scripted bots and loaders of trained policies, behind one interface (:mod:`agents.base`)."""

from __future__ import annotations

from agents.base import Agent, ObservationAgent, RandomAgent
from agents.registry import AGENT_NAMES, make_agent

__all__ = ["AGENT_NAMES", "Agent", "ObservationAgent", "RandomAgent", "make_agent"]
