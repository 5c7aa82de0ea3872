"""Fuzzed training configs: every override either loads a config within range or raises one ConfigError
that names the file and the key; nothing else escapes (no TypeError, no NaN accepted)."""

from __future__ import annotations

import math
from dataclasses import fields, is_dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from training.config import ConfigError, TrainConfig, load_config

QUICK = Path(__file__).resolve().parent.parent / "configs" / "ffo" / "train_quick.yaml"


def _keys(obj: object, prefix: str = "") -> list[str]:
    out = []
    for f in fields(obj):  # type: ignore[arg-type]
        v = getattr(obj, f.name)
        out.extend(_keys(v, f"{prefix}{f.name}.") if is_dataclass(v) else [f"{prefix}{f.name}"])
    return out


KEYS = _keys(TrainConfig()) + ["ppo", "policy", "eval", "pretrain"]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["random", "heuristic", "snapshots", "cpu", "../x", "policy:", ""]),
)
values = st.one_of(
    scalars, st.lists(scalars, max_size=4), st.dictionaries(st.text(max_size=8), scalars, max_size=3)
)


def _numbers(obj: object) -> list[float]:
    out: list[float] = []
    for f in fields(obj):  # type: ignore[arg-type]
        v = getattr(obj, f.name)
        if is_dataclass(v):
            out.extend(_numbers(v))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append(float(v))
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(overrides=st.dictionaries(st.sampled_from(KEYS), values, min_size=1, max_size=3))
def test_fuzzed_overrides_load_in_range_or_fail_with_the_key(overrides: dict) -> None:
    try:
        cfg = load_config(QUICK, overrides)
    except ConfigError as e:
        assert str(QUICK) in str(e)
        return
    assert all(math.isfinite(x) for x in _numbers(cfg))
    assert 0 < cfg.ppo.gamma <= 1 and cfg.ppo.n_epochs >= 1 and cfg.ppo.learning_rate > 0
    assert "/" not in cfg.run_name and not cfg.run_name.startswith(".")


@pytest.mark.parametrize(
    "key, value",
    [
        ("ppo.n_epochs", -1),
        ("ppo.gamma", 5),
        ("ppo.gamma", float("nan")),
        ("ppo.batch_size", 1),
        ("ppo.clip_range", 0),
        ("run_name", "../../x"),
        ("run_name", ".hidden"),
        ("policy.cnn_dim", 3_000_000),
        ("policy.net_arch", []),
        ("policy.net_arch", [64, "wide"]),
        ("device", "gpu"),
        ("eval.workers", 0),
        ("eval.opponents", ["nosuch"]),
        ("opponents", {"nosuch": 1.0}),
        ("seed", -1),
    ],
)
def test_out_of_range_values_are_refused_with_their_key(key: str, value: object) -> None:
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load_config(QUICK, {key: value})
