"""The rules core of Springtime for Hitler (pure Python + numpy; see the package docstring)."""

from ffo_env.springtime.core.game import ENGINE_VERSION, Game, RulesOptions
from ffo_env.springtime.core.state import State

__all__ = ["ENGINE_VERSION", "Game", "RulesOptions", "State"]
