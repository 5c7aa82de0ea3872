"""France 1940 in the benchmark protocol (issue 63 item 7): its tasks, their fingerprints, the generalization
split of the armies, the graded late-game task and its state sets, runs and a resumed run.

Fast tests first; the learning algorithms with tiny budgets, the resumed run and the regeneration of the state
sets are marked slow."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchmarks import france1940 as f40
from benchmarks.protocol.task import TaskError
from benchmarks.protocol.tasks import TASKS, check_current, frozen_fingerprints, get_task
from ffo_env.cli import main

F40 = sorted(t for t in TASKS if t.startswith("france1940/") and t.endswith("/v2"))  # the current version
LATE = "france1940/german-late/v2"
HELD = "france1940/german-unseen-pairs/v2"


def _ffo(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _run(out: Path, task: str, algo: str, *extra: str) -> dict:
    argv = [
        "benchmark",
        "run",
        "--task",
        task,
        "--algo",
        algo,
        "--seeds",
        "1",
        "--out",
        str(out),
        "--no-progress",
    ]
    assert main([*argv, *extra]) == 0
    return json.loads((out / "results.json").read_text())


def test_france1940_tasks_are_listed_with_their_frozen_fingerprints(capsys):
    code, out, _ = _ffo(capsys, "benchmark", "tasks", "--json")
    assert code == 0
    rows = {r["id"]: r for r in json.loads(out)}
    listed = sorted(t for t in rows if rows[t]["game"] == "france1940")
    assert listed == sorted([*F40, *(t.replace("/v2", "/v1") for t in F40)])
    assert set(F40) == {
        *(
            f"france1940/{s}-vs-{o}/v2"
            for s in ("french", "german")
            for o in ("random", "heuristic", "expert")
        ),
        "france1940/selfplay-ladder/v2",
        HELD,
        LATE,
    }
    frozen = frozen_fingerprints()
    for tid in F40:
        assert check_current(get_task(tid)) == frozen[tid]
    assert not get_task("france1940/french-vs-random/v2").counts  # solved before training: reference only
    assert rows[LATE]["kind"] == "endgame" and rows[HELD]["side"] == "german"


def test_the_fingerprint_hashes_the_armies_the_states_the_score_and_the_ladder():
    from benchmarks.protocol.tasks import fingerprint_inputs

    held = fingerprint_inputs(get_task(HELD))
    assert held["game"] == "france1940" and held["engine"].startswith("france1940-core")
    assert held["data"]["version"].startswith("f40-reconstruction") and held["observation"]
    assert [tuple(p) for p in held["armies"]] == list(f40.TRAIN_PAIRS)
    assert [tuple(p) for p in held["eval_armies"]] == list(f40.HELDOUT_PAIRS)
    late = fingerprint_inputs(get_task(LATE))
    assert late["states"] != late["eval_states"] and "German VP" in late["score"]
    assert late["armies"] == [["Hist", "I"]]
    ladder = fingerprint_inputs(get_task("france1940/selfplay-ladder/v2"))["ladder"]
    assert ladder == {k: list(v) for k, v in sorted(f40.LADDER.items())} and set(ladder) == {
        "random",
        "heuristic",
        "expert",
    }
    assert (
        held["data"]["version"] == "f40-reconstruction-v3" and held["probe_decisions"] == f40.PROBE_DECISIONS
    )


def test_version_1_is_retired_and_superseded_by_version_2_with_the_probe_reaching_combat(tmp_path, capsys):
    """Version 1 played f40-reconstruction-v2 with session 41's Allied expert (its fingerprints stay frozen);
    version 2's probe plays the whole probe game, so the Allied experts of sessions 41 and 45 (which first
    differ at decision 420, past version 1's 300) give different probes."""
    from benchmarks.protocol.tasks import RETIRED, SUPERSEDED, bot_probe

    for tid in F40:
        old = tid.replace("/v2", "/v1")
        assert SUPERSEDED[old] == tid and old in RETIRED and "f40-reconstruction-v2" in RETIRED[old]
        assert old in frozen_fingerprints()
    code, _, err = _ffo(capsys, "benchmark", "run", "--task", "france1940/german-vs-expert/v1", "--algo",
                        "random", "--out", str(tmp_path / "r"), "--no-progress")  # fmt: skip
    assert code == 2 and "retired" in err and "france1940/german-vs-expert/v2" in err
    assert err.count("\n") == 1 and not (tmp_path / "r" / "results.json").exists()
    assert f40.PROBE_DECISIONS >= 2600  # expert vs expert: ~2,600 decisions a game
    assert bot_probe("expert", 300, game="france1940") == bot_probe("expert-s41", 300, game="france1940")
    assert bot_probe("expert", f40.PROBE_DECISIONS, game="france1940") != bot_probe(
        "expert-s41", f40.PROBE_DECISIONS, game="france1940"
    )


def test_the_generalization_split_holds_out_unseen_pairs_of_seen_armies():
    """Every army of either side trains and is evaluated; the two sets share no pair; the historical pair
    trains; evaluation game i plays held-out pair i mod 22, training episodes only training pairs."""
    from ffo_env.france1940.core.options import ALLIED_COLUMNS, GERMAN_COLUMNS

    train, held = set(f40.TRAIN_PAIRS), set(f40.HELDOUT_PAIRS)
    assert len(train) == 44 and len(held) == 22 and not train & held
    assert train | held == {(a, g) for a in ALLIED_COLUMNS for g in GERMAN_COLUMNS}
    for a in ALLIED_COLUMNS:
        assert sum(p[0] == a for p in held) == 2 and sum(p[0] == a for p in train) == 4
    for g in GERMAN_COLUMNS:
        assert 3 <= sum(p[1] == g for p in held) <= 4 and 7 <= sum(p[1] == g for p in train) <= 8
    assert ("Hist", "I") in train
    task = get_task(HELD)
    assert task.eval_games == 22
    starts = [f40.eval_start(task, i) for i in range(23)]
    assert [tuple(s.columns) for s in starts[:22]] == list(f40.HELDOUT_PAIRS)
    assert tuple(starts[22].columns) == f40.HELDOUT_PAIRS[0] and starts[22].seed == 20_022
    env = f40.make_env(task, "german", None, "flat", 3)
    seen = set()
    for k in range(12):
        obs, info = env.reset(seed=100 + k)
        seen.add(tuple(info["columns"]))
        assert obs.shape == (9638,)
    assert seen <= train and len(seen) > 3


def test_an_unknown_army_pair_in_a_task_definition_is_one_error():
    with pytest.raises(
        TaskError, match=r"t/x/v1: training pairs has the unknown army pair \('Hist', 'VII'\)"
    ):
        f40.check_pairs("t/x/v1", "training pairs", (("Hist", "VII"),))
    with pytest.raises(TaskError, match="unknown army pair \\('Z', 'I'\\).*Allied column of"):
        f40.check_pairs("t/x/v1", "evaluation pairs", (("Z", "I"),))
    with pytest.raises(TaskError, match="unknown army pair 'Hist'"):
        f40.check_pairs("t/x/v1", "evaluation pairs", ("Hist",))  # type: ignore[arg-type]
    with pytest.raises(TaskError, match="lists a pair twice"):
        f40.check_pairs("t/x/v1", "evaluation pairs", (("A", "I"), ("A", "I")))
    with pytest.raises(TaskError, match="is empty"):
        f40.check_pairs("t/x/v1", "evaluation pairs", ())


def test_the_graded_score_is_the_share_of_the_german_victory_requirement():
    """min(1, G / max(25, 3 A)) for the German, one minus it for the Allies; 1 exactly when the German wins
    (C§12); None on a task scored by win/loss."""
    state = f40.probe_state()
    task = get_task(LATE)
    for g, a, share in ((12, 2, 12 / 25), (25, 3, 1.0), (30, 12, 30 / 36), (0, 0, 0.0), (40, 5, 1.0)):
        state.vp = [a, g]
        assert f40.graded_score(task, state, "german") == pytest.approx(share)
        assert f40.graded_score(task, state, "french") == pytest.approx(1 - share)
        german_wins = g >= 25 and (a == 0 or g >= 3 * a)
        assert (share == 1.0) == german_wins
    assert f40.graded_score(get_task("france1940/german-vs-expert/v2"), state, "german") is None


def test_the_late_game_state_sets_are_disjoint_checked_and_start_game_turn_7():
    from benchmarks.france1940.states import load_state_set

    train = load_state_set(f40.DATA_DIR / "late-t7-train-v2.json.gz")
    ev = load_state_set(f40.DATA_DIR / "late-t7-eval-v2.json.gz")
    assert train["data"] == ev["data"] == "f40-reconstruction-v3"
    assert len(ev["states"]) == 24 and len(train["states"]) >= 60
    assert not set(train["made_by"]["seeds"]) & set(ev["made_by"]["seeds"])
    task = get_task(LATE)
    a, b, c = (f40.eval_start(task, i) for i in (0, 24, 1))
    assert a.turn == 7 and a.phasing == 1 and tuple(a.columns) == ("Hist", "I")
    assert a.vp == b.vp and a.hex == b.hex and a.dice_state != b.dice_state  # same position, own dice
    assert c.hex != a.hex
    assert f40.eval_start(task, 5).dice_state == f40.eval_start(task, 5).dice_state


def test_a_damaged_state_set_is_one_error_naming_the_file(tmp_path):
    from benchmarks.france1940.states import StatesError, encode, load_state_set, start_states

    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(b"not gzip")
    with pytest.raises(StatesError, match="bad.json.gz: not a gzipped JSON state set"):
        load_state_set(bad)
    doc = load_state_set(f40.DATA_DIR / "late-t7-eval-v2.json.gz")
    doc["states"][3]["state"]["turn"] = 99
    bad.write_bytes(encode(doc))
    with pytest.raises(StatesError, match="bad.json.gz: state 3: .*turn"):
        start_states(bad)


def test_a_reference_run_of_the_graded_task_records_the_score_and_the_win_rate(tmp_path):
    doc = _run(tmp_path / "r", LATE, "random", "--eval-games", "1")
    assert doc["meta"]["game"] == "france1940"
    run = doc["ffo_env"][LATE]["random"]["seed_0"]
    assert run["run_meta"]["fingerprint"] == frozen_fingerprints()[LATE] and run["run_meta"]["complete"]
    row = run["step_0"]
    ev = row["eval"]["opponents"]["expert"]
    assert 0.0 <= row["score"][0] <= 1.0 and row["win_rate"][0] in (0.0, 1.0)
    assert ev["per_game"] == row["score"] and ev["win_rate"] == row["win_rate"][0] and f40.FIGURE in ev


def test_bad_run_input_on_a_france1940_task_is_one_error(tmp_path, capsys):
    out = tmp_path / "o"
    code, _, err = _ffo(capsys, "benchmark", "run", "--task", "france1940/german-late/v9", "--algo", "random",
                        "--out", str(out), "--no-progress")  # fmt: skip
    assert code == 2 and "france1940/german-late/v2" in err and err.count("\n") == 1 and not out.exists()
    code, _, err = _ffo(capsys, "benchmark", "run", "--task", LATE, "--algo", "maskable_ppo_shaped",
                        "--out", str(out), "--no-progress")  # fmt: skip
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and not out.exists()


@pytest.mark.slow
@pytest.mark.parametrize("algo", ["maskable_ppo", "ppo_mlp_compact", "dagger_expert", "untrained"])
def test_every_learner_runs_the_graded_task_with_a_tiny_budget(algo, tmp_path):
    doc = _run(tmp_path / algo, LATE, algo, "--budget", "200", "--evals", "2", "--eval-games", "1")
    run = doc["ffo_env"][LATE][algo]["seed_0"]
    assert run["run_meta"]["observation"] == "compact" and run["run_meta"]["complete"]
    learns = algo != "untrained"
    assert ("step_1" in run) == learns
    last = run[[k for k in run if k.startswith("step_")][-1]]
    if learns:
        assert last["step_count"] >= 200 and last["train_seconds"] > 0
    assert 0.0 <= last["score"][0] <= 1.0


@pytest.mark.slow
def test_a_france1940_run_killed_after_its_first_interval_resumes_as_an_uninterrupted_one(tmp_path):
    from benchmarks.protocol import run as runner

    task, algo, budget = LATE, "ppo_mlp_compact", 300
    whole = _run(tmp_path / "whole", task, algo, "--budget", str(budget), "--evals", "3", "--eval-games", "1")
    whole_run = whole["ffo_env"][task][algo]["seed_0"]

    class Killed(Exception):
        pass

    def kill_after_point_1(seed: int, j: int, row: dict) -> None:
        if j == 1:
            raise Killed

    part = tmp_path / "part"
    plan = runner.make_plan(task, algo, budget, None, 1, 0, 3, 1, ["test"])
    runner.start(plan, part)
    with pytest.raises(Killed):
        runner.run_seed(part, plan, 0, on_point=kill_after_point_1)
    assert main(["benchmark", "run", "--resume", str(part), "--no-progress"]) == 0
    resumed = json.loads((part / "results.json").read_text())["ffo_env"][task][algo]["seed_0"]
    assert resumed["run_meta"]["resumed"] == 1 and resumed["run_meta"]["complete"]
    for j in range(3):
        assert resumed[f"step_{j}"]["step_count"] == whole_run[f"step_{j}"]["step_count"]
        assert resumed[f"step_{j}"]["eval"] == whole_run[f"step_{j}"]["eval"]


@pytest.mark.slow
def test_the_state_sets_regenerate_from_their_commands():
    """A state of each file is the expert-vs-expert game of its seed played again to game-turn 7."""
    from benchmarks.france1940.states import load_state_set, play_to_turn

    for name in ("late-t7-eval-v2.json.gz", "late-t7-train-v2.json.gz"):
        doc = load_state_set(f40.DATA_DIR / name)
        k = len(doc["states"]) // 2
        assert play_to_turn(doc["made_by"]["seeds"][k], doc["turn"]) == doc["states"][k]


def test_the_compact_vector_the_learners_read_is_the_envs_observation():
    task = get_task("france1940/german-vs-random/v2")
    env = f40.make_env(task, "german", None, "flat", 11)
    obs, _ = env.reset(seed=11)
    for _ in range(5):
        state = env.unwrapped.game_state
        assert np.array_equal(f40.encode_vector(state, "german"), obs)
        obs, *_ = env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_the_report_names_the_graded_score_of_the_late_game_task(tmp_path, capsys):
    # the shipped results of France 1940: the late-game tasks' rows are scored by the graded score, the full-game
    # tasks' by the win rate, each task's table saying which
    shipped = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "france1940"
    assert main(["benchmark", "report", str(shipped), "--out", str(tmp_path / "rep"), "--reps", "100"]) == 0
    capsys.readouterr()
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    scores = {tid: t["score"] for tid, t in rep["tasks"].items()}
    assert scores["france1940/german-late/v1"] == scores[LATE] == "graded score"
    others = [s for tid, s in scores.items() if "german-late" not in tid]
    assert "win rate" in others and "graded score" not in others
    md = (tmp_path / "rep" / "report.md").read_text()
    late = md.split(f"**`{LATE}`**", 1)[1].split("**`france1940/", 1)[0]
    assert "final graded score: IQM [95% CI]" in late and "final win rate" not in late
