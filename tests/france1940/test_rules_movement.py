"""Movement, stacking, Zones of Control, neutrality, off-map movement, reinforcements, supply."""

from __future__ import annotations

from ffo_env.france1940.core import rules
from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.state import ELIM, EXITED, MAP, REMOVED, State

from .f40_helpers import act, legal_texts, pos


def test_f12_exact_steps_in_the_open() -> None:
    s = pos("turn 3 german initial\ngerman: DE-INF-01@1013\n", skip_forced=False)
    assert legal_texts(s) == ["done", "DE-INF-01"]
    act(s, "DE-INF-01")
    assert s.mp_left == 6 and sorted(legal_texts(s)) == sorted(
        ["done", "@981", "@982", "@1012", "@1014", "@1045", "@1046"]
    )


def test_f14_zoc_costs_enter_three_leave_two_both_five() -> None:
    # German infantry in 1013 is in the ZOC of the French unit in 1045; 1012 and 1046 are also in it
    s = pos("turn 3 german initial\nallied: FR-INF-01@1045\ngerman: DE-INF-01@1013\n", skip_forced=False)
    act(s, "DE-INF-01")
    ez = s.zoc_hexes(ALLIED)
    u = s.game.unit_index("DE-INF-01")
    assert rules.step_cost(s, u, 1013, 1012, ez) == 6  # 1 + 5 (controlled to controlled)
    assert rules.step_cost(s, u, 1013, 981, ez) == 3  # 1 + 2 (leaving)
    assert rules.step_cost(s, u, 981, 1013, ez) == 4  # 1 + 3 (entering)
    assert sorted(legal_texts(s)) == sorted(["done", "@981", "@982", "@1012", "@1014", "@1046"])
    act(s, "@1012")  # all 6 MP spent: only "done" is left
    assert legal_texts(s) == ["done"] and s.hex[u] == 1012


def test_c5_mechanized_and_gse_pay_two_in_forest() -> None:
    s = pos("turn 3 german initial\ngerman: DE-PZ6-01@600 DE-INF-01@601\ninvaded: B\n")
    pz, inf = s.game.unit_index("DE-PZ6-01"), s.game.unit_index("DE-INF-01")
    assert s.game.data.terrain[632] == "f"
    assert rules.step_cost(s, pz, 600, 632, set()) == 2
    assert rules.step_cost(s, inf, 601, 632, set()) == 1


def test_f42_mild_winter_adds_one_for_german_mechanized_units() -> None:
    s = pos("turn 3 german initial\ngerman: DE-PZ6-01@600\ninvaded: B\n", optional_mild_winter=True)
    pz = s.game.unit_index("DE-PZ6-01")
    assert 632 in s.game.data.mild_winter and 631 in s.game.data.mild_winter
    assert rules.step_cost(s, pz, 600, 632, set()) == 3  # forest 2 + line 1 (F61: no cap)


def test_f13_stacking_three_units_block_entry() -> None:
    s = pos(
        "turn 3 german initial\ngerman: DE-INF-01@1012 DE-INF-02@1012 DE-INF-03@1012 DE-INF-04@1013\n",
        skip_forced=False,
    )
    act(s, "DE-INF-04")
    assert "@1012" not in legal_texts(s) and "@981" in legal_texts(s)


def test_f6_neutral_units_do_not_move_before_invasion() -> None:
    s = pos("turn 1 allied initial\nallied: BE-INF-01@410 FR-INF-01@442\n", skip_forced=False)
    assert legal_texts(s) == ["done", "FR-INF-01"]
    act(s, "FR-INF-01")
    steps = legal_texts(s)
    assert "@441" not in steps and "@410" not in steps  # pure Belgium is closed until invaded
    assert "@474" in steps and "@411" in steps  # French-Belgian border hexes are open (F6 c)
    s = pos("turn 1 allied initial\nallied: BE-INF-01@410 FR-INF-01@442\ninvaded: B\n", skip_forced=False)
    assert "BE-INF-01" in legal_texts(s)
    act(s, "FR-INF-01")
    assert "@441" in legal_texts(s)


def test_f6_german_entry_invades_but_not_from_a_shared_border_hex() -> None:
    s = pos("turn 1 german initial\ngerman: DE-INF-01@276\n")
    assert s.game.data.country[276] == "6" and "B" not in s.invaded
    act(s, "DE-INF-01")
    # 276 is a B/G border hex: no invasion; a pure Belgian hex invades
    pure_b = [t for t in legal_texts(s) if t.startswith("@") and s.game.data.country[int(t[1:])] == "B"]
    assert pure_b
    act(s, pure_b[0])
    assert "B" in s.invaded


def test_f6_belgian_zoc_only_after_invasion() -> None:
    s = pos("turn 1 german initial\nallied: BE-INF-01@410\ngerman: DE-INF-01@244\n")
    assert not s.exerts_zoc(s.game.unit_index("BE-INF-01"))
    s.invade({"B"}, "test")
    assert s.exerts_zoc(s.game.unit_index("BE-INF-01"))


def test_f16_german_exit_makes_the_allies_remove_french_strength() -> None:
    s = pos(
        "turn 5 german initial\nallied: FR-INF-01@1013 FR-DIM-01@700 GB-CORPS8-01@800\ngerman: DE-INF-01@160\n",
        skip_forced=False,
    )
    act(s, "DE-INF-01", "exit")
    assert s.decision == "remove_french" and s.current_player == ALLIED
    assert sorted(legal_texts(s)) == ["FR-DIM-01", "FR-INF-01"]  # only French units
    act(s, "FR-DIM-01")  # 2 of 7
    assert s.decision == "remove_french"
    act(s, "FR-INF-01")  # 8 >= 7
    g = s.game
    assert s.status[g.unit_index("DE-INF-01")] == EXITED and s.status[g.unit_index("FR-INF-01")] == REMOVED
    assert s.vp == [0, 0]  # no VP to anyone


def test_f16_allied_exit_counts_as_destroyed() -> None:
    s = pos("turn 5 allied initial\nallied: GB-CORPS8-01@160\n", skip_forced=False)
    act(s, "GB-CORPS8-01", "exit")
    assert s.status[s.game.unit_index("GB-CORPS8-01")] == ELIM and s.vp[GERMAN] == 3
    s = pos(
        "turn 5 allied initial\nallied: GB-CORPS8-01@160\n", skip_forced=False, allied_exit_scores_vp=False
    )
    act(s, "GB-CORPS8-01", "exit")
    assert s.vp[GERMAN] == 0


def test_f17_allied_reinforcements_in_paris_or_the_west_edge() -> None:
    s = pos("turn 4 allied reinforce\narrive: FR-INF-20@4\n")
    assert s.decision == "reinforce" and sorted(legal_texts(s)) == ["@1023", "@1024", "@992"]
    s = pos("turn 4 allied reinforce\narrive: FR-INF-20@4\ngerman: DE-INF-01@1023\n")
    assert sorted(int(t[1:]) for t in legal_texts(s)) == list(range(1272, 1281))


def test_f17_german_reinforcements_on_the_east_edge_north_of_the_maginot_line() -> None:
    s = pos("turn 2 german reinforce\narrive: DE-INF-30@2\nallied: FR-INF-01@5\n")
    hexes = sorted(int(t[1:]) for t in legal_texts(s))
    assert hexes == [h for h in range(1, 27) if h != 5]


def test_f18_supply_cut_by_zoc_and_restored_by_a_friendly_unit() -> None:
    text = "turn 3 german combat\nallied: FR-INF-01@1013\ngerman: DE-INF-01@981 DE-INF-02@982 DE-INF-03@1012 DE-INF-04@1047\n"
    s = pos(text)
    fr = s.game.unit_index("FR-INF-01")
    assert s.judge_supply([fr])[fr] is False
    s2 = pos(text.replace("FR-INF-01@1013", "FR-INF-01@1013 FR-INF-02@1046"))
    assert s2.judge_supply([fr])[fr] is True  # a friendly unit negates the ZOC for supply


def test_f19_fortress_supplies_one_corps_equivalent() -> None:
    text = (
        "turn 3 german combat\nforts_destroyed: 155 186\nallied: FR-INF-01@154 FR-FORT-01@154\n"
        "german: DE-INF-01@121 DE-INF-02@122 DE-INF-03@153 DE-INF-04@185 DE-INF-05@155 DE-INF-06@186\n"
    )
    s = pos(text)
    g = s.game
    a, b = g.unit_index("FR-INF-01"), g.unit_index("FR-FORT-01")
    sup = s.judge_supply([a, b])
    assert sup[a] is True and sup[b] is False  # the corps fills the fortress's one corps-equivalent
    s2 = pos(text, allied_obac="C")
    s2.columns = ["C", "I"]
    s2.touch()
    assert s2.judge_supply([a])[a] is False  # no fortress supply with C and E (F44)


def test_f20_out_of_supply_halves_movement() -> None:
    s = pos("turn 3 german initial\ngerman: DE-INF-01@1013(oos)\n", skip_forced=False)
    act(s, "DE-INF-01")
    assert s.mp_left == 3


def test_f8_belgian_fortified_area_ceases_after_the_first_german_initial_movement() -> None:
    s = pos("turn 1 german initial\ngerman: DE-INF-01@1013\n", skip_forced=False)
    assert s.fort_active(401) and s.fort_active(402)
    act(s, "done")
    assert not s.fort_active(401) and not s.belgian_area


def test_f15_only_mechanized_units_move_in_the_mechanized_phase() -> None:
    s = pos("turn 3 german mech\ngerman: DE-INF-01@1013 DE-PZ6-01@981 DE-GSE-01@950\n", skip_forced=False)
    assert legal_texts(s) == ["done", "DE-PZ6-01"]


def test_f31_gse_moves_in_the_initial_phase_and_grounds_its_aircraft() -> None:
    s = pos("turn 3 german initial\ngerman: DE-GSE-01@950\n", skip_forced=False)
    act(s, "DE-GSE-01", "@949", "done")
    u = s.game.unit_index("DE-GSE-01")
    assert s.gse_moved_turn[u] == 3
    from ffo_env.france1940.core import air

    assert u not in air.available(s, GERMAN)


def test_f5_setup_areas_on_an_empty_map() -> None:
    g = Game()
    s = State(g, 0)
    counts = {}
    for uid in ("FR-INF-01", "GB-CORPS8-01", "BE-INF-01", "NL-INF-01", "DE-INF-01"):
        counts[uid[:2]] = len(rules.setup_hexes(s, g.unit_index(uid)))
    assert counts == {"FR": 406, "GB": 406, "BE": 215, "NL": 180, "DE": 217}  # C§3.4


def test_c10_setup_order_allied_then_restriction_then_german() -> None:
    s = Game().new_initial_state(0)
    assert s.decision == "place" and s.current_player == ALLIED and len(s.legal_actions()) == 406
    n_allied = sum(1 for u in s.game.side_units[ALLIED] if s.arrive[u] == 0)
    assert n_allied == 54  # Hist
    kinds = [q["kind"] for q in s.queue]
    assert kinds.count("restrict") == 4 and kinds.index("restrict") == n_allied  # F11
    assert kinds.count("place") == 54 + 45


def test_f45_second_german_row_may_arrive_on_game_turn_2() -> None:
    a = Game().new_initial_state(0)
    from ffo_env.france1940.core.options import RulesOptions

    b = Game(RulesOptions(de_gt1_second_row_turn=2)).new_initial_state(0)
    count = lambda s, t: sum(1 for u in s.game.side_units[GERMAN] if s.arrive[u] == t)  # noqa: E731
    assert (count(a, 1), count(a, 2)) == (8, 3) and (count(b, 1), count(b, 2)) == (4, 7)


def test_f44_every_column_builds_its_order_of_battle() -> None:
    from ffo_env.france1940.core.options import ALLIED_COLUMNS, GERMAN_COLUMNS, RulesOptions

    d = Game().data
    for i, (ac, gc) in enumerate(zip(ALLIED_COLUMNS, GERMAN_COLUMNS * 2, strict=False)):
        s = Game(RulesOptions(allied_obac=ac, german_obac=gc)).new_initial_state(i)
        starts = [sum(1 for u in s.game.side_units[side] if s.arrive[u] == 0) for side in (0, 1)]
        ci, gi = d.allied_obac.column(ac), d.german_obac.column(gc)
        assert starts == [
            sum(v[ci] for v in d.allied_obac.start.values()),
            sum(v[gi] for v in d.german_obac.start.values()),
        ]
        assert all(s.status[u] != MAP for u in range(len(s.status)))
