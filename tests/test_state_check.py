"""Saved-state validation (``check_state_dict``): real states from seeded playouts pass and round-trip
through ``State.from_dict``; each corruption raises one StateError naming the key or path."""

from __future__ import annotations

import copy
import json
import random

import pytest

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.game import Game
from ffo_env.ffo.core.state import State
from ffo_env.ffo.core.state_check import StateError, check_state_dict


@pytest.fixture(scope="module")
def game() -> Game:
    return Game()


def _playout_dicts(game: Game, seed: int, every: int = 1) -> list[dict]:
    s = game.new_initial_state(seed)
    rng = random.Random(seed)
    out = []
    while not s.is_terminal():
        if len(s.history) % every == 0:
            out.append(json.loads(s.to_json()))
        s.apply_action(rng.choice(s.legal_actions()))
    out.append(json.loads(s.to_json()))
    return out


@pytest.fixture(scope="module")
def midgame(game: Game) -> dict:
    """A state in turn 2 or later, outside any movement phase, with units on the map."""
    for d in _playout_dicts(game, 3):
        if d["turn"] >= 2 and d["phase"] == "FRENCH_COMBAT":
            return d
    raise AssertionError("seed 3 never reaches turn 2's French combat phase")


def test_valid_states_of_seeded_playouts_pass_and_round_trip(game):
    checked = 0
    for seed in (0, 1):
        for d in _playout_dicts(game, seed, every=7):
            check_state_dict(game, d)
            assert State.from_dict(game, d).to_dict() == d
            checked += 1
    assert checked > 100


def _french_unit_on_map(game: Game, d: dict) -> int:
    return next(u for u, st in enumerate(d["status"]) if st == 1 and game.scenario.units[u].side == 0)


def _sea_hex(game: Game) -> int:
    return next(h for h in range(hg.N_HEX) if not game.scenario.map.land[h])


CORRUPTIONS = {
    "missing key": (lambda g, d: d.pop("stacks"), 'missing key "stacks"'),
    "unknown key": (lambda g, d: d.__setitem__("stackz", {}), 'unknown key "stackz"'),
    "wrong type": (lambda g, d: d.__setitem__("turn", "2"), r"turn: expected integer"),
    "bool for int": (lambda g, d: d.__setitem__("vp", True), r"vp: expected integer"),
    "turn out of range": (lambda g, d: d.__setitem__("turn", 99), r"turn: expected a game turn"),
    "unknown phase": (lambda g, d: d.__setitem__("phase", "LUNCH"), r"phase: expected one of"),
    "unknown decision": (lambda g, d: d.__setitem__("decision", "NAP"), r"decision: expected one of"),
    "player 2": (lambda g, d: d.__setitem__("player", 2), r"player: expected 0"),
    "over but no NONE": (lambda g, d: d.__setitem__("phase", "GAME_OVER"), r"decision: expected NONE"),
    "winner while running": (lambda g, d: d.__setitem__("winner", 0), r"winner: expected null"),
    "setup decision in combat": (
        lambda g, d: d.__setitem__("decision", "SETUP_HEX"),
        r"decision: expected a setup",
    ),
    "bad dice state": (lambda g, d: d.__setitem__("dice_state", "x1"), r"dice_state"),
    "short loc": (lambda g, d: d["loc"].pop(), r"loc: expected a list of \d+ entries"),
    "status 7": (lambda g, d: d["status"].__setitem__(0, 7), r"status\[0\]"),
    "loc off map": (
        lambda g, d: d["loc"].__setitem__(_french_unit_on_map(g, d), 10**6),
        r"loc\[\d+\]: expected a hex",
    ),
    "loc at sea": (
        lambda g, d: d["loc"].__setitem__(_french_unit_on_map(g, d), _sea_hex(g)),
        r"loc\[\d+\]: expected a land",
    ),
    "dead unit with a location": (
        lambda g, d: d["status"].__setitem__(_french_unit_on_map(g, d), 2),
        r"loc\[\d+\]: expected -1",
    ),
    "steps too many": (lambda g, d: d["steps"].__setitem__(0, 9), r"steps\[0\]"),
    "moved not bool": (lambda g, d: d["moved"].__setitem__(0, 1), r"moved\[0\]: expected true/false"),
    "unit moved without its stack": (
        lambda g, d: d["loc"].__setitem__(
            _french_unit_on_map(g, d),
            next(h for h in range(hg.N_HEX) if g.scenario.map.land[h] and str(h) not in d["stacks"]),
        ),
        r"stacks\.\d+",
    ),
    "empty stack": (lambda g, d: d["stacks"].__setitem__("5", []), r"stacks\.5: expected a non-empty"),
    "stack key not a hex": (lambda g, d: d["stacks"].__setitem__("x", [0]), r"stacks: expected a hex number"),
    "unit in two stacks": (
        lambda g, d: d["stacks"].__setitem__(str(_sea_hex(g)), [_french_unit_on_map(g, d)]),
        r"stacks\.\d+",
    ),
    "control 5": (lambda g, d: d["control"].__setitem__(3, 5), r"control\[3\]: expected 0 or 1"),
    "control short": (lambda g, d: d["control"].pop(), r"control: expected a list of"),
    "refugee at sea": (lambda g, d: d["refugees"].__setitem__(str(_sea_hex(g)), True), r"refugees\.\d+"),
    "scare unit out of range": (lambda g, d: d.__setitem__("scare_unit", 500), r"scare_unit"),
    "history action out of range": (lambda g, d: d["history"][0].__setitem__(1, -3), r"history\[0\]\[1\]"),
    "history entry short": (lambda g, d: d["history"].__setitem__(0, [0, 1]), r"history\[0\]"),
    "naval_used length": (lambda g, d: d.__setitem__("naval_used", [False]), r"naval_used"),
    "engine": (lambda g, d: d.__setitem__("engine", "ffo-engine-1"), r"engine: saved by 'ffo-engine-1'"),
    "emptied": (lambda g, d: d.clear() or d.__setitem__("x", 1), r"missing key"),
}


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_corrupted_states_raise_state_error_naming_the_path(game, midgame, name):
    edit, where = CORRUPTIONS[name]
    d = copy.deepcopy(midgame)
    edit(game, d)
    with pytest.raises(StateError, match=where) as info:
        check_state_dict(game, d)
    assert str(info.value).startswith("saved state")


def test_r8_overstack_outside_movement_is_refused(game, midgame):
    d = copy.deepcopy(midgame)
    units = game.scenario.units
    free = game.unit_free_stacking
    a, b = [u for u, st in enumerate(d["status"]) if st == 1 and units[u].side == 0 and not free[u]][:2]
    home = str(d["loc"][a])
    d["stacks"][home].remove(a)
    if not d["stacks"][home]:
        del d["stacks"][home]
    d["loc"][a] = d["loc"][b]
    d["stacks"][str(d["loc"][b])].append(a)
    with pytest.raises(StateError, match=r"stacks\.\d+: expected at most 1 units"):
        check_state_dict(game, d)


def test_r8_enemy_units_never_share_a_hex(game, midgame):
    d = copy.deepcopy(midgame)
    units = game.scenario.units
    f = _french_unit_on_map(game, d)
    g = next(u for u, st in enumerate(d["status"]) if st == 1 and units[u].side == 1)
    key = str(d["loc"][g])
    d["stacks"][str(d["loc"][f])].remove(f)
    if not d["stacks"][str(d["loc"][f])]:
        del d["stacks"][str(d["loc"][f])]
    d["loc"][f] = d["loc"][g]
    d["stacks"][key].append(f)
    with pytest.raises(StateError, match=rf"stacks\.{key}: expected units of one side only"):
        check_state_dict(game, d)


def test_non_mapping_is_refused(game):
    with pytest.raises(StateError, match="expected a JSON object"):
        check_state_dict(game, [1, 2])


def test_from_dict_and_from_json_run_the_checker() -> None:
    import json

    import pytest

    from ffo_env.ffo.core.game import Game, RulesOptions
    from ffo_env.ffo.core.state import State
    from ffo_env.ffo.core.state_check import StateError

    game = Game(options=RulesOptions(setup="random"))
    s = game.new_initial_state(3)
    d = json.loads(s.to_json())
    assert State.from_json(game, s.to_json()).to_json() == s.to_json()
    d["loc"][0] = 99_999  # a unit off the map's hex range
    with pytest.raises(StateError):
        State.from_dict(game, d)
    with pytest.raises(StateError, match="not valid JSON"):
        State.from_json(game, "{broken")
