"""Bad inputs to the rules core: one clear error naming what and where, and the state unchanged."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ffo_env.ffo.core.actions import IllegalActionError
from ffo_env.ffo.core.game import Game, RulesOptions

pytestmark = pytest.mark.usefixtures("rules_data")  # conftest.RULES_DATA: figures of reconstruction-v1


def _state():
    s = Game().new_initial_state(seed=3)
    assert not s.is_terminal()
    return s


@pytest.mark.parametrize(
    "bad",
    [
        1379.9,
        1379.0,
        "1379",
        None,
        math.nan,
        True,
        False,
        np.float64(3.0),
        np.bool_(True),
        [1],
        np.array([1]),
    ],
)
def test_apply_action_accepts_only_integers(bad):
    s = _state()
    before = s.to_json()
    with pytest.raises(TypeError) as e:
        s.apply_action(bad)
    msg = str(e.value)
    assert repr(bad) in msg and s.decision.name in msg and "not an integer" in msg
    assert s.to_json() == before


@pytest.mark.parametrize("bad", [-1, -5, 10**9])
def test_apply_action_out_of_range_is_a_value_error(bad):
    s = _state()
    before = s.to_json()
    with pytest.raises(ValueError) as e:  # IllegalActionError is a ValueError
        s.apply_action(bad)
    assert isinstance(e.value, IllegalActionError)
    assert (
        str(bad) in str(e.value)
        and s.decision.name in str(e.value)
        and "outside the action space" in str(e.value)
    )
    assert s.to_json() == before


def test_apply_action_accepts_numpy_integers():
    s, t = _state(), _state()
    a = s.legal_actions()[0]
    s.apply_action(np.int64(a))
    t.apply_action(np.array(a, dtype=np.int32))  # a 0-d integer array is a numpy integer
    t2 = _state()
    t2.apply_action(a)
    assert s.to_json() == t.to_json() == t2.to_json()


def test_action_to_string_rejects_out_of_range_and_non_integers():
    s = _state()
    with pytest.raises(ValueError, match="action -5 is outside the action space"):
        s.action_to_string(-5)
    with pytest.raises(ValueError, match="outside the action space"):
        s.action_to_string(s.game.layout.n_actions)
    with pytest.raises(TypeError, match="not an integer"):
        s.action_to_string("3")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("skip_forced", "false", "bool"),
        ("repeat_attacks", 1, "bool"),
        ("repeat_attacks", None, "bool"),
        ("setup", 3, "str"),
        ("naval_vp_loss", True, "str"),
        ("mixed_stack", ["any"], "str"),
    ],
)
def test_rules_options_reject_wrong_types(name, value, expected):
    with pytest.raises(TypeError) as e:
        RulesOptions(**{name: value})
    msg = str(e.value)
    assert name in msg and repr(value) in msg and expected in msg and type(value).__name__ in msg
    with pytest.raises(TypeError, match=name):
        RulesOptions.from_dict({name: value})


def test_rules_options_accept_their_defaults_and_valid_values():
    assert RulesOptions.from_dict(RulesOptions().to_dict()) == RulesOptions()
    o = RulesOptions(
        setup="fixed",
        naval_vp_loss="die_minus_one",
        skip_forced=False,
        repeat_attacks=False,
        mixed_stack="all",
    )
    assert RulesOptions.from_dict(o.to_dict()) == o


def test_rules_options_every_option_is_type_checked():
    from ffo_env.ffo.core.game import _OPTION_TYPES

    assert set(_OPTION_TYPES) == set(RulesOptions.__dataclass_fields__)
