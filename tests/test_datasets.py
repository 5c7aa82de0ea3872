"""Game data versions: reconstruction-v1, reconstruction-v2 and the balanced reconstruction-v3 (the default), chosen with
``--data``, ``$FFO_DATA`` or ``data=``; each record, state, env and tournament plays and names its data (R37)."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import pytest
import yaml

from ffo_env.cli import main
from ffo_env.core.errors import DataError
from ffo_env.ffo.core.datasets import DATA_ENV, DATA_FILES, DATA_VERSIONS, DEFAULT_DATA, data_dir
from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.record import load_record, replay
from ffo_env.ffo.core.scenario import MAX_CF, default_scenario, load_scenario, scenario_for
from ffo_env.ffo.env import make_game, raw_env

V1, V2, V3 = DATA_VERSIONS


def _yaml(version: str, name: str) -> dict:
    return yaml.safe_load((data_dir(version) / name).read_text(encoding="utf-8"))


def test_each_shipped_version_loads_and_names_itself() -> None:
    assert (
        DATA_VERSIONS == ("reconstruction-v1", "reconstruction-v2", "reconstruction-v3")
        and DEFAULT_DATA == V3
    )
    for version in DATA_VERSIONS:
        sc = load_scenario(version)
        assert sc.version == version and sc.fixed_setup
        assert all((data_dir(version) / f).is_file() for f in DATA_FILES)


def test_the_default_is_v3_and_ffo_data_chooses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATA_ENV, raising=False)
    assert default_scenario().version == V3 and Game().scenario.version == V3
    monkeypatch.setenv(DATA_ENV, V1)
    assert default_scenario().version == V1 and Game().scenario.version == V1
    assert make_game("random").scenario.version == V1


def test_v2_changes_only_the_documented_free_parameters() -> None:
    # README "Game data versions": counters (French infantry 2/1, German infantry 6/3, panzers 10/5) and
    # three CRT rows; everything the rulebook fixes (VP awards, victory level, movement factors, turns,
    # entry tables, support dice, shifts) and the map stay as in v1
    t1, t2 = _yaml(V1, "tables.yaml"), _yaml(V2, "tables.yaml")
    for key in ("game", "tec", "shifts", "support", "vp", "entry"):
        assert t1[key] == t2[key], key
    assert t1["crt"]["columns"] == t2["crt"]["columns"]  # the rule 13.15 example resolves as in v1
    changed_rows = {d for d in range(1, 7) if t1["crt"]["results"][d] != t2["crt"]["results"][d]}
    assert changed_rows == {1, 2, 3}
    assert t2["crt"]["results"][1] == ["AE", "AE", "AE", "AS", "BB", "DR", "DR", "DR", "DR"]
    u1, u2 = _yaml(V1, "units.yaml")["units"], _yaml(V2, "units.yaml")["units"]
    assert [u["id"] for u in u1] == [u["id"] for u in u2]
    expected = {("french", "infantry"): [2, 1], ("german", "infantry"): [6, 3], ("german", "panzer"): [10, 5]}
    for a, b in zip(u1, u2, strict=True):
        assert {k: v for k, v in a.items() if k != "cf"} == {k: v for k, v in b.items() if k != "cf"}
        assert b["cf"] == expected.get((b["side"], b["type"]), a["cf"]), b["id"]
    assert _yaml(V1, "setup_fixed.yaml")["placement"] == _yaml(V2, "setup_fixed.yaml")["placement"]


def test_v3_is_v2_with_the_french_infantry_of_v1() -> None:
    # README "Game data": with the v2-tuned experts v2 favoured Germany (France 0.362 of the 400 check games);
    # v3 puts the French infantry corps back at v1's 3/1 and changes nothing else
    for name in ("tables.yaml", "setup_fixed.yaml"):
        a, b = _yaml(V2, name), _yaml(V3, name)
        assert a.pop("version") == V2 and b.pop("version") == V3 and a == b, name
    map2 = (data_dir(V2) / "map.csv").read_text(encoding="utf-8")
    assert map2.replace(V2, V3) == (data_dir(V3) / "map.csv").read_text(encoding="utf-8")
    u1, u2, u3 = (_yaml(v, "units.yaml")["units"] for v in DATA_VERSIONS)
    changed = [c["id"] for b, c in zip(u2, u3, strict=True) if b != c]
    assert (
        changed == [u["id"] for u in u2 if u["side"] == "french" and u["type"] == "infantry"]
        and len(changed) == 16
    )
    for a, b, c in zip(u1, u2, u3, strict=True):
        assert c == (a if c["id"] in changed else b) and (c["id"] not in changed or c["cf"] == [3, 1])


def test_a_data_folder_with_mixed_versions_is_refused(tmp_path: Path) -> None:
    d = tmp_path / "mine"
    shutil.copytree(data_dir(V2), d)
    shutil.copy(data_dir(V1) / "units.yaml", d / "units.yaml")
    with pytest.raises(DataError, match=r"declare different versions .*units\.yaml 'reconstruction-v1'"):
        load_scenario(d)


def test_a_data_folder_missing_a_file_or_an_unknown_name_is_refused(tmp_path: Path) -> None:
    d = tmp_path / "mine"
    shutil.copytree(data_dir(V2), d)
    (d / "tables.yaml").unlink()
    with pytest.raises(DataError, match=r"missing tables\.yaml"):
        load_scenario(d)
    with pytest.raises(DataError, match=r"'reconstruction-v9': neither a shipped data version"):
        load_scenario("reconstruction-v9")


def test_a_cf_above_the_observation_scale_is_refused(tmp_path: Path) -> None:
    d = tmp_path / "mine"
    shutil.copytree(data_dir(V2), d)
    p = d / "units.yaml"
    p.write_text(p.read_text(encoding="utf-8").replace("cf: [10, 5]", f"cf: [{MAX_CF + 1}, 5]", 1), "utf-8")
    with pytest.raises(DataError, match=rf"de-XXXIX.*cf: expected an integer in \[0, {MAX_CF}\]"):
        load_scenario(d)


def test_a_user_folder_is_played_by_name_of_its_path(tmp_path: Path) -> None:
    d = tmp_path / "mine"
    shutil.copytree(data_dir(V1), d)
    g = make_game("random", data=d)
    assert g.scenario.version == V1 and g.scenario is scenario_for(d)
    env = raw_env(data=d)
    assert pickle.loads(pickle.dumps(env)).game.scenario is scenario_for(d)


def test_envs_play_the_data_they_are_given_and_keep_it_through_pickle() -> None:
    env = raw_env(data=V1)
    assert env.game.scenario.version == V1
    env.reset(seed=1)
    again = pickle.loads(pickle.dumps(env))
    assert again.game.scenario.version == V1 and again.game_state.game.scenario.version == V1
    assert raw_env().game.scenario.version == DEFAULT_DATA


@pytest.mark.parametrize("version", DATA_VERSIONS)
def test_heuristic_games_finish_legally_on_each_version(version: str) -> None:
    from agents import make_agent

    agents = {side: make_agent("heuristic", side, seed=3) for side in ("french", "german")}
    env = raw_env(data=version)
    env.reset(seed=3)
    for name in env.agent_iter():
        _obs, _r, term, trunc, _info = env.last()
        env.step(None if term or trunc else agents[name].act_state(env.game_state))
    assert env.game_state.is_terminal() and env.game_state.game.scenario.version == version


def test_r37_a_record_replays_with_the_data_it_names(tmp_path: Path) -> None:
    rec = tmp_path / "v1.json"
    assert main(["play", "--data", V1, "--french", "heuristic", "--german", "heuristic", "--seed", "2",
                 "--record", str(rec)]) == 0  # fmt: skip
    record = load_record(rec)
    assert record["data_version"] == V1
    state = replay(record)  # this process plays v3 by default: the record's v1 is used
    assert state.game.scenario.version == V1 and state.is_terminal()
    # the same seed and bots on v2 is another game (other counters and CRT)
    game2 = Game(scenario=scenario_for(V2), options=RulesOptions.from_dict(record["options"]))
    assert game2.scenario.version == V2


def test_cli_data_option_is_used_and_then_restored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATA_ENV, raising=False)
    out = tmp_path / "t"
    assert main(["eval", "--data", V1, "--pairings", "heuristic:random", "--games", "2", "--workers", "1",
                 "--out", str(out), "--no-progress", "--quiet"]) == 0  # fmt: skip
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["config"]["data_version"] == V1
    assert default_scenario().version == DEFAULT_DATA  # the option did not leak into the caller
    # resuming that tournament on other data is refused, naming the option that fixes it
    assert main(["eval", "--resume", str(out), "--no-progress", "--quiet"]) == 2
    assert main(["eval", "--data", V1, "--resume", str(out), "--no-progress", "--quiet"]) == 0


def test_cli_bad_data_is_one_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--data", "nowhere"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "error: game data 'nowhere': neither a shipped data version (reconstruction-v1, reconstruction-v2, "
        "reconstruction-v3) nor a folder holding map.csv, units.yaml, tables.yaml, setup_fixed.yaml"
    ]
