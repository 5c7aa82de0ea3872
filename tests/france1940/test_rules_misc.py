"""Sequence of play, options, information, and the project rulings P1-P14."""

from __future__ import annotations

import pytest

from ffo_env.france1940.core import rules
from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.options import RulesOptions
from ffo_env.france1940.core.state import MAP, OUT, State
from ffo_env.france1940.core.visibility import view

from .f40_helpers import act, attack, legal_texts, pos, settle

OPEN = "turn 3 german combat\nallied: FR-INF-01@1013\ngerman: DE-INF-01@981 DE-INF-02@982 DE-INF-03@1012\n"


def test_f1_an_optional_rule_extends_the_standard_game() -> None:
    text = "turn 3 german initial\nallied: FR-INF-01@633\ngerman: DE-PZ6-01@600\ninvaded: B\n"
    std, mild = pos(text), pos(text, optional_mild_winter=True)
    pz = std.game.unit_index("DE-PZ6-01")
    outside = [h for h in (568, 569, 599, 601, 632) if h not in std.game.data.mild_winter]
    assert outside
    for h in outside:  # outside the line: the standard costs, unchanged
        assert rules.step_cost(std, pz, 600, h, set()) == rules.step_cost(mild, pz, 600, h, set())
    assert 632 in std.game.data.mild_winter
    assert rules.step_cost(mild, pz, 600, 632, set()) == rules.step_cost(std, pz, 600, 632, set()) + 1


def test_f2_options_defaults_and_refusals() -> None:
    o = RulesOptions()
    assert (o.allied_obac, o.german_obac, o.retreat_hexes, o.counterattack_shift) == ("Hist", "I", 1, 0)
    assert o.interdiction_blocks_retreat and o.allied_exit_scores_vp and not o.optional_mild_winter
    for bad in (
        {"allied_obac": "Z"},
        {"retreat_hexes": 3},
        {"counterattack_shift": 9},
        {"optional_mild_winter": 1},
        {"bef_bomber_command": True},
    ):
        with pytest.raises((ValueError, TypeError)):
            RulesOptions(**bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown rules options"):
        RulesOptions.from_dict({"nope": 1})
    assert RulesOptions.from_dict(o.to_dict()) == o


def test_f4_prohibited_hexes_are_never_entered() -> None:
    # 123 touches the notch (91, 92): a German unit beside it cannot step there
    s = pos("turn 3 german initial\nforts_destroyed: 123\ngerman: DE-INF-01@123\n", skip_forced=False)
    act(s, "DE-INF-01")
    hexes = {int(t[1:]) for t in legal_texts(s) if t.startswith("@")}
    assert hexes and not hexes & {91, 92} and all(s.game.data.playable(h) for h in hexes)


def test_f7_dutch_army_is_placed_and_fought_normally() -> None:
    s = Game().new_initial_state(0)
    dutch = [q["unit"] for q in s.queue if q["kind"] == "place" and s.spec(q["unit"]).nation == "NL"]
    assert len(dutch) == 2
    s = pos("turn 2 german combat\nallied: NL-INF-01@300\ngerman: DE-INF-01@268\nrolls: 6\n")
    attack(s, 300, ["DE-INF-01"], ["NL-INF-01"])
    assert "N" in s.invaded and s.log[-1][0] in ("attack done", "destroyed", "combat")


def test_f9_order_of_the_steps_of_a_player_turn() -> None:
    s = pos(
        "turn 3 german reinforce\narrive: DE-INF-30@3\nallied: FR-GSE-01@1110\n"
        "german: DE-PZ6-01@500 DE-GSE-01@950\nair: FR-GSE-01 cap@1080\n",
        skip_forced=False,
    )
    seen: list[str] = []
    while s.phasing == GERMAN:
        if not seen or seen[-1] != s.phase:
            seen.append(s.phase)
        s.apply_action(s.legal_actions()[0])  # the first legal action: a hex, "done" ...
    assert seen == ["reinforce", "intercept", "initial", "airsup", "combat", "mech", "missions"]
    fr = s.game.unit_index("FR-GSE-01")
    assert s.ac_mission[fr] == ""  # the enemy's CAP landed at the end of the German player-turn (step 9)


def test_f28_no_advance_after_combat() -> None:
    s = pos(OPEN + "rolls: 6\n")
    attack(s, 1013, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], ["FR-INF-01"])  # 3-1 die 6: DX
    settle(s)
    g = s.game
    assert [s.hex[g.unit_index(u)] for u in ("DE-INF-01", "DE-INF-02", "DE-INF-03")] == [981, 982, 1012]
    assert not s.occupants(1013)


def test_f32_close_support_lands_after_the_attack_and_flies_once_a_game_turn() -> None:
    s = pos(OPEN + "german: DE-GSE-01@950\nrolls: 3\n", skip_forced=False)
    attack(s, 1013, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], ["FR-INF-01"], support="DE-GSE-01")
    settle(s)
    u = s.game.unit_index("DE-GSE-01")
    assert s.ac_mission[u] == "" and s.ac_turn[u] == 3
    from ffo_env.france1940.core import air

    assert u not in air.available(s, GERMAN)


def test_f53_bef_units_do_not_stack_with_french_units() -> None:
    s = pos(
        "turn 4 allied initial\nallied: GB-CORPS8-01@1013 FR-INF-01@1014 FR-INF-02@1046 GB-GSE-01@1045\n",
        skip_forced=False,
        bef_variant=True,
    )
    g = s.game
    assert not rules.bef_stack_ok(s, g.unit_index("GB-CORPS8-01"), 1014)
    assert rules.bef_stack_ok(s, g.unit_index("FR-INF-02"), 1045)  # French may garrison a British GSE
    act(s, "GB-CORPS8-01", "@1014")  # passing through is allowed (MP 8) ...
    assert "done" not in legal_texts(s)  # ... ending there is not
    act(s, "@1015")
    assert "done" in legal_texts(s)


def test_f53_p17_a_mixed_stack_left_by_a_retreat_must_be_broken_up() -> None:
    s = pos(
        "turn 4 allied initial\nallied: GB-CORPS8-01@1013 FR-INF-01@1013\n",
        skip_forced=False,
        bef_variant=True,
    )
    assert "done" not in legal_texts(s) and sorted(legal_texts(s)) == ["FR-INF-01", "GB-CORPS8-01"]
    act(s, "FR-INF-01")
    assert "done" not in legal_texts(s)  # it may not stop in the mixed stack
    act(s, "@1014", "done")
    assert "done" in legal_texts(s)


def test_f60_p3_views_hide_the_seed_and_with_hidden_obac_the_enemy_column() -> None:
    s = Game(RulesOptions(allied_obac="random", german_obac="random", hidden_obac=True)).new_initial_state(9)
    t = s.clone()
    t.seed, t.dice_state = 12345, 67890
    t.columns = [s.columns[0], "III" if s.columns[1] != "III" else "IV"]
    for u in s.game.side_units[GERMAN]:
        if t.status[u] == OUT:
            t.arrive[u] = 5
    assert view(s, ALLIED) == view(t, ALLIED)  # differing only in what the Allies may not know
    assert view(s, GERMAN) != view(t, GERMAN)
    assert "seed" not in view(s, GERMAN) and view(s, GERMAN)["columns"][0] == "?"
    plain = Game().new_initial_state(9)
    assert view(plain, ALLIED)["columns"] == ["Hist", "I"]  # F60: both columns known by default
    # a view of some fields (the encoder's) is the full view's entries for them, masked alike
    some = ("columns", "arrive", "status", "seed")
    for viewer in (ALLIED, GERMAN):
        full = view(s, viewer)
        assert view(s, viewer, some) == {f: full[f] for f in some if f in full}
    assert "seed" not in view(s, GERMAN, some) and view(s, GERMAN, some)["columns"][0] == "?"


def test_f61_no_seven_mp_cap_under_mild_winter() -> None:
    s = pos(
        "turn 3 german initial\nallied: FR-INF-01@664\ngerman: DE-PZ6-01@600\ninvaded: B\n",
        optional_mild_winter=True,
    )
    pz = s.game.unit_index("DE-PZ6-01")
    ez = {600, 632}
    assert rules.step_cost(s, pz, 600, 632, ez) == 8  # forest 2 + ZOC 5 + line 1


def test_p1_a_unit_is_offered_only_with_a_step_and_moves_once() -> None:
    s = pos(
        "turn 3 german initial\ngerman: DE-INF-01@1013 DE-ART-01@981\n"
        "allied: FR-INF-01@949 FR-INF-02@950 FR-INF-03@982 FR-INF-04@1012 FR-INF-05@980\n",
        skip_forced=False,
    )
    # the artillery (MA 2) in 981 is wrapped by French units: every step costs 1 + 5 > 2
    assert "DE-ART-01" not in legal_texts(s) and "DE-INF-01" in legal_texts(s)
    act(s, "DE-INF-01", "done")
    assert "DE-INF-01" not in legal_texts(s)


def test_p2_forced_decisions_are_applied_and_recorded_auto() -> None:
    s = pos(OPEN + "rolls: 4\n")
    act(s, "@1013", "DE-INF-01", "DE-INF-02")
    assert s.history[-1][2] is False and s.decision == "attackers"
    act(s, "DE-INF-03")  # the last attacker: "done" and "no close support" are forced
    assert s.decision == "designate" and [h[2] for h in s.history[-3:]] == [False, True, True]


def test_p3_random_orders_of_battle_are_drawn_and_recorded() -> None:
    cols = {
        tuple(Game(RulesOptions(allied_obac="random", german_obac="random")).new_initial_state(i).columns)
        for i in range(12)
    }
    assert len(cols) > 3
    s = Game(RulesOptions(allied_obac="random")).new_initial_state(1)
    assert s.rolls[0][0] == "allied_obac" and s.columns[1] == "I"


def test_p4_a_unit_with_no_setup_hex_stays_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "setup_hexes", lambda s, u: [] if s.spec(u).nation == "NL" else [1013])
    g = Game()
    s = State(g, 0)
    s.queue = [{"kind": "place", "unit": g.unit_index("NL-INF-01")}]
    s.phase = "setup"
    from ffo_env.france1940.core import flow

    flow.advance(s)
    assert (
        s.arrive[g.unit_index("NL-INF-01")] == -1 and ["unplaced", "NL-INF-01", "no legal setup hex"] in s.log
    )


def test_p5_units_inside_the_fortress_are_served_first() -> None:
    text = (
        "turn 3 german combat\nforts_destroyed: 155 186\nallied: FR-FORT-01@154 FR-INF-01@154\n"
        "german: DE-INF-01@121 DE-INF-02@122 DE-INF-03@153 DE-INF-04@185 DE-INF-05@155 DE-INF-06@186\n"
    )
    s = pos(text)
    g = s.game
    a, b = g.unit_index("FR-INF-01"), g.unit_index("FR-FORT-01")
    sup = s.judge_supply([b, a])
    assert a < b and sup[a] and not sup[b]  # roster order: the corps first


def test_p6_a_unit_on_its_edge_is_in_supply() -> None:
    s = pos(
        "turn 3 allied initial\nallied: FR-INF-01@1280\ngerman: DE-INF-01@1279 DE-INF-02@1247 DE-INF-03@1248\n"
    )
    u = s.game.unit_index("FR-INF-01")
    assert s.judge_supply([u])[u]


def test_p7_cap_is_spread_over_the_attacked_gses_of_its_hex() -> None:
    s = pos(
        "turn 3 german airsup\nallied: FR-GSE-01@1045 FR-GSE-02@1045 FR-GSE-03@1045\n"
        "german: DE-GSE-01@950 DE-GSE-02@950\nair: FR-GSE-03 cap@1045\n",
        skip_forced=False,
    )
    act(s, "DE-GSE-01", "FR-GSE-02", "DE-GSE-02", "FR-GSE-01", "done", "FR-GSE-03")
    g = s.game
    assert s.air["cap"] == {str(g.unit_index("FR-GSE-01")): [g.unit_index("FR-GSE-03")]}


def test_p8_interception_cancels_cap_before_interdiction() -> None:
    s = pos(
        "turn 3 allied intercept\ncolumns Hist I\nallied: FR-GSE-01@1110\n"
        "german: DE-GSE-01@950 DE-GSE-02@950\nair: DE-GSE-01 int@1080 DE-GSE-02 cap@1080\n",
        skip_forced=False,
    )
    act(s, "FR-GSE-01", "@1080")
    g = s.game
    assert s.ac_mission[g.unit_index("DE-GSE-02")] == "" and s.ac_mission[g.unit_index("DE-GSE-01")] == "int"


def test_p9_retreats_in_roster_order_defenders_first() -> None:
    s = pos(
        "turn 3 german combat\nallied: FR-INF-01@1013 FR-DLM-01@1013\ngerman: DE-INF-01@981\nrolls: 6\n",
        skip_forced=False,
    )
    attack(s, 1013, ["DE-INF-01"], ["FR-DLM-01"])  # 7:4 1-1, die 6: DR
    assert s.decision == "retreat"
    order = [q["unit"] for q in s.queue if q["kind"] == "retreat"]
    assert order == sorted(order) and all(s.side_of(u) == ALLIED for u in order)


def test_p10_counter_attack_on_one_or_more_hexes() -> None:
    s = pos(OPEN + "rolls: 1 1\n", skip_forced=False)
    attack(s, 1013, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], ["FR-INF-01"])
    assert s.decision == "ca_targets" and "done" not in legal_texts(s)
    act(s, "@981")
    assert "done" in legal_texts(s) and "@981" not in legal_texts(s)
    act(s, "@982", "done")
    line = [e for e in s.log if e[0] == "counter-attack"][0][2]
    assert line.startswith("6:14")


def test_p11_a_unit_halved_to_zero_cannot_attack() -> None:
    text = (
        "turn 3 allied combat\nallied: FR-DLC-01@1013 FR-INF-01@1045\n"
        "german: DE-INF-01@981 DE-INF-02@982 DE-INF-03@1012 DE-INF-04@1047 DE-INF-05@1077\n"
    )
    s = pos(text.replace("FR-INF-01@1045", ""), skip_forced=False)
    # the 1-6 cavalry is cut off: 1 halved is 0 (F20) and it may not attack
    assert s.decision == "attack" and s.legal_actions() == [0]


def test_p12_a_belgian_unit_may_use_a_belgian_dutch_border_hex() -> None:
    s = pos("turn 2 allied initial\ninvaded: B\nallied: BE-INF-01@525\n", skip_forced=False)
    u = s.game.unit_index("BE-INF-01")
    four = [h for h in range(1, 1281) if s.game.data.country[h] == "4"]
    assert not s.closed_to(u, four[0]) and s.closed_to(s.game.unit_index("FR-INF-01"), four[0])


def test_p13_the_defender_may_designate_nothing() -> None:
    s = pos(OPEN + "rolls: 1\n", skip_forced=False)
    act(s, "@1013", "DE-INF-01", "done", "done", "done")  # attackers, no support, no defenders designated
    assert [e for e in s.log if e[0] == "combat"][0][2].startswith("7:0 col 7")


def test_p14_french_removal_by_printed_defence() -> None:
    s = pos(
        "turn 5 german initial\nallied: FR-INF-01@1013(oos) FR-DIM-01@700\ngerman: DE-PZ6-01@160\n",
        skip_forced=False,
    )
    act(s, "DE-PZ6-01", "exit", "FR-INF-01")
    assert s.owed == 0 and s.decision == "move"  # 6 >= 6, out of supply or not
    g = s.game
    assert s.status[g.unit_index("FR-DIM-01")] == MAP
