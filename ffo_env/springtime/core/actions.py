"""The fixed action space: every decision is one integer in ``[0, N_ACTIONS)`` (layout in the package docstring).

Segments (``N_LOC`` = 36 locations, ``N_UNIT`` = 35 units, ``N_AG`` = 11 Army Groups):

=============  =====  ======================================================================
segment        size   meaning
=============  =====  ======================================================================
NO             1      no / keep / stop / done / end the impulse (the decision's "decline")
YES            1      yes / use / play / discard-and-draw (the decision's "accept")
PASS           1      declare a Pass Impulse (8.1.3)
REGROUP        1      declare a Regroup Impulse (8.1.2a)
OPEN_CITY      1      Advantage: declare Paris an Open City (11.1.1)
DRAW_EXTRA     1      Advantage: Draw Extra Event (11.1.5); discarding a held marker first
ASSAULT        64     declare an Assault with the Army Groups of the bit mask (bit i = i-th AG
                      of the acting side: Allied 1 2 3 4 Be N, Axis A B C K W)
REDEPLOY       36     declare a Redeploy from a location (8.1.2b)
LOC            36     a location: a movement step, a destination, a placement
COMBAT         36     resolve combat in a location (10.0)
UNIT           35     a unit: to move, to add, to lead, to retreat, to refit (flip), Kleist
REBUILD_FULL   35     Refit: rebuild an eliminated unit at Full Strength (12.3)
REBUILD_RED    35     Refit: rebuild an eliminated unit at Reduced Strength (12.3)
AG             11     assign a Reserve unit to an activated Army Group (S26, S52)
=============  =====  ======================================================================
"""

from __future__ import annotations

from ffo_env.springtime.core.data import ALLIED_AGS, AXIS_AGS, SIDE_AGS

N_LOC = 36
N_UNIT = 35
ALL_AGS = ALLIED_AGS + AXIS_AGS
N_AG = len(ALL_AGS)

NO = 0
YES = 1
PASS = 2
REGROUP = 3
OPEN_CITY = 4
DRAW_EXTRA = 5
ASSAULT = 6
REDEPLOY = ASSAULT + 64
LOC = REDEPLOY + N_LOC
COMBAT = LOC + N_LOC
UNIT = COMBAT + N_LOC
REBUILD_FULL = UNIT + N_UNIT
REBUILD_RED = REBUILD_FULL + N_UNIT
AG = REBUILD_RED + N_UNIT
N_ACTIONS = AG + N_AG

_NAMED = {
    NO: "no",
    YES: "yes",
    PASS: "pass",
    REGROUP: "regroup",
    OPEN_CITY: "open-city",
    DRAW_EXTRA: "draw-extra",
}


class IllegalActionError(ValueError):
    """An action that is not legal at the current decision (the state is unchanged)."""


def ag_mask(side: int, ags: tuple[str, ...] | list[str] | set[str]) -> int:
    names = SIDE_AGS[side]
    return sum(1 << names.index(a) for a in ags)


def mask_ags(side: int, mask: int) -> tuple[str, ...]:
    names = SIDE_AGS[side]
    return tuple(names[i] for i in range(len(names)) if mask >> i & 1)


def describe(a: int, side: int, unit_ids: tuple[str, ...], loc_ids: tuple[str, ...]) -> str:
    """A short text of action ``a`` for the acting ``side`` (records, errors, the notation of tests)."""
    if a in _NAMED:
        return _NAMED[a]
    if ASSAULT <= a < REDEPLOY:
        return "assault " + "+".join(mask_ags(side, a - ASSAULT) or ("-",))
    if REDEPLOY <= a < LOC:
        return f"redeploy {loc_ids[a - REDEPLOY]}"
    if LOC <= a < COMBAT:
        return f"@{loc_ids[a - LOC]}"
    if COMBAT <= a < UNIT:
        return f"combat {loc_ids[a - COMBAT]}"
    if UNIT <= a < REBUILD_FULL:
        return unit_ids[a - UNIT]
    if REBUILD_FULL <= a < REBUILD_RED:
        return f"rebuild {unit_ids[a - REBUILD_FULL]} full"
    if REBUILD_RED <= a < AG:
        return f"rebuild {unit_ids[a - REBUILD_RED]} reduced"
    if AG <= a < N_ACTIONS:
        return f"AG {ALL_AGS[a - AG]}"
    return f"?{a}"


def parse(text: str, side: int, unit_ids: tuple[str, ...], loc_ids: tuple[str, ...]) -> int:
    """The action whose :func:`describe` text is ``text`` (inverse of describe)."""
    for a in range(N_ACTIONS):
        if describe(a, side, unit_ids, loc_ids) == text:
            return a
    raise IllegalActionError(f"no action reads {text!r}")
