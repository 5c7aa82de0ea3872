"""agents.paired: the paired comparison behind ``ffo compare``, checked on hand-made results whose p-values and
intervals were computed by hand."""

from __future__ import annotations

import math

import pytest

from agents.paired import Outcome, mean_and_se, paired_comparison, sign_test_p, summary_text, wilson_interval


@pytest.mark.parametrize(
    "b_only, a_only, p",
    [
        (8, 2, 112 / 1024),  # 2 * (1 + 10 + 45) / 2**10
        (9, 1, 22 / 1024),  # 2 * (1 + 10) / 2**10
        (1, 9, 22 / 1024),  # two-sided: the same either way
        (0, 6, 2 / 64),  # 2 * 1 / 2**6
        (5, 5, 1.0),  # 2 * 638 / 1024 > 1: capped
        (0, 0, 1.0),  # no discordant seed: no evidence
        (1, 0, 1.0),  # 2 * 1/2
    ],
)
def test_sign_test_p_values_computed_by_hand(b_only: int, a_only: int, p: float) -> None:
    assert sign_test_p(b_only, a_only) == pytest.approx(p, abs=1e-12)


def test_wilson_intervals_computed_by_hand() -> None:
    # 8/10: centre (0.8 + 1.96^2/20) / (1 + 1.96^2/10) = 0.71673, half 0.22658
    assert wilson_interval(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson_interval(3, 10) == pytest.approx((0.1078, 0.6032), abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)


def test_the_harness_uses_the_same_wilson_interval() -> None:
    from agents import harness

    assert harness.wilson_interval is wilson_interval


def test_mean_and_se() -> None:
    assert mean_and_se([]) == (0.0, 0.0) and mean_and_se([3.0]) == (3.0, 0.0)
    mean, se = mean_and_se([1.0, 2.0, 3.0, 4.0])  # sample variance 5/3, se sqrt(5/12)
    assert mean == 2.5 and se == pytest.approx(math.sqrt(5 / 12))


def _hand_made() -> tuple[dict[int, Outcome], dict[int, Outcome]]:
    # 10 seeds: A wins 0, 1, 2; B wins 0, 1 and 3..8. So B alone 6 (3..8), A alone 1 (2), both 2, neither 1 (9).
    a_wins, b_wins = {0, 1, 2}, {0, 1, 3, 4, 5, 6, 7, 8}
    vp_diffs = [1, 1, 1, 1, 1, -1, -1, -1, -1, 3]  # French VP of B minus A, seed by seed: mean 0.4
    a = {s: Outcome(s in a_wins, 10.0) for s in range(10)}
    b = {s: Outcome(s in b_wins, 10.0 + vp_diffs[s]) for s in range(10)}
    return a, b


def test_paired_comparison_of_hand_made_results() -> None:
    a, b = _hand_made()
    r = paired_comparison(a, b, "french", ("pretrained", "policy:x.pt"))
    assert r["games"] == 10 and r["seeds"] == [0, 9]
    assert (r["a"]["wins"], r["b"]["wins"]) == (3, 8)
    assert r["a"]["wilson95"] == pytest.approx([0.1078, 0.6032], abs=1e-4)
    assert r["b"]["wilson95"] == pytest.approx([0.4902, 0.9433], abs=1e-4)
    d = r["win_rate_difference"]
    assert (d["seeds_won_by_b_only"], d["seeds_won_by_a_only"]) == (6, 1)
    assert (d["seeds_won_by_both"], d["seeds_won_by_neither"]) == (2, 1)
    assert d["mcnemar_exact_p"] == pytest.approx(2 * (1 + 7) / 2**7)  # 0.125
    # per-seed differences: six +1, one -1, three 0; mean 0.5, sample variance 4.5/9, se sqrt(0.05)
    assert d["b_minus_a"] == pytest.approx(0.5) and d["se"] == pytest.approx(math.sqrt(0.05))
    assert d["ci95"] == pytest.approx([0.5 - 1.959964 * math.sqrt(0.05), 0.5 + 1.959964 * math.sqrt(0.05)])
    v = r["vp_difference"]
    # deviations from 0.4: five of 0.6, four of 1.4, one of 2.6: sum of squares 16.4, variance 16.4/9
    assert v["french_vp_b_minus_a"] == pytest.approx(0.4) and v["se"] == pytest.approx(math.sqrt(16.4 / 90))
    assert v["gain_for_side"] == pytest.approx(0.4)
    assert paired_comparison(a, b, "german")["vp_difference"]["gain_for_side"] == pytest.approx(-0.4)
    text = summary_text({**r, "opponent": "expert"})
    assert "against expert" in text and "3/10" in text and "8/10" in text and "p = 0.1250" in text


def test_seeds_that_differ_or_no_games_are_refused() -> None:
    a, b = _hand_made()
    del b[4]
    with pytest.raises(ValueError, match=r"same seeds \(seeds of one only: \[4\]\)"):
        paired_comparison(a, b, "french")
    with pytest.raises(ValueError, match="no games"):
        paired_comparison({}, {}, "french")
    with pytest.raises(ValueError, match="side must be"):
        paired_comparison(a, a, "british")


def test_a_springtime_comparison_says_morale_where_france_fights_on_says_vp() -> None:
    from agents.paired import MORALE

    # Morale at the end: A 3, 5, 0 (lost); B 4, 5, 2 -> B - A = +1, 0, +2: mean +1, se sqrt(1 / 3)
    a = {0: Outcome(True, 3), 1: Outcome(True, 5), 2: Outcome(False, 0)}
    b = {0: Outcome(True, 4), 1: Outcome(True, 5), 2: Outcome(True, 2)}
    r = paired_comparison(a, b, "german", ("x", "y"), MORALE)
    assert "vp_difference" not in r and "french_vp_mean" not in r["a"]
    assert r["morale_difference"]["french_morale_b_minus_a"] == pytest.approx(1.0)
    assert r["morale_difference"]["se"] == pytest.approx(math.sqrt(1 / 3))
    assert r["morale_difference"]["gain_for_side"] == pytest.approx(
        -1.0
    )  # the German wants less French Morale
    assert r["a"]["french_morale_mean"] == pytest.approx(8 / 3)
    text = summary_text(r)
    assert "VP" not in text
    assert "| mean final French Morale |" in text and "| 2.67 |" in text
    assert "- final French Morale B - A: +1.00" in text and "that is -1.00 Morale" in text
    ffo_text = summary_text(paired_comparison(a, b, "german", ("x", "y")))
    assert "Morale" not in ffo_text and "that is -1.00 VP" in ffo_text  # France Fights On's text as before


def test_each_game_of_the_suite_has_its_paired_score() -> None:
    from agents.paired import MORALE, VP, VP_MARGIN, game_score

    assert (game_score("ffo"), game_score("springtime"), game_score("france1940")) == (VP, MORALE, VP_MARGIN)
    with pytest.raises(ValueError, match="unknown game"):
        game_score("chess")
