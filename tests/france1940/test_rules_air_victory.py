"""Air units and missions (F31-F38, C§7) and victory (F39, F40, F57, F10)."""

from __future__ import annotations

import pytest

from ffo_env.france1940.core import air, rules
from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.options import RulesOptions
from ffo_env.france1940.core.state import ELIM, MAP

from .f40_helpers import act, attack, legal_texts, pos


def test_f37_allied_interdiction_only_with_b() -> None:
    s = pos("turn 3 allied missions\nallied: FR-GSE-01@1045\n", skip_forced=False)
    act(s, "FR-GSE-01")
    assert legal_texts(s) == ["cap"]
    s = pos("turn 3 allied missions\ncolumns B I\nallied: FR-GSE-01@1045\n", skip_forced=False)
    act(s, "FR-GSE-01")
    assert legal_texts(s) == ["cap", "interdict"]


def test_f37_german_column_v_never_interdicts() -> None:
    s = pos("turn 3 german missions\ncolumns Hist V\ngerman: DE-GSE-01@950\n", skip_forced=False)
    act(s, "DE-GSE-01")
    assert legal_texts(s) == ["cap"]


def test_f34_cap_takes_off_over_friendly_or_empty_hexes_in_range() -> None:
    s = pos("turn 3 german missions\nallied: FR-INF-01@982\ngerman: DE-GSE-01@950\n", skip_forced=False)
    act(s, "DE-GSE-01", "cap")
    hexes = {int(t[1:]) for t in legal_texts(s)}
    assert 982 not in hexes and 950 in hexes
    from ffo_env.france1940.core.hexgrid import distance

    assert max(distance(950, h) for h in hexes) == 20


def test_f34_cap_forbids_close_support_over_its_hex() -> None:
    base = (
        "turn 3 german combat\nallied: FR-INF-01@1013 FR-GSE-01@1045\ngerman: DE-INF-01@981 DE-GSE-01@950\n"
    )
    s = pos(base, skip_forced=False)
    act(s, "@1013", "DE-INF-01", "done")
    assert s.decision == "support" and legal_texts(s) == ["done", "DE-GSE-01"]
    s = pos(base + "air: FR-GSE-01 cap@1013\n", skip_forced=False)
    act(s, "@1013", "DE-INF-01", "done")
    assert s.decision == "support" and legal_texts(s) == ["done"]


def test_f33_interdiction_is_a_one_hex_zoc_for_movement_and_supply() -> None:
    s = pos("turn 3 allied initial\nallied: FR-INF-01@1014\ngerman: DE-GSE-01@950\nair: DE-GSE-01 int@1046\n")
    u = s.game.unit_index("FR-INF-01")
    ez = s.zoc_hexes(GERMAN)
    assert ez == {1046}  # a GSE has no ZOC of its own
    assert rules.step_cost(s, u, 1014, 1046, ez) == 4
    assert 1046 in s.enemy_zoc_for_supply(ALLIED)
    s2 = pos(
        "turn 3 allied initial\nallied: FR-INF-01@1046\ngerman: DE-GSE-01@950\nair: DE-GSE-01 int@1046\n"
    )
    assert 1046 not in s2.enemy_zoc_for_supply(ALLIED)  # a unit in the hex negates it for supply


def test_f35_air_superiority_table() -> None:
    base = "turn 3 german airsup\nallied: FR-GSE-01@1045\ngerman: DE-GSE-01@950 DE-GSE-02@950\n"
    for die, destroyed in ((2, True), (3, False)):
        s = pos(base + f"rolls: {die}\n")
        assert s.decision == "airsup"
        act(s, "DE-GSE-01", "DE-GSE-02", "done")  # 2:1 -> destroyed on 1-2
        fr = s.game.unit_index("FR-GSE-01")
        assert (s.status[fr] == ELIM) is destroyed
        assert s.vp[GERMAN] == (2 if destroyed else 0)  # an air unit is worth 2 VP


def test_f35_cap_over_the_gse_adds_one_to_its_defence() -> None:
    s = pos(
        "turn 3 german airsup\nallied: FR-GSE-01@1045 FR-GSE-02@1045\ngerman: DE-GSE-01@950 DE-GSE-02@950\n"
        "air: FR-GSE-02 cap@1045\nrolls: 2\n",
        skip_forced=False,
    )
    act(s, "DE-GSE-01", "FR-GSE-01", "DE-GSE-02", "FR-GSE-01", "done")
    assert s.decision == "cap_allot" and s.current_player == ALLIED  # the defender allots its CAP
    act(s, "FR-GSE-02", "done")  # 2:2 -> 1-1: destroyed only on a 1
    assert s.status[s.game.unit_index("FR-GSE-01")] == MAP


def test_f36_interception_cancels_cap_but_not_cap_over_its_own_gse() -> None:
    s = pos(
        "turn 3 german intercept\nallied: FR-GSE-01@1045\ngerman: DE-GSE-01@950\nair: FR-GSE-01 cap@1100\n",
        skip_forced=False,
    )
    assert legal_texts(s) == ["done", "DE-GSE-01"]
    act(s, "DE-GSE-01", "@1100")
    fr = s.game.unit_index("FR-GSE-01")
    assert s.ac_mission[fr] == "" and s.ac_turn[s.game.unit_index("DE-GSE-01")] == 3
    s = pos(
        "turn 3 german intercept\nallied: FR-GSE-01@1045\ngerman: DE-GSE-01@950\nair: FR-GSE-01 cap@1045\n",
        skip_forced=False,
    )
    assert legal_texts(s) == ["done"]


def test_f11_restricted_air_units_do_not_fly_on_game_turn_1() -> None:
    s = pos("turn 1 german missions\ngerman: DE-GSE-01@950 DE-GSE-02@950\n")
    u = s.game.unit_index("DE-GSE-01")
    s.restricted[u] = True
    assert u not in air.available(s, GERMAN) and s.game.unit_index("DE-GSE-02") in air.available(s, GERMAN)


def test_f38_gse_destroyed_in_combat_scores_two() -> None:
    s = pos("turn 3 german combat\nallied: FR-GSE-01@1013\ngerman: DE-INF-01@981\nrolls: 6\n")
    attack(s, 1013, ["DE-INF-01"], ["FR-GSE-01"])  # 7:1 -> 6-1, die 6: DX
    assert s.status[s.game.unit_index("FR-GSE-01")] == ELIM and s.vp[GERMAN] == 2


def _end(text: str, **o: object) -> tuple[str, list[int]]:
    s = pos(text, **o)
    assert s.is_terminal()
    return s.result, s.vp


def test_f39_standard_victory_and_paris() -> None:
    assert _end("turn 10 allied missions\nvp 5 30\n") == ("german", [5, 30])
    assert _end("turn 10 allied missions\nvp 11 30\n")[0] == "allied"  # 30 < 3 x 11
    assert _end("turn 10 allied missions\nvp 0 24\n")[0] == "allied"  # under 25
    assert _end("turn 10 allied missions\nvp 0 15\ngerman: DE-INF-01@1023\n") == ("german", [0, 25])
    assert _end("turn 10 allied missions\nvp 0 15\ngerman: DE-GSE-01@1023\n")[0] == "allied"  # no GSE


@pytest.mark.parametrize(
    ("vp", "result"),
    [
        ("5 30", "german_crushing"),
        ("10 30", "german_strategic"),
        ("10 20", "german_tactical"),
        ("10 12", "german_marginal"),
        ("10 9", "allied"),
        ("0 9", "allied"),
        ("2 24", "german_tactical"),  # ratio 12 but under 25 and 30: falls to the next level (F40)
    ],
)
def test_f40_variable_victory(vp: str, result: str) -> None:
    assert _end(f"turn 10 allied missions\nvp {vp}\n", optional_variable_victory=True)[0] == result


def test_r_victory_unit_values() -> None:
    s = pos("turn 3 german combat\n")
    v = {
        uid: s.unit_vp(s.game.unit_index(uid))
        for uid in ("FR-INF-01", "GB-TER-01", "BE-INF-01", "DE-PZ7-01", "DE-GSE-01", "FR-GSE-01")
    }
    assert v == {
        "FR-INF-01": 1,
        "GB-TER-01": 3,
        "BE-INF-01": 1,
        "DE-PZ7-01": 1,
        "DE-GSE-01": 2,
        "FR-GSE-01": 2,
    }


def test_f57_bef_armor_victory_points() -> None:
    s = pos("turn 3 german combat\n", bef_variant=True)
    g = s.game
    assert s.unit_vp(g.unit_index("DE-PZ7-01")) == 28 and s.unit_vp(g.unit_index("DE-MOT3-01")) == 6
    assert s.unit_vp(g.unit_index("DE-INF-01")) == 1
    s = pos("turn 3 german combat\n", bef_variant=True, bef_armor_vp_mode="add")
    assert s.unit_vp(s.game.unit_index("DE-PZ7-01")) == 29


def test_f10_f46_game_length_twelve_with_the_bef_variant() -> None:
    assert Game().last_turn == 10 and Game(RulesOptions(bef_variant=True)).last_turn == 12
