"""The two sides (a leaf module: the scenario data, the rules and the checks all name them)."""

from __future__ import annotations

from enum import IntEnum


class Side(IntEnum):
    FRENCH = 0
    GERMAN = 1

    @property
    def other(self) -> Side:
        return Side(1 - self.value)

    @property
    def agent(self) -> str:
        return "french" if self is Side.FRENCH else "german"

    @classmethod
    def of(cls, agent: str) -> Side:
        """The side an agent name plays (``"french"`` or ``"german"``); anything else is a ValueError."""
        if agent == "french":
            return cls.FRENCH
        if agent == "german":
            return cls.GERMAN
        raise ValueError(f"side must be 'french' or 'german', got {agent!r}")


# ("french", "german"): the agents' names, in Side order
SIDE_NAMES: tuple[str, ...] = tuple(s.agent for s in Side)
