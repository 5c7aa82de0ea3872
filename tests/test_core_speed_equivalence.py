"""Pin the game sequence of the rules core: seeded random games must replay exactly.

Speed work on ``ffo_env.ffo.core`` must not change a rule, a legal-action set, a
movement path or the dice sequence. This test plays a handful of seeded games
with a seeded random player and compares, step by step, a hash of every legal
action list, chosen action, movement destination table (VP, MP, path, overrun)
and the supply masks the encoder reads, and a hash of the final state's JSON
(dice log, history, VP log), against ``tests/fixtures/core_games.json``.

The fixture is written only on request, from a trusted engine::

    python tests/test_core_speed_equivalence.py --write

A failure means the engine now plays differently: find the first differing step
with ``--diff`` before regenerating anything.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core import movement
from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.scenario import scenario_for
from ffo_env.ffo.core.search import (
    _reachable_labels,
    bits_to_mask,
    flood,
    flood_bits,
    mask_to_bits,
    reachable,
)
from ffo_env.ffo.core.state import Decision, State

FIXTURE = Path(__file__).parent / "fixtures" / "core_games.json"
FORMAT = "ffo-core-games-1"
GAMES = [("random", seed) for seed in (0, 1, 2, 3)] + [("decide", seed) for seed in (0, 1, 2)]
_SUPPLY_KEYS = ((0, False), (1, False), (1, True))


def _step_record(s: State, legal: list[int], a: int) -> list[Any]:
    rec: list[Any] = [int(s.decision), int(s.player), legal, a]
    if s.decision == Decision.MOVE_DEST:
        rec.append(
            sorted((h, r.vp, r.mp, list(r.path), list(r.overrun)) for h, r in s.move_destinations().items())
        )
    rec.append([bytes(s._supply_mask(side, west)).hex() for side, west in _SUPPLY_KEYS])
    return rec


def play(setup: str, seed: int, keep_steps: bool = False) -> dict[str, Any]:
    """One seeded random game: its decision count, step hash and final-state hash."""
    game = _game(setup)
    rng = random.Random(seed * 7919 + 1)
    s = game.new_initial_state(seed)
    h = hashlib.sha256()
    steps = []
    while not s.is_terminal():
        legal = s.legal_actions()
        a = legal[rng.randrange(len(legal))]
        rec = _step_record(s, legal, a)
        h.update(json.dumps(rec).encode())
        if keep_steps:
            steps.append(rec)
        s.apply_action(a)
    out: dict[str, Any] = {
        "setup": setup,
        "seed": seed,
        "decisions": len(s.history) - sum(1 for x in s.history if x[2]),
        "history": len(s.history),
        "dice": len(s.dice_log),
        "vp": s.vp,
        "winner": s.winner,
        "steps_sha256": h.hexdigest(),
        "final_sha256": hashlib.sha256(s.to_json().encode()).hexdigest(),
    }
    if keep_steps:
        out["steps"] = steps
    return out


_GAMES: dict[str, Game] = {}


def _game(setup: str) -> Game:
    g = _GAMES.get(setup)
    if g is None:
        # the fixture was recorded on reconstruction-v1: the engine, not the data, is what it pins
        g = _GAMES[setup] = Game(
            scenario=scenario_for("reconstruction-v1"), options=RulesOptions(setup=setup)
        )
    return g


def _load() -> dict[str, Any]:
    d = json.loads(FIXTURE.read_text())
    assert d["format"] == FORMAT
    return d


@pytest.mark.parametrize(("setup", "seed"), GAMES, ids=[f"{s}-{n}" for s, n in GAMES])
def test_seeded_game_replays_exactly(setup: str, seed: int) -> None:
    stored = {(g["setup"], g["seed"]): g for g in _load()["games"]}[(setup, seed)]
    got = play(setup, seed)
    for k in ("history", "dice", "vp", "winner", "decisions"):
        assert got[k] == stored[k], f"{k}: {got[k]} != stored {stored[k]} (run this file with --diff)"
    assert got["steps_sha256"] == stored["steps_sha256"], "legal sets / destinations / supply differ (--diff)"
    assert got["final_sha256"] == stored["final_sha256"], "final state differs (--diff)"


def test_bucket_search_matches_label_search() -> None:
    """Without refugee markers the bucket-queue search must give the (hex, VP) label search's answer:
    same hexes, MP, paths (the R13 tie-break) and order, with and without no-return regions."""
    game = _game("random")
    mt = game.tables
    rng = random.Random(5)
    land = [h for h in range(hg.N_HEX) if mt.land[h]]
    regions = (None, mt.no_return_yellow, mt.no_return_green_red)
    for i in range(300):
        blocked = bytearray(game.forbidden[i % 2])
        for h in rng.sample(land, 40):
            blocked[h] = 1
        start = rng.choice([h for h in land if not blocked[h]])
        mp = rng.randint(1, 7)
        nr = regions[i % 3]
        end_ok = mt.end_ok[i % 4] if i % 5 else None
        fast = reachable(mt, start, mp, blocked, None, 1, nr, end_ok)
        slow = _reachable_labels(mt, start, mp, blocked, None, 1, nr, end_ok)
        assert list(fast.keys()) == list(slow.keys())
        assert all(fast[h] == slow[h] and fast[h].path == slow[h].path for h in slow)


def test_tables_match_the_state_predicates() -> None:
    """MapTables.end_ok is movement.end_ok tabulated; flood_bits is flood on bitsets."""
    game = _game("random")
    mt = game.tables
    s = game.new_initial_state(0)
    french = game.side_unit_list[0][0]
    german = game.side_unit_list[1][0]
    for side, u in ((0, french), (1, german)):
        for comply in (False, True):
            table = mt.end_ok[2 * side + comply]
            assert all(bool(table[h]) == movement.end_ok(s, u, h, comply) for h in range(hg.N_HEX))
    rng = random.Random(9)
    for _ in range(30):
        passable = bytearray(1 if mt.land[h] and rng.random() < 0.8 else 0 for h in range(hg.N_HEX))
        sources = rng.sample(range(hg.N_HEX), 5)
        bits = flood_bits(mt.open_bits, sum(1 << h for h in sources), mask_to_bits(passable))
        assert bits_to_mask(bits) == flood(mt.open_nb, sources, passable)


def _write() -> None:
    games = [play(setup, seed) for setup, seed in GAMES]
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps({"format": FORMAT, "games": games}, indent=1) + "\n")
    print(f"wrote {FIXTURE} ({len(games)} games, {sum(g['history'] for g in games)} steps)")


def _diff() -> None:
    """Print the first step at which each game differs from a fresh run of ``--dump`` output."""
    if len(sys.argv) < 3:
        print("usage: --diff OTHER.json  (OTHER from --dump under the other engine)")
        return
    other = {(g["setup"], g["seed"]): g for g in json.loads(Path(sys.argv[2]).read_text())}
    for setup, seed in GAMES:
        mine = play(setup, seed, keep_steps=True)
        theirs = other[(setup, seed)]
        for i, (p, q) in enumerate(zip(mine["steps"], theirs["steps"], strict=False)):
            if p != q:
                print(
                    f"{setup}-{seed}: first difference at step {i}:\n  here:  {str(p)[:400]}\n  other: {str(q)[:400]}"
                )
                break
        else:
            print(
                f"{setup}-{seed}: same steps"
                + ("" if mine["final_sha256"] == theirs["final_sha256"] else ", final differs")
            )


if __name__ == "__main__":
    if "--write" in sys.argv:
        _write()
    elif "--dump" in sys.argv:
        path = Path(sys.argv[sys.argv.index("--dump") + 1])
        path.write_text(json.dumps([play(s, n, keep_steps=True) for s, n in GAMES]))
        print(f"wrote {path}")
    elif "--diff" in sys.argv:
        _diff()
    else:
        print(__doc__)
