"""Helpers of the Springtime for Hitler rules tests: positions in the compact notation, action texts."""

from __future__ import annotations

from ffo_env.springtime.core import Game, RulesOptions, State
from ffo_env.springtime.core.notation import position

__all__ = ["Game", "RulesOptions", "State", "act", "legal_texts", "play_texts", "position"]


def legal_texts(s: State) -> list[str]:
    return [s.action_to_string(a) for a in s.legal_actions()]


def act(s: State, text: str) -> None:
    """Apply the legal action whose text is ``text`` (fails the test with the legal texts otherwise)."""
    texts = legal_texts(s)
    if text not in texts:
        raise AssertionError(f"{text!r} is not legal at {s.decision} ({s.current_agent}); legal: {texts}")
    s.apply_action(s.legal_actions()[texts.index(text)])


def play_texts(s: State, *texts: str) -> None:
    for t in texts:
        act(s, t)
