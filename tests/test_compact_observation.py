"""The compact observation (ffo_env.ffo.encoding.compact): spec, values, fog of war, envs and checkers."""

from __future__ import annotations

import copy
import pickle
import random
import re
import warnings
from functools import lru_cache

import gymnasium as gym
import numpy as np
import pytest
from conftest import default_game

import ffo_env
from agents.registry import make_agent
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.determinize import determinize, hidden_slots
from ffo_env.ffo.core.state import State
from ffo_env.ffo.encoding import compact as cp
from ffo_env.ffo.encoding.layout import (
    GLOBAL_INDEX,
    PLANE_INDEX,
    UNIT_FEATURE_INDEX,
    UNIT_GROUPS,
)
from ffo_env.ffo.encoding.observation import encoder_for

COMPACT_IDS = ("ffo_env/French-compact-v0", "ffo_env/German-compact-v0")


# ---------------------------------------------------------------- the docstring is the spec


def _sections() -> dict[str, tuple[tuple[int, ...], list[str]]]:
    doc = cp.__doc__ or ""
    parts = re.split(r"\n(Blocks|Unit columns|Board planes) ``\(([\d, ]+)\)``", doc)
    return {
        parts[i]: (
            tuple(int(x) for x in parts[i + 1].replace(" ", "").split(",") if x),
            parts[i + 2].splitlines(),
        )
        for i in range(1, len(parts), 3)
    }


def test_docstring_blocks_table_matches_the_layout_of_the_shipped_data():
    lay = cp.compact_encoder_for(default_game()).layout
    shape, lines = _sections()["Blocks"]
    rows = [m.groups() for ln in lines if (m := re.match(r"^(\d+)\s+([a-z_]+)\s+(\d+)\s", ln))]
    assert shape == (lay.size,)
    assert [r[1] for r in rows] == list(cp.BLOCKS)
    assert [(int(r[0]), int(r[2])) for r in rows] == [
        (lay.offsets[n], int(np.prod(lay.shapes[n]))) for n in cp.BLOCKS
    ]
    assert lay.size <= 5000  # the bound (#40)


def test_docstring_unit_columns_table_matches_the_code():
    shape, lines = _sections()["Unit columns"]
    rows = [
        m.groups() for ln in lines if (m := re.match(r"^(\d+)(?:-(\d+))?\s+([a-z_]+)(?:\[(\d+)\])?\s", ln))
    ]
    size = {g[0]: g[1] for g in UNIT_GROUPS}
    k = 0
    expected = []
    for name in cp.UNIT_COLUMNS:
        expected.append((k, k + size[name] - 1, name, size[name]))
        k += size[name]
    assert [(int(a), int(b or a), n, int(c or 1)) for a, b, n, c in rows] == expected
    assert shape == (k,) == (cp.N_UNIT_COLUMNS,)


def test_docstring_board_planes_table_matches_the_code():
    shape, lines = _sections()["Board planes"]
    rows = [m.groups() for ln in lines if (m := re.match(r"^(\d+)\s+([a-z_]+)\s+(share|\d+)\s", ln))]
    assert [(int(i), n, s) for i, n, s in rows] == [(i, p[0], p[1]) for i, p in enumerate(cp.BOARD_PLANES)]
    assert shape == (cp.N_BOARD_PLANES,)


def test_describe_names_every_block():
    lay = cp.compact_encoder_for(default_game()).layout
    o = lay.offsets
    assert cp.describe(lay, 0) == "globals: turn"
    assert lay.describe(o["units"] + cp.N_UNIT_COLUMNS * 3 + 5) == "units: row 3, cf"
    h = int(lay.land_hexes[0])
    assert cp.describe(lay, o["legal_hex"]) == f"legal_hex: hex {hg.hex_name(h)} (action {h})"
    assert cp.describe(lay, o["legal_special"]) == "legal_special: PASS"
    assert cp.describe(lay, o["legal_special"] + 6) == "legal_special: LOWER_0"
    assert cp.describe(lay, o["city_german"]).startswith("city_german: hex ")
    assert cp.describe(lay, lay.size - 1).startswith("board: enemy_cf @ columns ")
    for bad in (-1, lay.size):
        with pytest.raises(ValueError, match="offset must be in"):
            cp.describe(lay, bad)


# ---------------------------------------------------------------- a naive reference of the spec


def _reference(game, obs: dict[str, np.ndarray], legal: list[int] | None) -> np.ndarray:
    """The compact vector computed entry by entry from the docstring's definitions (slow, obvious)."""
    planes, units, g = obs["planes"], obs["units"], obs["globals"]
    land = [h for h in range(hg.N_HEX) if game.tables.land[h]]
    cities = [h for h in range(hg.N_HEX) if game.scenario.map.is_city[h]]

    def at(name: str, h: int) -> int:
        return int(planes[PLANE_INDEX[name], int(hg.HEX_X[h]) - 1, int(hg.HEX_Y[h])])

    out: list[float] = [float(x) for x in g]
    size = {gr[0]: gr[1] for gr in UNIT_GROUPS}
    for u in range(units.shape[0]):
        for name in cp.UNIT_COLUMNS:
            out += [float(units[u, UNIT_FEATURE_INDEX[name] + k]) for k in range(size[name])]
    out += [float(at("legal_hex", h)) for h in land]
    out += [float(max(at("dest_overstacks", h), at("target_ends_game", h))) for h in land]
    base = game.layout.special_base
    to_act = g[GLOBAL_INDEX["to_act"]] > 0
    out += [float(to_act and base + k in (legal or [])) for k in range(game.num_distinct_actions - base)]
    out += [float(at("german_control", h)) for h in cities]
    cell_of = {h: ((int(hg.HEX_X[h]) - 1) // 4, int(hg.HEX_Y[h]) // 4) for h in land}
    cells = sorted(set(cell_of.values()))
    members = {c: [h for h in land if cell_of[h] == c] for c in cells}
    values = {
        "german_control": lambda h: at("german_control", h),
        "ever_german": lambda h: at("ever_german", h),
        "refugee": lambda h: at("refugee", h),
        "refugee_flipped": lambda h: at("refugee_flipped", h),
        "attacked_hex": lambda h: at("attacked_hex", h),
        "own_units": lambda h: at("own_count", h),
        "own_cf": lambda h: at("own_cf", h),
        "enemy_units": lambda h: at("enemy_count", h),
        # the top unit's CF, or the revealed stack's
        "enemy_cf": lambda h: (
            at("enemy_revealed_cf", h) if at("enemy_revealed", h) else at("enemy_top_cf", h)
        ),
    }
    for name, scale, _m in cp.BOARD_PLANES:
        for c in cells:
            total = sum(values[name](h) for h in members[c])
            out.append(total / (len(members[c]) if scale == "share" else float(scale)))
    return np.array(out, dtype=np.float32)


@lru_cache(maxsize=1)
def _positions() -> tuple[State, ...]:
    """States of a heuristic game (every few decisions and in battles) and of a random one."""
    out = []
    st = default_game().new_initial_state(3)
    bots = {s: make_agent("heuristic", s, seed=7) for s in ("french", "german")}
    i = 0
    while not st.is_terminal() and len(out) < 45:
        if i % 29 == 0 or (st.battle is not None and i % 4 == 0):
            out.append(st.clone())
        st.apply_action(bots[st.current_agent].act_state(st))
        i += 1
    out.append(st.clone())  # the end of the game
    rng = random.Random(5)
    st = default_game().new_initial_state(11)
    i = 0
    while not st.is_terminal() and i < 1500:
        if i % 50 == 0:
            out.append(st.clone())
        st.apply_action(rng.choice(st.legal_actions()))
        i += 1
    return tuple(out)


def test_compact_equals_the_reference_computed_from_the_structured_observation():
    game = default_game()
    ce = cp.compact_encoder_for(game)
    enc = encoder_for(game)
    revealed = 0
    for i, s in enumerate(_positions()[::3]):
        omniscient = i % 3 == 2  # every stack revealed: enemy_cf is the whole stack's
        for viewer in (0, 1):
            legal = None if s.is_terminal() else s.legal_actions()
            vec = ce.encode(s, viewer, omniscient)
            obs = enc.encode(s, viewer, omniscient, legal=legal)
            np.testing.assert_allclose(
                vec, _reference(game, obs, legal), rtol=1e-6, atol=0, err_msg=s.decision_string()
            )
            p = obs["planes"]
            revealed += int((p[PLANE_INDEX["enemy_revealed_cf"]] > p[PLANE_INDEX["enemy_top_cf"]]).sum())
    assert revealed > 0  # the test saw revealed stacks stronger than their top unit


def test_shapes_dtypes_and_bounds_over_games_of_both_viewers():
    game = default_game()
    ce = cp.compact_encoder_for(game)
    lay = ce.layout
    assert lay.low.shape == lay.high.shape == (lay.size,) and (lay.low <= lay.high).all()
    for s in _positions():
        for viewer in (0, 1):
            for omniscient in (False, True):
                v = ce.encode(s, viewer, omniscient)
                assert v.shape == (lay.size,) and v.dtype == np.float32
                assert np.isfinite(v).all()
                bad = np.flatnonzero((v < lay.low) | (v > lay.high))
                assert bad.size == 0, [lay.describe(int(i)) for i in bad[:5]]


def test_the_decider_sees_its_whole_action_mask_and_the_other_side_none_of_it():
    """legal_hex (land hexes), units[:, legal] and legal_special together are the action mask exactly;
    every legal hex action is a land hex (else the compact vector would drop it)."""
    game = default_game()
    ce = cp.compact_encoder_for(game)
    lay = ce.layout
    assert cp.UNIT_COLUMNS[-1] == "legal"
    legal_col = cp.N_UNIT_COLUMNS - 1
    n = 0
    for s in _positions():
        if s.is_terminal():
            continue
        legal = s.legal_actions()
        mask = np.zeros(game.num_distinct_actions, dtype=bool)
        mask[legal] = True
        for viewer in (0, 1):
            b = lay.unflatten(ce.encode(s, viewer))
            seen = np.zeros_like(mask)
            seen[lay.land_hexes[b["legal_hex"] > 0]] = True
            seen[game.layout.unit_base + np.flatnonzero(b["units"][:, legal_col] > 0)] = True
            seen[game.layout.special_base + np.flatnonzero(b["legal_special"] > 0)] = True
            if viewer == int(s.player):
                assert np.array_equal(seen, mask), s.decision_string()
                n += 1
            else:
                assert not seen.any() and not b["hex_flag"].any()
    assert n >= 40


def test_hex_flag_marks_over_stacking_destinations():
    game = default_game()
    ce = cp.compact_encoder_for(game)
    enc = encoder_for(game)
    found = 0
    for s in _positions():
        if s.is_terminal():
            continue
        v = int(s.player)
        b = ce.layout.unflatten(ce.encode(s, v))
        p = enc.encode(s, v)["planes"]
        over = [
            int(h)
            for h in ce.layout.land_hexes
            if p[PLANE_INDEX["dest_overstacks"], hg.HEX_X[h] - 1, hg.HEX_Y[h]]
        ]
        flagged = [int(h) for h in ce.layout.land_hexes[b["hex_flag"] > 0]]
        assert set(over) <= set(flagged)
        found += len(over)
        assert (b["hex_flag"] <= b["legal_hex"]).all()  # only on legal hexes
    assert found > 0


# ---------------------------------------------------------------- fog of war (rule 3.6, R2, R3)


def test_3_6_compact_view_is_unchanged_when_the_hidden_enemy_units_are_dealt_again():
    """The viewer's compact vector does not change when the enemy units it cannot see are reshuffled
    (another identity, strength and flags under the same top units); the owner's view does change."""
    game = default_game()
    ce = cp.compact_encoder_for(game)
    rng = random.Random(1)
    owner_changed = 0
    states = [s for s in _positions() if hidden_slots(s, 0) or hidden_slots(s, 1)]
    assert len(states) >= 10
    for s in states:
        for viewer in (0, 1):
            if not hidden_slots(s, viewer):
                continue
            for _ in range(2):
                d = determinize(s, viewer, rng)
                assert np.array_equal(ce.encode(s, viewer), ce.encode(d, viewer)), s.decision_string()
                owner_changed += not np.array_equal(ce.encode(s, 1 - viewer), ce.encode(d, 1 - viewer))
    assert owner_changed > 0  # the reshuffles were real


def test_3_6_omniscient_shows_the_hidden_units():
    game = default_game()
    ce = cp.compact_encoder_for(game)
    s = max(_positions(), key=lambda x: len(hidden_slots(x, 1)))
    b = ce.layout.unflatten(ce.encode(s, 1))
    bo = ce.layout.unflatten(ce.encode(s, 1, omniscient=True))
    assert bo["units"][:, 0].sum() > b["units"][:, 0].sum()  # column 0: visible


# ---------------------------------------------------------------- determinism and buffers


def test_same_seed_and_actions_give_the_same_vectors_and_results_are_fresh_arrays():
    def run() -> list[np.ndarray]:
        env = gym.make("ffo_env/French-compact-v0")
        obs, info = env.reset(seed=4)
        out = [obs]
        rng = np.random.default_rng(0)
        for _ in range(60):
            legal = np.flatnonzero(info["action_mask"])
            obs, _r, term, trunc, info = env.step(int(legal[rng.integers(legal.size)]))
            out.append(obs)
            if term or trunc:
                break
        return out

    a, b = run(), run()
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert len({x.tobytes() for x in a}) > 10  # the observations change along the game
    assert not any(np.shares_memory(x, y) for x, y in zip(a, a[1:], strict=False))


# ---------------------------------------------------------------- environments and checkers


@pytest.mark.parametrize("env_id", COMPACT_IDS)
def test_compact_ids_pass_the_gymnasium_and_sb3_checkers(env_id):
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    # the core action layout (German-compact-v0's default is the slot layout: tests/test_slot_layout.py)
    env = gym.make(env_id, action_layout="core")
    assert env.spec is not None and env.spec.kwargs["observation_format"] == "compact"
    assert env.spec.kwargs["opponent"] == "random"
    assert env.observation_space.shape == (cp.compact_encoder_for(env.unwrapped.game).layout.size,)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither checker has anything to say
        gym_check(env.unwrapped, skip_render_check=True)
        sb3_check(gym.make(env_id, action_layout="core").unwrapped, warn=True)


def test_pettingzoo_api_and_parallel_api_tests_with_the_compact_format():
    from pettingzoo.test import api_test, parallel_api_test

    from ffo_env.ffo.env import parallel_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(ffo_env.env(observation_format="compact"), num_cycles=100)
        parallel_api_test(parallel_env(observation_format="compact"), num_cycles=50)


def test_aec_observation_and_state_are_the_compact_vectors():
    env = ffo_env.raw_env(observation_format="compact")
    env.reset(seed=2)
    ce = cp.compact_encoder_for(env.game)
    agent = env.agent_selection
    side = 0 if agent == "french" else 1
    obs = env.observe(agent)
    assert np.array_equal(obs["observation"], ce.encode(env.game_state, side))
    assert env.observation_space(agent)["observation"].contains(obs["observation"])
    st = env.state()
    assert env.state_space.contains(st)
    assert np.array_equal(st, ce.encode(env.game_state, 0, omniscient=True))
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert np.array_equal(twin.observe(agent)["observation"], obs["observation"])


def test_single_agent_observation_is_the_compact_vector_of_the_learner():
    env = gym.make("ffo_env/German-compact-v0", action_layout="core")
    obs, _info = env.reset(seed=3)
    u = env.unwrapped
    assert np.array_equal(obs, cp.compact_encoder_for(u.game).encode(u.game_state, 1))


def test_unknown_observation_format_is_named():
    with pytest.raises(ValueError, match="observation_format must be one of"):
        ffo_env.raw_env(observation_format="tiny")
