"""The contract every game of the suite passes (issue 62): run over every entry of ``ffo_env.games.GAMES``, so
a new game is held to it by registering itself, with no test to copy.

The contract is three files, each parametrized over the registry:

- ``tests/test_games.py``: the :class:`~ffo_env.games.GameState` protocol, a record prefix that replays
  and refuses a forged decision text, a saved state after one decision, the AEC env's agents;
- ``tests/test_env_suite.py``: PettingZoo's ``api_test``, ``parallel_api_test`` and seed tests, Gymnasium's
  ``check_env`` on the one-side env, rewards, illegal actions, truncation, seeding, copies;
- this file: what those leave out and the shared machinery above the envs already serves for every game:
  the registry entry resolves, a whole seeded random game replays exactly (in memory and from its file),
  a saved state taken mid-game round-trips through JSON and plays on identically, the game's agents by
  name, its Gymnasium ids, the replay viewer, and the harness playing games between ``random`` agents.

The contract end to end through the command line (the envs' API tests, a tournament whose record replays
verified, a tiny training run with its release and a tiny benchmark run with its resume) is
``tests/test_suite_contract.py`` (docs/guide/suite_layout.md, step 9).
"""

from __future__ import annotations

import json
import random
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from agents.harness import GameSpec, game_agent_names, play_game, run_tournament
from agents.registry import make_agent
from ffo_env.games import GAME_NAMES, GAMES, SIDES, GameInfo, _attr, game_info, game_of_record


def _random_game(info: GameInfo, seed: int, limit: int = 100_000) -> Any:
    """A recorder over a game of uniform random legal play from ``seed`` (decisions from ``random.Random``)."""
    rng = random.Random(seed)
    rec = info.recorder(info.new_state(seed))
    for _ in range(limit):
        if rec.state.is_terminal():
            break
        rec.apply(rng.choice(rec.state.legal_actions()))
    return rec


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_registry_entry_names_parts_that_import(name: str) -> None:
    info = game_info(name)
    assert info.name == name and info.title and info.rulebook and info.scenarios
    for f in fields(GameInfo):
        if f.name.startswith("_"):
            path = getattr(info, f.name)
            assert path, f"{name}: {f.name} is empty"
            assert callable(_attr(path)), f"{name}: {f.name} = {path!r} is not callable"
    assert set(info.gym_ids) == set(SIDES) and all(info.gym_ids[s] for s in SIDES)
    assert [g.record_format for g in GAMES.values()].count(info.record_format) == 1
    env = info.aec_env()
    env.reset(seed=0)
    n = env.action_space("french").n
    assert n == info.env_adapter().n_actions and (info.n_actions in (0, n))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_whole_seeded_random_game_replays_exactly_and_the_seed_and_decisions_reproduce_it(
    name: str,
) -> None:
    info = game_info(name)
    rec = _random_game(info, 17)
    assert rec.state.is_terminal()
    record = json.loads(json.dumps(rec.record()))  # as a file holds it
    final = info.state_to_dict(rec.state)
    replayed = info.replay(record)
    assert info.state_to_dict(replayed) == final and replayed.returns() == rec.state.returns()
    again = _random_game(info, 17)
    assert info.state_to_dict(again.state) == final
    other = _random_game(info, 18)
    assert info.state_to_dict(other.state) != final


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_record_file_names_its_game_replays_and_gives_the_viewer(name: str, tmp_path: Path) -> None:
    info = game_info(name)
    rec = _random_game(info, 5, limit=80)
    path = tmp_path / "game.json"
    info.save_record(rec.record(), path)
    assert game_of_record(path) == name
    loaded = info.load_record(path)
    assert info.state_to_dict(info.replay(loaded)) == info.state_to_dict(rec.state)
    html = tmp_path / "game.html"
    size = info.write_viewer(loaded, html)
    assert size == html.stat().st_size > 1000


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_state_saved_mid_game_round_trips_through_json_and_plays_on_identically(name: str) -> None:
    info = game_info(name)
    rng = random.Random(3)
    state = info.new_state(3)
    for _ in range(40):
        state.apply_action(rng.choice(state.legal_actions()))
    saved = json.loads(json.dumps(info.state_to_dict(state)))
    loaded = info.state_from_dict(saved)
    assert info.state_to_dict(loaded) == info.state_to_dict(state)
    assert loaded.legal_actions() == state.legal_actions() and loaded.current_player == state.current_player
    for _ in range(200):  # the dice are in the saved state: both copies roll the same
        if state.is_terminal():
            break
        a = rng.choice(state.legal_actions())
        state.apply_action(a)
        loaded.apply_action(a)
    assert info.state_to_dict(loaded) == info.state_to_dict(state)
    with pytest.raises(ValueError):
        info.state_from_dict([1, 2])


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_games_agents_by_name_play_legal_moves(name: str) -> None:
    names = game_agent_names(name)
    assert {"random", "pass", "heuristic", "expert"} <= set(names)
    state = game_info(name).new_state(9)
    for _ in range(30):
        if state.is_terminal():
            break
        side = SIDES[state.current_player]
        a = make_agent("random", side, seed=9, game=name).act_state(state)
        assert a in state.legal_actions()
        state.apply_action(a)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_games_gymnasium_ids_are_registered_for_their_side(name: str) -> None:
    import gymnasium as gym

    import ffo_env  # noqa: F401 - registers the ids

    for side, ids in game_info(name).gym_ids.items():
        for env_id in ids:
            assert env_id in gym.registry, f"{name}: {env_id} is not registered"
            env = gym.make(env_id)
            raw: Any = env.unwrapped
            # the shared attribute: ``side`` is the name in France Fights On, the index in Springtime
            assert raw.learner == SIDES.index(side)
            env.close()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_harness_plays_a_game_between_random_agents_and_its_record_replays(
    name: str, tmp_path: Path
) -> None:
    info = game_info(name)
    spec = GameSpec(0, 0, 11, "random", "random", "random", "random", "random", str(tmp_path), game=name)
    row = play_game(spec)
    assert row["winner"] in SIDES and row["decisions"] >= row["agent_decisions"] > 0
    replayed = info.replay(info.load_record(row["record"]))
    returns = replayed.returns()
    assert replayed.is_terminal() and SIDES[returns.index(max(returns))] == row["winner"]
    again = play_game(GameSpec(0, 0, 11, "random", "random", "random", "random", "random", None, game=name))
    assert {k: v for k, v in again.items() if k != "seconds"} == {
        k: v for k, v in row.items() if k not in ("seconds", "record")
    }


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_tournament_of_the_game_writes_its_results(name: str, tmp_path: Path) -> None:
    out = tmp_path / "eval"
    report = run_tournament(
        [("random", "random")], games=2, seed=0, workers=1, out=out, progress=False, game=name
    )
    (pairing,) = report["pairings"]
    assert pairing["games"] == 2 and report["config"]["game"] == name
    assert json.loads((out / "tournament.json").read_text())["game"] == name
    assert len((out / "games.jsonl").read_text().splitlines()) == 2
