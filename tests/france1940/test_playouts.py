"""Seeded random playouts to the end with the invariants checked at every decision; determinism; speed."""

from __future__ import annotations

import random
import time
from collections import deque

import numpy as np
import pytest

from ffo_env.france1940.core.actions import N_ACTIONS, IllegalActionError
from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.hexgrid import NEIGHBOURS, bit_hexes
from ffo_env.france1940.core.options import RulesOptions
from ffo_env.france1940.core.state import ELIM, MAP, State
from ffo_env.france1940.core.state_io import state_to_dict


def naive_supply_region(s: State, side: int, home: str) -> list[int]:
    """F18 as the rule reads, hex by hex: from the supply edge through playable hexes free of enemy units and
    enemy ZOC, not (German) into undestroyed fortified hexes, not (Allied) into closed neutral countries."""
    blocked = set(s.enemy_zoc_for_supply(side)) | {s.hex[u] for u in s.on_map(1 - side)}

    def good(h: int) -> bool:
        if h in blocked or not s.game.data.playable(h):
            return False
        return not s.fort_active(h) if side == GERMAN else not s.closed_to_home(home, h)

    d = s.game.data
    edge = d.german_edge if side == GERMAN else d.allied_south_edge + d.allied_west_edge
    seen = {h for h in edge if good(h)}
    q = deque(seen)
    while q:
        for m in NEIGHBOURS[q.popleft()]:
            if m not in seen and good(m):
                seen.add(m)
                q.append(m)
    return sorted(seen)


def check_invariants(s: State) -> None:
    d = s.game.data
    per_hex: dict[int, list[int]] = {}
    for u, st in enumerate(s.status):
        if st == MAP:
            h = s.hex[u]
            assert d.playable(h), (s.uid(u), h)  # never off the map, at sea, flooded or in the notch (F4)
            per_hex.setdefault(h, []).append(u)
            if s.side_of(u) == GERMAN:
                assert not s.fort_active(h), (s.uid(u), h)  # F25
        else:
            assert s.hex[u] == 0
    # the state's index of who is where (kept across moves) is what a rebuild from the counters gives
    s.occupants(0)  # builds the index if the last change dropped it
    assert {h: s.occupants(h) for h in per_hex} == per_hex
    assert s._occ is not None and set(s._occ) == set(per_hex) == set(s._side_at) == set(s._stack)
    for h, us in per_hex.items():
        assert s.side_at(h) == s.side_of(us[0])
        assert s.stack_count(h) == sum(0 if s.spec(u).is_para else 1 for u in us)
    if len(s.history) % 50 == 0:  # the supply trace (bit sets, F18) against the rule read hex by hex
        for side, home in ((GERMAN, "G"), (ALLIED, "F"), (ALLIED, "B"), (ALLIED, "N")):
            assert bit_hexes(s.supply_region(side, home)) == naive_supply_region(s, side, home), (side, home)
    for h, us in per_hex.items():
        # enemy units never share a hex (F13), except a moving Allied unit passing German paratroops (F41 e)
        passing = (
            s.decision == "step" and s.mover in us and all(s.spec(u).is_para for u in us if u != s.mover)
        )
        assert passing or len({s.side_of(u) for u in us}) == 1, h
        assert sum(0 if s.spec(u).is_para else 1 for u in us) <= 3, h  # stacking (F13)
    # VP equal the losses (F39); Paris is added only at the end
    lost = [
        sum(s.unit_vp(u) for u in s.game.side_units[side] if s.status[u] == ELIM) for side in (ALLIED, GERMAN)
    ]
    paris = 10 if s.is_terminal() and any(e[0] == "paris" for e in s.log) else 0
    assert s.vp == [lost[GERMAN], lost[ALLIED] + paris], (s.vp, lost)
    if not s.is_terminal():
        legal = s.legal_actions()
        assert legal and all(0 <= a < N_ACTIONS for a in legal)
        assert int(s.legal_action_mask().sum()) == len(legal)
        assert s.current_player in (ALLIED, GERMAN)


def play(seed: int, options: RulesOptions | None = None, check: bool = True) -> State:
    s = Game(options or RulesOptions()).new_initial_state(seed)
    rng = random.Random(seed)
    n = 0
    while not s.is_terminal():
        if check:
            check_invariants(s)
        s.apply_action(rng.choice(s.legal_actions()))
        n += 1
        assert n < 60000, s.decision_string()
    check_invariants(s)
    assert s.winner in (ALLIED, GERMAN) and s.result
    return s


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_playouts_keep_the_invariants(seed: int) -> None:
    play(seed)


@pytest.mark.parametrize(
    "opts",
    [
        {"allied_obac": "random", "german_obac": "random"},
        {"allied_obac": "A+B+C+E", "german_obac": "V", "optional_mild_winter": True},
        {"allied_obac": "B", "german_obac": "III", "optional_variable_victory": True, "retreat_hexes": 2},
        {
            "bef_variant": True,
            "bef_bomber_command": True,
            "counterattack_shift": 2,
            "interdiction_blocks_retreat": False,
        },
        {"optional_airborne": True, "optional_mild_winter": True, "german_obac": "II", "allied_obac": "E"},
    ],
)
def test_f43_random_playouts_under_combined_options(opts: dict[str, object]) -> None:
    s = play(11, RulesOptions(**opts))  # type: ignore[arg-type]
    assert s.turn == s.game.last_turn


def test_f59_same_seed_and_decisions_same_game() -> None:
    a, b = play(5, check=False), play(5, check=False)
    assert state_to_dict(a) == state_to_dict(b)
    c = play(6, check=False)
    assert state_to_dict(a) != state_to_dict(c)


def test_illegal_action_changes_nothing() -> None:
    s = Game().new_initial_state(3)
    rng = random.Random(3)
    for _ in range(300):
        s.apply_action(rng.choice(s.legal_actions()))
    before = state_to_dict(s)
    legal = set(s.legal_actions())
    for bad in [-1, N_ACTIONS, next(a for a in range(N_ACTIONS) if a not in legal), 1.5, "done", True, None]:
        with pytest.raises(IllegalActionError):
            s.apply_action(bad)  # type: ignore[arg-type]
    assert state_to_dict(s) == before


def test_clone_is_independent() -> None:
    s = Game().new_initial_state(4)
    rng = random.Random(4)
    for _ in range(500):
        s.apply_action(rng.choice(s.legal_actions()))
    c = s.clone()
    assert state_to_dict(c) == state_to_dict(s)
    a = c.legal_actions()[-1]
    c.apply_action(a)
    assert state_to_dict(c) != state_to_dict(s)
    s.apply_action(a)
    assert state_to_dict(c) == state_to_dict(s)


def test_gamestate_protocol() -> None:
    from ffo_env.games import GameState

    s = Game().new_initial_state(0)
    assert isinstance(s, GameState)
    assert s.current_player == ALLIED and isinstance(s.legal_action_mask(), np.ndarray)
    assert s.returns() == [0.0, 0.0] and s.action_to_string(s.legal_actions()[0]).startswith("@")


def test_speed_of_random_playouts() -> None:
    """Not a threshold: prints decisions per second so that a slowdown shows in the log."""
    t = time.perf_counter()
    s = play(7, check=False)
    dt = time.perf_counter() - t
    print(f"france1940 random playout: {len(s.history)} decisions in {dt:.2f}s = {len(s.history) / dt:.0f}/s")
    assert len(s.history) > 500


@pytest.mark.parametrize("seed", [3, 4])
def test_f41_random_playouts_with_the_airborne_rule(seed: int) -> None:
    s = play(seed, RulesOptions(optional_airborne=True))
    events = {e[0] for e in s.log}
    assert "airborne: removed" in events


def test_golden_legal_action_counts_along_a_seeded_game() -> None:
    """A regression oracle: (decision, number of legal actions, game-turn) at fixed points of one seeded
    random game, recorded from this engine (france1940-core-1, f40-reconstruction-v1; the same figures hold on
    f40-reconstruction-v2, the default since session 42, as the test run on both showed). A change in any
    rule or in the data that alters play changes these; update them only with a reason in the commit."""
    s = Game().new_initial_state(12345)
    rng = random.Random(12345)
    seen = {}
    i = 0
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
        i += 1
        if i in (50, 200, 500, 1000, 1500, 2000, 2500):
            seen[i] = (s.decision, len(s.legal_actions()), s.turn)
    assert i == 2869
    assert seen == {
        50: ("place", 215, 1),
        200: ("step", 7, 1),
        500: ("move", 14, 2),
        1000: ("step", 7, 3),
        1500: ("step", 7, 5),
        2000: ("move", 37, 7),
        2500: ("step", 7, 10),
    }


def test_state_loader_fuzz_never_crashes() -> None:
    """Random corruptions of a saved state load or raise StateError; nothing else escapes."""
    from ffo_env.france1940.core.state_io import StateError, state_from_dict

    s = Game().new_initial_state(2)
    rng = random.Random(2)
    for _ in range(400):
        s.apply_action(rng.choice(s.legal_actions()))
    base = state_to_dict(s)
    import json

    fields = sorted(base["state"])
    junk: list[object] = [None, -1, 10**20, "x", [], {}, [1, 2], {"kind": 3}, True, 1.5]
    for _ in range(300):
        d = json.loads(json.dumps(base))
        f = rng.choice(fields)
        v = d["state"][f]
        if isinstance(v, list) and v and rng.random() < 0.6:
            v[rng.randrange(len(v))] = rng.choice(junk)
        else:
            d["state"][f] = rng.choice(junk)
        try:
            t = state_from_dict(d)
        except StateError as e:
            assert str(e)
            continue
        if not t.is_terminal():
            try:
                t.legal_actions()
            except Exception as e:  # pragma: no cover - reported with the field that was accepted
                raise AssertionError(
                    f"state.{f} = {d['state'][f]!r} loaded but broke the engine: {e!r}"
                ) from e


def test_new_state_factory_for_the_suite_registry() -> None:
    from ffo_env.france1940.core.game import new_state

    s = new_state(3, None, {"allied_obac": "B", "german_obac": "IV"})
    assert s.columns == ["B", "IV"] and s.seed == 3 and s.current_player == ALLIED
    with pytest.raises(ValueError, match="one scenario"):
        new_state(0, "campaign", {})
    with pytest.raises(ValueError, match="unknown rules options"):
        new_state(0, None, {"armies": "B"})
