"""The fixed action space: every decision is one integer in ``[0, N_ACTIONS)``.

=========  =====  ==================================================================================
segment    size   meaning
=========  =====  ==================================================================================
DONE       1      no / stop / done / end the phase (the decision's "decline")
YES        1      yes (reserved for yes/no questions)
EXIT       1      leave the map by the south edge ([R Off-Map Movement], F16)
CAP        1      air mission: Combat Air Patrol (F34)
INTERDICT  1      air mission: Interdiction (F33)
(spare)    3
HEX        1280   a hex by its printed number: ``HEX - 1 + n`` (placement, a step, a target, a retreat)
UNIT       192    a unit by its index in the game's roster (``Game.units``)
=========  =====  ==================================================================================
"""

from __future__ import annotations

from ffo_env.france1940.core.hexgrid import N_HEXES

DONE = 0
YES = 1
EXIT = 2
CAP = 3
INTERDICT = 4
HEX = 8  # hex n is action HEX - 1 + n
UNIT = HEX + N_HEXES  # 1288
MAX_UNITS = 192
N_ACTIONS = UNIT + MAX_UNITS  # 1480

_NAMED = {DONE: "done", YES: "yes", EXIT: "exit", CAP: "cap", INTERDICT: "interdict"}


class IllegalActionError(ValueError):
    """An action that is not legal at the current decision (the state is unchanged)."""


def hex_action(n: int) -> int:
    return HEX - 1 + n


def action_hex(a: int) -> int:
    return a - HEX + 1


def unit_action(u: int) -> int:
    return UNIT + u


def describe(a: int, unit_ids: tuple[str, ...]) -> str:
    """A short text of action ``a`` (records, errors, tests); :func:`parse` inverts it."""
    if a in _NAMED:
        return _NAMED[a]
    if HEX <= a < UNIT:
        return f"@{action_hex(a)}"
    if UNIT <= a < UNIT + len(unit_ids):
        return unit_ids[a - UNIT]
    return f"?{a}"


def parse(text: str, unit_ids: tuple[str, ...]) -> int:
    """The action whose :func:`describe` text is ``text``."""
    for a, name in _NAMED.items():
        if name == text:
            return a
    if text.startswith("@") and text[1:].isdigit() and 1 <= int(text[1:]) <= N_HEXES:
        return hex_action(int(text[1:]))
    if text in unit_ids:
        return UNIT + unit_ids.index(text)
    raise IllegalActionError(f"no action reads {text!r}")
