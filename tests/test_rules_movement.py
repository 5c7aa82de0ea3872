"""Movement, rail movement and evacuation (rules 6.4, 6.7, 11.1-11.7, R13-R17, R19, R20) and exact
legal-action counts of fixed positions (perft-style; expected counts reasoned by hand from the rules).

Plain map (every land hex outside cities clear, no rivers) unless a test changes it.
Neighbours of 4414: E 4415, NE 4514, NW 4513, W 4413, SW 4313, SE 4314.
"""

from __future__ import annotations

import pytest
from conftest import H, U, act, custom_game, hexes, nb, plain_game, position, ua

from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.game import RulesOptions
from ffo_env.ffo.core.state import DEAD, EVACUATED, ON_MAP, Decision

pytestmark = pytest.mark.usefixtures("rules_data")  # conftest.RULES_DATA: figures of reconstruction-v1

P = plain_game()
PASS = P.layout.special(Special.PASS)


def fmove(text: str, game=None):
    return position("turn 3 phase FRENCH_MOVEMENT\n" + text, game or P)


def test_11_1_11_2_perft_open_ground():
    # MF 4 on open clear ground: every hex within 4 (6 + 12 + 18 + 24 = 60), plus staying put
    s = fmove("french: fr-I@4414")
    act(s, ua("fr-I"))
    assert len(s.move_destinations()) == 60 and len(s.legal_actions()) == 61
    assert all(r.mp == hg.distance(H("4414"), h) for h, r in s.move_destinations().items())


def test_6_6_11_4_perft_enemy_hex_never_entered():
    # a German unit in 4415: 4415 is out, and 4418 (4 hexes straight behind it) needs 5 MP around it
    s = fmove("french: fr-I@4414\ngerman: de-III@4415")
    act(s, ua("fr-I"))
    d = hexes(s.move_destinations())
    assert len(d) == 58 and "4415" not in d and "4418" not in d and "4417" in d


def test_perft_rivers_refugees_and_oos_die():
    # fr-I out of supply (no garrisons) rolls 2 MP; rivers on 4414-4415 and 4414-4514; refugees in 4313.
    # Ring 1: all six (4415/4514 cost 1+1, 4313 costs 1+1 or 1 MP and 1 VP).
    # Ring 2: via 4513 -> 4512 4613 4614; via 4413 -> 4412 4312; via 4314 -> 4315 4214 4215;
    # via 4313 overrun -> 4213 (1 VP). 4416 4515 4615 need 3 MP. 6 + 9 = 15 destinations + stay.
    g = custom_game(
        plain=True, rivers=[("4414", "4415"), ("4414", "4514")], options=RulesOptions(skip_forced=False)
    )
    s = fmove("french: fr-I@4414\ndead: garrisons\nrefugees: 4313\nrolls: 2", g)
    act(s, ua("fr-I"))
    assert s.moving_mp() == 2
    dests = s.move_destinations()
    assert hexes(dests) == {
        "4415",
        "4514",
        "4513",
        "4413",
        "4313",
        "4314",
        "4512",
        "4613",
        "4614",
        "4412",
        "4312",
        "4315",
        "4214",
        "4215",
        "4213",
    }
    assert len(s.legal_actions()) == 16
    assert {hg.hex_name(h) for h, r in dests.items() if r.vp} == {"4213"}
    assert (dests[H("4313")].vp, dests[H("4313")].mp) == (0, 2)  # R13: fewest VP first
    assert dests[H("4415")].mp == 2 and dests[H("4613")].mp == 2


def test_perft_concentric_attack_targets_and_attackers():
    s = position(
        """turn 3 phase GERMAN_COMBAT stuka_used
        french: fr-I@4414 fr-III@4416
        german: de-III@4415 de-1Mtn@4415 de-IV@4413 de-XXXIX@4313 de-V@4515
        rolls: 6""",
        P,
    )
    assert hexes(a for a in s.legal_actions() if a < 1530) == {"4414", "4416"} and len(s.legal_actions()) == 3
    act(s, "attack 4414")
    assert sorted(s.legal_actions()) == sorted(ua(x) for x in ("de-III", "de-1Mtn", "de-IV", "de-XXXIX"))
    act(s, ua("de-III"))
    assert len(s.legal_actions()) == 4  # three more candidates and "done"
    act(s, ua("de-IV"))
    act(s, PASS)
    assert s.battle["shifts"] == {"concentric": 1}  # E and W


def test_perft_evacuation_ports():
    s = position(
        """turn 3 phase EVACUATION
        french: fr-I@1815 br-51@1815 fr-GC@1517 fr-III@2305
        german: de-III@1624
        ever_german: 2305""",
        P,
    )
    # Marseille: Mar, I, 51; Toulon: Tou, GC; Cannes has a German neighbour; Sete was German once
    assert sorted(s.legal_actions()) == sorted(
        [ua(x) for x in ("fr-Mar", "fr-I", "br-51", "fr-Tou", "fr-GC")] + [PASS]
    )
    act(s, ua("fr-I"))
    assert sorted(s.legal_actions()) == sorted([ua("fr-Tou"), ua("fr-GC"), PASS])  # one unit per port
    act(s, ua("fr-Tou"))
    assert s.vp == 2 + 1 and s.status[U("fr-I")] == EVACUATED and s.status[U("fr-Tou")] == EVACUATED


def test_11_6_r20_evacuation_vp_per_step_and_garrison_closes_the_port():
    s = position("turn 3 phase EVACUATION\nfrench: br-51@1815 fr-GC@1517(r) fr-I@2305", P)
    act(s, ua("br-51"))  # R19: mechanized, 2 VP per step
    act(s, ua("fr-GC"))  # reduced: one step
    act(s, ua("fr-Sete"))  # the garrison itself: 1 VP; Sete closes
    assert s.vp == 2 + 2 + 1
    assert s.decision != Decision.EVACUATE or ua("fr-I") not in s.legal_actions()
    t = position("turn 4 phase EVACUATION\nfrench: fr-I@2305\nevacuated: fr-Sete", P)
    assert ua("fr-I") not in t.legal_actions()  # no garrison, no evacuation from Sete ever again
    assert not t.is_supplied(U("fr-I")) or t.game.tables.city[H("2305")]  # city supply only (rule 7.8)


def test_r20_no_evacuation_on_game_turn_1():
    s = position("turn 1 phase EVACUATION\nfrench: fr-I@1815", P)
    assert s.phase.name == "FRENCH_MOVEMENT"


def test_6_4_11_3_units_move_one_at_a_time_and_once():
    s = fmove("french: fr-I@4414 fr-III@4514")
    assert sorted(s.legal_actions()) == sorted([ua("fr-I"), ua("fr-III"), PASS])
    act(s, ua("fr-I"))
    assert s.decision == Decision.MOVE_DEST and all(a < 1530 for a in s.legal_actions())
    act(s, "move fr-I to 4415 (1 MP)")
    assert sorted(s.legal_actions()) == sorted([ua("fr-III"), PASS])


def test_6_7_moving_through_friendly_units():
    s = fmove("french: fr-I@4414 fr-III@4415 fr-VI@4416")
    act(s, ua("fr-I"))
    r = s.move_destinations()[H("4417")]
    assert r.mp == 3 and r.path == (H("4415"), H("4416"), H("4417"))


def test_11_5_tec_costs():
    g = custom_game(
        plain=True,
        terrain={"4415": "rough", "4413": "marsh", "4514": "mountain"},
        rivers=[("4414", "4513")],
        options=RulesOptions(skip_forced=False),
    )
    s = fmove("french: fr-GC@4414", g)
    act(s, ua("fr-GC"))
    d = s.move_destinations()
    assert [d[H(h)].mp for h in ("4415", "4413", "4514", "4513", "4314", "4313")] == [2, 2, 3, 2, 1, 1]


def test_r14_city_hex_nullifies_rivers_for_movement():
    g = custom_game(plain=True, rivers=[("4912", "4913")], options=RulesOptions(skip_forced=False))
    s = fmove("french: fr-GC@4913", g)
    act(s, ua("fr-GC"))
    assert s.move_destinations()[H("4912")].mp == 1


def test_11_4_r15_minimum_move_of_one_hex():
    g = custom_game(
        plain=True,
        terrain={"4415": "mountain"},
        blocked=[("4414", "4513")],
        options=RulesOptions(skip_forced=False),
    )
    s = fmove("french: fr-I@4414\ngerman: de-III@4413\ndead: garrisons\nrolls: 1", g)
    act(s, ua("fr-I"))
    assert s.moving_mp() == 1
    # 1 MP: clear neighbours normally, the mountain by the guarantee; never the enemy or the blocked side
    assert hexes(s.move_destinations()) == {"4415", "4514", "4313", "4314"}
    assert s.move_destinations()[H("4415")].mp == 1


def test_r15_minimum_move_never_into_the_sea():
    mt = P.tables
    c = next(h for h in mt.port_hexes)
    s = fmove(f"french: fr-I@{hg.hex_name(c)}\ndead: garrisons\nrolls: 1")
    if s.decision == Decision.RAIL_UNIT:
        act(s, "no rail move")
    act(s, ua("fr-I"))
    assert all(mt.land[h] for h in s.move_destinations())


def test_11_3_advances_and_retreats_spend_no_mp():
    s = position(
        "turn 3 phase FRENCH_COMBAT stuka_used\nfrench: fr-GC@4415\ngerman: de-III@4414(r)\nrolls: 6", P
    )
    act(s, "attack 4414")
    act(s, ua("fr-GC"))
    act(s, s.game.layout.lower(0))
    act(s, ua("fr-GC"))
    assert s.loc[U("fr-GC")] == H("4414") and not s.moved[U("fr-GC")]


def test_11_7_r17_rail_move():
    s = fmove("french: fr-I@4912\ngerman: de-III@4220\never_german: 4016\nrolls: 5")
    assert s.decision == Decision.RAIL_UNIT and sorted(s.legal_actions()) == sorted([ua("fr-I"), PASS])
    act(s, ua("fr-I"))
    assert s.dice_log[-1]["die"] == 5 and s.decision == Decision.RAIL_DEST
    d = hexes(s.legal_actions())
    assert len(d) == 20 - 3 and "4219" not in d and "4016" not in d and "4912" not in d
    act(s, H("1815"))
    assert s.loc[U("fr-I")] == H("1815") and ua("fr-I") not in s.legal_actions()  # no further move
    assert s.no_attack[U("fr-I")]


def test_11_7_r17_rail_origins_are_the_cities_a_rail_move_could_start_from():
    """State.rail_origins (for planning a rail move ahead): every city a French rail move could start from
    now, with its destinations; a unit's rail options are its city's entry, whatever the unit."""
    s = fmove("french: fr-I@4912\ngerman: de-III@4220\never_german: 4016\nrolls: 5")
    origins = s.rail_origins()
    assert dict(s.rail_options()) == {U("fr-I"): origins[H("4912")]}
    assert H("4219") not in origins  # next to the German in 4220 (rule 11.7)
    assert H("4016") not in origins  # once German-controlled (rule 11.7)
    assert all(P.tables.city[h] for h in origins) and len(origins) == 20 - 2
    assert all(
        h not in dests and H("4219") not in dests and H("4016") not in dests for h, dests in origins.items()
    )
    ring = {hg.hex_name(n): "rough" for n in hg.NEIGHBOR_LISTS[H("3711")]}
    g = custom_game(plain=True, terrain=ring, options=RulesOptions(skip_forced=False))
    ringed = fmove("french: fr-I@4912\nrolls: 1", g).rail_origins()
    assert H("3711") not in ringed and all(
        H("3711") not in d for d in ringed.values()
    )  # R17: clear/city only


def test_11_7_failed_rail_move_stays_and_cannot_attack():
    s = fmove("french: fr-I@4912\nrolls: 6")
    act(s, ua("fr-I"))
    assert s.loc[U("fr-I")] == H("4912") and s.immobile[U("fr-I")] and s.no_attack[U("fr-I")]
    assert ua("fr-I") not in s.legal_actions()


def test_r17_rail_route_only_clear_or_city_and_never_next_to_enemies():
    ring = {hg.hex_name(n): "rough" for n in hg.NEIGHBOR_LISTS[H("3711")]}
    g = custom_game(plain=True, terrain=ring, options=RulesOptions(skip_forced=False))
    s = fmove("french: fr-I@4912\nrolls: 1", g)
    act(s, ua("fr-I"))
    assert "3711" not in hexes(s.legal_actions())  # Le Puy is ringed by rough hexes
    s = fmove("french: fr-I@4912\ngerman: de-III@4913\nrolls: 1")
    assert s.decision != Decision.RAIL_UNIT  # enemy next to the origin city


def test_r16_rail_ignores_refugees():
    s = fmove(
        "french: fr-I@4912\nrefugees: "
        + " ".join(hg.hex_name(n) for n in hg.NEIGHBOR_LISTS[H("4912")])
        + "\nrolls: 1"
    )
    act(s, ua("fr-I"))
    act(s, H("1815"))
    assert s.vp == 0


def test_5_3_no_rail_on_game_turn_1():
    s = position("turn 1 phase FRENCH_MOVEMENT\nfrench: fr-I@4912", P)
    assert s.decision == Decision.MOVE_UNIT


def test_r13_overrun_only_destination_costs_vp():
    # 4414 fully ringed by refugees, fr-I supplied (4 MP): 4415 costs 2 MP with no VP
    ring = " ".join(hg.hex_name(n) for n in hg.NEIGHBOR_LISTS[H("4414")])
    s = fmove(f"french: fr-I@4414\nrefugees: {ring}\nrolls: 1")
    act(s, ua("fr-I"))
    d = s.move_destinations()
    assert (d[H("4415")].vp, d[H("4415")].mp) == (0, 2)
    far = H("4418")  # 4 hexes east: 4 MP only by overrunning 4415
    assert (d[far].vp, d[far].mp) == (1, 4)
    act(s, "move fr-I to 4418 (4 MP, -1 VP refugees)")
    assert s.vp == -1 and s.refugees[H("4415")] is True


def test_r15_minimum_move_respects_rows():
    s = fmove("french: fr-I@4001\ndead: garrisons\nrolls: 1")
    act(s, ua("fr-I"))
    assert not any(s.game.tables.row[h] for h in s.move_destinations())


def test_11_6_r20_german_adjacent_or_once_german_port_closed():
    s = position("turn 3 phase EVACUATION\nfrench: fr-I@1815\ngerman: de-III@1816", P)
    assert s.decision != Decision.EVACUATE or ua("fr-I") not in s.legal_actions()
    s = position("turn 3 phase EVACUATION\nfrench: fr-I@1815\never_german: 1815", P)
    assert s.decision != Decision.EVACUATE or ua("fr-I") not in s.legal_actions()


def test_2_9_garrisons_never_move():
    s = fmove("french: fr-I@4414")
    assert ua("fr-Mar") not in s.legal_actions()
    assert s.status[U("fr-Mar")] == ON_MAP and s.status[U("fr-XII")] == DEAD


def test_r19_the_51st_is_mechanized():
    s = fmove("french: br-51@4414")
    act(s, ua("br-51"))
    assert s.moving_mp() == 6 and s.units[U("br-51")].mechanized and s.units[U("br-51")].free_stacking


def _rail_route(s, uid: str, dest: str) -> list[str]:
    return [hg.hex_name(h) for h in s.rail_route_to(U(uid), H(dest))]


def test_r17_3_7_rail_route_takes_control_of_every_hex_it_enters():
    probe = fmove("french: fr-I@4912\ngerman: de-III@4220\nrolls: 5")
    route = _rail_route(probe, "fr-I", "1815")
    mid = route[len(route) // 2]
    assert len(route) >= 3 and mid != "1815"
    # an empty German-controlled hex on the route, and one off it
    off = next(
        hg.hex_name(h)
        for h in range(hg.N_HEX)
        if P.tables.rail_ok[h] and hg.hex_name(h) not in route and hg.distance(h, H("4220")) > 3
    )
    s = fmove(f"french: fr-I@4912\ngerman: de-III@4220\ngerman_control: {mid} {off}\nrolls: 5")
    act(s, ua("fr-I"))
    act(s, H("1815"))
    assert s.control[H(mid)] == 0  # rule 3.7, R17: the route entered it: French
    assert s.control[H(off)] == 1  # not on the route: still German
    assert all(s.control[H(h)] == 0 for h in route)
    assert s.rail_log == [
        {"turn": 3, "unit": "fr-I", "from": "4912", "to": "1815", "route": route}
    ]  # R17: recorded


def test_r17_rail_route_is_a_shortest_chain_of_rail_hexes_avoiding_enemies():
    s = fmove("french: fr-I@4912\ngerman: de-III@4220\nrolls: 5")
    route = _rail_route(s, "fr-I", "1815")
    mt = P.tables
    chain = ["4912", *route]
    assert all(H(b) in hg.NEIGHBOR_LISTS[H(a)] for a, b in zip(chain, chain[1:], strict=False))
    enemy_zone = {H("4220"), *hg.NEIGHBOR_LISTS[H("4220")]}
    assert all(mt.rail_ok[H(h)] and H(h) not in enemy_zone for h in route)  # rule 11.7, R17
    # fewest hexes: an independent breadth-first count over the same hexes
    ok = {h for h in range(hg.N_HEX) if mt.rail_ok[h] and h not in enemy_zone}
    dist, frontier = {H("4912"): 0}, [H("4912")]
    while frontier:
        nxt = []
        for h in frontier:
            for n in mt.open_nb[h]:
                if n in ok and n not in dist:
                    dist[n] = dist[h] + 1
                    nxt.append(n)
        frontier = nxt
    assert len(route) == dist[H("1815")]


def test_r17_r13_rail_route_ties_go_through_the_lowest_index_predecessor():
    from ffo_env.ffo.core.search import rail_route

    a = H("4414")
    goal = H(nb(nb("4414", "E"), "NE"))  # two hexes away, reached through 4415 (E) or 4514 (NE)
    middles = sorted(set(hg.NEIGHBOR_LISTS[a]) & set(hg.NEIGHBOR_LISTS[goal]))
    assert [hg.hex_name(m) for m in middles] == ["4415", "4514"]
    everything = (1 << hg.N_HEX) - 1
    assert rail_route(P.tables.open_nb, a, goal, everything) == (middles[0], goal)
    assert rail_route(P.tables.open_nb, a, goal, everything & ~(1 << middles[0])) == (middles[1], goal)
    assert rail_route(P.tables.open_nb, a, goal, 0) == ()


def test_r17_rail_destination_text_names_the_route():
    s = fmove("french: fr-I@4912\ngerman: de-III@4220\nrolls: 5")
    act(s, ua("fr-I"))
    route = _rail_route(s, "fr-I", "1815")
    assert s.action_to_string(H("1815")) == f"rail fr-I to 1815 via {' - '.join(['4912', *route])}"
