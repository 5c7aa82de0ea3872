"""The BEF variant's built parts: Allied armor odds (F50), armor penalties and air strikes (F55, F56)."""

from __future__ import annotations

from ffo_env.france1940.core.combat import nearest_column

from .f40_helpers import act, attack, legal_texts, pos

BEF = {"bef_variant": True}


def _line(s: object) -> str:
    return [e for e in s.log if e[0] == "combat"][0][2]  # type: ignore[attr-defined]


def test_f50_nearest_column() -> None:
    assert nearest_column(15, 6) == 4  # 2.5 -> 3-1 (halves to the attacker)
    assert nearest_column(14, 6) == 3  # 2.33 -> 2-1
    assert nearest_column(5, 2) == 4  # the example's "3:2 ... 3:1", read as 5:2 (F50)
    assert nearest_column(4, 6) == 2  # 1:1.5 -> 1-1
    assert nearest_column(2, 6) == 0 and nearest_column(3, 6) == 1


def test_f50_three_allied_armor_units_round_to_the_nearest_column() -> None:
    text = "turn 3 allied combat\ngerman: DE-PZ6-01@1013\nallied: {}@981 {}@982 {}@1012\nrolls: 1\n"
    s = pos(text.format("FR-DC-01", "FR-DC-02", "FR-DC-03"), **BEF)
    attack(s, 1013, ["FR-DC-01", "FR-DC-02", "FR-DC-03"], ["DE-PZ6-01"])
    assert _line(s).startswith("15:6 col 4")  # 3-1, not 2-1
    s = pos(text.format("FR-DC-01", "FR-DC-02", "FR-INF-01"), **BEF)
    attack(s, 1013, ["FR-DC-01", "FR-DC-02", "FR-INF-01"], ["DE-PZ6-01"])
    assert _line(s).startswith("16:6 col 3")  # two armor units: rounded down
    s = pos(text.format("FR-DC-01", "FR-DC-02", "FR-INF-01"), bef_armor_threshold=2, **BEF)
    attack(s, 1013, ["FR-DC-01", "FR-DC-02", "FR-INF-01"], ["DE-PZ6-01"])
    assert _line(s).startswith("16:6 col 4")
    s = pos(text.format("FR-DC-01", "FR-DC-02", "FR-DC-03"))
    attack(s, 1013, ["FR-DC-01", "FR-DC-02", "FR-DC-03"], ["DE-PZ6-01"])
    assert _line(s).startswith("15:6 col 3")  # standard game: always down


RIVER = "turn 3 german combat\ninvaded: N\nallied: NL-INF-01@300\ngerman: DE-PZ6-01@268 DE-INF-01@269 {}\nrolls: 4\n"


def test_f55_armor_attacking_across_a_river_loses_two_factors() -> None:
    s = pos(RIVER.format(""), **BEF)
    attack(s, 300, ["DE-PZ6-01", "DE-INF-01"], ["NL-INF-01"])
    assert _line(s).startswith("11:4 col 3 die 4-2")  # 4 + 7 against 4
    s = pos(RIVER.format(""))
    attack(s, 300, ["DE-PZ6-01", "DE-INF-01"], ["NL-INF-01"])
    assert _line(s).startswith("13:4 col 4 die 4-2")  # not in the standard game


def test_f55_first_strike_cancels_the_die_penalty_second_the_armor_penalty() -> None:
    s = pos(RIVER.format("DE-GSE-01@200 DE-GSE-02@201"), skip_forced=False, **BEF)
    act(s, "@300", "DE-PZ6-01", "DE-INF-01", "done", "DE-GSE-01")
    assert s.decision == "support"  # both penalties apply: a second strike may be flown
    act(s, "done", "NL-INF-01", "done")
    assert _line(s).startswith("11:4 col 3 die 4+0")
    s = pos(RIVER.format("DE-GSE-01@200 DE-GSE-02@201"), skip_forced=False, **BEF)
    act(s, "@300", "DE-PZ6-01", "DE-INF-01", "done", "DE-GSE-01", "DE-GSE-02", "NL-INF-01", "done")
    assert _line(s).startswith("13:4 col 4 die 4+0")


def test_f56_river_and_forest_need_two_strikes() -> None:
    text = "turn 3 german combat\ninvaded: B\nallied: BE-INF-01@441\ngerman: DE-PZ6-01@410 DE-GSE-01@276 DE-GSE-02@277\nrolls: 4\n"
    s = pos(text, skip_forced=False, **BEF)
    act(s, "@441", "DE-PZ6-01", "done", "DE-GSE-01", "done", "BE-INF-01", "done")
    assert _line(s).startswith("4:4 col 2 die 4-2")  # one strike changes nothing
    s = pos(text, skip_forced=False, **BEF)
    act(s, "@441", "DE-PZ6-01", "done", "DE-GSE-01", "DE-GSE-02", "BE-INF-01", "done")
    assert _line(s).startswith("5:4 col 2 die 4+0")  # two cancel the -2; the armor loses 1


def test_f54_p15_over_stacked_assault_costs_one_extra_unit() -> None:
    text = "turn 3 german combat\nallied: FR-INF-01@1013\ngerman: DE-INF-01@981 DE-INF-02@981 DE-INF-03@982\nrolls: 4\n"
    s = pos(text, skip_forced=False, **BEF)
    act(s, "@1013", "DE-INF-01")
    assert "DE-INF-02" in legal_texts(s)  # one corps-equivalent plus one more unit from 981
    act(s, "DE-INF-02")
    assert "DE-INF-03" in legal_texts(s)
    act(s, "DE-INF-03", "done", "done", "FR-INF-01", "done")  # 21:6 3-1, die 4: DR
    assert _line(s).startswith("21:6 col 4")
    while s.decision == "retreat":
        act(s, legal_texts(s)[0])
    assert s.decision == "lose" and legal_texts(s) == ["DE-INF-02"]  # the extra unit
    act(s, "DE-INF-02")
    assert s.vp[0] == 1  # it counts as destroyed (F39)
    s = pos(text, skip_forced=False)
    act(s, "@1013", "DE-INF-01")
    assert "DE-INF-02" not in legal_texts(s)  # the standard game: one corps-equivalent


ARMOR = "turn 3 allied combat\ngerman: DE-PZ6-01@1013\nallied: FR-DC-01@981 FR-DC-02@982 FR-DC-03@1012\n"


def test_f51_allied_ca_read_as_dr() -> None:
    s = pos(ARMOR + "rolls: 1\n", skip_forced=False, **BEF)  # 15:6 -> 3-1 (F50), die 1: CA
    attack(s, 1013, ["FR-DC-01", "FR-DC-02", "FR-DC-03"], ["DE-PZ6-01"])
    assert s.decision == "bef_ca" and s.current_player == 0 and legal_texts(s) == ["done", "yes"]
    act(s, "yes")
    assert s.decision == "retreat" and s.queue[0]["unit"] == s.game.unit_index("DE-PZ6-01")


def test_f51_allied_ca_standing_binds_the_counter_attack_to_two_armor_units() -> None:
    s = pos(ARMOR + "rolls: 1\n", skip_forced=False, **BEF)
    attack(s, 1013, ["FR-DC-01", "FR-DC-02", "FR-DC-03"], ["DE-PZ6-01"])
    act(s, "done")  # let the CA stand
    assert s.decision == "ca_targets" and s.current_player == 1
    act(s, "@981")
    assert "done" not in legal_texts(s)  # at least two Allied armor units must be targets
    act(s, "@982")
    assert "done" in legal_texts(s)


def test_f52_allied_special_move_into_the_vacated_hex() -> None:
    s = pos(ARMOR + "allied: FR-INF-01@950\nrolls: 3\n", skip_forced=False, **BEF)  # 3-1, die 3: DR
    attack(s, 1013, ["FR-DC-01", "FR-DC-02", "FR-DC-03"], ["DE-PZ6-01"])
    while s.decision == "retreat":
        act(s, legal_texts(s)[0])
    assert s.decision == "bef_move1" and s.current_player == 0
    assert legal_texts(s) == ["done", "FR-DC-01", "FR-DC-02", "FR-DC-03"]
    act(s, "FR-DC-02")  # from 982 into 1013
    assert s.decision == "bef_move2" and "FR-INF-01" in legal_texts(s)  # 950 touches 982
    act(s, "FR-INF-01")
    g = s.game
    assert s.hex[g.unit_index("FR-DC-02")] == 1013 and s.hex[g.unit_index("FR-INF-01")] == 982


FORT = "turn 3 german combat\nallied: FR-FORT-01@154 FR-FORT-02@154\ngerman: DE-INF-01@153 DE-INF-02@121 DE-INF-03@122\n"


def test_f49_fortress_ca_costs_a_german_unit_and_one_allied_unit_leaves_then_renewal() -> None:
    s = pos(FORT + "rolls: 1 6\n", skip_forced=False, **BEF)  # 14:14 1-1, die 1: CA
    attack(s, 154, ["DE-INF-01", "DE-INF-02"], ["FR-FORT-01", "FR-FORT-02"])
    assert _line(s).startswith("14:14 col 2 die 1+0 CA")
    assert (
        s.decision == "lose"
        and s.current_player == 1
        and sorted(legal_texts(s)) == ["DE-INF-01", "DE-INF-02"]
    )
    act(s, "DE-INF-02")
    assert s.decision == "bef_fort_out" and s.current_player == 0
    act(s, "FR-FORT-01")  # its only exits are fortresses or German-controlled: eliminated (F49)
    assert s.status[s.game.unit_index("FR-FORT-01")] == 2 and s.vp[1] == 1 and s.vp[0] == 1
    assert s.decision == "bef_renew" and legal_texts(s) == ["done", "yes"]
    act(s, "yes")
    assert s.decision == "attackers" and "DE-INF-03" in legal_texts(s) and "DE-INF-01" in legal_texts(s)
    act(s, "DE-INF-01", "DE-INF-03", "done", "FR-FORT-02", "done")  # 14:12 1-1, die 6: DR
    assert [e for e in s.log if e[0] == "combat"][1][2].startswith("14:12 col 2 die 6+0 DR")
    assert not [e for e in s.log if e[0] == "counter-attack"]  # never a counter-attack (F49)


def test_f49_empty_fortress_gets_one_round_where_only_br_and_dx_count() -> None:
    s = pos("turn 3 german combat\ngerman: DE-INF-01@153 DE-INF-02@121\nrolls: 1\n", skip_forced=False, **BEF)
    act(s, "@154", "DE-INF-01", "DE-INF-02", "done", "done", "done")  # 14:10 1-1, die 1: CA -> no effect
    assert _line(s).endswith("CA") and s.decision == "attack" and s.fort_active(154)
    assert not any(q["kind"] == "bef_renew" for q in s.queue)


CHAIN = "turn 3 allied initial\nallied: FR-FORT-01@412\ngerman: DE-INF-01@379\n"


def test_f47_free_steps_along_the_fortress_chain_then_full_movement() -> None:
    s = pos(CHAIN, skip_forced=False, **BEF)
    act(s, "FR-FORT-01")
    assert s.mp_left == 2 and "@380" in legal_texts(s)
    act(s, "@380", "@348", "@316", "@284")  # four fortress hexes: no MP, ZOC ignored (379 controls 380, 348)
    assert s.mp_left == 2 and s.fort_free == 4
    assert any(t != "@251" and t.startswith("@") for t in legal_texts(s))  # (b): now a normal move
    act(s, "@251")  # a fifth fortress hex: option (a), the whole move stays in the chain
    assert s.fort_free == 5 and all(s.fort_active(int(t[1:])) for t in legal_texts(s) if t.startswith("@"))
    s = pos(CHAIN, skip_forced=False)
    assert "FR-FORT-01" not in legal_texts(s)  # standard game: leaving the ZOC alone costs 3 > 2 MP


def test_f48_allied_fortress_reaction_before_the_german_attacks() -> None:
    s = pos(
        "turn 3 german fort_react\nallied: FR-INF-01@412 FR-FORT-01@155\ngerman: DE-INF-01@379\n",
        skip_forced=False,
        **BEF,
    )
    assert s.decision == "react" and s.current_player == 0
    assert legal_texts(s) == ["done", "FR-INF-01", "FR-FORT-01"]
    act(s, "FR-INF-01", "@380", "@348", "@316", "@284")
    assert s.mover == -1 or legal_texts(s) == ["done"]  # four fortress hexes at most
    if s.mover >= 0:
        act(s, "done")
    assert s.hex[s.game.unit_index("FR-INF-01")] == 284 and "FR-INF-01" not in legal_texts(s)
    act(s, "done")
    assert s.phase == "combat"


BC = {"bef_variant": True, "bef_bomber_command": True}


def test_f58_bomber_command_flies_interdiction_from_britain() -> None:
    from ffo_env.france1940.core import air
    from ffo_env.france1940.core.game import Game
    from ffo_env.france1940.core.options import RulesOptions

    s = Game(RulesOptions(**BC)).new_initial_state(0)
    g = s.game
    bombers = [u for u in g.side_units[0] if g.units[u].is_bomber]
    assert len(bombers) == 2 and all(s.arrive[u] == 98 for u in bombers)
    s = pos("turn 3 allied missions\nallied: FR-GSE-01@1110\n", skip_forced=False, **BC)
    s.arrive[g.unit_index("GB-BC-01")] = 98  # notation: bombers in play
    s.touch()
    s._legal = None
    assert "GB-BC-01" in legal_texts(s)
    act(s, "GB-BC-01")
    assert legal_texts(s) == ["interdict"]  # whatever the Allied column (Hist has no Interdiction)
    act(s, "interdict")
    from ffo_env.france1940.core.hexgrid import distance

    hexes = [int(t[1:]) for t in legal_texts(s)]
    assert max(distance(1249, h) for h in hexes) == 30
    assert air.home(s, g.unit_index("GB-BC-01")) == 1249


def test_f58_p16_rebase_to_paris_and_the_base_takes_the_bombers() -> None:
    s = pos(
        "turn 5 allied initial\nallied: FR-INF-01@1013\ngerman: DE-INF-01@1056\n", skip_forced=False, **BC
    )
    g = s.game
    b1, b2, base = g.unit_index("GB-BC-01"), g.unit_index("GB-BC-02"), g.unit_index("GB-BCB-01")
    for b in (b1, b2):
        s.arrive[b] = 98
    from ffo_env.france1940.core import flow

    s.queue = [{"kind": "rebase"}]
    s.touch()
    flow.advance(s)
    assert s.decision == "rebase" and legal_texts(s) == ["done", "yes"]
    act(s, "yes")
    assert s.status[base] == 1 and s.hex[base] == 1024 and s.ac_turn[b1] == 5  # neither flies this turn
    from ffo_env.france1940.core import air

    assert air.home(s, b1) == 1024 and b1 not in air.available(s, 0)
    s.destroy(base, "test")
    assert s.status[b1] == 2 and s.status[b2] == 2 and s.vp[1] == 4  # 2 VP a bomber, none for the base
