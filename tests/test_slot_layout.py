"""The candidate-slot action layout of the compact ids (issue 60, ``ffo_env/ffo/encoding/slots.py``,
``ffo_env/ffo/slot_env.py``): spaces, reachability of every legal action, masks = core legality, the slot
features against the core, gymnasium's checker."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import ffo_env  # noqa: F401 - registers the ids
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.phases import Decision
from ffo_env.ffo.core.scenario import Side
from ffo_env.ffo.core.stacking import counted
from ffo_env.ffo.encoding.slots import N_FEATURES, N_SLOTS, SLOT_FEATURES, split_candidates
from ffo_env.ffo.slot_env import FFOSlotEnv

F = {name: i for i, (name, _m) in enumerate(SLOT_FEATURES)}


def _slot_env(**kw: object) -> FFOSlotEnv:
    env = gym.make("ffo_env/German-compact-v0", action_layout="slots", **kw).unwrapped
    assert isinstance(env, FFOSlotEnv)
    return env


def _random_positions(env: FFOSlotEnv, seed: int, every: int = 7):
    """The env after every ``every``-th learner decision of a game of random legal slot actions."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    done, k = False, 0
    while not done:
        if k % every == 0:
            yield obs
        m = env.action_masks()
        obs, _r, te, tr, info = env.step(int(rng.choice(np.flatnonzero(m))))
        assert "illegal_action" not in info
        done, k = te or tr, k + 1


def test_spaces_of_the_slot_layout_and_the_core_layout_kept_as_an_option():
    env = _slot_env()
    n_spec = env.game.num_distinct_actions - env.game.layout.special_base
    assert n_spec == 15 and N_SLOTS == 8 and N_FEATURES == 21 and env.slot_count == N_SLOTS
    assert env.action_space == gym.spaces.Discrete(N_SLOTS + n_spec) == gym.spaces.Discrete(23)
    assert env.observation_space.shape == (123 + 20 + 15 + 4 + N_SLOTS * N_FEATURES,) == (330,)
    core = gym.make("ffo_env/German-compact-v0", action_layout="core").unwrapped
    assert core.action_space == gym.spaces.Discrete(1607)
    assert core.observation_space.shape == (4490,)
    with pytest.raises(ValueError, match="action_layout"):
        gym.make("ffo_env/German-compact-v0", action_layout="hexes")
    with pytest.raises(ValueError, match="observation_format"):
        gym.make("ffo_env/German-compact-v0", action_layout="slots", observation_format="flat")


def test_split_candidates_keeps_every_action_in_order():
    for n in (0, 1, 63, 64, 65, 200, 962, 1600):
        acts = np.arange(n, dtype=np.int64) * 3
        groups = split_candidates(acts)
        assert len(groups) == min(n, N_SLOTS)
        assert np.array_equal(np.concatenate(groups) if groups else acts, acts)
        assert all(len(g) == 1 for g in groups) == (n <= N_SLOTS)


def _reachable(env: FFOSlotEnv) -> set[int]:
    """Every core action the slot actions reach from this decision, narrowing through every group."""
    s = env.game_state
    cands = env.slots.candidates(s)
    out = {int(a) for a in cands.specials}
    stack = list(cands.groups)
    while stack:
        g = stack.pop()
        if len(g) == 1:
            out.add(int(g[0]))
        else:
            stack.extend(split_candidates(g))
    return out


def test_every_legal_action_is_reachable_and_masks_are_the_core_legality():
    env = _slot_env()
    seen_groups = 0
    for _obs in _random_positions(env, seed=3, every=5):
        s = env.game_state
        if s.is_terminal() or s.current_player != env.learner or env._depth:
            continue
        legal = set(s.legal_actions())
        assert _reachable(env) == legal
        m = env.action_masks()
        cands = env.slots.candidates(s)
        seen_groups += any(len(g) > 1 for g in cands.groups)
        assert (
            m[:N_SLOTS].sum()
            == len(cands.groups)
            == min(N_SLOTS, sum(a < env.slots.special_base for a in legal))
        )
        specials = {env.slots.special_base + j for j in np.flatnonzero(m[N_SLOTS:])}
        assert specials == {a for a in legal if a >= env.slots.special_base}
        for k in np.flatnonzero(m[:N_SLOTS]):
            core = env.core_action(int(k))
            assert (core is None) == (len(cands.groups[k]) > 1)
            assert core is None or core in legal
        assert env.core_action(N_SLOTS - 1) is None or m[N_SLOTS - 1]
    assert seen_groups > 0  # the refugee placements (rule 10.2) overflow the slots


def test_a_group_narrows_without_moving_the_game_and_then_plays_a_member():
    env = _slot_env(reward="potential")
    rng = np.random.default_rng(0)
    env.reset(seed=11)
    for _ in range(3000):
        cands = env.slots.candidates(env.game_state)
        big = [k for k, g in enumerate(cands.groups) if len(g) > 1]
        if big:
            break
        env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    else:
        pytest.fail("no decision with more candidates than slots")
    k = big[0]
    members = cands.groups[k]
    s = env.game_state
    n_hist = len(s.history)
    obs, r, te, tr, info = env.step(k)
    assert (r, te, tr, info["narrowed"]) == (0.0, False, False, 1) and len(s.history) == n_hist
    m = env.action_masks()
    assert m[: len(members)].all() and not m[len(members) :].any()  # no special while narrowed
    assert obs[env.slots.slots_offset - 1] == 1.0  # extra "narrowed"
    _obs, _r, _te, _tr, info = env.step(2)
    assert "illegal_action" not in info and s.history[n_hist][1] == int(members[2])


def test_an_empty_slot_is_illegal_and_changes_nothing():
    env = _slot_env()
    env.reset(seed=5)
    m = env.action_masks()
    empty = int(np.flatnonzero(~m[:N_SLOTS])[0])
    n_hist = len(env.game_state.history)
    _obs, r, te, _tr, info = env.step(empty)
    assert te and r == -1.0 and info["illegal_action"] == empty and info["winner"] == "french"
    assert len(env.game_state.history) == n_hist
    env = _slot_env(illegal_action="raise")
    env.reset(seed=5)
    with pytest.raises(ValueError):
        env.step(empty)


def test_slot_features_match_the_core():
    """Each hex slot's features against the core asked directly: over-stacking by playing the move on a
    clone (rule 6.5, R9), control and cities (rules 3.7, 4.3), stack heights (rule 3.6)."""
    env = _slot_env()
    checked = {"overstacks": 0, "french_city": 0, "unit_overstacked": 0}
    limit = env.game.scenario.tables.stack_limit
    for seed in (1, 2):
        for obs in _random_positions(env, seed=seed, every=3):
            s = env.game_state
            if s.is_terminal() or s.current_player != env.learner or env._depth:
                continue
            table = obs[env.slots.slots_offset :].reshape(N_SLOTS, N_FEATURES)
            cands = env.slots.candidates(s)
            fc = set(s.french_cities())
            for k, g in enumerate(cands.groups):
                assert table[k, F["filled"]] == 1.0
                if len(g) != 1:
                    assert table[k, F["is_group"]] == 1.0
                    continue
                a = int(g[0])
                if a < env.slots.unit_base:
                    st = s.stacks.get(a, [])
                    french = [u for u in st if env.game.unit_side[u] == Side.FRENCH]
                    assert table[k, F["enemy_units"]] == pytest.approx(len(french) / 4)
                    assert table[k, F["french_city"]] == float(a in fc)
                    checked["french_city"] += a in fc
                    assert table[k, F["city"]] == float(a in env.game.tables.city_hexes)
                    if s.decision == Decision.MOVE_DEST and a != s.loc[s.decision_unit()]:
                        c = s.clone()
                        c.apply_action(a)
                        over = counted(c, a) > limit and not env.game.unit_free_stacking[s.decision_unit()]
                        assert table[k, F["overstacks"]] == float(over), hg.hex_name(a)
                        checked["overstacks"] += over
                else:
                    u = a - env.slots.unit_base
                    h = s.loc[u]
                    over = h >= 0 and env.game.unit_side[u] == Side.GERMAN and counted(s, h) > limit
                    assert table[k, F["unit_overstacked"]] == float(over)
                    checked["unit_overstacked"] += over
            for k in range(len(cands.groups), N_SLOTS):
                assert not table[k].any()
    assert all(v > 0 for v in checked.values()), checked


def test_gymnasium_check_env_on_the_slot_layout():
    from gymnasium.utils.env_checker import check_env

    check_env(_slot_env(), skip_render_check=True)


def test_board_order_is_a_permutation_of_the_core_order_sorted_by_public_features():
    """``slot_order="board"`` lists the same candidates as the core's order, every legal action stays
    reachable, and the order follows its keys: destinations that over-stack the unit (rule 6.5, R9) after
    those that do not, game-ending targets (rule 4.1, R21) first, French-held cities (rule 4.3) before other
    hexes of the same over-stack class; ties in the core's order."""
    env = _slot_env(slot_order="board")
    assert env.slot_order == "board"
    checked = {"overstack_split": 0, "city_first": 0, "positions": 0}
    for _obs in _random_positions(env, seed=4, every=3):
        s = env.game_state
        if s.is_terminal() or s.current_player != env.learner or env._depth:
            continue
        board = env.slots.candidates(s, order="board")
        core = env.slots.candidates(s)
        flat_b = np.concatenate(board.groups) if board.groups else np.zeros(0, dtype=np.int64)
        flat_c = np.concatenate(core.groups) if core.groups else np.zeros(0, dtype=np.int64)
        assert sorted(flat_b.tolist()) == flat_c.tolist()
        assert np.array_equal(board.specials, core.specials)
        assert env._candidates() is not None and all(
            np.array_equal(a, b) for a, b in zip(env._candidates().groups, board.groups, strict=True)
        )
        checked["positions"] += 1
        if flat_b.size < 2:
            continue
        comp = env.slots.compact.encode(s, env.learner, False)
        f = env.slots.candidate_features(s, env.learner, flat_b, comp)
        over = f[:, F["overstacks"]]
        assert np.all(np.diff(over) >= 0)  # never an over-stacking destination before a clean one
        checked["overstack_split"] += bool(over.any() and not over.all())
        ends = f[:, F["ends_game"]]
        assert np.all(np.diff(ends) <= 0)
        for cls in (0.0, 1.0):
            sel = (over == cls) & (f[:, F["unit_overstacked"]] == 0) & (ends == 0)
            city = f[sel, F["french_city"]]
            assert np.all(np.diff(city) <= 0)  # French-held cities first within the class
            checked["city_first"] += bool(city.any() and not city.all())
        legal = set(s.legal_actions())
        for k in np.flatnonzero(env.action_masks()[:N_SLOTS]):
            core_a = env.core_action(int(k))
            assert core_a is None or (core_a in legal and core_a == int(board.groups[k][0]))
    assert all(v > 0 for v in checked.values()), checked


def test_slot_order_core_is_the_default_and_unknown_orders_are_refused():
    assert _slot_env().slot_order == "core"
    with pytest.raises(ValueError, match="slot_order"):
        _slot_env(slot_order="sorted")


def test_overstack_last_order_moves_only_the_over_stacking_destinations_back():
    """``slot_order="overstack_last"``: destinations that over-stack the unit (rule 6.5, R9) after those
    that do not, each class in the core's order."""
    env = _slot_env(slot_order="overstack_last")
    split = 0
    for _obs in _random_positions(env, seed=6, every=4):
        s = env.game_state
        if s.is_terminal() or s.current_player != env.learner or env._depth:
            continue
        cands = env.slots.candidates(s, order="overstack_last")
        flat = np.concatenate(cands.groups) if cands.groups else np.zeros(0, dtype=np.int64)
        if flat.size < 2:
            continue
        comp = env.slots.compact.encode(s, env.learner, False)
        over = env.slots.candidate_features(s, env.learner, flat, comp)[:, F["overstacks"]]
        assert np.all(np.diff(over) >= 0)
        for cls in (0.0, 1.0):
            assert np.all(np.diff(flat[over == cls]) > 0)  # the core's order within each class
        split += bool(over.any() and not over.all())
    assert split > 0


def test_shuffled_order_is_a_seeded_permutation_that_keeps_the_game_seeds():
    """``slot_order="shuffled"``: every decision lists the core's candidates in a new random order (so a
    slot's place says nothing), seeded by the game's seed and nothing drawn from the env's generator: the same env
    seed gives the same game in either order, and the same orders again."""
    envs = {o: _slot_env(slot_order=o) for o in ("core", "shuffled")}
    envs["again"] = _slot_env(slot_order="shuffled")
    first: dict[str, list[list[int]]] = {}
    for name, env in envs.items():
        env.reset(seed=11)
        listed = []
        rng = np.random.default_rng(3)
        for _ in range(12):
            s = env.game_state
            if s.is_terminal():
                break
            cands = env._candidates()
            assert cands is not None
            if not cands.groups:
                env.step(N_SLOTS + int(cands.specials[0]) - env.slots.special_base)
                continue
            flat = np.concatenate(cands.groups)
            assert sorted(flat.tolist()) == np.concatenate(env.slots.candidates(s).groups).tolist()
            listed.append(flat.tolist())
            # the same core action in every env, so the games stay the same (through its group if any)
            a = int(sorted(flat.tolist())[int(rng.integers(len(flat)))])
            while True:
                groups = env._candidates().groups
                k = next(i for i, g in enumerate(groups) if a in g)
                env.step(k)
                if len(groups[k]) == 1:
                    break
        first[name] = listed
    assert envs["core"].game_state.to_json() == envs["shuffled"].game_state.to_json()
    assert first["shuffled"] == first["again"]
    assert any(c != s for c, s in zip(first["core"], first["shuffled"], strict=True))
    orders = {tuple(x) for x in first["shuffled"]}
    assert len(orders) > 1


def test_slot_count_sets_the_spaces_and_keeps_every_legal_action_reachable():
    from ffo_env.ffo.encoding.slots import narrowing_depth

    assert [narrowing_depth(n, 8) for n in (0, 8, 9, 64, 65, 512, 513, 1592)] == [0, 0, 1, 1, 2, 2, 3, 3]
    for k, depth in ((64, 1), (16, 2), (8, 3)):
        env = _slot_env(slot_count=k)
        assert env.slot_count == env.slots.n_slots == k and env.slots.max_depth == depth
        assert env.action_space == gym.spaces.Discrete(k + 15)
        assert env.observation_space.shape == (123 + 20 + 15 + 4 + k * N_FEATURES,)
        assert env.observation_space.high[env.slots.slots_offset - 1] == max(2, depth)  # "narrowed"
        rng = np.random.default_rng(k)
        obs, _ = env.reset(seed=21)
        deepest, checked = 0, 0
        for _ in range(1500):
            assert env.observation_space.contains(obs)
            m = env.action_masks()
            s = env.game_state
            if not env._depth and s.current_player == env.learner and checked < 40:
                legal = set(s.legal_actions())
                out = {int(a) for a in env.slots.candidates(s).specials}
                stack = list(env.slots.candidates(s).groups)
                while stack:
                    g = stack.pop()
                    out.add(int(g[0])) if len(g) == 1 else stack.extend(split_candidates(g, k))
                assert out == legal and m[:k].sum() == min(k, sum(a < env.slots.special_base for a in legal))
                checked += 1
            obs, _r, te, tr, info = env.step(int(rng.choice(np.flatnonzero(m))))
            assert "illegal_action" not in info
            deepest = max(deepest, info.get("narrowed", 0))
            if te or tr:
                break
        assert checked == 40 and 1 <= deepest <= depth


def test_slot_count_out_of_range_is_refused_with_its_name():
    for bad in (1, 0, 2000, 8.0, True):
        with pytest.raises(ValueError, match="slot_count"):
            _slot_env(slot_count=bad)
