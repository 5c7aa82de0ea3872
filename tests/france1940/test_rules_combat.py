"""Combat: odds, modifiers, the CRT and its oracle (C§6.5), results, counter-attacks, fortified hexes."""

from __future__ import annotations

from collections import Counter

import pytest

from ffo_env.france1940.core.combat import odds_column
from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.state import ELIM

from .f40_helpers import act, attack, legal_texts, pos, settle

# The five tests that pin a cell of the CRT name their data version: ``V1`` is components.md §6.2's machine form
# (the table C§6.5's oracles check the reconstruction against); each has a ``_v2`` twin whose figures are read
# by hand from f40-reconstruction-v2's table (the default of sessions 42-47, P18), where every loss result (1CA,
# 2CA, DX) needs a modified die one row higher in 2-1 and two rows higher in 3-1, 4-1 and 5-1, and a ``_v3``
# twin read from f40-reconstruction-v3's (the default since session 48, P20): one row higher in 2-1 to 5-1:
#   rows (modified die)  -1  0   1   2   3   4   5   6   7   8
#   v1 3-1               AR  CA  CA  BR  DR  DR  1CA DX  DX  DX
#   v2 3-1               AR  CA  CA  BR  DR  DR  DR  DR  1CA DX
#   v1 2-1               AR  CA  CA  CA  BR  DR  DR  1CA 2CA DX
#   v2 2-1               AR  CA  CA  CA  BR  DR  DR  DR  1CA 2CA
#   v2 5-1               CA  BR  DR  DR  DR  1CA 2CA DX  DX  DX
#   v3 3-1               AR  CA  CA  BR  DR  DR  DR  1CA DX  DX
#   v3 4-1               AR  CA  BR  DR  DR  1CA 2CA DX  DX  DX
#   v3 2-1 (= v2's)      AR  CA  CA  CA  BR  DR  DR  DR  1CA 2CA
#   1-2 (all three)      CA  CA  CA  CA  AR  AR  BR  BR  DR  DR
V1 = "f40-reconstruction-v1"
V2 = "f40-reconstruction-v2"
V3 = "f40-reconstruction-v3"

# a clear hex deep in France with no river and clear neighbours: 1013, attacked from 981, 982, 1012
OPEN = "turn 3 german combat\nallied: FR-INF-01@1013\ngerman: DE-INF-01@981 DE-INF-02@982 DE-INF-03@1012\n"


def test_f23_odds_rounded_for_the_defender() -> None:
    assert odds_column(26, 9) == 3  # 26:9 -> 2-1 [R Combat Phase (I)]
    assert odds_column(21, 6) == 4  # 3-1
    assert odds_column(6, 7) == 1  # 1-2
    assert odds_column(1, 6) == 0  # worse than 1-3 uses 1-3
    assert odds_column(70, 1) == 7  # better than 6-1 uses 6-1
    assert odds_column(3, 0) == 7  # a defence of 0 uses 6-1


def _outcome(
    s_text: str, d1: int, d2: int, designate: list[str], attackers: list[str], target: int, **o: object
) -> str:
    s = pos(s_text + f"rolls: {d1} {d2}\n", **o)
    attack(s, target, attackers, designate)
    if s.decision == "ca_targets":
        act(s, legal_texts(s)[-1], "done")  # the counter-attack picks one hex
    settle(s)
    log = [e for e in s.log if e[0] in ("combat", "counter-attack")]
    main = log[0][2].split()[-1]
    ca = log[1][2].split()[-1] if len(log) > 1 else ""
    return f"{main}/{ca}" if ca else main


def _dist(s_text: str, attackers: list[str], target: int, **o: object) -> Counter[str]:
    c: Counter[str] = Counter()
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            c[_outcome(s_text, d1, d2, ["FR-INF-01"], attackers, target, **o)] += 1
    return c


def test_c6_5_oracle_a_three_corps_in_clear() -> None:
    c = _dist(OPEN, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], 1013, data_version=V1)
    # /36: DR 12, BR 6, 1CA (defender eliminated, no counter-attacker left) 6, DX 6; CA 6 -> CA 2, AR 2, BR 2
    assert c == Counter({"DR": 12, "BR": 6, "1CA": 6, "DX": 6, "CA/CA": 2, "CA/AR": 2, "CA/BR": 2})


def test_c6_5_oracle_a_three_corps_in_clear_v2() -> None:
    c = _dist(OPEN, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], 1013, data_version=V2)
    # 21:6 is 3-1; v2's 3-1 at dice 1..6: CA BR DR DR DR DR -> /36: DR 24, BR 6, no loss result; CA 6, the
    # counter-attack 6:7 (1-2) at dice 1..6: CA CA AR AR BR BR -> CA 2, AR 2, BR 2
    assert c == Counter({"DR": 24, "BR": 6, "CA/CA": 2, "CA/AR": 2, "CA/BR": 2})


def test_c6_5_oracle_a_three_corps_in_clear_v3() -> None:
    c = _dist(OPEN, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], 1013, data_version=V3)
    # 21:6 is 3-1; v3's 3-1 at dice 1..6: CA BR DR DR DR 1CA -> /36: DR 18, BR 6, 1CA 6 (the lone defender
    # eliminated, no counter-attacker left); CA 6, the counter-attack 6:7 (1-2): CA 2, AR 2, BR 2
    assert c == Counter({"DR": 18, "BR": 6, "1CA": 6, "CA/CA": 2, "CA/AR": 2, "CA/BR": 2})


def test_c6_5_oracle_b_forest_minus_two() -> None:
    text = "turn 3 german combat\ninvaded: B\nallied: FR-INF-01@632\ngerman: DE-INF-01@600 DE-INF-02@601 DE-INF-03@631\n"
    c = _dist(text, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], 632)
    assert c == Counter({"DR": 12, "AR": 6, "BR": 6, "CA/CA": 4, "CA/AR": 4, "CA/BR": 4})


def test_c6_5_oracle_d_weak_attacker_dies_to_the_counter_attack() -> None:
    text = "turn 3 german combat\nallied: FR-INF-01@1013\ngerman: DE-MOT1-01@981\n"
    c = _dist(text, ["DE-MOT1-01"], 1013)
    assert c["AR"] == 18 and sum(v for k, v in c.items() if k.startswith("CA/")) == 18
    assert all(k.split("/")[1] in ("1CA", "2CA", "DX") for k in c if k.startswith("CA/"))


def _supported(data_version: str) -> Counter[str]:
    """The results of OPEN's 3-1 attack with one Close Support strike (+2) over the six faces of the die."""
    text = OPEN + "german: DE-GSE-01@950\n"
    c: Counter[str] = Counter()
    for d1 in range(1, 7):
        s = pos(text + f"rolls: {d1}\n", data_version=data_version)
        attack(s, 1013, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], ["FR-INF-01"], support="DE-GSE-01")
        settle(s)
        c[[e for e in s.log if e[0] == "combat"][0][2].split()[-1]] += 1
    return c


def test_f24_f32_close_support_adds_two_oracle_c() -> None:
    assert _supported(V1) == Counter({"DX": 3, "DR": 2, "1CA": 1})  # C: DX 9/18, DR 6/18, 1CA 3/18


def test_f24_f32_close_support_adds_two_oracle_c_v2() -> None:
    # v2's 3-1 at modified dice 3..8: DR DR DR DR 1CA DX
    assert _supported(V2) == Counter({"DR": 4, "1CA": 1, "DX": 1})


def test_f24_f32_close_support_adds_two_oracle_c_v3() -> None:
    # v3's 3-1 at modified dice 3..8: DR DR DR 1CA DX DX
    assert _supported(V3) == Counter({"DR": 3, "1CA": 1, "DX": 2})


def test_f24_close_support_cancels_the_forest_penalty() -> None:
    text = "turn 3 german combat\ninvaded: B\nallied: FR-INF-01@632\ngerman: DE-INF-01@600 DE-GSE-01@568\n"
    s = pos(text + "rolls: 3\n")
    attack(s, 632, ["DE-INF-01"], ["FR-INF-01"], support="DE-GSE-01")
    line = [e for e in s.log if e[0] == "combat"][0][2]
    assert "die 3+0" in line


def test_f24_river_penalty_needs_every_adjacent_attacker_across() -> None:
    # 268-300 and 269-300 are Meuse hexsides; 299-300 too: attack 300 from 268 and 269 (all across)
    base = "turn 3 german combat\ninvaded: N\nallied: NL-INF-01@300\n"
    s = pos(base + "german: DE-INF-01@268 DE-INF-02@269\nrolls: 4\n")
    attack(s, 300, ["DE-INF-01", "DE-INF-02"], ["NL-INF-01"])
    assert "die 4-2" in [e for e in s.log if e[0] == "combat"][0][2]
    s = pos(base + "german: DE-INF-01@268 DE-INF-02@267\nrolls: 4\n")
    attack(s, 300, ["DE-INF-01"], ["NL-INF-01"])
    assert "die 4-2" in [e for e in s.log if e[0] == "combat"][0][2]


def test_f22_one_corps_equivalent_attacks_from_a_hex() -> None:
    s = pos(
        "turn 3 german combat\nallied: FR-INF-01@1013\ngerman: DE-INF-01@981 DE-PZ4-01@981 DE-PZ4-02@982\n"
    )
    act(s, "@1013", "DE-INF-01")
    assert legal_texts(s) == ["done", "DE-PZ4-02"]  # the panzer in 981 would exceed one corps from 981


def test_f21_f22_defender_designates_after_the_attacker_commits() -> None:
    s = pos(
        "turn 3 german combat\nallied: FR-INF-01@1013 FR-DLM-01@1013 FR-DIM-01@1013\ngerman: DE-INF-01@981\n",
        skip_forced=False,
    )
    act(s, "@1013", "DE-INF-01", "done", "done")  # attackers, then no close support
    assert s.decision == "designate" and s.current_player == ALLIED
    act(s, "FR-DLM-01")
    assert legal_texts(s) == ["done", "FR-DIM-01"]  # the corps no longer fits


def test_f29_no_unit_attacks_twice_and_no_hex_is_attacked_twice() -> None:
    s = pos(
        "turn 3 german combat\nallied: FR-INF-01@1013 FR-INF-02@1045\ngerman: DE-INF-01@1012 DE-INF-02@1044\n"
        "rolls: 2\n",
        skip_forced=False,
    )
    attack(s, 1013, ["DE-INF-01"], ["FR-INF-01"])  # 7:6 1-1 die 2: CA; the counter-attack rolls next
    settle(s)
    assert s.decision == "attack" and legal_texts(s) == ["done", "@1045"]  # 1013 was attacked
    act(s, "@1045")
    assert legal_texts(s) == ["DE-INF-02"]  # DE-INF-01 attacked already


def test_f26_retreat_blocked_is_eliminated() -> None:
    # French 6-6 in 1013 surrounded: Germans in 981, 982, 1012, and German ZOC over 1014, 1045, 1046
    text = (
        "turn 3 german combat\nallied: FR-INF-01@1013\n"
        "german: DE-INF-01@981 DE-INF-02@982 DE-INF-03@1012 DE-INF-04@1047 DE-INF-05@1077\nrolls: 3\n"
    )
    s = pos(text)
    attack(s, 1013, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], ["FR-INF-01"])  # 3-1, die 3: DR
    settle(s)
    fr = s.game.unit_index("FR-INF-01")
    assert s.status[fr] == ELIM and s.vp[GERMAN] == 1


def test_f26_retreat_is_one_hex_chosen_by_the_owner() -> None:
    s = pos(OPEN + "rolls: 3\n", skip_forced=False)
    attack(s, 1013, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], ["FR-INF-01"])
    assert s.decision == "retreat" and s.current_player == ALLIED
    assert legal_texts(s) == ["@1046"]  # 1014 and 1045 are in the ZOC of 982 and 1012
    act(s, "@1046")
    assert s.hex[s.game.unit_index("FR-INF-01")] == 1046


def test_f27_counterattack_targets_chosen_by_the_defender() -> None:
    s = pos(OPEN + "rolls: 1 6\n")  # 3-1 die 1: CA; counter-attack 6:7 (1-2) die 6: BR
    attack(s, 1013, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], ["FR-INF-01"])
    assert s.decision == "ca_targets" and s.current_player == ALLIED
    assert sorted(legal_texts(s)) == ["@1012", "@981", "@982"]
    act(s, "@1012", "done")
    assert s.decision == "retreat" and s.queue[0]["unit"] == s.game.unit_index("DE-INF-03")


def test_f27_counterattack_shift_reads_columns_to_the_right() -> None:
    s = pos(OPEN + "rolls: 1 6\n", counterattack_shift=3, data_version=V1)  # 1-2 read as 3-1: die 6 -> DX
    attack(s, 1013, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], ["FR-INF-01"])
    act(s, "@1012", "done")
    settle(s)
    assert s.status[s.game.unit_index("DE-INF-03")] == ELIM and s.vp[ALLIED] == 1


def test_f27_counterattack_shift_reads_columns_to_the_right_v2() -> None:
    # v2: 1-2 read as 3-1, die 6 -> DR (DE-INF-03 falls back); read as 5-1, die 6 -> DX
    s = pos(OPEN + "rolls: 1 6\n", counterattack_shift=3, data_version=V2)
    attack(s, 1013, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], ["FR-INF-01"])
    act(s, "@1012", "done")
    settle(s)
    de3 = s.game.unit_index("DE-INF-03")
    assert [e for e in s.log if e[0] == "counter-attack"][0][2].endswith("DR")
    assert s.status[de3] != ELIM and s.hex[de3] != 1012 and s.vp[ALLIED] == 0
    s = pos(OPEN + "rolls: 1 6\n", counterattack_shift=5, data_version=V2)
    attack(s, 1013, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], ["FR-INF-01"])
    act(s, "@1012", "done")
    settle(s)
    assert s.status[de3] == ELIM and s.vp[ALLIED] == 1


def test_f27_counterattack_shift_reads_columns_to_the_right_v3() -> None:
    # v3: 1-2 read as 3-1, die 6 -> 1CA (the lone DE-INF-03 is the unit lost); read as 4-1, die 6 -> DX
    for shift, result in ((3, "1CA"), (4, "DX")):
        s = pos(OPEN + "rolls: 1 6\n", counterattack_shift=shift, data_version=V3)
        attack(s, 1013, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], ["FR-INF-01"])
        act(s, "@1012", "done")
        settle(s)
        assert [e for e in s.log if e[0] == "counter-attack"][0][2].endswith(result)
        assert s.status[s.game.unit_index("DE-INF-03")] == ELIM and s.vp[ALLIED] == 1


def test_r_combat_1ca_defender_loses_a_unit_first() -> None:
    s = pos(
        "turn 3 german combat\nallied: FR-INF-01@1013 FR-DLM-01@1013\n"
        "german: DE-INF-01@981 DE-INF-02@982 DE-INF-03@1012\nrolls: 5\n",
        data_version=V1,
    )
    attack(s, 1013, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], ["FR-INF-01"])  # 21:6 3-1, die 5: 1CA
    assert s.decision == "lose" and s.current_player == ALLIED
    assert sorted(legal_texts(s)) == ["FR-DLM-01", "FR-INF-01"]  # any of its units in the hex
    act(s, "FR-DLM-01")
    assert s.decision == "ca_targets"


def test_r_combat_1ca_defender_loses_a_unit_first_v2() -> None:
    text = (
        "turn 3 german combat\nallied: FR-INF-01@1013 FR-DLM-01@1013\n"
        "german: DE-INF-01@981 DE-INF-02@982 DE-INF-03@1012 DE-GSE-01@950\nrolls: 5\n"
    )
    s = pos(text, data_version=V2)
    attack(s, 1013, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], ["FR-INF-01"])  # 21:6 3-1, die 5: v2 DR
    assert s.decision != "lose" and [e for e in s.log if e[0] == "combat"][0][2].endswith("DR")
    s = pos(text, data_version=V2)  # with Close Support the modified die is 7: v2's 1CA
    attack(s, 1013, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], ["FR-INF-01"], support="DE-GSE-01")
    assert s.decision == "lose" and s.current_player == ALLIED
    assert sorted(legal_texts(s)) == ["FR-DLM-01", "FR-INF-01"]  # any of its units in the hex
    act(s, "FR-DLM-01")
    assert s.decision == "ca_targets"


def test_r_combat_1ca_defender_loses_a_unit_first_v3() -> None:
    text = (
        "turn 3 german combat\nallied: FR-INF-01@1013 FR-DLM-01@1013\n"
        "german: DE-INF-01@981 DE-INF-02@982 DE-INF-03@1012\nrolls: {die}\n"
    )
    s = pos(text.format(die=5), data_version=V3)
    attack(s, 1013, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], ["FR-INF-01"])  # 21:6 3-1, die 5: v3 DR
    assert s.decision != "lose" and [e for e in s.log if e[0] == "combat"][0][2].endswith("DR")
    s = pos(text.format(die=6), data_version=V3)  # die 6: v3's 1CA
    attack(s, 1013, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], ["FR-INF-01"])
    assert s.decision == "lose" and s.current_player == ALLIED
    assert sorted(legal_texts(s)) == ["FR-DLM-01", "FR-INF-01"]  # any of its units in the hex
    act(s, "FR-DLM-01")
    assert s.decision == "ca_targets"


def test_f25_fortress_front_ten_rear_five_and_dx_destroys() -> None:
    # Maginot 154: front 121 122 153 185; its rear set is empty, so attack 412 from rear 413
    s = pos("turn 3 german combat\ngerman: DE-INF-01@153 DE-INF-02@121\nrolls: 6\n")
    attack(s, 154, ["DE-INF-01", "DE-INF-02"], [])
    line = [e for e in s.log if e[0] == "combat"][0][2]
    assert line.startswith("14:10")  # an attack on the front: +10
    assert line.endswith("DR") and 154 not in s.fort_destroyed  # 1-1, die 6: DR does not destroy it


def test_f25_empty_fortress_only_dx_destroys() -> None:
    s = pos(
        "turn 3 german combat\ngerman: DE-INF-01@153 DE-INF-02@121 DE-INF-03@122\nrolls: 6\n", data_version=V1
    )
    attack(s, 154, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], [])  # 21:10 2-1, die 6: 1CA -> no effect
    settle(s)
    assert 154 not in s.fort_destroyed
    s = pos(
        "turn 3 german combat\ngerman: DE-INF-01@153 DE-INF-02@121 DE-INF-03@122 DE-ART-01@120\nrolls: 6\n",
        data_version=V1,
    )
    attack(s, 154, ["DE-INF-01", "DE-INF-02", "DE-INF-03", "DE-ART-01"], [])  # 31:10 3-1, die 6: DX
    settle(s)
    assert 154 in s.fort_destroyed and not s.fort_active(154)


@pytest.mark.parametrize(
    ("die", "result"),
    [(5, "1CA"), (6, "2CA")],  # 21:10 2-1 with Close Support: v2's 2-1 at modified dice 7 and 8
)
def test_f25_empty_fortress_only_dx_destroys_v2(die: int, result: str) -> None:
    text = "turn 3 german combat\ngerman: DE-INF-01@153 DE-INF-02@121 DE-INF-03@122 DE-GSE-01@90\n"
    s = pos(text + f"rolls: {die}\n", data_version=V2)
    attack(s, 154, ["DE-INF-01", "DE-INF-02", "DE-INF-03"], [], support="DE-GSE-01")
    settle(s)
    assert [e for e in s.log if e[0] == "combat"][0][2].endswith(result) and 154 not in s.fort_destroyed
    text += "german: DE-ART-01@120\nrolls: 6\n"  # 31:10 3-1: die 6 is v2's DR, 6+2 its DX
    s = pos(text, data_version=V2)
    attack(s, 154, ["DE-INF-01", "DE-INF-02", "DE-INF-03", "DE-ART-01"], [])
    settle(s)
    assert [e for e in s.log if e[0] == "combat"][0][2].endswith("DR") and 154 not in s.fort_destroyed
    s = pos(text, data_version=V2)
    attack(s, 154, ["DE-INF-01", "DE-INF-02", "DE-INF-03", "DE-ART-01"], [], support="DE-GSE-01")
    settle(s)
    assert 154 in s.fort_destroyed and not s.fort_active(154)


def test_f25_empty_fortress_only_dx_destroys_v3() -> None:
    text = (
        "turn 3 german combat\ngerman: DE-INF-01@153 DE-INF-02@121 DE-INF-03@122 DE-ART-01@120 DE-GSE-01@90\n"
    )
    text += "rolls: 6\n"  # 31:10 3-1: die 6 is v3's 1CA (no effect on an empty fortress), 6+2 its DX
    attackers = ["DE-INF-01", "DE-INF-02", "DE-INF-03", "DE-ART-01"]
    s = pos(text, data_version=V3)
    attack(s, 154, attackers, [])
    settle(s)
    assert [e for e in s.log if e[0] == "combat"][0][2].endswith("1CA") and 154 not in s.fort_destroyed
    s = pos(text, data_version=V3)
    attack(s, 154, attackers, [], support="DE-GSE-01")
    settle(s)
    assert [e for e in s.log if e[0] == "combat"][0][2].endswith("DX")
    assert 154 in s.fort_destroyed and not s.fort_active(154)


def test_f25_rear_attack_is_five() -> None:
    s = pos("turn 3 german combat\ngerman: DE-INF-01@413\nrolls: 1\n")
    attack(s, 412, ["DE-INF-01"], [])
    assert [e for e in s.log if e[0] == "combat"][0][2].startswith("7:5")


def test_f30_artillery_two_hexes_away_and_exempt_from_ar() -> None:
    s = pos("turn 3 german combat\ngerman: DE-ART-01@120 DE-INF-01@153\nrolls: 1\n")
    act(s, "@154")
    assert "DE-ART-01" in legal_texts(s)  # 120 is two hexes from 154
    act(s, "DE-ART-01", "DE-INF-01", "done")
    if s.decision == "designate":
        act(s, "done")
    # 17:10 1-1, die 1: CA on an empty fortress: no effect; try AR: die 2 -> AR
    s = pos("turn 3 german combat\ngerman: DE-ART-01@120 DE-INF-01@153\nrolls: 2\n")
    attack(s, 154, ["DE-ART-01", "DE-INF-01"], [])
    assert s.decision == "retreat" and s.queue[0]["unit"] == s.game.unit_index("DE-INF-01")
    assert all(q["unit"] != s.game.unit_index("DE-ART-01") for q in s.queue if "unit" in q)


def test_f30_artillery_attacks_only_fortified_hexes() -> None:
    s = pos("turn 3 german combat\nallied: FR-INF-01@1013\ngerman: DE-ART-01@981\n", skip_forced=False)
    assert s.decision == "attack" and s.legal_actions() == [
        0
    ]  # attack 0 against a unit outside a fortified hex


@pytest.mark.parametrize("column", ["C", "E"])
def test_f44_columns_c_and_e_make_the_maginot_line_clear(column: str) -> None:
    s = pos(f"turn 3 german initial\ncolumns {column} I\ngerman: DE-INF-01@153\n", allied_obac=column)
    s.columns = [column, "I"]
    s.touch()
    assert not s.fort_active(154)
    s2 = pos("turn 3 german initial\ngerman: DE-INF-01@153\n")
    assert s2.fort_active(154)
    act(s2, "DE-INF-01")
    assert "@154" not in legal_texts(s2)  # German units never enter an undestroyed fortified hex


def test_f20_out_of_supply_halves_strengths_at_the_moment_of_combat() -> None:
    # the French unit in 1013 is cut off: every neighbour is German-held or German-controlled
    text = (
        "turn 3 german combat\nallied: FR-INF-01@1013\n"
        "german: DE-INF-01@981 DE-INF-02@982 DE-INF-03@1012 DE-INF-04@1047 DE-INF-05@1077\nrolls: 1\n"
    )
    s = pos(text)
    attack(s, 1013, ["DE-INF-01"], ["FR-INF-01"])
    assert [e for e in s.log if e[0] == "combat"][0][2].startswith("7:3")  # 6 halved to 3


def test_f29_one_combat_on_two_hexes_sums_the_defence_and_hits_both() -> None:
    s = pos(
        "turn 3 german combat\nallied: FR-INF-01@1013 FR-DIM-01@1045\ngerman: DE-INF-01@1012 DE-INF-02@981\nrolls: 6\n",
        skip_forced=False,
    )
    act(s, "@1013")
    assert "@1045" in legal_texts(s)  # 1012 touches both; 981 does not touch 1045
    act(s, "DE-INF-01")
    assert "@1045" in legal_texts(s)
    act(s, "@1045")
    assert "DE-INF-02" not in legal_texts(s)  # every attacker must be adjacent to every target
    act(s, "done", "done", "FR-INF-01", "FR-DIM-01", "done")
    line = [e for e in s.log if e[0] == "combat"][0][2]
    assert line.startswith("7:8 col 1") and line.endswith("@1013+1045")  # 1-2, die 6: BR
    assert s.decision == "retreat" and {s.queue[0]["unit"], s.queue[1]["unit"]} == {
        s.game.unit_index("FR-INF-01"),
        s.game.unit_index("FR-DIM-01"),
    }


def test_c6_5_oracle_e_french_corps_against_a_german_corps() -> None:
    c: Counter[str] = Counter()
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            s = pos(
                f"turn 3 allied combat\nallied: FR-INF-01@981\ngerman: DE-INF-01@1013\nrolls: {d1} {d2}\n"
            )
            attack(s, 1013, ["FR-INF-01"], ["DE-INF-01"])
            if s.decision == "ca_targets":
                act(s, "@981")
            while s.cmb is not None:  # retreats: the first legal hex; the log holds the results
                s.apply_action(s.legal_actions()[0])
            log = [e for e in s.log if e[0] in ("combat", "counter-attack")]
            main = log[0][2].split()[-1]
            c[f"{main}/{log[1][2].split()[-1]}" if len(log) > 1 and main == "CA" else main] += 1
    # /36: AR 12, BR 12; CA 12 -> the German counter-attack at 7:6 (1-1): AR 4, BR 4, CA 2, DR 2
    assert c == Counter({"AR": 12, "BR": 12, "CA/AR": 4, "CA/BR": 4, "CA/CA": 2, "CA/DR": 2})
