"""Determinization: one possible true state consistent with what a side has seen (rule 3.6, R2, R3).

Search over :meth:`State.clone` must neither peek at the units hidden in enemy stacks nor at future dice.
``determinize(state, viewer, rng)`` returns a new state in which

* every enemy unit ``viewer`` cannot see (under the top unit of a stack whose hex is not in
  ``state.revealed[viewer]``, :mod:`ffo_env.ffo.core.visibility`) is dealt at random into the hidden slots of
  the enemy stacks; a unit takes its own steps and flags along. The top units, the stack sizes, own stacks,
  revealed stacks and everything off the map (its status is public) stay as they are, so ``viewer``'s view
  of every hex is unchanged;
* units the current decision names (the battle's attackers and defenders, the unit moving or entering,
  the panzer-scare and replacement units) and the units of an over-stacked hex awaiting removal stay put,
  and so do static units (rule 6: they never move, so their hex is known);
* units shuffle only among units of the same stacking class (counting or not for stacking, rule 6.1), so
  every stack keeps the count ``state_check`` holds to the stacking limits (rules 6.1, 6.2, 6.5, R8, R9);
* the dice are reseeded from ``rng`` (R37): the future rolls are a fresh sample.

It is built on the saved-state dict only (``State.to_dict`` / ``State.from_dict``), so the result passes
:func:`~ffo_env.ffo.core.state_check.check_state_dict` by construction. The logs (history, dice log) are the
past and are kept as they are: a searcher reads the state's rule queries, never the logs.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from ffo_env.ffo.core.phases import ON_MAP

if TYPE_CHECKING:
    from ffo_env.ffo.core.state import State

_BATTLE_UNIT_LISTS = ("attackers", "defenders", "retreat_queue", "advanced")


def _pinned_units(d: dict[str, Any]) -> set[int]:
    """Units the current decision names: they stay where they are."""
    pinned: set[int] = set()
    ctx = d["ctx"]
    if ctx.get("unit") is not None:
        pinned.add(int(ctx["unit"]))
    for key in ("comply", "entering"):
        pinned.update(int(u) for u in ctx.get(key) or ())
    pinned.update(int(u) for u in (ctx.get("rail") or {}))
    b = ctx.get("battle")
    if b:
        for key in _BATTLE_UNIT_LISTS:
            pinned.update(int(u) for u in b.get(key) or ())
        pinned.update(int(u) for u in (b.get("att_supplied") or {}))
        if b.get("second") is not None:
            pinned.add(int(b["second"]))
    for key in ("scare_unit", "replacement_unit"):
        if d[key] >= 0:
            pinned.add(int(d[key]))
    over = ctx.get("overstack_hex")
    if over is not None:
        pinned.update(d["stacks"].get(str(over), ()))
    return pinned


def hidden_slots(state: State, viewer: int) -> list[tuple[int, int]]:
    """``(hex, index in its stack)`` of every enemy unit ``viewer`` cannot see (rule 3.6, R3)."""
    out: list[tuple[int, int]] = []
    for h, st in state.stacks.items():
        s = state.seen_stack(viewer, h)
        if s is not None and s.hidden:
            out.extend((h, i) for i in range(len(st) - 1))  # all but the top unit
    return out


def determinize(state: State, viewer: int, rng: random.Random) -> State:
    """A new state, equal to ``state`` as ``viewer`` sees it, with its hidden part resampled from ``rng``.

    ``state`` itself is not changed. The same ``rng`` state gives the same result."""
    from ffo_env.ffo.core.state import State

    if viewer not in (0, 1):
        raise ValueError(f"determinize: viewer must be 0 (French) or 1 (German), got {viewer!r}")
    d = dict(state.to_dict())
    # the dict may share lists with the state: copy what is changed here
    d["loc"] = list(d["loc"])
    d["stacks"] = {h: list(st) for h, st in d["stacks"].items()}
    pinned = _pinned_units(d)
    units = state.units
    free = state.game.unit_free_stacking
    stacks: dict[str, list[int]] = d["stacks"]
    # slots grouped by stacking class, so each stack keeps its count for the stacking limits
    classes: dict[bool, list[tuple[str, int]]] = {False: [], True: []}
    for h, i in sorted(hidden_slots(state, viewer)):
        u = stacks[str(h)][i]
        if u in pinned or units[u].static or d["status"][u] != ON_MAP:
            continue
        classes[bool(free[u])].append((str(h), i))
    for slots in classes.values():
        # rule 3.6, R3: sorted first, so two states that look the same to the viewer give the same sample
        drawn = sorted(stacks[key][i] for key, i in slots)
        rng.shuffle(drawn)
        for (key, i), u in zip(slots, drawn, strict=True):
            stacks[key][i] = u
            d["loc"][u] = int(key)
    d["dice_state"] = str(rng.getrandbits(64))  # R37: future dice are unknown
    return State.from_dict(state.game, d)
