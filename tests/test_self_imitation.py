"""training.self_imitation: the sampling rule, the outcome labels, the config and the loop (issue 39).

The rules are checked on hand-made numbers; one German game against the French heuristic checks what play
keeps; the run through ``ffo train`` (layout, loading, resume, same seed -> same data) is marked slow."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from training.self_imitation import (
    LABEL_KEYS,
    ROW_KEYS,
    PlayJob,
    SelfImitationError,
    choose,
    game_signs,
    load_config,
    main,
    outcome_labels,
    outcome_score,
    play,
)


def _write(tmp: Path, text: str) -> Path:
    p = tmp / "si.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def test_self_imitation_config_errors_name_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SelfImitationError, match=r"si\.yaml: unknown key 'gamez'"):
        load_config(_write(tmp_path, "gamez: 3\n"))
    with pytest.raises(SelfImitationError, match=r"si\.yaml: key 'method'"):
        load_config(_write(tmp_path, "method: expert_iteration\n"))
    with pytest.raises(SelfImitationError, match=r"key 'explore_kinds'"):
        load_config(_write(tmp_path, "explore_kinds: [fly]\n"))
    with pytest.raises(SelfImitationError, match=r"key 'top_k'"):
        load_config(_write(tmp_path, "top_k: 1\n"))
    with pytest.raises(SelfImitationError, match=r"key 'setup'"):
        load_config(_write(tmp_path, "setup: chaos\n"))
    with pytest.raises(SelfImitationError, match=r"key 'explore_margin'"):
        load_config(_write(tmp_path, "explore_margin: 1.5\n"))
    with pytest.raises(SelfImitationError, match=r"key 'opponents'"):
        load_config(_write(tmp_path, "opponents: {nobody: 1}\n"))
    cfg = load_config(Path(__file__).parents[1] / "configs" / "ffo" / "train_self_imitation.yaml")
    assert cfg.sides == ["german"] and cfg.opponents == {"expert": 0.5, "heuristic": 0.5}
    assert main(["--config", str(_write(tmp_path, "sides: [russian]\n")), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "'sides'" in err and not (tmp_path / "o").exists()


def test_choose_takes_the_argmax_unless_unsure_and_samples_only_the_top_k() -> None:
    rng = random.Random(0)
    sure = np.array([0.1, 0.8, 0.1])
    assert choose(sure, True, 0.5, 3, 1.0, rng) == (1, 1)  # margin 0.7 >= 0.5
    unsure = np.array([0.05, 0.30, 0.05, 0.35, 0.25])
    assert choose(unsure, False, 0.5, 3, 1.0, rng) == (3, 3)  # a kind not explored
    draws = [choose(unsure, True, 0.5, 3, 1.0, rng) for _ in range(3000)]
    assert {b for _, b in draws} == {3}
    counts = {i: sum(1 for a, _ in draws if a == i) / len(draws) for i in range(5)}
    assert counts[0] == counts[2] == 0.0  # outside the top 3
    for i, p in ((3, 0.35 / 0.9), (1, 0.30 / 0.9), (4, 0.25 / 0.9)):  # renormalised top 3
        assert abs(counts[i] - p) < 0.04
    cold = [choose(unsure, True, 0.5, 3, 0.05, rng)[0] for _ in range(200)]
    assert cold.count(3) > 190  # a low temperature is nearly the argmax
    a = [choose(unsure, True, 0.5, 3, 1.0, random.Random(7)) for _ in range(5)]
    assert a == [choose(unsure, True, 0.5, 3, 1.0, random.Random(7)) for _ in range(5)]


def test_outcome_score_ranks_results_then_vp_for_the_side() -> None:
    german, french = 1, 0
    assert outcome_score(german, german, 30) > outcome_score(french, german, 10)  # a win beats any loss
    assert outcome_score(french, german, 25) > outcome_score(french, german, 30)  # fewer French VP
    assert outcome_score(french, french, 30) > outcome_score(french, french, 25)  # the French wants more
    assert outcome_score(None, german, 20) == 0.5 - 0.02


def _rows(spec: list[tuple[int, bool, int, int]]) -> dict[str, np.ndarray]:
    """Hand-made kept decisions: (game, deviated, sampled, argmax); the planes carry the row number."""
    n = len(spec)
    return {
        "planes": np.arange(n, dtype=np.uint8).reshape(n, 1),
        "globals": np.zeros((n, 1), dtype=np.float32),
        "units": np.zeros((n, 1), dtype=np.float32),
        "mask": np.ones((n, 4), dtype=np.int8),
        "game": np.array([s[0] for s in spec], dtype=np.int64),
        "deviated": np.array([s[1] for s in spec], dtype=bool),
        "sampled": np.array([s[2] for s in spec], dtype=np.int64),
        "argmax": np.array([s[3] for s in spec], dtype=np.int64),
    }


def test_outcome_labels_better_game_sampled_worse_game_argmax_median_none_anchors_kept() -> None:
    games = [
        {"opponent": "expert", "score": 0.0 - 0.030},  # worse than the expert games' median
        {"opponent": "expert", "score": 0.0 - 0.025},  # the median
        {"opponent": "expert", "score": 1.0 - 0.020},  # better
        {"opponent": "heuristic", "score": 0.0 - 0.030},  # a median of its own: lower than the other
        {"opponent": "heuristic", "score": 1.0 - 0.025},
    ]
    assert game_signs(games) == [-1, 0, 1, -1, 1]
    rows = _rows(
        [
            (0, True, 1, 2),  # worse game, deviation -> argmax 2
            (0, False, 3, 3),  # anchor -> 3
            (1, True, 1, 0),  # median game, deviation -> dropped
            (1, False, 2, 2),  # anchor of the median game -> kept
            (2, True, 3, 0),  # better game, deviation -> sampled 3
            (2, False, 1, 1),
            (3, True, 0, 1),  # worse against the heuristic -> argmax 1
            (4, True, 2, 3),  # better against the heuristic -> sampled 2
        ]
    )
    assert set(rows) == set(ROW_KEYS)
    labels, counts = outcome_labels(rows, games)
    assert set(labels) == set(LABEL_KEYS)
    assert labels["planes"][:, 0].tolist() == [0, 1, 3, 4, 5, 6, 7]  # row 2 dropped
    assert labels["action"].tolist() == [2, 3, 2, 3, 1, 1, 2]
    assert labels["changed"].tolist() == [True, False, False, True, False, True, True]
    assert labels["game"].tolist() == [0, 0, 1, 2, 2, 3, 4]
    assert counts == {"sampled_labels": 2, "argmax_labels": 2, "dropped_at_median": 1, "anchors": 3}


def _job(**kw: Any) -> PlayJob:
    base: dict[str, Any] = {
        "side": "german",
        "student": "pretrained",
        "opponents": {"heuristic": 1.0},
        "games": 1,
        "seed": 3,
        "setup": "random",
        "explore_margin": 0.5,
        "explore_kinds": ["attack_target", "attack_add"],
        "top_k": 3,
        "temperature": 1.0,
        "keep_unchanged": 0.05,
    }
    base.update(kw)
    return PlayJob(**base)


def test_play_keeps_deviations_and_a_share_of_anchors_with_legal_moves() -> None:
    """One German game against the French heuristic: every deviation is kept, with a sampled move that differs
    from the argmax, both legal under the stored mask; anchors are about keep_unchanged of the rest."""
    out = play(_job())
    rows, (g,) = out["rows"], out["games"]
    dev = rows["deviated"]
    assert int(dev.sum()) == g["deviated"] > 0 and int((~dev).sum()) == g["anchors"]
    assert set(g["deviated_by_kind"]) <= {"attack_target", "attack_add"}
    assert np.all(rows["sampled"][dev] != rows["argmax"][dev])
    assert np.all(rows["sampled"][~dev] == rows["argmax"][~dev])
    n = len(dev)
    assert np.all(rows["mask"][np.arange(n), rows["sampled"]] == 1)
    assert np.all(rows["mask"][np.arange(n), rows["argmax"]] == 1)
    rest = g["decisions"] - g["deviated"]
    assert abs(g["anchors"] - 0.05 * rest) < 4 * (0.05 * 0.95 * rest) ** 0.5
    assert g["explored"] >= g["deviated"] and g["score"] == outcome_score(1 if g["win"] else 0, 1, g["vp"])


@pytest.mark.slow
def test_self_imitation_through_ffo_train_writes_loads_resumes_and_replays(tmp_path: Path) -> None:
    """`ffo train` with `method: self_imitation`: one iteration of two games; the layout, a policy that loads
    with its method recorded; `ffo train --resume` does not replay the iteration; a second run from the same
    seed plays the same games and keeps the same labels."""
    from agents.ffo.policy import load_policy
    from ffo_env.cli import main as ffo

    cfg = _write(
        tmp_path,
        "method: self_imitation\nrun_name: smoke\nsides: [german]\niterations: 1\ngames: 2\nseed: 5\n"
        "opponents: {heuristic: 1.0}\nexplore_kinds: [attack_target, attack_add]\nkeep_unchanged: 0.02\n",
    )
    outs = []
    for k in range(2):
        assert ffo(["train", "--config", str(cfg), "--out", str(tmp_path / f"runs{k}")]) == 0
        (out,) = (tmp_path / f"runs{k}").iterdir()
        outs.append(out)
    out = outs[0]
    assert out.name.startswith("smoke-")
    for name in ("config.yaml", "command.txt", "seed.txt", "versions.json", "progress.json"):
        assert (out / name).is_file(), name
    progress = json.loads((out / "progress.json").read_text())
    (row,) = progress["german"]
    assert row["games"] == 2 and row["deviations"] > 0
    assert row["sampled_labels"] + row["argmax_labels"] + row["dropped_at_median"] == row["deviations"]
    agent = load_policy(out / "policies" / "german.pt")
    assert agent.side == "german" and agent.meta["extra"]["method"] == "self_imitation"
    assert agent.meta["extra"]["games"] == 2
    assert agent.meta["extra"]["deviation_labels"] == row["sampled_labels"] + row["argmax_labels"]
    assert agent.meta["extra"]["iterations"] == 1 and list(row)[-1] == "game_rows"
    with np.load(out / "data" / "german_it0.npz") as a, np.load(outs[1] / "data" / "german_it0.npz") as b:
        assert sorted(a.files) == sorted(LABEL_KEYS)
        for k in a.files:
            assert np.array_equal(a[k], b[k]), k
    other = json.loads((outs[1] / "progress.json").read_text())["german"][0]
    assert other["game_rows"] == row["game_rows"]
    stamp = (out / "students" / "german_it0.pt").stat().st_mtime_ns
    assert ffo(["train", "--resume", str(out)]) == 0  # the iteration is not replayed
    assert (out / "students" / "german_it0.pt").stat().st_mtime_ns == stamp
    assert json.loads((out / "progress.json").read_text()) == progress
