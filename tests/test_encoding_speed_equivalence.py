"""One input of the encoder's caches changed at a time, against the frozen reference encoder.

The encoder re-derives only what changed since its previous call: the unit data by list (status,
steps and entry_ready; loc; the flags), the stacks, the enemy planes (kept while the enemy units,
the enemy stacks and the revealed hexes are unchanged), the public hex planes part by part and the
French city supply by ``ever_german``. Each case below warms an encoder on a position, edits one of
those inputs in place, alone, and checks every view against ``ReferenceEncoder``
(``tests/test_encoding_reference.py``), then the position before the edit again.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from test_encoding_reference import _game, _reference, _same

from ffo_env.ffo.core.state import DEAD, ON_MAP, RESERVE, State
from ffo_env.ffo.encoding.observation import ObservationEncoder


def _position(setup: str, seed: int, decisions: int) -> State:
    s = _game(setup).new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        if s.is_terminal():
            break
        legal = s.legal_actions()
        s.apply_action(legal[rng.randrange(len(legal))])
    return s


def _on_map(s: State) -> list[int]:
    return [u for u, st in enumerate(s.status) if st == ON_MAP]


def _flip(name: str) -> Callable[[State, random.Random], None]:
    def edit(s: State, rng: random.Random) -> None:
        lst = getattr(s, name)
        u = rng.choice(_on_map(s))
        lst[u] = not lst[u]

    return edit


def _steps(s: State, rng: random.Random) -> None:
    u = rng.choice([u for u in _on_map(s) if s.units[u].steps == 2] or _on_map(s))
    s.steps[u] = 1 if s.steps[u] == 2 else s.steps[u]


def _entry_ready(s: State, rng: random.Random) -> None:
    reserve = [u for u, st in enumerate(s.status) if st == RESERVE]
    if reserve:
        u = rng.choice(reserve)
        s.entry_ready[u] = not s.entry_ready[u]


def _eliminate(s: State, rng: random.Random) -> None:
    # status, loc and stacks together, as the core leaves them
    u = rng.choice(_on_map(s))
    h = s.loc[u]
    s.stacks[h].remove(u)
    if not s.stacks[h]:
        del s.stacks[h]
    s.status[u] = DEAD
    s.loc[u] = -1


def _stack_order(s: State, rng: random.Random) -> None:
    # the top changes, no unit's list does (a unit that left its hex and came back)
    tall = [st for st in s.stacks.values() if len(st) >= 2]
    if tall:
        rng.choice(tall).reverse()


def _move_under(s: State, rng: random.Random) -> None:
    # a unit joins a friendly stack (loc and stacks; the flags unchanged)
    u = rng.choice(_on_map(s))
    side = s.units[u].side
    to = [h for h, st in s.stacks.items() if h != s.loc[u] and s.units[st[0]].side == side]
    if to:
        h0 = s.loc[u]
        s.stacks[h0].remove(u)
        if not s.stacks[h0]:
            del s.stacks[h0]
        h = rng.choice(to)
        s.stacks[h].insert(0, u)
        s.loc[u] = h


def _revealed(s: State, rng: random.Random) -> None:
    h = rng.choice(sorted(s.stacks))
    for side in (0, 1):
        s.revealed[side].add(h)


def _ever_german(s: State, rng: random.Random) -> None:
    cities = [int(h) for h in s.game.tables.city_hexes if not s.ever_german[h]]
    if cities:
        s.ever_german[rng.choice(cities)] = 1


def _control(s: State, rng: random.Random) -> None:
    h = rng.choice(sorted(s.stacks))
    s.control[h] ^= 1


def _refugee(s: State, rng: random.Random) -> None:
    h = rng.choice(sorted(s.stacks))
    if h in s.refugees:
        del s.refugees[h]
    else:
        s.refugees[h] = bool(rng.getrandbits(1))


def _markers(s: State, rng: random.Random) -> None:
    s.scare_unit = rng.choice(_on_map(s))
    s.replacement_unit = rng.choice(_on_map(s))


EDITS: dict[str, Callable[[State, random.Random], None]] = {
    "moved": _flip("moved"),
    "attacked": _flip("attacked"),
    "no_attack": _flip("no_attack"),
    "immobile": _flip("immobile"),
    "must_leave": _flip("must_leave"),
    "steps": _steps,
    "entry_ready": _entry_ready,
    "eliminate": _eliminate,
    "stack_order": _stack_order,
    "move_under": _move_under,
    "revealed": _revealed,
    "ever_german": _ever_german,
    "control": _control,
    "refugee": _refugee,
    "markers": _markers,
}


def _check(enc: ObservationEncoder, s: State, where: str) -> None:
    ref = _reference("random")
    for viewer in (0, 1):
        for omni in (False, True):
            got, want = enc.encode(s, viewer, omni), ref.encode(s, viewer, omni)
            assert _same(got, want), f"{where}: viewer {viewer} omniscient {omni}: " + ", ".join(
                k for k in want if got[k].tobytes() != want[k].tobytes()
            )


@pytest.mark.parametrize("edit", sorted(EDITS))
@pytest.mark.parametrize("seed,decisions", [(31, 60), (32, 250), (33, 600)])
def test_one_input_changed(edit, seed, decisions):
    s = _position("random", seed, decisions)
    if s.is_terminal() or not s.stacks:
        pytest.skip("no position to edit")
    enc = ObservationEncoder(_game("random"))
    rng = random.Random(seed)
    for _ in range(3):  # each edit on top of the last: the caches follow a chain of changes
        before = s.clone()
        _check(enc, s, f"{edit} before")
        EDITS[edit](s, rng)
        _check(enc, s, f"{edit} after")
        _check(enc, before, f"{edit} back")
        _check(enc, s, f"{edit} again")


def test_acting_side_only_along_games():
    """The AEC env's pattern: only the acting side is encoded, so a view skips the other side's
    decisions (its enemy planes and the shared data follow several changes at once)."""
    ref = _reference("random")
    for seed in (41, 42):
        g = _game("random")
        enc = ObservationEncoder(g)
        rng = random.Random(seed)
        s = g.new_initial_state(seed)
        while not s.is_terminal():
            legal = s.legal_actions()
            viewer = int(s.player)
            assert _same(enc.encode(s, viewer, legal=legal), ref.encode(s, viewer, legal=legal))
            s.apply_action(legal[rng.randrange(len(legal))])
