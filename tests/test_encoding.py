"""Observation encoding: fog of war (rule 3.6, R3), supply fast path, static planes, action ids."""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np
import pytest

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.scenario import Side
from ffo_env.ffo.core.state import Decision, State
from ffo_env.ffo.encoding import encode, encoder_for, legal_mask
from ffo_env.ffo.encoding.actions import decode_action, encode_action
from ffo_env.ffo.encoding.observation import FLAT
from ffo_env.ffo.encoding.observation import PLANE_INDEX as P


@lru_cache(maxsize=4)
def game(setup: str = "random") -> Game:
    return Game(options=RulesOptions(setup=setup))


def _equal(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in a)


def _two_deep_stacks(s: State, side: Side) -> tuple[int, int]:
    """Two hexes holding >= 2 units of ``side`` with non-free-stacking bottoms."""
    out = [
        h
        for h, st in sorted(s.stacks.items())
        if len(st) >= 2 and s.units[st[0]].side == side and h not in s.revealed[1 - side]
    ]
    assert len(out) >= 2, "the random setup should stack two units in several hexes (rule 3.3, 3.4)"
    return out[0], out[1]


def _swap_bottoms(s: State, h1: int, h2: int) -> State:
    """A copy of ``s`` where the bottom units of two stacks trade places (hidden, rule 3.6)."""
    t = s.clone()
    a, b = t.stacks[h1][0], t.stacks[h2][0]
    t.stacks[h1][0], t.stacks[h2][0] = b, a
    t.loc[a], t.loc[b] = h2, h1
    return t


@pytest.mark.parametrize("hidden_side", [Side.GERMAN, Side.FRENCH])
def test_3_6_hidden_units_do_not_change_the_opponents_observation(hidden_side):
    s = game().new_initial_state(3)  # GT1 French movement, both sides set up
    h1, h2 = _two_deep_stacks(s, hidden_side)
    t = _swap_bottoms(s, h1, h2)
    u = t.stacks[h1][0]
    t.steps[u] = 1  # and the hidden unit is reduced
    t.moved[u] = not t.moved[u]
    viewer = 1 - hidden_side
    assert _equal(encode(s, viewer), encode(t, viewer)), "the opponent must not see under the top unit"
    # sanity: the owner does see the difference
    assert not _equal(encode(s, hidden_side), encode(t, hidden_side))


def test_r3_revealed_stack_is_visible_and_top_unit_always_is():
    s = game().new_initial_state(3)
    h1, h2 = _two_deep_stacks(s, Side.GERMAN)
    t = _swap_bottoms(s, h1, h2)
    t.steps[t.stacks[h1][0]] = 1
    s.revealed[0].add(h1)
    t.revealed[0].add(h1)
    assert not _equal(encode(s, 0), encode(t, 0)), "a revealed stack shows all its units (R3)"
    # swapping the top units is visible without any reveal
    s2 = game().new_initial_state(3)
    t2 = s2.clone()
    a, b = t2.stacks[h1][-1], t2.stacks[h2][-1]
    t2.stacks[h1][-1], t2.stacks[h2][-1] = b, a
    t2.loc[a], t2.loc[b] = h2, h1
    if s2.units[a].type != s2.units[b].type or s2.cf(a) != s2.cf(b):
        assert not np.array_equal(encode(s2, 0)["planes"], encode(t2, 0)["planes"])
    assert not np.array_equal(encode(s2, 0)["units"], encode(t2, 0)["units"])


def test_omniscient_view_sees_under_the_top_unit():
    s = game().new_initial_state(3)
    h1, h2 = _two_deep_stacks(s, Side.GERMAN)
    t = _swap_bottoms(s, h1, h2)
    t.steps[t.stacks[h1][0]] = 1
    assert not _equal(encode(s, 0, omniscient=True), encode(t, 0, omniscient=True))
    o = encode(s, 0, omniscient=True)
    assert o["units"][:, 2].all(), "omniscient: every unit visible"


def test_decision_context_is_private_to_the_decider():
    s = game().new_initial_state(5)
    rng = random.Random(0)
    while s.decision.name != "MOVE_DEST":
        s.apply_action(rng.choice(s.legal_actions()))
    me, other = int(s.player), 1 - int(s.player)
    mine, theirs = encode(s, me), encode(s, other)
    assert mine["planes"][P["legal_hex"]].sum() == sum(1 for a in s.legal_actions() if a < hg.N_HEX)
    assert mine["planes"][P["ctx_unit"]].sum() == 1
    assert theirs["planes"][P["legal_hex"]].sum() == 0 and theirs["planes"][P["ctx_unit"]].sum() == 0
    assert (mine["planes"][P["dest_mp"]] > 0).sum() == len(s.legal_actions())
    # R13: VP cost of every destination is shown
    flat = mine["planes"][P["dest_vp"]].reshape(-1)
    for h, r in s.move_destinations().items():
        assert flat[FLAT[h]] == r.vp


def test_supply_fast_path_matches_is_supplied():
    g = game()
    enc = encoder_for(g)
    rng = random.Random(1)
    s = g.new_initial_state(11)
    checked = 0
    while not s.is_terminal() and checked < 400:
        for side in (0, 1):
            loc = np.array(s.loc)
            own = ~enc.german if side == 0 else enc.german
            own_on = own & (np.array(s.status) == 1)
            fast = enc._supplied(s, side, loc, own_on)
            slow = np.array([bool(own_on[u]) and s.is_supplied(u) for u in range(len(s.loc))])
            assert np.array_equal(fast, slow), f"supply mismatch at {s.decision_string()}"
        checked += 1
        for _ in range(5):
            if not s.is_terminal():
                s.apply_action(rng.choice(s.legal_actions()))


def test_static_planes():
    o = encode(game().new_initial_state(0), 0)
    pl = o["planes"]
    assert pl[P["off_map"]].sum() == 60 * 26 - hg.N_HEX
    assert pl[P["off_map"], 0, 25] == 1 and pl[P["off_map"], 1, 25] == 0  # column 1 is odd
    terrain = pl[P["terrain"] : P["terrain"] + 6].sum(axis=0)
    assert np.array_equal(terrain + pl[P["off_map"]], np.ones((60, 26)))
    md = game().scenario.map
    assert pl[P["city"]].sum() == len(md.city_hexes())


def test_mask_matches_legal_actions():
    s = game().new_initial_state(2)
    m = legal_mask(s)
    assert m.dtype == np.int8 and m.shape == (1607,)
    assert np.flatnonzero(m).tolist() == s.legal_actions()


def test_action_ids_round_trip():
    L = game().layout
    kinds = {}
    for a in range(L.n_actions):
        kind, value = decode_action(L, a)
        kinds[kind] = kinds.get(kind, 0) + 1
        assert encode_action(L, kind, value) == a
    assert kinds == {"hex": 1530, "unit": 62, "special": 6, "lower": 9}
    assert decode_action(L, 1592) == ("special", 0) and decode_action(L, 1606) == ("lower", 8)
    with pytest.raises(ValueError):
        decode_action(L, 1607)
    with pytest.raises(ValueError):
        encode_action(L, "unit", 62)


def _plane(s: State, viewer: int, name: str) -> np.ndarray:
    """Plane ``name`` of ``viewer``'s observation, in hex-index order."""
    return encoder_for(s.game).encode(s, viewer)["planes"][P[name]].reshape(-1)[FLAT]


def test_6_5_stacking_planes_flag_full_and_overstacked_own_hexes():
    from conftest import H, position

    # two counted corps in 4414 (over the limit of 1, rule 6.1, R8); a corps under the free-stacking
    # 1st Mountain Division in 4500 (full, not over); a lone corps in 4600 (full)
    s = position(
        "turn 3 phase GERMAN_MOVEMENT\ngerman: de-III@4414 de-XV@4414 de-XXXIX@4500 de-1Mtn@4500 de-XVI@4600",
        game("random"),
    )
    full, over = _plane(s, 1, "own_stack_full"), _plane(s, 1, "own_overstacked")
    assert (full[[H("4414"), H("4500"), H("4600")]] == 1).all() and full.sum() == 3
    assert over[H("4414")] == 1 and over.sum() == 1
    assert _plane(s, 0, "own_stack_full").sum() == 0  # not the French's own stacks
    assert s.pending_overstack_vp() > 0  # what the plane warns of (R9)


def test_4_3_french_cities_global_is_the_french_share_of_the_cities():
    from conftest import position

    from ffo_env.ffo.encoding.observation import GLOBAL_INDEX as G

    s = position(
        "turn 3 phase FRENCH_MOVEMENT\ngerman: de-III@1618\ngerman_control: 4016 3711", game("random")
    )
    n = len(s.game.tables.city_hexes)
    for viewer in (0, 1):
        assert encoder_for(s.game).encode(s, viewer)["globals"][G["french_cities"]] == np.float32((n - 2) / n)


def test_r9_dest_overstacks_marks_full_destinations_of_the_moving_unit():
    from conftest import H, act, position, ua

    # de-XV (counted) moves; 4414 holds a counted corps (full), 4513 only the free-stacking 1st Mountain
    s = position("turn 3 phase GERMAN_MOVEMENT\ngerman: de-III@4414 de-1Mtn@4513 de-XV@4413", game("random"))
    act(s, ua("de-XV"))
    legal = set(s.legal_actions())
    assert {H("4414"), H("4513"), H("4413")} <= legal
    dest = _plane(s, 1, "dest_overstacks")
    assert dest[H("4414")] == 1  # joining de-III over-stacks (rule 6.1, R8) and costs it at the end (R9)
    assert dest[H("4513")] == 0 and dest[H("4413")] == 0  # free-stacking company; staying put
    assert dest.sum() == sum(
        1
        for h in legal
        if h < hg.N_HEX
        and any(not s.units[u].free_stacking for u in s.stacks.get(h, []) if u != U_("de-XV", s))
    )
    assert _plane(s, 0, "dest_overstacks").sum() == 0  # decider only


def _ends_game_position(french: str, extra: str = "", turn: int = 3) -> State:
    from conftest import position

    # de-III in 4415 may attack 4414; the naval garrisons are gone, so 4414 may hold the last French units
    return position(
        f"""turn {turn} phase GERMAN_COMBAT stuka_used
        french: {french}
        german: de-III@4415
        dead: garrisons
        {extra}""",
        game("random"),
    )


def test_r21_target_ends_game_marks_a_target_holding_every_french_unit_left():
    from conftest import H

    s = _ends_game_position("fr-I@4414 br-51@4414")
    assert s.decision == Decision.ATTACK_TARGET and H("4414") in s.legal_actions()
    plane = _plane(s, 1, "target_ends_game")
    assert plane[H("4414")] == 1 and plane.sum() == 1  # wiping it out ends the game (rule 4.1, R21)
    assert _plane(s, 0, "target_ends_game").sum() == 0  # decider only


@pytest.mark.parametrize("why", ["another_unit", "reserve", "no_french_city", "last_turn"])
def test_r21_target_ends_game_is_clear_when_the_game_would_go_on_or_cities_do_not_count(why: str):
    from conftest import H

    from ffo_env.ffo.core import hexgrid as hg

    if why == "another_unit":
        s = _ends_game_position("fr-I@4414 fr-III@3010")  # fr-III carries on (R21)
    elif why == "reserve":
        s = _ends_game_position("fr-I@4414", "reserve: fr-III")  # a unit still to enter counts (R21)
    elif why == "no_french_city":
        cities = " ".join(hg.hex_name(h) for h in game().tables.city_hexes)
        s = _ends_game_position("fr-I@4414", f"german_control: {cities}")  # nothing for France to count
    else:
        s = _ends_game_position("fr-I@4414", turn=game().scenario.tables.last_turn)  # ends anyway (4.1)
    assert s.decision == Decision.ATTACK_TARGET and H("4414") in s.legal_actions()
    assert _plane(s, 1, "target_ends_game").sum() == 0


def U_(uid: str, s: State) -> int:
    return next(u.index for u in s.units if u.id == uid)
