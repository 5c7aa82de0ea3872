"""The observation of France 1940 (ffo_env/france1940/encoding.py): its layout, its values, the legal actions
it shows, and the fog of war (F60, P3): states that differ only in what a side may not see give that side
the same observation, and the env's ``info`` holds nothing hidden either."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ffo_env.core.dice import Dice
from ffo_env.france1940 import encoding as E
from ffo_env.france1940.core import actions as A
from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.hexgrid import N_HEXES, NEIGHBOURS, col_row
from ffo_env.france1940.core.options import RulesOptions
from ffo_env.france1940.core.state import MAP, OUT, State
from ffo_env.france1940.env import France1940Adapter, make_adapter


def _played(seed: int, n: int, **options: object) -> State:
    s = Game(RulesOptions(**options)).new_initial_state(seed)  # type: ignore[arg-type]
    rng = random.Random(seed)
    for _ in range(n):
        if s.is_terminal():
            break
        s.apply_action(rng.choice(s.legal_actions()))
    return s


def test_the_layout_sizes_and_the_spec_hash() -> None:
    assert E.SHAPES == {"planes": (59, 40, 32), "units": (192, 48), "globals": (103,)}
    assert E.FLAT_SIZE == 59 * 1280 + 192 * 48 + 103 == 84_839
    game = Game()
    assert len(E.playable_hexes(game)) == 947
    assert E.compact_size(game) == 103 + 192 * len(E.COMPACT_UNIT_FEATURES) + 5 * 947 == 9_638
    assert len(set(E.PLANES)) == len(E.PLANES) and len(set(E.GLOBAL_FEATURES)) == len(E.GLOBAL_FEATURES)
    assert len(set(E.UNIT_FEATURES)) == len(E.UNIT_FEATURES)
    assert E.spec_hash() == E.spec_hash(E.observation_spec()) and len(E.spec_hash()) == 16
    changed = E.observation_spec()
    changed["planes"] = changed["planes"][:-1]
    assert E.spec_hash(changed) != E.spec_hash()


def test_a_hex_plane_cell_is_its_hex_and_its_hex_action() -> None:
    s = _played(1, 300)
    obs = E.encode(s, s.current_player, s.legal_actions())
    legal_hex = obs["planes"][E.PLANES.index("legal_hex")]
    for a in s.legal_actions():
        if A.HEX <= a < A.UNIT:
            n = A.action_hex(a)
            c, r = col_row(n)
            assert legal_hex[c - 1, r - 1] == 1.0 and legal_hex.reshape(-1)[n - 1] == 1.0
    paris = obs["planes"][E.PLANES.index("paris")].reshape(-1)
    assert sorted(np.flatnonzero(paris) + 1) == sorted(s.game.data.paris)


def test_rivers_are_drawn_on_both_sides_of_their_hexside() -> None:
    game = Game()
    planes = E.encode(game.new_initial_state(0), 0)["planes"].reshape(len(E.PLANES), N_HEXES)
    rivers = planes[[E.PLANES.index(f"river_{d}") for d in ("n", "s", "wn", "ws", "en", "es")]]
    opposite = {0: 1, 1: 0, 2: 5, 3: 4, 4: 3, 5: 2}  # north/south, west-north/east-south, ...
    count = 0
    for side in game.data.rivers:
        a, b = sorted(side)
        da = E._direction(a, b)
        assert E._direction(b, a) == opposite[da]
        assert rivers[da, a - 1] == 1.0 and rivers[opposite[da], b - 1] == 1.0
        count += 1
    assert count == len(game.data.rivers) and int(rivers.sum()) == 2 * count
    assert all(E._direction(h, m) in range(6) for h in (1, 33, 640) for m in NEIGHBOURS[h])


@pytest.mark.parametrize("seed", [0, 5])
def test_every_value_lies_between_zero_and_one_and_the_legal_features_are_the_cores_legal_actions(
    seed: int,
) -> None:
    s = Game(RulesOptions(bef_variant=True, optional_airborne=True)).new_initial_state(seed)
    rng = random.Random(seed)
    decisions = set()
    for i in range(1500):
        if s.is_terminal():
            break
        legal = s.legal_actions()
        if i % 25 == 0:
            me = s.current_player
            obs = E.encode(s, me, legal)
            for k, v in obs.items():
                assert v.dtype == np.float32 and v.shape == E.SHAPES[k]
                assert v.min() >= 0.0 and v.max() <= 1.0, k
            shown = [
                A.HEX - 1 + int(n) + 1
                for n in np.flatnonzero(obs["planes"][E.PLANES.index("legal_hex")].reshape(-1))
            ]
            shown += [
                A.UNIT + int(u) for u in np.flatnonzero(obs["units"][:, E.UNIT_FEATURES.index("legal")])
            ]
            shown += [a for a, n in E._SPECIAL if obs["globals"][E.GLOBAL_FEATURES.index(f"legal_{n}")]]
            assert sorted(shown) == sorted(legal)
            assert obs["globals"][E.GLOBAL_FEATURES.index("to_act")] == 1.0
            other = E.encode(s, 1 - me, None)
            assert other["globals"][E.GLOBAL_FEATURES.index("to_act")] == 0.0
            assert not other["planes"][E.PLANES.index("legal_hex")].any()
            assert not other["units"][:, E.UNIT_FEATURES.index("legal")].any()
            decisions.add(s.decision)
            assert obs["globals"][E.GLOBAL_FEATURES.index(f"decision_{s.decision}")] == 1.0
        s.apply_action(rng.choice(legal))
    assert len(decisions) >= 5


def test_flat_and_compact_are_the_structured_observation_rearranged() -> None:
    s = _played(2, 700)
    obs = E.encode(s, 0, s.legal_actions() if s.current_player == 0 else None)
    flat = E.flatten(obs)
    assert flat.shape == (E.FLAT_SIZE,)
    n_p = int(np.prod(E.SHAPES["planes"]))
    assert np.array_equal(flat[:n_p].reshape(E.SHAPES["planes"]), obs["planes"])
    assert np.array_equal(flat[n_p : n_p + 192 * 48].reshape(192, 48), obs["units"])
    assert np.array_equal(flat[-103:], obs["globals"])
    compact = E.compact_from_dict(s.game, obs)
    assert compact.shape == (E.compact_size(s.game),)
    assert np.array_equal(compact[:103], obs["globals"])
    k = len(E.COMPACT_UNIT_FEATURES)
    assert np.array_equal(compact[103 : 103 + 192 * k].reshape(192, k), obs["units"][:, -k:])
    zoc = obs["planes"][E.PLANES.index("german_zoc")].reshape(-1)[E.playable_hexes(s.game)]
    at = 103 + 192 * k + E.COMPACT_PLANES.index("german_zoc") * len(zoc)
    assert np.array_equal(compact[at : at + len(zoc)], zoc)
    assert np.array_equal(E.encode_flat(s, 0, None), E.flatten(E.encode(s, 0, None)))


def test_units_table_rows_are_the_roster_and_show_positions() -> None:
    s = _played(3, 400)
    obs = E.encode(s, 1, None)
    units = obs["units"]
    n = len(s.game.units)
    assert units[:n, E.UNIT_FEATURES.index("present")].all() and not units[n:].any()
    for u in range(n):
        row = units[u]
        assert row[E.UNIT_FEATURES.index("german")] == (s.side_of(u) == 1)
        assert row[E.UNIT_FEATURES.index("status_map")] == (s.status[u] == MAP)
        if s.status[u] == MAP:
            c, r = col_row(s.hex[u])
            assert row[E.UNIT_FEATURES.index("col")] == pytest.approx(c / 40)
            assert row[E.UNIT_FEATURES.index("row")] == pytest.approx(r / 32)


# ------------------------------------------------------------------ fog of war (F60, P3)


def _hide_variant(s: State, viewer: int) -> State:
    """A copy of ``s`` that differs only in facts ``viewer`` may not see with ``hidden_obac``: the other
    side's column, the arrival turn of its units not yet on the map, the recorded draw of its column, and
    the seed and the dice generator."""
    t = s.clone()
    enemy = 1 - viewer
    others = {0: ("Hist", "A"), 1: ("I", "II")}[enemy]  # same Maginot state (F44): only the name differs
    t.columns[enemy] = others[1] if t.columns[enemy] == others[0] else others[0]
    waiting = [u for u in s.game.side_units[enemy] if s.status[u] == OUT]
    assert waiting, "the position must hold enemy units not yet on the map"
    for u in waiting:
        t.arrive[u] = -1 if s.arrive[u] > 0 else 7  # a unit that comes and one that never does, swapped
    t.rolls = [r for r in t.rolls if r[0] not in ("allied_obac", "german_obac")] + [["german_obac", 3]]
    t.seed = s.seed + 1
    t.dice_state = Dice(s.seed + 99).state
    return t


@pytest.mark.parametrize("viewer", [0, 1])
@pytest.mark.parametrize("steps", [0, 300, 1200])
def test_fog_a_side_sees_nothing_of_the_hidden_order_of_battle_nor_the_dice(viewer: int, steps: int) -> None:
    s = _played(11, steps, hidden_obac=True)
    t = _hide_variant(s, viewer)
    legal = s.legal_actions() if s.current_player == viewer else None
    assert legal is None or legal == t.legal_actions()
    a, b = E.encode(s, viewer, legal), E.encode(t, viewer, legal)
    for k in a:
        assert np.array_equal(a[k], b[k]), f"{k} leaks a hidden fact"
    adapter = make_adapter(rules={"hidden_obac": True})
    assert adapter.facts(s) == adapter.facts(t) and "columns" not in adapter.facts(s)
    # the test can fail: the viewer's own column is shown, so changing it changes the observation
    own = s.clone()
    alt = {0: "A", 1: "II"}[viewer]
    own.columns[viewer] = alt if own.columns[viewer] != alt else {0: "Hist", 1: "I"}[viewer]
    assert not np.array_equal(E.encode(own, viewer, legal)["globals"], a["globals"])


def test_fog_without_hidden_obac_both_columns_are_open_and_the_dice_still_hidden() -> None:
    s = _played(12, 500)
    g = E.encode(s, 1, None)["globals"]
    assert g[E.GLOBAL_FEATURES.index(f"allied_obac_{s.columns[0]}")] == 1.0
    assert g[E.GLOBAL_FEATURES.index("allied_obac_unknown")] == 0.0
    t = s.clone()
    t.seed, t.dice_state = 1234, Dice(1234).state
    for side in (0, 1):
        assert all(
            np.array_equal(x, y)
            for x, y in zip(E.encode(s, side).values(), E.encode(t, side).values(), strict=True)
        )
    assert make_adapter().facts(s)["columns"] == list(s.columns)


def test_fog_a_hidden_column_shows_as_unknown_and_in_game_is_hidden_for_units_not_yet_arrived() -> None:
    s = _played(13, 50, hidden_obac=True, allied_obac="random", german_obac="random")
    g = E.encode(s, 0, None)
    glob, units = g["globals"], g["units"]
    assert glob[E.GLOBAL_FEATURES.index("german_obac_unknown")] == 1.0
    assert glob[E.GLOBAL_FEATURES.index(f"allied_obac_{s.columns[0]}")] == 1.0
    waiting = [u for u in s.game.side_units[1] if s.status[u] == OUT]
    assert waiting and not units[waiting, E.UNIT_FEATURES.index("in_game")].any()
    mine = [u for u in s.game.side_units[0] if s.arrive[u] >= 0]
    assert units[mine, E.UNIT_FEATURES.index("in_game")].all()


def test_the_encoder_reads_the_view_not_the_state() -> None:
    """A guard on the mechanism: with hidden_obac the view masks what the state holds, and the encoder's
    output follows the view (a change made only to the state's hidden field does not reach it)."""
    s = _played(14, 100, hidden_obac=True)
    assert isinstance(make_adapter(rules={"hidden_obac": True}), France1940Adapter)
    before = E.encode(s, 0, None)["units"][:, E.UNIT_FEATURES.index("arrives")].copy()
    waiting = [u for u in s.game.side_units[1] if s.status[u] == OUT and s.arrive[u] > 0]
    s.arrive[waiting[0]] = 9
    assert np.array_equal(E.encode(s, 0, None)["units"][:, E.UNIT_FEATURES.index("arrives")], before)
    assert E.encode(s, 1, None)["units"][waiting[0], E.UNIT_FEATURES.index("arrives")] == pytest.approx(
        9 / 12
    )


def test_fog_p4_an_unplaced_unit_of_the_hidden_column_is_not_named_to_the_other_side() -> None:
    """P3, P4: the "unplaced" event of a unit that found no setup hex names it; with ``hidden_obac`` the
    other side's view drops it (it would tell which column was drawn), the owner's view keeps it, and with
    open columns (F60) everyone sees it."""
    from ffo_env.france1940.core.visibility import view

    for hidden in (True, False):
        s = _played(14, 0, hidden_obac=hidden)
        allied, german = s.game.side_units[0][0], s.game.side_units[1][0]
        s.log.append(["unplaced", s.uid(allied), "no legal setup hex"])
        s.log.append(["unplaced", s.uid(german), "no legal setup hex"])
        for viewer, own, enemy in ((0, allied, german), (1, german, allied)):
            names = {e[1] for e in view(s, viewer)["log"] if e and e[0] == "unplaced"}
            assert s.uid(own) in names
            assert (s.uid(enemy) in names) == (not hidden)
