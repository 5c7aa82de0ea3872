"""agents.ffo.bot_tuning: the cross-entropy tuner of the scripted bots' parameters (tiny runs)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from agents.ffo import bot_tuning as bt
from agents.ffo.botconfig import load_params
from agents.ffo.german_heuristic import GermanParams


def test_search_space_uses_the_validated_ranges() -> None:
    dims = {d.name: d for d in bt.search_space(GermanParams)}
    assert "aggression" not in dims  # a label, not behaviour
    assert (dims["attack_min_ev"].lo, dims["attack_min_ev"].hi) == (-10, 10)
    assert dims["refugee_lookahead"].kind == "int" and dims["refugee_lookahead"].hi == 30
    assert dims["order"].choices == ("auto", "move_first", "fight_first")
    narrowed = {d.name: d for d in bt.search_space(GermanParams, ranges={"attack_min_ev": (-1, 2)})}
    assert (narrowed["attack_min_ev"].lo, narrowed["attack_min_ev"].hi) == (-1, 2)
    with pytest.raises(ValueError, match="unknown parameter 'nope'"):
        bt.search_space(GermanParams, only=["nope"])


def test_cem_samples_stay_valid_and_move_to_the_elite() -> None:
    dims = bt.search_space(GermanParams, only=["risk_weight", "use_replacements", "refugee_lookahead"])
    cem = bt.CEM(dims, GermanParams(), random.Random(0))
    for _ in range(50):
        GermanParams(**cem.sample())  # every sample is a valid parameter set
        s = cem.sample()
        assert 0 <= s["risk_weight"] <= 8 and 1 <= s["refugee_lookahead"] <= 30
    elite = [{"risk_weight": 6.0, "use_replacements": False, "refugee_lookahead": 20}] * 3
    for _ in range(5):
        cem.update(elite)
    c = cem.center()
    assert c["risk_weight"] > 5.5 and c["use_replacements"] is False and c["refugee_lookahead"] >= 19


def test_fitness_rewards_the_tuned_sides_margin() -> None:
    assert bt.margin("german", 20, 25) == 4.5 and bt.margin("french", 20, 25) == -4.5
    assert bt.fitness("german", [20, 40], 25, cap=8, win_weight=4) == (4.5 - 8) / 2 + 2


def test_tiny_run_writes_its_outputs(tmp_path: Path) -> None:
    out = tmp_path / "tune"
    args = bt.build_parser().parse_args(
        ["--side", "german", "--out", str(out), "--generations", "1", "--population", "2", "--games", "1",
         "--holdout", "2", "--only", "attack_min_ev", "risk_weight", "--seed", "4"]
    )  # fmt: skip
    result = bt.run(args)
    log = json.loads((out / "log.json").read_text())
    assert len(log["generations"]) == 1 and (out / "candidates.csv").read_text().count("\n") == 3
    assert json.loads((out / "result.json").read_text())["holdout"]["tuned"]["wins"] in (0, 1, 2)
    tuned = load_params(out / "german_tuned.yaml", GermanParams, "german")
    assert tuned.attack_min_ev == result["tuned"]["attack_min_ev"]


def test_bad_arguments_give_one_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert bt.main(["--side", "german", "--out", str(tmp_path), "--games", "0"]) == 2
    assert "--games must be at least 1" in capsys.readouterr().err
    assert bt.main(["--side", "german", "--out", str(tmp_path), "--range", "risk_weight=5"]) == 2
    assert "expected KEY=LO:HI" in capsys.readouterr().err
