"""Data versions of France 1940 (issue 63 item 4): shipped versions in their own folders, the first kept byte
for byte; the version chosen by ``RulesOptions.data_version`` (``$FFO_F40_DATA``), written in records and
saved states and checked on replay and load; an unknown version is one error naming it and the known ones."""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from ffo_env.core.errors import DataError
from ffo_env.france1940.core.data import (
    DATA_ENV,
    DATA_ROOT,
    DATA_VERSIONS,
    DEFAULT_DATA,
    FILES,
    data_choice,
    data_dir,
    data_for,
    load_data,
)
from ffo_env.france1940.core.game import Game, new_state
from ffo_env.france1940.core.options import RulesOptions
from ffo_env.france1940.core.record import Recorder, RecordError, replay
from ffo_env.france1940.core.state_io import StateError, state_from_dict, state_to_dict

V1 = "f40-reconstruction-v1"
V2 = "f40-reconstruction-v2"
V3 = "f40-reconstruction-v3"
# sha256 of the files of f40-reconstruction-v1 as released (session 40): a released version never changes
V1_SHA256 = {
    "map.yaml": "34d469c65a584751a8f940f7a1b8ece18d8640772e837359ec471037db261a9f",
    "obac.yaml": "5430cbf83b18d5bd966f086735ebce907cac89bc09e9e18d6e505bfb03348fbc",
    "tables.yaml": "f5f716eb60c272083688f8b996ad66f615e36b686671b5f8132f8577e0d43a0a",
    "units.yaml": "4c73f27f3fdc377ff8172d9568c5c292833e22ec022d30bd12ebf75c8c6e7096",
}
# sha256 of the files of f40-reconstruction-v2 as released (session 41, the default of sessions 42-47)
V2_SHA256 = {
    "map.yaml": "39945415d91163236156931b6fa18b9299f58799c05ece16ab2ef7a57ded7bae",
    "obac.yaml": "64782732e5cf8bfeedbaf3ecebd79c5d70a0df7a4f52e40b72fd69def69f304b",
    "tables.yaml": "166d8948887f84a6ccfd06e6a9915a86c3eef3adfff68325c00ef7477b218ea3",
    "units.yaml": "1cb39bcf09d6f252a952ebeb8d5e49f2256a8c714243c898f80f605b7d0a1747",
}
# sha256 of the files of f40-reconstruction-v3 as released (session 47, the default since session 48)
V3_SHA256 = {
    "map.yaml": "1f1562db47b3d863bede8ff764057c670acc74c827294160b79e706b8c7d09eb",
    "obac.yaml": "ce083c48341f3104e7c85b45920ee727e8186951714bc5b6b856b75900bced31",
    "tables.yaml": "ba00492b72cb43fe9dbd00a88c7510290df7673bfca6bf3cc3d22b927d24087d",
    "units.yaml": "43b7e65185dfe79f246d328f1b6d4daf06a19e64e2de08a2beb20016bba0b4f2",
}


def _played(seed: int, steps: int, **opts: object) -> Recorder:
    r = Recorder(new_state(seed, None, dict(opts)))
    rng = random.Random(seed)
    for _ in range(steps):
        if r.state.is_terminal():
            break
        r.apply(rng.choice(r.state.legal_actions()))
    return r


def test_v1_is_kept_byte_for_byte_in_its_own_folder() -> None:
    assert DATA_VERSIONS[0] == V1
    for name in FILES:
        digest = hashlib.sha256((DATA_ROOT / V1 / name).read_bytes()).hexdigest()
        assert digest == V1_SHA256[name], name


@pytest.mark.parametrize(("version", "pins"), [(V2, V2_SHA256), (V3, V3_SHA256)])
def test_v2_and_v3_are_kept_byte_for_byte_in_their_own_folders(version: str, pins: dict[str, str]) -> None:
    assert DATA_VERSIONS[:3] == (V1, V2, V3)  # oldest first
    for name in FILES:
        digest = hashlib.sha256((DATA_ROOT / version / name).read_bytes()).hexdigest()
        assert digest == pins[name], name


@pytest.mark.parametrize("version", DATA_VERSIONS)
def test_every_shipped_version_loads_from_its_folder_and_carries_its_name(version: str) -> None:
    assert data_dir(version) == DATA_ROOT / version
    assert data_for(version).version == version
    assert Game(RulesOptions(data_version=version)).data.version == version


def test_p20_default_version_is_v3_unless_the_environment_names_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(DATA_ENV, raising=False)  # v3 since session 48 (docs/france1940/bots.md)
    assert DEFAULT_DATA == V3 and data_choice() == V3 and RulesOptions().data_version == V3
    assert new_state(0).game.data.version == V3
    monkeypatch.setenv(DATA_ENV, V1)
    assert RulesOptions().data_version == V1 and new_state(0).game.data.version == V1


def test_p18_v2_the_default_of_sessions_42_to_47_stays_selectable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_ENV, V2)
    assert data_choice() == V2 and RulesOptions().data_version == V2 and new_state(0).game.data.version == V2
    monkeypatch.delenv(DATA_ENV, raising=False)
    assert new_state(0, None, {"data_version": V2}).game.data.version == V2


@pytest.mark.parametrize(
    "make",
    [
        lambda: RulesOptions(data_version="f40-reconstruction-v9"),
        lambda: RulesOptions.from_dict({"data_version": "f40-reconstruction-v9"}),
        lambda: new_state(0, None, {"data_version": "f40-reconstruction-v9"}),
        lambda: data_dir("f40-reconstruction-v9"),
    ],
)
def test_unknown_data_version_is_one_error_naming_it_and_the_known_ones(make: object) -> None:
    with pytest.raises(DataError, match="'f40-reconstruction-v9'.*known versions: f40-reconstruction-v1"):
        make()  # type: ignore[operator]


def test_data_files_of_mixed_versions_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    shutil.copytree(DATA_ROOT / V1, folder)
    assert load_data(folder).version == V1  # a copy of one's own loads, with its version
    p = folder / "tables.yaml"
    p.write_text(p.read_text().replace(f"version: {V1}", "version: f40-reconstruction-v0", 1))
    with pytest.raises(DataError, match="tables.yaml: version"):
        load_data(folder)


def test_game_refuses_data_of_another_version_than_its_options() -> None:
    other = [v for v in DATA_VERSIONS if v != V1]
    if not other:
        pytest.skip("one data version shipped")
    with pytest.raises(DataError, match="rules options name"):
        Game(RulesOptions(data_version=other[0]), data_for(V1))


@pytest.mark.parametrize("version", DATA_VERSIONS)
def test_record_names_its_data_version_and_replays_under_it_whatever_the_default(
    version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = _played(5, 300, data_version=version).record()
    assert rec["data"] == version and rec["options"]["data_version"] == version
    for default in DATA_VERSIONS:  # the process's default does not change what a record replays
        monkeypatch.setenv(DATA_ENV, default)
        assert replay(copy.deepcopy(rec)).game.data.version == version


def test_record_of_unknown_data_version_is_refused_naming_the_known_ones() -> None:
    rec = _played(5, 50).record()
    rec["data"] = "f40-reconstruction-v9"
    with pytest.raises(RecordError, match="'f40-reconstruction-v9'.*known versions: f40-reconstruction-v1"):
        replay(rec)


def test_record_whose_options_name_other_data_than_its_data_field_is_refused() -> None:
    rec = _played(5, 50).record()
    rec["options"]["data_version"] = "f40-reconstruction-v9"
    with pytest.raises(RecordError, match="options: data_version"):
        replay(rec)


def test_p19_record_written_before_data_versions_replays_under_its_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rec = _played(6, 200, data_version=V1).record()
    del rec["options"]["data_version"]  # a record of session 40: options without data_version, data v1
    for default in DATA_VERSIONS:  # v2, the default since session 42, does not change what it replays
        monkeypatch.setenv(DATA_ENV, default)
        assert replay(copy.deepcopy(rec)).game.data.version == V1
    monkeypatch.delenv(DATA_ENV)
    assert replay(copy.deepcopy(rec)).game.data.version == V1


@pytest.mark.parametrize("version", DATA_VERSIONS)
def test_saved_state_carries_its_data_version_and_loads_under_it(
    version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = state_to_dict(_played(7, 120, data_version=version).state)
    assert d["data"] == version
    for default in DATA_VERSIONS:
        monkeypatch.setenv(DATA_ENV, default)
        assert state_from_dict(copy.deepcopy(d)).game.data.version == version


def test_saved_state_of_unknown_data_version_is_refused_naming_the_known_ones() -> None:
    d = state_to_dict(_played(7, 60).state)
    d["data"] = "f40-reconstruction-v9"
    with pytest.raises(StateError, match="'f40-reconstruction-v9'.*known versions: f40-reconstruction-v1"):
        state_from_dict(d)


def test_p19_saved_state_written_before_data_versions_loads_as_v1(monkeypatch: pytest.MonkeyPatch) -> None:
    d = state_to_dict(_played(7, 60, data_version=V1).state)
    del d["data"]
    del d["options"]["data_version"]
    for default in DATA_VERSIONS:  # v2, the default since session 42, does not change what it loads as
        monkeypatch.setenv(DATA_ENV, default)
        assert state_from_dict(copy.deepcopy(d)).game.data.version == V1


def test_saved_state_of_other_data_than_the_game_given_is_refused() -> None:
    other = [v for v in DATA_VERSIONS if v != V1]
    if not other:
        pytest.skip("one data version shipped")
    d = state_to_dict(_played(7, 60, data_version=V1).state)
    with pytest.raises(StateError, match="data: the state was saved with game data"):
        state_from_dict(d, Game(RulesOptions(data_version=other[0])))


def test_env_data_version_option_reaches_the_core_and_refuses_unknown_ones() -> None:
    from ffo_env.france1940.env import France1940SingleAgentEnv, raw_env

    for version in DATA_VERSIONS:
        e = raw_env(data_version=version)
        e.reset(seed=1)
        assert e.game_state.game.data.version == version
        g = France1940SingleAgentEnv(rules={"data_version": version})
        g.reset(seed=1)
        assert g.game_state.game.data.version == version
    with pytest.raises(DataError, match="known versions"):
        raw_env(data_version="nope")
    for other in DATA_VERSIONS[1:]:  # one option given two ways must agree
        with pytest.raises(ValueError, match="data_version is given twice"):
            raw_env(data_version=V1, rules={"data_version": other})


def test_registry_versions_and_suite_new_state_follow_the_chosen_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ffo_env.games import game_info

    info = game_info("france1940")
    for version in DATA_VERSIONS:
        monkeypatch.setenv(DATA_ENV, version)
        assert info.versions()["data"] == version
        assert info.new_state(0).game.data.version == version
        assert info.new_state(0, None, {"data_version": V1}).game.data.version == V1


def test_cli_data_option_of_france1940_names_unknown_versions_and_restores_the_environment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import os

    from ffo_env.cli import main

    monkeypatch.delenv(DATA_ENV, raising=False)
    code = main(
        [
            "eval",
            "--game",
            "france1940",
            "--data",
            "reconstruction-v3",
            "--pairings",
            "pass:pass",
            "--games",
            "1",
            "--workers",
            "1",
            "--out",
            str(tmp_path / "t"),
            "--no-progress",
            "--quiet",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "'reconstruction-v3'" in err and "known versions: f40-reconstruction-v1" in err
    assert not (tmp_path / "t").exists() and DATA_ENV not in os.environ


def test_cli_eval_of_france1940_plays_the_data_named_and_records_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json
    import os

    from ffo_env.cli import main

    monkeypatch.delenv(DATA_ENV, raising=False)
    version = V1  # not the default
    out = tmp_path / "t"
    assert main(["eval", "--game", "france1940", "--data", version, "--pairings", "pass:pass", "--games", "1",
                 "--workers", "1", "--out", str(out), "--no-progress", "--quiet"]) == 0  # fmt: skip
    assert json.loads((out / "results.json").read_text(encoding="utf-8"))["config"]["data_version"] == version
    assert DATA_ENV not in os.environ  # the option did not leak into the caller


def test_p18_v2_departs_from_v1_only_in_the_crt_loss_rows_of_columns_2_1_to_5_1() -> None:
    """f40-reconstruction-v2 (docs/france1940/bots.md, session 41): every loss result (1CA, 2CA, DX) needs a
    modified die one row higher than in v1 in the column 2-1, two rows higher in 3-1, 4-1 and 5-1, the freed
    rows reading DR; everything else is v1's."""
    import yaml

    v2 = "f40-reconstruction-v2"
    assert v2 in DATA_VERSIONS
    for name in ("map.yaml", "obac.yaml", "units.yaml"):
        old = (DATA_ROOT / V1 / name).read_text(encoding="utf-8")
        assert (DATA_ROOT / v2 / name).read_text(encoding="utf-8") == old.replace(V1, v2, 1), name
    t1 = yaml.safe_load((DATA_ROOT / V1 / "tables.yaml").read_text(encoding="utf-8"))
    t2 = yaml.safe_load((DATA_ROOT / v2 / "tables.yaml").read_text(encoding="utf-8"))
    c1, c2 = t1.pop("crt")["columns"], t2.pop("crt")["columns"]
    assert {k: v for k, v in t1.items() if k != "version"} == {k: v for k, v in t2.items() if k != "version"}
    loss = ("1CA", "2CA", "DX")
    later = {"2-1": 1, "3-1": 2, "4-1": 2, "5-1": 2}
    for col in c1:
        k = later.get(col, 0)
        first = next((i for i, r in enumerate(c1[col]) if r in loss), len(c1[col]))
        expected = c1[col][:first] + ["DR"] * k + c1[col][first : len(c1[col]) - k]
        assert c2[col] == expected, col


def test_p20_v3_departs_from_v2_only_in_the_crt_loss_rows_of_columns_3_1_to_5_1() -> None:
    """f40-reconstruction-v3 (docs/france1940/bots.md, session 47; P20): v2 except the columns 3-1, 4-1 and
    5-1, whose loss results (1CA, 2CA, DX) need a modified die one row higher than in v1 where v2 has two:
    in 2-1 .. 5-1 every loss result is one row later than in v1, the row freed reading DR. Every other
    column, table and file is v2's (byte for byte but the version line)."""
    import yaml

    assert V3 in DATA_VERSIONS and DEFAULT_DATA == V3  # the default since session 48 (P20)
    for name in ("map.yaml", "obac.yaml", "units.yaml"):
        old = (DATA_ROOT / V2 / name).read_text(encoding="utf-8")
        assert (DATA_ROOT / V3 / name).read_text(encoding="utf-8") == old.replace(V2, V3, 1), name
    t1 = yaml.safe_load((DATA_ROOT / V1 / "tables.yaml").read_text(encoding="utf-8"))
    t2 = yaml.safe_load((DATA_ROOT / V2 / "tables.yaml").read_text(encoding="utf-8"))
    t3 = yaml.safe_load((DATA_ROOT / V3 / "tables.yaml").read_text(encoding="utf-8"))
    c1, c2, c3 = t1.pop("crt")["columns"], t2.pop("crt")["columns"], t3.pop("crt")["columns"]
    assert t3["version"] == V3
    assert {k: v for k, v in t2.items() if k != "version"} == {k: v for k, v in t3.items() if k != "version"}
    changed = ("3-1", "4-1", "5-1")
    assert list(c3) == list(c2)
    for col in c2:
        assert col in changed or c3[col] == c2[col], col
    loss = ("1CA", "2CA", "DX")
    for col in ("2-1", *changed):  # one row later than v1 (2-1 as in v2)
        first = next(i for i, r in enumerate(c1[col]) if r in loss)
        assert c3[col] == c1[col][:first] + ["DR"] + c1[col][first:-1], col
    assert c3["3-1"] == ["AR", "CA", "CA", "BR", "DR", "DR", "DR", "1CA", "DX", "DX"]
    assert c3["4-1"] == ["AR", "CA", "BR", "DR", "DR", "1CA", "2CA", "DX", "DX", "DX"]
    assert c3["5-1"] == ["CA", "BR", "DR", "DR", "1CA", "2CA", "DX", "DX", "DX", "DX"]
    v3 = data_for(V3)
    assert [v3.crt(4, d) for d in range(-1, 9)] == c3["3-1"] and v3.crt(6, 12) == "DX"


def _written_before() -> dict[str, dict[str, Any]]:
    """A record and a saved state written by session 40's core (no ``data_version`` option, a state without
    ``data``) and by session 41's (v1 the default, ``data_version`` in the options): a heuristic game, seed
    3, through game-turn 2 (11 combats, some whose v1 result v2 reads otherwise)."""
    path = Path(__file__).resolve().parents[1] / "fixtures" / "france1940_records_s40_s41.json.gz"
    doc: dict[str, dict[str, Any]] = json.loads(gzip.decompress(path.read_bytes()))
    return doc


@pytest.mark.parametrize("session", ["session40", "session41"])
def test_p19_records_and_states_of_sessions_40_and_41_replay_under_v1_whatever_the_default(
    session: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = _written_before()[session]
    assert old["record"]["data"] == V1 and ("data_version" in old["record"]["options"]) == (
        session != "session40"
    )
    assert ("data" in old["state"]) == (session != "session40")
    monkeypatch.delenv(DATA_ENV, raising=False)
    for default in (None, *DATA_VERSIONS):
        if default is not None:
            monkeypatch.setenv(DATA_ENV, default)
        s = replay(copy.deepcopy(old["record"]))
        assert (
            s.game.data.version == V1 and state_to_dict(s)["state"] == old["record"]["final_state"]["state"]
        )
        loaded = state_from_dict(copy.deepcopy(old["state"]))
        assert loaded.game.data.version == V1 and state_to_dict(loaded)["state"] == old["state"]["state"]


def test_p19_a_session_40_record_read_as_v2_is_refused() -> None:
    """The rule matters: the same decisions under v2's table diverge (a v1 DX is a v2 2CA), so the record is
    refused rather than replayed into another game."""
    rec = copy.deepcopy(_written_before()["session40"]["record"])
    rec["data"] = V2
    with pytest.raises(RecordError, match="differs from the replay|decisions"):
        replay(rec)


def test_a_v1_tournament_resumed_under_the_v2_default_is_refused_naming_the_data_to_add(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents.harness import TournamentExists, _open_tournament, tournament_plan

    monkeypatch.delenv(DATA_ENV, raising=False)
    labels = [("pass", "pass")]
    _open_tournament(
        tmp_path, tournament_plan(labels, 1, 0, "random", "france1940", data_version=V1), False, False
    )
    with pytest.raises(TournamentExists, match=f"data_version is '{V1}'.*add --data {V1}"):
        _open_tournament(tmp_path, tournament_plan(labels, 1, 0, "random", "france1940"), True, False)
