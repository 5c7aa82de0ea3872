"""Helpers of the France 1940 rule tests: positions in the compact notation, actions by their text."""

from __future__ import annotations

from ffo_env.france1940.core import actions as A
from ffo_env.france1940.core.notation import position
from ffo_env.france1940.core.options import RulesOptions
from ffo_env.france1940.core.state import State


def act(s: State, *texts: str) -> None:
    """Apply actions given by their text (``@640``, ``DE-INF-01``, ``done``, ``exit``, ``cap``)."""
    for t in texts:
        s.apply_action(A.parse(t, s.game.unit_ids))


def legal_texts(s: State) -> list[str]:
    return [s.action_to_string(a) for a in s.legal_actions()]


def attack(
    s: State, target: int, attackers: list[str], designate: list[str], support: str | None = None
) -> None:
    """Declare and commit one attack, then the defender's designation (the die then rolls)."""
    act(s, f"@{target}")
    for t in attackers:  # a forced choice (one candidate, or "done" alone) is applied automatically
        if s.decision == "attackers" and s.cmb is not None and s.game.unit_index(t) not in s.cmb["attackers"]:
            act(s, t)
    if s.decision == "attackers":
        act(s, "done")
    if s.decision == "support":
        act(s, support or "done")
    if s.decision == "designate":
        for t in designate:
            if (
                s.decision == "designate"
                and s.cmb is not None
                and s.game.unit_index(t) not in s.cmb["designated"]
            ):
                act(s, t)
        if s.decision == "designate":
            act(s, "done")


def settle(s: State, stop: str = "attack") -> None:
    """Apply the first legal action until the decision ``stop`` (retreats, losses, CA targets...)."""
    while not s.is_terminal() and s.decision != stop:
        s.apply_action(s.legal_actions()[0])


def pos(text: str, **opts: object) -> State:
    return position(text, RulesOptions(**opts))  # type: ignore[arg-type]
