"""The suite's game interface (issue 41): both games answer the same calls (ffo_env.games)."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest

from ffo_env.games import GAME_NAMES, GameState, game_info


@pytest.mark.parametrize("name", GAME_NAMES)
def test_state_of_every_game_offers_the_game_state_protocol(name: str) -> None:
    state = game_info(name).new_state(5)
    assert isinstance(state, GameState)
    assert state.current_player in (0, 1)
    legal = state.legal_actions()
    assert legal and all(state.legal_action_mask()[a] for a in legal)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_recorder_record_replays_and_a_forged_text_is_refused(name: str) -> None:
    info = game_info(name)
    rec = info.recorder(info.new_state(11))
    rng = random.Random(11)
    for _ in range(60):  # a prefix is enough: replay checks each decision as it goes
        if rec.state.is_terminal():
            break
        rec.apply(rng.choice(rec.state.legal_actions()))
    record = rec.record()
    replayed = info.replay(copy.deepcopy(record))
    assert info.state_to_dict(replayed) == info.state_to_dict(rec.state)
    agent_made = next(i for i, d in enumerate(record["decisions"]) if not d["auto"])
    record["decisions"][agent_made]["text"] = "forged"
    with pytest.raises(ValueError):
        info.replay(record)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_saved_state_round_trips_through_the_interface(name: str) -> None:
    info = game_info(name)
    state = info.new_state(2)
    for a in state.legal_actions()[:1]:
        state.apply_action(a)
    again = info.state_from_dict(info.state_to_dict(state))
    assert again.legal_actions() == state.legal_actions()
    assert again.current_player == state.current_player


@pytest.mark.parametrize("name", GAME_NAMES)
def test_aec_env_of_every_game_has_the_agents_french_and_german(name: str) -> None:
    env = game_info(name).aec_env()
    env.reset(seed=3)
    assert env.possible_agents == ["french", "german"]


def test_unknown_game_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown game 'chess'; the games of the suite: ffo, springtime"):
        game_info("chess")


def test_a_record_names_its_game_and_replay_of_the_wrong_game_says_which(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ffo_env.cli import main as ffo
    from ffo_env.games import game_of_record

    info = game_info("springtime")
    rec = info.recorder(info.new_state(4))
    rec.apply(rec.state.legal_actions()[0])
    path = tmp_path / "g.json"
    info.save_record(rec.record(), path)
    assert game_of_record(path) == "springtime"
    assert game_of_record(tmp_path / "missing.json") is None
    assert ffo(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        f"error: {path} is a record of Springtime for Hitler, not of France Fights On: "
        f"run 'ffo replay --game springtime {path}'"
    )


# --- issue 62 step 1: the registry holds data only; each game's hooks live in ffo_env/<game>/interface.py


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_lazy_path_of_a_game_points_into_its_own_package_not_the_registry(name: str) -> None:
    import importlib

    info = game_info(name)
    paths = [v for k, v in vars(info).items() if k.startswith("_") and isinstance(v, str) and v]
    assert paths, name
    for path in paths:
        module, _, attr = path.partition(":")
        assert module != "ffo_env.games", f"{name}: {path} is in the registry, not the game's package"
        assert callable(getattr(importlib.import_module(module), attr)), path


@pytest.mark.parametrize("name", GAME_NAMES)
def test_new_fields_of_the_game_interface(name: str) -> None:
    info = game_info(name)
    assert info.package_name in ("ffo", "springtime", "france1940")
    assert info.figure and info.vector_observation
    single = info.single_agent_env(observation_format=info.vector_observation)
    obs, _ = single.reset(seed=3)
    assert getattr(obs, "ndim", None) == 1, f"{name}: {info.vector_observation} is not one flat vector"
    single.close()


def test_score_columns_of_the_interface_are_the_harness_columns() -> None:
    """A finished game's own columns (the interface's ``score_columns``, which the harness's rows hold) are,
    in order, the game's columns of the tournament's games.csv: one missing there is dropped from the file."""
    from agents.harness import GAME_COLUMNS_FIRST, GAME_COLUMNS_LAST, _score_columns, games_csv_columns

    for name in GAME_NAMES:
        info = game_info(name)
        state = info.random_playout(5)
        cols = info.score_columns(state)
        assert _score_columns(name, state) == cols
        assert [*GAME_COLUMNS_FIRST, *cols, *GAME_COLUMNS_LAST] == games_csv_columns(name), name
        assert not set(cols) & {*GAME_COLUMNS_FIRST, *GAME_COLUMNS_LAST}, name
        assert info.figure in cols, f"{name}: its figure {info.figure!r} is not a column of its rows"


def test_versions_of_the_interface_are_what_results_and_tournaments_record() -> None:
    from agents.harness import game_versions
    from benchmarks.protocol.results import run_meta_common

    for name in GAME_NAMES:
        v = game_info(name).versions()
        meta = run_meta_common(["x"], game=name)
        assert v == {k: meta[k] for k in ("engine", "data", "observation_spec")}, name
        assert (v["engine"], v["data"]) == game_versions(name), name


def test_refuse_game_options_names_another_games_option_and_passes_the_games_own() -> None:
    from argparse import Namespace

    from ffo_env.games import refuse_ffo_options, refuse_game_options

    assert refuse_ffo_options is refuse_game_options  # the old name stays one release
    refuse_game_options(Namespace(game="ffo", setup="historical", data="reconstruction-v1"))
    refuse_game_options(Namespace(game="springtime", setup="random", data=None, scenario="plan_red"))
    with pytest.raises(ValueError, match=r"--setup historical: setup modes are France Fights On's \(R2\)"):
        refuse_game_options(Namespace(game="springtime", setup="historical"))
    with pytest.raises(
        ValueError, match="--data reconstruction-v1: game data versions are France Fights On's"
    ):
        refuse_game_options(Namespace(setup="random", data="reconstruction-v1"), "springtime")
    with pytest.raises(ValueError, match="--scenario plan_red: scenarios are Springtime for Hitler's"):
        refuse_game_options(Namespace(game="ffo", scenario="plan_red"))
