"""Saved states and records across the engine change of issue 61 (springtime-core-1 -> 2, saved-state version
1 -> 2): an old saved state still loads, with how the BEF left the map (rule 18.3, S64) read from its logs;
an old record is refused with one error naming both engines; bad input changes nothing."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from ffo_env.springtime.core import ENGINE_VERSION, Game, RulesOptions
from ffo_env.springtime.core.record import Recorder, RecordError, replay
from ffo_env.springtime.core.state import ELIM, MAP
from ffo_env.springtime.core.state_io import StateError, state_from_dict, state_to_dict

from .sfh_helpers import act, position

BEF_RETURNS = RulesOptions(bef_returns=True, skip_forced=False)


def as_version_1(d: dict[str, Any]) -> dict[str, Any]:
    """A version-2 saved state written as version 1 wrote it (no ``bef_evacuated``)."""
    old = copy.deepcopy(d)
    old["version"] = 1
    old["engine"] = "springtime-core-1"
    del old["state"]["bef_evacuated"]
    return old


def _dynamo() -> Any:
    s = position(
        "turn 2 box 1 advantage none rp 3 0\nallied: GB-BEF@14 FR-8A@20\naxis: DE-1A@2\nheld: allied 3",
        BEF_RETURNS,
    )
    act(s, "yes")
    return s


def test_s64_a_version_1_state_loads_with_how_the_bef_left_read_from_its_logs() -> None:
    evacuated = _dynamo()
    assert evacuated.bef_evacuated
    assert state_from_dict(as_version_1(state_to_dict(evacuated))).bef_evacuated
    eliminated = position(
        "turn 2 box 2 advantage none\nallied: GB-BEF@14 FR-8A@20\naxis: DE-1A@2", BEF_RETURNS
    )
    bef = eliminated.game.unit_ids.index("GB-BEF")
    eliminated.eliminate(bef, "combat")
    loaded = state_from_dict(as_version_1(state_to_dict(eliminated)))
    assert loaded.status[bef] == ELIM and not loaded.bef_evacuated  # rule 12.3.2: any Allied Area
    # evacuated, returned through a port, eliminated in combat later: the elimination is the last exit
    again = _dynamo()
    again.place(bef, again.game.loc_ids.index("26"))
    again.turn += 1
    again.eliminate(bef, "combat")
    assert not state_from_dict(as_version_1(state_to_dict(again))).bef_evacuated
    plan_red = Game(scenario="plan_red", options=RulesOptions(bef_returns=True)).new_initial_state(0)
    assert state_from_dict(as_version_1(state_to_dict(plan_red))).bef_evacuated  # S58
    standard = Game().new_initial_state(0)
    v1 = state_from_dict(as_version_1(state_to_dict(standard)))
    assert not v1.bef_evacuated and state_to_dict(v1) == state_to_dict(standard)


def test_s64_bad_saved_states_are_refused_with_one_error() -> None:
    s = Game(options=RulesOptions(bef_returns=True)).new_initial_state(0)
    d = state_to_dict(s)
    before = copy.deepcopy(d)
    bad = copy.deepcopy(d)
    bad["version"] = 3
    with pytest.raises(StateError, match="version 1 or 2"):
        state_from_dict(bad)
    v1 = as_version_1(d)
    v1["state"]["bef_evacuated"] = False
    with pytest.raises(StateError, match="version-1 state has no field bef_evacuated"):
        state_from_dict(v1)
    bad = copy.deepcopy(d)
    bad["state"]["bef_evacuated"] = True  # the BEF is on the map
    assert s.status[s.game.unit_ids.index("GB-BEF")] == MAP
    with pytest.raises(StateError, match="bef_evacuated"):
        state_from_dict(bad)
    bad = copy.deepcopy(d)
    bad["state"]["bef_evacuated"] = 1
    with pytest.raises(StateError, match="bef_evacuated: expected true or false"):
        state_from_dict(bad)
    assert d == before  # nothing given was changed


def _record(seed: int) -> dict[str, Any]:
    rec = Recorder(Game().new_initial_state(seed))
    rng = random.Random(seed)
    for _ in range(120):
        rec.apply(rng.choice(rec.state.legal_actions()))
    return rec.record()


def test_s54_a_record_replays_and_one_of_the_old_engine_is_refused_by_name() -> None:
    rec = _record(3)
    assert rec["engine"] == ENGINE_VERSION == "springtime-core-2"
    assert state_to_dict(replay(rec)) == rec["final_state"]
    old = copy.deepcopy(rec)
    old["engine"] = "springtime-core-1"
    with pytest.raises(RecordError, match="'springtime-core-1'.*'springtime-core-2'.*cannot be replayed"):
        replay(old)
    assert old["engine"] == "springtime-core-1" and old["decisions"] == rec["decisions"]
