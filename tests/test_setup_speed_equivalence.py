"""Pin the start of a game: the fast reset must build exactly the position the slow one built.

A new game (``Game.new_initial_state``) is most of what an env reset costs, and with an unmasked policy
nearly every step is a reset, so the start is built fast: the initial control (rule 3.7) and the
garrisons' port hexes (rule 3.3) are derived once per game, and the random setup (rules 3.3, 3.4, 6.2,
R2) keeps its stack counts up to date instead of recounting every candidate hex of every unit. These tests
fail if any of that builds a different position:

- for 300 seeds (and the three setup modes), a hash of the whole saved state (dice log, stacks in their
  insertion order, control, ...) against ``tests/fixtures/initial_states.json``, written by the engine
  before the speed-up (commit 58d5164);
- for 40 seeds, the full state dict against one built with the slow reference setup below (every
  candidate hex counted with ``State._counted``, the rule's own count);
- the per-game tables against their definitions from the map, the dice log's phase names;
- the dice's unrolled ``below`` against the original rejection loop over ``_next``, the setup's
  ``_picker`` against ``_pick``, and ``setup_candidates`` (what the random setup keeps up to date as hexes
  fill) against ``setup_hexes``, the rule's one definition;
- the compact env's observation after an illegal action (reused, not encoded again) against a fresh one.

The fixture is written only on request, from a trusted engine::

    python tests/test_setup_speed_equivalence.py --write
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import ffo_env  # noqa: F401 - registers the gymnasium ids
from ffo_env.core.dice import Dice
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core import setup_phase
from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.mapdata import ColoredRow
from ffo_env.ffo.core.scenario import scenario_for
from ffo_env.ffo.core.setup_rules import setup_candidates, setup_hexes
from ffo_env.ffo.core.sides import Side
from ffo_env.ffo.core.state import _PHASE_NAMES, Phase, State
from ffo_env.ffo.single_agent import FFOSingleAgentEnv

FIXTURE = Path(__file__).parent / "fixtures" / "initial_states.json"
FORMAT = "ffo-initial-states-1"
DATA = "reconstruction-v3"  # the fixture pins the engine on one data version
_rng = random.Random(40)
SEEDS = list(range(200)) + [_rng.randrange(2**31 - 1) for _ in range(100)]  # the envs draw seeds < 2**31-1
MODE_SEEDS = {"random": SEEDS, "decide": SEEDS[:20], "fixed": SEEDS[:20]}

_GAMES: dict[str, Game] = {}


def _game(setup: str) -> Game:
    g = _GAMES.get(setup)
    if g is None:
        g = _GAMES[setup] = Game(scenario=scenario_for(DATA), options=RulesOptions(setup=setup))
    return g


def _digest(s: State) -> str:
    """The whole saved state plus the stacks' insertion order (which to_dict sorts away)."""
    d = s.to_dict()
    d["_stack_order"] = list(s.stacks)
    return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:20]


def _digests() -> dict[str, list[str]]:
    return {
        mode: [_digest(_game(mode).new_initial_state(seed)) for seed in seeds]
        for mode, seeds in MODE_SEEDS.items()
    }


def test_r02_initial_states_match_the_slow_engine() -> None:
    stored = json.loads(FIXTURE.read_text())
    assert stored["format"] == FORMAT and stored["data"] == DATA and stored["seeds"] == SEEDS
    got = _digests()
    for mode, hashes in got.items():
        bad = [seed for seed, a, b in zip(MODE_SEEDS[mode], hashes, stored[mode], strict=True) if a != b]
        assert not bad, f"setup={mode}: the start of the game differs for seeds {bad[:10]}"


def _slow_random_setup(s: State, side: Side) -> None:
    """The random setup as it was before the speed-up: every candidate hex counted by the core."""
    pending = setup_phase.setup_pending(s, side)
    pending.sort(key=lambda u: (s.units[u].type != "fortress", s.units[u].free_stacking))
    n_first = sum(1 for u in pending if s.units[u].type == "fortress")
    while pending:
        k = s._pick(n_first, "random setup: unit") if n_first else s._pick(len(pending), "random setup: unit")
        n_first = max(0, n_first - 1)
        u = pending.pop(k)
        hexes = setup_phase.setup_hexes(s, u)  # rules 3.3, 3.4, 6.2 with State._counted
        s._place(u, hexes[s._pick(len(hexes), f"random setup: hex of {s.units[u].id}")])


def test_r02_random_setup_matches_the_slow_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    game = _game("random")
    fast = [game.new_initial_state(seed) for seed in SEEDS[:40]]
    monkeypatch.setattr(setup_phase, "random_setup", _slow_random_setup)
    for seed, f in zip(SEEDS[:40], fast, strict=True):
        slow = game.new_initial_state(seed)
        assert f.to_dict() == slow.to_dict(), f"seed {seed}"
        assert list(f.stacks.items()) == list(slow.stacks.items()), f"seed {seed}: stack order"


def test_3_3_3_7_per_game_start_tables_match_the_map() -> None:
    game = _game("random")
    m = game.scenario.map
    assert game.port_home == tuple((u.index, m.hex_of_city(u.port)) for u in game.units if u.port)
    # rule 3.7: every hex French at the start but the green and yellow rows
    assert list(game.initial_control) == [
        int(r in (ColoredRow.GREEN, ColoredRow.YELLOW)) for r in game.tables.row
    ]
    s = game.new_initial_state(3)
    s.control[0] ^= 1  # a state's control is its own copy, never the game's table
    assert game.new_initial_state(3).control[0] == game.initial_control[0]


def test_r37_dice_log_phase_names_are_the_phases_names() -> None:
    assert [_PHASE_NAMES[p] for p in Phase] == [p.name for p in Phase]


def _reference_below(d: Dice, n: int) -> int:
    """Dice.below as it was written before the speed-up: rejection sampling over Dice._next."""
    limit = (1 << 32) - ((1 << 32) % n)
    while True:
        r = d._next()
        if r < limit:
            return r % n


def test_r37_dice_below_draws_what_the_reference_draws() -> None:
    rng = random.Random(37)
    for seed in range(200):
        fast, ref = Dice(seed), Dice(seed)
        for _ in range(50):
            n = rng.choice((1, 2, 3, 6, 7, 100, 1607, 2**31 + 5, 2**32 - 1))  # large n: many rejections
            assert fast.below(n) == _reference_below(ref, n)
            assert fast.state == ref.state


def test_r37_picker_logs_exactly_what_pick_logs() -> None:
    a = _game("random").new_initial_state(5)
    b = a.clone()
    pick = b._picker()
    for n, why in ((7, "x"), (1, "y"), (1607, "z"), (3, "w")):
        assert a._pick(n, why) == pick(n, why)
    assert a.dice_log == b.dice_log and a.dice.state == b.dice.state


def test_3_3_6_2_setup_hexes_are_the_candidates_below_the_limit() -> None:
    """setup_hexes (the rule's one definition) and setup_candidates (what the random setup keeps) agree for
    every unit of both sides, whatever the counts."""
    game = _game("random")
    mt, limit = game.tables, game.scenario.tables.setup_stack_limit
    rng = random.Random(62)
    for _ in range(20):
        counts = [rng.randrange(limit + 2) for _ in range(hg.N_HEX)]
        for spec in game.units:
            cand, limited = setup_candidates(spec, mt.red, mt.green)
            want = setup_hexes(spec, mt.red, mt.green, limit, counts.__getitem__)
            assert want == ([h for h in cand if counts[h] < limit] if limited else cand), spec.id
            assert limited or want == setup_hexes(spec, mt.red, mt.green, limit, lambda h: limit), spec.id


def test_3_7_7_8_per_game_hex_and_unit_tables_match_their_definitions() -> None:
    game = _game("random")
    assert list(game.always_german) == [
        int(r in (ColoredRow.GREEN, ColoredRow.YELLOW)) for r in game.tables.row
    ]
    assert game.unit_port == tuple(bool(u.port) for u in game.units)


def test_compact_observation_after_an_illegal_action_is_the_fresh_one() -> None:
    env = gym.make("ffo_env/French-compact-v0")
    u = env.unwrapped
    assert isinstance(u, FFOSingleAgentEnv)
    rng = np.random.default_rng(0)
    seen = 0
    for ep in range(12):
        env.reset(seed=ep)
        for _ in range(int(rng.integers(0, 6))):  # a few legal moves first, so not only starts are seen
            legal = np.flatnonzero(u.action_masks())
            env.step(int(rng.choice(legal)))
        mask = u.action_masks()
        bad = int(np.flatnonzero(mask == 0)[0])
        obs, reward, terminated, _, info = env.step(bad)
        assert terminated and "illegal_action" in info
        assert u._compact is not None and u.game_state is not None
        fresh = u._compact.encode(u.game_state, u.learner, u.omniscient)
        np.testing.assert_array_equal(obs, fresh)
        obs[:] = -7  # the caller may write into it: the next one must not change
        np.testing.assert_array_equal(u._obs_unchanged(), fresh)
        seen += 1
    assert seen == 12


if __name__ == "__main__":
    if "--write" not in sys.argv:
        sys.exit("usage: python tests/test_setup_speed_equivalence.py --write  (from a trusted engine)")
    out: dict[str, Any] = {"format": FORMAT, "data": DATA, "seeds": SEEDS, **_digests()}
    FIXTURE.write_text(json.dumps(out, indent=0) + "\n")
    print(f"wrote {FIXTURE}")
