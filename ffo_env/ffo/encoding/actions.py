"""Action ids <-> meaning, over :class:`~ffo_env.ffo.core.actions.ActionLayout` (1607 actions).

=============  ===========  =====================================================
ids            kind         value
=============  ===========  =====================================================
0..1529        ``hex``      internal hex index (:mod:`ffo_env.ffo.core.hexgrid`)
1530..1591     ``unit``     unit index in the scenario's unit list
1592..1597     ``special``  :class:`~ffo_env.ffo.core.actions.Special` PASS .. NAVAL_BRITISH
1598..1606     ``lower``    lower the differential by 0..8 columns (rule 13.19)
=============  ===========  =====================================================

``encode_action(layout, *decode_action(layout, a)) == a`` for every id.
"""

from __future__ import annotations

from ffo_env.ffo.core.actions import N_FIXED_SPECIALS, ActionLayout, IllegalActionError, Special

__all__ = ["decode_action", "encode_action"]


def decode_action(layout: ActionLayout, a: int) -> tuple[str, int]:
    """``(kind, value)`` of action id ``a``; kinds: hex, unit, special, lower."""
    kind = layout.kind(int(a))  # raises IllegalActionError outside [0, n_actions)
    if kind == "hex":
        return "hex", int(a)
    if kind == "unit":
        return "unit", int(a) - layout.unit_base
    k = int(a) - layout.special_base
    if k >= N_FIXED_SPECIALS:
        return "lower", k - N_FIXED_SPECIALS
    return "special", int(Special(k))


def encode_action(layout: ActionLayout, kind: str, value: int) -> int:
    """Inverse of :func:`decode_action`; raises :class:`IllegalActionError` for a bad pair."""
    v = int(value)
    if kind == "hex" and 0 <= v < layout.n_hex:
        return layout.hex_action(v)
    if kind == "unit" and 0 <= v < layout.n_units:
        return layout.unit_action(v)
    if kind == "special" and 0 <= v < N_FIXED_SPECIALS:
        return layout.special(v)
    if kind == "lower" and 0 <= v < layout.n_lower:
        return layout.lower(v)
    raise IllegalActionError(f"no action ({kind!r}, {value!r}) in this layout")
