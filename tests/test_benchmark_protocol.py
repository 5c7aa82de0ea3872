"""The benchmark protocol (benchmarks/protocol, ``ffo benchmark``): tasks, runs, statistics, reports, bad input.

Fast tests here; the smoke runs of the learning algorithms and the kill/resume run are in
tests/test_benchmark_protocol_slow.py (marked slow)."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest

from benchmarks.protocol import stats
from benchmarks.protocol.ladder_ref import rate_one
from ffo_env.cli import main


def _ffo(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ statistics against hand-computed values


def test_iqm_drops_a_quarter_at_each_end_like_scipy_trim_mean():
    # 8 values: int(0.25 * 8) = 2 dropped at each end -> mean(3, 4, 5, 6) = 4.5
    assert stats.iqm([np.array([8, 1, 7, 2, 6, 3, 5, 4.0])]) == 4.5
    # 5 values: int(1.25) = 1 at each end -> mean(2, 3, 10) = 5
    assert stats.iqm([np.array([1.0, 2, 3, 10, 100])]) == 5.0
    # pooled over tasks of different sizes: [0, 1] + [0.5, 0.5, 1, 0] -> sorted 0,0,0.5,0.5,1,1 -> cut 1 each end
    assert stats.iqm([np.array([0.0, 1]), np.array([0.5, 0.5, 1, 0])]) == 0.5


def test_median_mean_and_optimality_gap_over_task_means():
    tasks = [np.array([0.0, 1.0]), np.array([0.5, 0.7]), np.array([1.2, 1.4])]  # task means .5, .6, 1.3
    assert math.isclose(stats.aggregate_mean(tasks), (0.5 + 0.6 + 1.3) / 3)
    assert math.isclose(stats.aggregate_median(tasks), 0.6)
    # clipped at 1: 0, 1, .5, .7, 1, 1 -> mean 4.2 / 6 = 0.7 -> gap 0.3
    assert math.isclose(stats.optimality_gap(tasks), 0.3)


def test_probability_of_improvement_counts_pairs_and_half_ties():
    # task 1: x = [1, 2], y = [1, 0]: pairs x>y: (1>0), (2>1), (2>0) = 3, ties (1=1) = 1 -> (3 + .5) / 4
    # task 2: x = [0], y = [1]: 0
    p, lo, hi = stats.probability_of_improvement(
        [np.array([1.0, 2]), np.array([0.0])], [np.array([1.0, 0]), np.array([1.0])], reps=200
    )
    assert math.isclose(p, (3.5 / 4 + 0.0) / 2)
    assert lo <= p <= hi
    same = stats.probability_of_improvement(
        [np.array([0.2, 0.4, 0.9])], [np.array([0.2, 0.4, 0.9])], reps=100
    )
    assert same[0] == 0.5


def test_performance_profile_is_the_fraction_of_runs_above_tau():
    tasks = [np.array([0.0, 0.5, 1.0]), np.array([0.25])]
    assert stats.performance_profile(tasks, [-1, 0.0, 0.3, 0.5, 1.0]).tolist() == [1.0, 0.75, 0.5, 0.25, 0.0]


def test_stratified_bootstrap_resamples_within_tasks_and_gives_percentiles():
    # a task whose runs all agree has no spread however it is resampled
    point, lo, hi = stats.interval([np.array([0.3, 0.3, 0.3]), np.array([0.7, 0.7])], stats.aggregate_mean)
    assert (point, lo, hi) == pytest.approx((0.5, 0.5, 0.5))
    # one task of two runs {0, 1}: a replicate's mean is 0, .5 or 1 with probability 1/4, 1/2, 1/4, so the
    # 2.5th and 97.5th percentiles of 4000 replicates are 0 and 1
    point, lo, hi = stats.interval([np.array([0.0, 1.0])], stats.aggregate_mean, reps=4000, seed=3)
    assert (point, lo, hi) == (0.5, 0.0, 1.0)
    # the same seed gives the same interval
    assert stats.interval([np.array([0.1, 0.4, 0.8, 0.9])], reps=500, seed=7) == stats.interval(
        [np.array([0.1, 0.4, 0.8, 0.9])], reps=500, seed=7
    )


def test_sign_flip_p_counts_sign_patterns_by_hand():
    # [1, 1, 1]: of the 8 sign patterns only +++ and --- reach |sum| >= 3
    assert stats.sign_flip_p(np.array([1.0, 1, 1])) == 0.25
    # [1, -1, 1, 1], sum 2: |sum| >= 2 unless two signs of each kind: (1 + 4 + 4 + 1) / 16
    assert stats.sign_flip_p(np.array([1.0, -1, 1, 1])) == 0.625
    # zeros carry no sign; no change at all is p = 1
    assert stats.sign_flip_p(np.array([0.0, 0.5, 0, 0.5])) == 0.5
    assert stats.sign_flip_p(np.zeros(5)) == 1.0


def test_sign_flip_p_samples_beyond_16_differences_close_to_the_exact_value():
    d = np.array([0.2, -0.4, 0.6, 0.2, 0.4, -0.2, 0.8, 0.2, 0.6, -0.6, 0.4, 0.2, 0.2, 0.4, -0.2, 0.6, 0.4])
    signs = 1 - 2 * ((np.arange(2**d.size)[:, None] >> np.arange(d.size)) & 1)
    exact = float(np.mean(np.abs(signs @ d) >= abs(d.sum()) - 1e-9))
    assert d.size > stats.EXACT_FLIPS and 0.001 < exact < 0.2
    assert abs(stats.sign_flip_p(d) - exact) < 0.005
    assert stats.sign_flip_p(d) == stats.sign_flip_p(d)  # seeded
    # 20 equal gains: exact p = 2 / 2**20; the sampled value is bounded below by 1 / (1 + draws)
    assert stats.sign_flip_p(np.ones(20)) < 1e-4


def test_p_values_are_written_with_the_digits_they_have():
    from benchmarks.protocol.report import p_text

    assert [p_text(x) for x in (0.3125, 0.0049, 0.0002, 1.0)] == [
        "p = 0.31",
        "p = 0.005",
        "p < 0.001",
        "p = 1.00",
    ]


def test_a_plot_of_a_short_and_a_long_track_uses_a_symlog_axis_with_short_ticks():
    from benchmarks.protocol.report import _linestyle, _thousands, budget_scale

    assert budget_scale([20_480.0, 20_000.0]) is None  # one track: linear
    assert budget_scale([20_480.0, 200_704.0]) == 20_480.0  # 10x apart: linear up to the short track's end
    assert budget_scale([20_000.0, 80_000.0]) is None and budget_scale([]) is None
    assert [_thousands(v) for v in (0, 500, 20_000, 1_500_000, 2_000_000)] == [
        "0",
        "500",
        "20k",
        "1.5M",
        "2M",
    ]
    assert (_linestyle("maskable_ppo"), _linestyle("maskable_ppo@long")) == ("-", "--")


def test_change_from_start_pairs_each_game_across_runs():
    start = np.array([[1.0, 0, 0], [0, 0, 1]])
    final = np.array([[1.0, 1, 0], [1, 0, 1]])
    # per run the changes are [0, 1, 0] and [1, 0, 0]: averaged d = [.5, .5, 0], mean 1/3; two games moved,
    # whose signs give sums +1, 0, 0, -1: p = 2 / 4
    c = stats.change_from_start(start, final)
    assert c["start"] == pytest.approx(1 / 3) and c["final"] == pytest.approx(2 / 3)
    assert c["change"] == pytest.approx(1 / 3) and c["games"] == 3 and c["games_changed"] == 2
    assert c["p"] == 0.5
    with pytest.raises(ValueError, match="same"):
        stats.change_from_start(start, final[:, :2])


def test_elo_against_frozen_ratings_is_where_the_expected_score_matches():
    # an even score against one opponent rated 500 puts the agent near 500 (pulled slightly to the prior's 0)
    elo, lo, hi = rate_one([(500.0, 50.0, 100)])
    assert 470 < elo < 500 and lo < elo < hi
    # 75 % against a 0-rated opponent: 400 * log10(3) = 190.8 without the prior
    elo, _, _ = rate_one([(0.0, 750.0, 1000)])
    assert abs(elo - 190.8) < 3


# ------------------------------------------------------------------ tasks


def test_tasks_lists_every_task_with_a_version_and_json(capsys):
    code, out, _ = _ffo(capsys, "benchmark", "tasks", "--json")
    assert code == 0
    rows = json.loads(out)
    ids = {r["id"] for r in rows}
    assert {"ffo/french-endgame/v2", "ffo/german-vs-expert/v1", "ffo/selfplay-ladder/v1"} <= ids
    assert all(r["id"].rsplit("/v", 1)[1].isdigit() for r in rows)
    assert {r["kind"] for r in rows} == {"full", "endgame", "selfplay"}


def test_the_frozen_fingerprints_match_this_installation():
    """Fails when the rules, data, observation, a bot or a state set changed: bump the task versions."""
    from benchmarks.protocol.tasks import RETIRED, TASKS, check_current

    for task in TASKS.values():
        if task.id not in RETIRED:
            check_current(task)


def test_a_retired_task_version_is_refused_with_its_successor_named(tmp_path, capsys):
    """Springtime's version 1 tasks were played on springtime-core-1 (issue 61 changed its rules): their results
    stay in reports, superseded, but this installation cannot add to them."""
    from benchmarks.protocol.tasks import RETIRED, TASKS

    assert RETIRED and all(TASKS[t].superseded_by and not TASKS[t].counted for t in RETIRED)
    code, _, err = _ffo(capsys, "benchmark", "run", "--task", "springtime/german-vs-random/v1", "--algo", "random",
                        "--seeds", "1", "--eval-games", "1", "--out", str(tmp_path / "r"), "--no-progress")  # fmt: skip
    assert code == 2 and "retired" in err and "springtime/german-vs-random/v2" in err
    assert "Traceback" not in err and not (tmp_path / "r" / "results.json").exists()


def test_the_state_set_is_valid_and_regenerates_the_same_first_state():
    from benchmarks.ffo.states import DATA_DIR, load_state_set, play_to_turn, start_states

    path = DATA_DIR / "endgame-t13-v1.json.gz"
    doc = load_state_set(path)
    states = start_states(path)
    assert len(states) == 32 and all(s.turn == 13 and not s.is_terminal() for s in states)
    assert play_to_turn(doc["made_by"]["seeds"][0], 13) == doc["states"][0]


def test_endgame_v2_evaluates_on_positions_its_training_never_starts_from():
    """Version 2's training set (seeds 2000-2399) and evaluation set (version 1's, seeds 0-31) share no game
    and no position; evaluation games start from the evaluation set, training episodes from the training set."""
    from benchmarks.ffo.states import load_state_set, play_to_turn, start_states
    from benchmarks.protocol.envs import eval_start, make_env
    from benchmarks.protocol.tasks import get_task

    task = get_task("ffo/german-endgame/v2")
    train_path, eval_path = task.state_path(), task.eval_state_path()
    assert train_path is not None and eval_path is not None and train_path != eval_path
    train, held = load_state_set(train_path), load_state_set(eval_path)
    assert not set(train["made_by"]["seeds"]) & set(held["made_by"]["seeds"])
    assert len(train["states"]) == 398 and len(held["states"]) == 32
    assert play_to_turn(train["made_by"]["seeds"][-1], 13) == train["states"][-1]

    def board(d: dict) -> str:
        return json.dumps({k: v for k, v in d.items() if k != "dice_state"}, sort_keys=True)

    train_boards = {board(d) for d in train["states"]}
    held_boards = [board(d) for d in held["states"]]
    assert not train_boards & set(held_boards)
    assert all(s.turn == 13 and not s.is_terminal() for s in start_states(train_path))
    for i in (0, 33):
        assert board(eval_start(task, i).to_dict()) == held_boards[i % 32]
    # version 1 evaluates where it trains
    v1 = get_task("ffo/german-endgame/v1")
    assert v1.eval_state_path() == v1.state_path() == eval_path
    env = make_env(task, "german", None, "dict", seed=3)
    drawn = set()
    for seed in range(6):
        env.reset(seed=seed)
        # the drawn start, played on to the learner's first decision
        state = env.unwrapped.game_state.to_dict()
        assert state["turn"] >= 13 and state["seed"] in train["made_by"]["seeds"]
        drawn.add(state["seed"])
    assert len(drawn) > 1


def test_a_drawn_start_that_ends_before_the_learner_decides_is_redrawn():
    """Three of version 2's 398 training starts end before France decides (the German expert wins first with
    the saved dice): the env refuses such a start with NoLearnerDecision, and FromStates draws another."""
    import gymnasium as gym

    from agents import make_agent
    from benchmarks.ffo import sampler
    from benchmarks.protocol.envs import FromStates
    from benchmarks.protocol.tasks import get_task
    from ffo_env.envs.suite_single_agent import NoLearnerDecision
    from ffo_env.ffo.single_agent import FFOSingleAgentEnv

    starts = sampler(get_task("ffo/french-endgame/v2").state_path())
    env = FFOSingleAgentEnv(side="french", opponent=make_agent("expert", "german", seed=0))
    with pytest.raises(NoLearnerDecision):
        env.reset(seed=201, options={"state": starts.states[201].to_dict()})

    class Inner(gym.Env):
        observation_space = gym.spaces.Discrete(2)
        action_space = gym.spaces.Discrete(2)

        def reset(self, *, seed=None, options=None):
            if options["state"] == "ends":
                raise NoLearnerDecision("ends")
            return 1, {}

    class Draws:
        def __init__(self, seq):
            self.seq, self.drawn = list(seq), 0

        def draw(self, rng):
            self.drawn += 1
            return self.seq.pop(0) if self.seq else "ends"

    draws = Draws(["ends", "ends", "plays"])
    assert FromStates(Inner(), draws).reset(seed=0) == (1, {}) and draws.drawn == 3  # type: ignore[arg-type]
    never = Draws([])
    with pytest.raises(RuntimeError, match="ended before the learner decided"):
        FromStates(Inner(), never).reset(seed=0)  # type: ignore[arg-type]
    assert never.drawn == FromStates.MAX_DRAWS


def test_run_help_names_every_algorithm(capsys):
    """The help text is written out (building it from the registry would import every learner module on each
    ``ffo`` command); this keeps it from going stale."""
    from benchmarks.protocol.algo_table import algo_names

    with pytest.raises(SystemExit):
        main(["benchmark", "run", "--help"])
    import re

    words = set(re.findall(r"[a-z_]+", capsys.readouterr().out))
    assert set(algo_names()) <= words


def test_endgame_v1_is_superseded_by_v2_and_no_longer_counts(capsys):
    from benchmarks.protocol.tasks import TASKS

    code, out, _ = _ffo(capsys, "benchmark", "tasks", "--json")
    assert code == 0
    rows = {r["id"]: r for r in json.loads(out)}
    for side in ("french", "german"):
        old, new = rows[f"ffo/{side}-endgame/v1"], rows[f"ffo/{side}-endgame/v2"]
        assert old["superseded_by"] == new["id"] and old["counts"] is False
        assert "superseded_by" not in new and new["counts"] is True
        assert "eval_states" not in TASKS[old["id"]].definition()  # version 1's fingerprint unchanged
    code, out, _ = _ffo(capsys, "benchmark", "tasks")
    assert "(superseded by ffo/german-endgame/v2)" in out


def test_single_agent_env_starts_from_a_given_state_and_refuses_a_damaged_one():
    from benchmarks.protocol.envs import eval_start
    from benchmarks.protocol.tasks import get_task
    from ffo_env.ffo.core.state_check import StateError
    from ffo_env.ffo.single_agent import FFOSingleAgentEnv

    start = eval_start(get_task("ffo/german-endgame/v1"), 0)
    env = FFOSingleAgentEnv(side="german", opponent=None)
    env.reset(seed=1, options={"state": start.to_dict()})
    assert env.game_state.turn == 13 and int(env.game_state.player) == 1
    env.reset(seed=1, options={"state": start})
    assert env.game_state is not start and env.game_state.turn == 13
    bad = start.to_dict()
    bad["loc"] = bad["loc"][:-1]
    with pytest.raises(StateError):
        env.reset(options={"state": bad})
    with pytest.raises(TypeError):
        env.reset(options={"state": "13"})


# ------------------------------------------------------------------ runs and reports


@pytest.fixture(scope="module")
def reference_runs(tmp_path_factory) -> Path:
    """Tiny reference runs of the endgame task (random, expert) and the self-play task (random)."""
    root = tmp_path_factory.mktemp("bench")
    for algo in ("random", "expert"):
        assert main(["benchmark", "run", "--task", "ffo/german-endgame/v2", "--algo", algo, "--seeds", "2",
                     "--eval-games", "2", "--out", str(root / algo), "--no-progress"]) == 0  # fmt: skip
    return root


def test_reference_runs_write_the_documented_layout(reference_runs):
    doc = json.loads((reference_runs / "random" / "results.json").read_text())
    assert doc["format"] == "ffo-benchmark-result" and doc["meta"]["cpu"] and doc["meta"]["libraries"]
    runs = doc["ffo_env"]["ffo/german-endgame/v2"]["random"]
    assert set(runs) == {"seed_0", "seed_1"}
    run = runs["seed_0"]
    assert run["run_meta"]["fingerprint"] and run["run_meta"]["complete"]
    assert run["step_0"]["step_count"] == 0 and run["step_0"]["score"] == run["absolute_metrics"]["score"]
    assert "wall_seconds" in run["step_0"]
    # the random German loses both evaluation games from these expert-vs-expert positions
    assert run["step_0"]["score"] == [0.0]


def test_report_pools_runs_normalises_and_draws(reference_runs, tmp_path, capsys):
    code, out, _ = _ffo(
        capsys, "benchmark", "report", str(reference_runs), "--out", str(tmp_path / "rep"), "--reps", "200"
    )
    assert code == 0, out
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    task = rep["tasks"]["ffo/german-endgame/v2"]
    assert set(task["algorithms"]) == {"random", "expert"}
    assert task["normalisation"] == {"random": 0.0, "expert": 1.0}
    assert task["algorithms"]["expert"]["normalised"]["values"] == [1.0, 1.0]
    assert (tmp_path / "rep" / "ffo_german-endgame_v2.png").stat().st_size > 1000
    assert (tmp_path / "rep" / "performance_profile.png").exists()
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| `expert` | 2 | 0 | 1.000 [1.000, 1.000] | 1.00 |" in md
    rows = list(csv.DictReader((tmp_path / "rep" / "points.csv").open()))
    # reference rows have one point (0 decisions) a seed: 2 algorithms x 2 seeds
    got = [(r["algorithm"], r["seed"], r["point"], r["decisions"], r["score"], r["complete"]) for r in rows]
    assert got == [
        (a, s, "0", "0", score, "1") for a, score in (("expert", "1.0"), ("random", "0.0")) for s in "01"
    ]
    assert {r["task"] for r in rows} == {"ffo/german-endgame/v2"} and float(rows[0]["wall_seconds"]) > 0
    assert (
        "| task | `random` | `expert` |\n|---|---:|---:|\n| `ffo/german-endgame/v2` | 0.000 (2) | 1.000 (2) |\n"
        in md
    )


def test_report_overview_counts_runs_in_progress_and_leaves_out_superseded_versions(
    reference_runs, tmp_path, capsys
):
    def one_unfinished(doc):
        doc["ffo_env"]["ffo/german-endgame/v2"]["random"]["seed_1"]["run_meta"]["complete"] = False

    _copy_with(reference_runs / "random", tmp_path / "now" / "random", one_unfinished)
    _copy_with(reference_runs / "random", tmp_path / "v1", _as_version("v1"))
    code, _, err = _ffo(capsys, "benchmark", "report", str(reference_runs / "expert"), str(tmp_path / "now"),
                        str(tmp_path / "v1"), "--out", str(tmp_path / "rep"), "--reps", "100")  # fmt: skip
    assert code == 0, err
    md = (tmp_path / "rep" / "report.md").read_text()
    overview = md[: md.index("**`")]
    assert "| `ffo/german-endgame/v2` | 0.000 (1+1) | 1.000 (2) |" in overview
    assert "ffo/german-endgame/v1" not in overview and "**`ffo/german-endgame/v1`**" in md


def _as_learner(doc):
    """The random rows recast as a two-point learner run: at point 0 the recorded games, at 512 decisions every
    game won (the start is the same for both runs; a test-only document, never a real run)."""
    runs = doc["ffo_env"]["ffo/german-endgame/v2"].pop("random")
    for r in runs.values():
        r["run_meta"]["algorithm"] = "maskable_ppo"
        last = json.loads(json.dumps(r["step_0"]))
        last["step_count"] = 512
        games = last["eval"]["opponents"]["expert"]
        games["per_game"] = [1.0] * len(games["per_game"])
        last["score"] = last["win_rate"] = [1.0]
        r["step_1"] = last
        r["absolute_metrics"] = {"score": [1.0], "win_rate": [1.0]}
    doc["ffo_env"]["ffo/german-endgame/v2"]["maskable_ppo"] = runs


def test_report_gives_a_learners_change_from_point_0_game_by_game(reference_runs, tmp_path, capsys):
    _copy_with(reference_runs / "random", tmp_path / "learner", _as_learner)
    code, _, err = _ffo(capsys, "benchmark", "report", str(reference_runs / "expert"), str(tmp_path / "learner"),
                        "--out", str(tmp_path / "rep"), "--reps", "100")  # fmt: skip
    assert code == 0, err
    task = json.loads((tmp_path / "rep" / "report.json").read_text())["tasks"]["ffo/german-endgame/v2"]
    algos = task["algorithms"]
    # the random German lost both games at point 0 (test_reference_runs_write_the_documented_layout); both won
    # at the end in both runs: d = [1, 1], whose 4 sign patterns reach |sum| 2 twice
    c = algos["maskable_ppo"]["from_start"]
    got = (c["start"], c["final"], c["change"], c["games"], c["games_changed"], c["p"])
    assert got == (0, 1, 1, 2, 2, 0.5)
    assert algos["expert"]["from_start"] is None  # a reference row has no training to measure
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| 0.000 → 1.000: +1.000 (p = 0.50) |" in md and "| change from point 0 (p) |" in md
    rows = [
        r
        for r in csv.DictReader((tmp_path / "rep" / "points.csv").open())
        if r["algorithm"] == "maskable_ppo"
    ]
    assert [(r["seed"], r["point"], r["decisions"], r["score"]) for r in rows] == [
        (s, p, d, v) for s in "01" for p, d, v in (("0", "0", "0.0"), ("1", "512", "1.0"))
    ]


@pytest.mark.parametrize("damage", ["not a mapping", {"opponents": [1]}, {"opponents": {"expert": 3}}])
def test_a_learner_without_its_games_scores_has_no_change_from_point_0(
    damage, reference_runs, tmp_path, capsys
):
    def edit(doc):
        _as_learner(doc)
        for r in doc["ffo_env"]["ffo/german-endgame/v2"]["maskable_ppo"].values():
            r["step_0"]["eval"] = damage

    _copy_with(reference_runs / "random", tmp_path / "learner", edit)
    code, _, err = _ffo(capsys, "benchmark", "report", str(tmp_path / "learner"), "--out", str(tmp_path / "rep"),
                        "--reps", "100")  # fmt: skip
    assert code == 0, err
    task = json.loads((tmp_path / "rep" / "report.json").read_text())["tasks"]["ffo/german-endgame/v2"]
    assert task["algorithms"]["maskable_ppo"]["from_start"] is None


def _copy_with(src: Path, dst: Path, edit) -> None:
    doc = json.loads((src / "results.json").read_text())
    edit(doc)
    dst.mkdir(parents=True)
    (dst / "results.json").write_text(json.dumps(doc))


def _as_version(version: str):
    def edit(doc):
        runs = doc["ffo_env"].pop("ffo/german-endgame/v2")
        for r in runs["random"].values():
            r["run_meta"]["task"] = f"ffo/german-endgame/{version}"
        doc["ffo_env"][f"ffo/german-endgame/{version}"] = runs

    return edit


def test_report_refuses_to_pool_another_task_version(reference_runs, tmp_path, capsys):
    """A version this installation does not have (v9) cannot share a report with v2."""
    _copy_with(reference_runs / "random", tmp_path / "v9", _as_version("v9"))
    out_dir = tmp_path / "rep"
    code, _, err = _ffo(
        capsys,
        "benchmark",
        "report",
        str(reference_runs / "expert"),
        str(tmp_path / "v9"),
        "--out",
        str(out_dir),
    )
    assert code == 2 and "refusing to pool" in err and "ffo/german-endgame/v9" in err
    assert not out_dir.exists()

    def other_fingerprint(doc):
        for r in doc["ffo_env"]["ffo/german-endgame/v2"]["random"].values():
            r["run_meta"]["fingerprint"] = "0000000000000000"

    _copy_with(reference_runs / "random", tmp_path / "fp", other_fingerprint)
    code, _, err = _ffo(
        capsys,
        "benchmark",
        "report",
        str(reference_runs / "expert"),
        str(tmp_path / "fp"),
        "--out",
        str(out_dir),
    )
    assert code == 2 and "fingerprints" in err


def test_report_shows_a_superseded_version_apart_and_out_of_the_aggregate(reference_runs, tmp_path, capsys):
    """v1 of the endgames is superseded by v2: results of both share a report, each its own task, never pooled;
    only v2 is in the aggregate."""
    _copy_with(reference_runs / "random", tmp_path / "v1" / "random", _as_version("v1"))
    code, _, err = _ffo(capsys, "benchmark", "report", str(reference_runs), str(tmp_path / "v1"),
                        "--out", str(tmp_path / "rep"), "--reps", "100")  # fmt: skip
    assert code == 0, err
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    old, new = rep["tasks"]["ffo/german-endgame/v1"], rep["tasks"]["ffo/german-endgame/v2"]
    assert set(old["algorithms"]) == {"random"} and set(new["algorithms"]) == {"random", "expert"}
    assert (
        old["superseded_by"] == "ffo/german-endgame/v2" and old["counts"] is False and new["counts"] is True
    )
    for row in rep["aggregate"]["ffo"]["normalised_final"].values():
        assert row["tasks"] == ["ffo/german-endgame/v2"]
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "superseded by `ffo/german-endgame/v2`: not in the aggregate" in md


@pytest.mark.parametrize("game", ["ffo", "springtime"])
def test_the_shipped_baselines_make_a_report(game, tmp_path, capsys):
    """The README's and the guide's command over the results shipped in benchmarks/results (all versions)."""
    shipped = Path(__file__).resolve().parents[1] / "benchmarks" / "results"
    code, _, err = _ffo(capsys, "benchmark", "report", str(shipped), "--game", game,
                        "--out", str(tmp_path / "rep"), "--reps", "100")  # fmt: skip
    assert code == 0, err
    assert json.loads((tmp_path / "rep" / "report.json").read_text())["tasks"]


def test_report_refuses_a_damaged_result_file(reference_runs, tmp_path, capsys):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "results.json").write_text('{"format": "ffo-benchmark-result", "version": 1, "ffo_env": {')
    code, _, err = _ffo(capsys, "benchmark", "report", str(bad), "--out", str(tmp_path / "rep"))
    assert code == 2 and err.count("\n") == 1 and "damaged" in err and str(bad) in err
    (bad / "results.json").write_text(
        json.dumps(
            {
                "format": "ffo-benchmark-result",
                "version": 1,
                "ffo_env": {"t": {"a": {"seed_0": {"run_meta": {}}}}},
            }
        )
    )
    code, _, err = _ffo(capsys, "benchmark", "report", str(bad), "--out", str(tmp_path / "rep"))
    assert code == 2 and "missing 'task'" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--task", "ffo/nope/v1", "--algo", "random"], "unknown task 'ffo/nope/v1'"),
        (["--task", "ffo/french-endgame/v9", "--algo", "random"], "unknown version of task"),
        (["--task", "ffo/french-endgame/v2", "--algo", "alphazero"], "unknown algorithm 'alphazero'"),
        (["--task", "ffo/french-endgame/v2", "--algo", "random", "--budget", "0"], "--budget must be in"),
        (
            ["--task", "ffo/french-endgame/v2", "--algo", "random", "--budget", "10" * 9],
            "--budget must be in",
        ),
        (["--task", "ffo/french-endgame/v2", "--algo", "random", "--seeds", "0"], "--seeds must be in"),
        (["--task", "ffo/french-endgame/v2", "--algo", "random", "--seeds", "101"], "--seeds must be in"),
        (["--task", "ffo/french-endgame/v2", "--algo", "random", "--evals", "1"], "--evals must be in"),
    ],
)
def test_bad_run_input_is_one_error_and_writes_nothing(argv, message, tmp_path, capsys):
    out_dir = tmp_path / "out"
    code, _, err = _ffo(capsys, "benchmark", "run", *argv, "--out", str(out_dir), "--no-progress")
    assert code == 2 and message in err and err.startswith("error: ") and err.count("\n") == 1
    assert not out_dir.exists()


def test_run_refuses_a_used_folder_and_resume_refuses_a_damaged_plan(reference_runs, tmp_path, capsys):
    before = (reference_runs / "random" / "results.json").read_bytes()
    code, _, err = _ffo(capsys, "benchmark", "run", "--task", "ffo/german-endgame/v2", "--algo", "random",
                        "--out", str(reference_runs / "random"), "--no-progress")  # fmt: skip
    assert code == 2 and "--resume" in err
    assert (reference_runs / "random" / "results.json").read_bytes() == before
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "plan.json").write_text("{not json")
    code, _, err = _ffo(capsys, "benchmark", "run", "--resume", str(broken))
    assert code == 2 and "damaged" in err
    code, _, err = _ffo(capsys, "benchmark", "run", "--resume", str(tmp_path / "none"))
    assert code == 2 and "not a benchmark run folder" in err
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    code, _, err = _ffo(capsys, "benchmark", "run", "--resume", str(a_file))
    assert code == 2 and err == f"error: {a_file}: not a folder; --resume takes a benchmark run folder\n"
    assert a_file.read_text() == "x"


def test_resume_of_a_finished_reference_run_changes_no_score(reference_runs, capsys):
    before = json.loads((reference_runs / "expert" / "results.json").read_text())
    code, _, _ = _ffo(capsys, "benchmark", "run", "--resume", str(reference_runs / "expert"), "--no-progress")
    after = json.loads((reference_runs / "expert" / "results.json").read_text())
    assert code == 0 and after["ffo_env"] == before["ffo_env"]


def test_self_play_task_rates_both_sides_against_the_frozen_ladder(tmp_path, capsys):
    code, _, err = _ffo(capsys, "benchmark", "run", "--task", "ffo/selfplay-ladder/v1", "--algo", "random",
                        "--seeds", "1", "--eval-games", "1", "--out", str(tmp_path / "sp"), "--no-progress")  # fmt: skip
    assert code == 0, err
    run = json.loads((tmp_path / "sp" / "results.json").read_text())["ffo_env"]["ffo/selfplay-ladder/v1"][
        "random"
    ]
    ev = run["seed_0"]["step_0"]["eval"]
    assert set(ev["elo"]) == {"french", "german"}
    assert len(ev["opponents"]) == 6  # 3 references x 2 seats, one game each
    assert run["seed_0"]["step_0"]["score"][0] == pytest.approx(
        (ev["elo"]["french"]["elo"] + ev["elo"]["german"]["elo"]) / 2
    )


def test_iqm_and_probability_of_improvement_agree_with_scipy_as_rliable_computes_them():
    st = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    for runs in (3, 4, 5, 10):
        x = rng.random((runs, 3))  # rliable's (num_runs x num_tasks)
        assert math.isclose(stats.iqm([x[:, j] for j in range(3)]), st.trim_mean(x, 0.25, axis=None))
    x, y = rng.integers(0, 4, 6).astype(float), rng.integers(0, 4, 5).astype(float)  # with ties
    u = st.mannwhitneyu(x, y, alternative="greater").statistic / (x.size * y.size)
    assert math.isclose(stats.probability_of_improvement([x], [y], reps=100)[0], u)


def test_resume_refuses_a_damaged_progress_file_and_changes_nothing(reference_runs, tmp_path, capsys):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(reference_runs / "random", run)
    (run / "seed-1" / "progress.json").write_text('{"rows": [')
    before = (run / "results.json").read_bytes()
    code, _, err = _ffo(capsys, "benchmark", "run", "--resume", str(run), "--no-progress")
    assert code == 2 and "seed-1" in err and "damaged" in err and err.count("\n") == 1
    assert (run / "results.json").read_bytes() == before


def test_maskable_ppo_pretrained_starts_as_the_shipped_policy(tmp_path):
    """Its first evaluation point is the shipped policy: the same network and the same choices."""
    from agents.ffo.pretrained import load_pretrained
    from agents.registry import make_agent
    from benchmarks.protocol.algo_table import get_algo
    from benchmarks.protocol.algos import Context
    from benchmarks.protocol.tasks import get_task
    from ffo_env.ffo.encoding.observation import encoder_for
    from ffo_env.ffo.env import make_game

    task = get_task("ffo/german-endgame/v2")
    ctx = Context(task, "german", 3, 1_000, tmp_path, lambda r: make_agent("random", "french", seed=r))
    learner = get_algo("maskable_ppo_pretrained").make(ctx)
    shipped = load_pretrained("german")
    mine = learner.agent()
    bots = {s: make_agent("heuristic", s, seed=4) for s in ("french", "german")}
    state = make_game("random").new_initial_state(8)
    checked = 0
    while not state.is_terminal() and checked < 20:
        legal = state.legal_actions()
        if state.current_agent == "german" and len(legal) > 1:
            enc = encoder_for(state.game)
            obs, mask = enc.encode(state, 1, legal=legal), enc.mask(state, legal)
            assert mine.act(obs, mask) == shipped.act(obs, mask)
            checked += 1
        state.apply_action(bots[state.current_agent].act_state(state))
    assert checked == 20
    with pytest.raises(ValueError, match="France Fights On's tasks"):
        get_algo("maskable_ppo_pretrained").make(
            Context(get_task("springtime/german-vs-random/v2"), "german", 0, 10, tmp_path, lambda r: None)
        )


def test_a_learner_with_fewer_than_3_complete_runs_stays_out_of_the_aggregate(
    reference_runs, tmp_path, capsys
):
    """Issue 60: one or two runs give the bootstrap over runs intervals of no width, so such a row is shown in
    its task's table, marked, and left out of the aggregate and the probability of improvement; a third
    complete run brings it in."""

    def three_runs(doc):
        _as_learner(doc)
        runs = doc["ffo_env"]["ffo/german-endgame/v2"]["maskable_ppo"]
        third = json.loads(json.dumps(runs["seed_1"]))
        third["run_meta"]["seed"] = 2
        runs["seed_2"] = third

    for name, edit, aggregated in (("two", _as_learner, False), ("three", three_runs, True)):
        _copy_with(reference_runs / "random", tmp_path / name, edit)
        code, _, err = _ffo(capsys, "benchmark", "report", str(reference_runs), str(tmp_path / name),
                            "--out", str(tmp_path / f"rep-{name}"), "--reps", "100")  # fmt: skip
        assert code == 0, err
        rep = json.loads((tmp_path / f"rep-{name}" / "report.json").read_text())
        row = rep["tasks"]["ffo/german-endgame/v2"]["algorithms"]["maskable_ppo"]
        assert row["aggregated"] is aggregated and "normalised" in row
        assert ("maskable_ppo" in rep["aggregate"]["ffo"]["normalised_final"]) is aggregated
        md = (tmp_path / f"rep-{name}" / "report.md").read_text()
        assert ("not in the aggregate: < 3 complete runs" in md) is not aggregated


def test_pretrained_row_is_a_reference_row_naming_its_weights(reference_runs, tmp_path, capsys):
    """Issue 60 item 3: the shipped policies' row (the campaign's policies once released) runs as a reference
    row: one evaluation point, no training, the sha256 of every shipped policy file in its hyperparameters,
    and the report keeps it out of the learners (no from-start change, no 'fewer than 3 runs' mark)."""
    import hashlib

    from agents.ffo.pretrained import pretrained_path

    out = tmp_path / "pretrained"
    assert main(["benchmark", "run", "--task", "ffo/german-endgame/v2", "--algo", "pretrained", "--seeds", "1",
                 "--eval-games", "2", "--out", str(out), "--no-progress"]) == 0  # fmt: skip
    doc = json.loads((out / "results.json").read_text())
    run = doc["ffo_env"]["ffo/german-endgame/v2"]["pretrained"]["seed_0"]
    assert run["run_meta"]["complete"] and "step_1" not in run and run["step_0"]["step_count"] == 0
    shas = run["run_meta"]["hyperparameters"]["policy_sha256"]
    assert shas["ffo/german.pt"] == hashlib.sha256(pretrained_path("german").read_bytes()).hexdigest()
    code, _, err = _ffo(capsys, "benchmark", "report", str(reference_runs), str(out),
                        "--out", str(tmp_path / "rep"), "--reps", "100")  # fmt: skip
    assert code == 0, err
    tasks = json.loads((tmp_path / "rep" / "report.json").read_text())["tasks"]
    algos = tasks["ffo/german-endgame/v2"]["algorithms"]
    assert algos["pretrained"]["from_start"] is None
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "`pretrained`" in md and "not in the aggregate" not in md


def test_each_game_s_benchmark_part_is_found_by_its_package_and_a_game_without_one_has_no_tasks():
    """Issue 62, one benchmark path: the protocol gathers the tasks of every game that has a package
    ``benchmarks.<package>`` (France 1940's since issue 63 item 7), each task listed by its own game's part."""
    from benchmarks.protocol.games import bench_games, bench_of, games_offering
    from benchmarks.protocol.tasks import SUPERSEDED, TASKS

    assert bench_games() == ["ffo", "springtime", "france1940"]
    for game in bench_games():
        part = bench_of(game)
        assert part.GAME == game and part.TASKS and all(t.game == game for t in part.TASKS)
        assert all(TASKS[t.id] is t for t in part.TASKS)
        assert all(SUPERSEDED[k] == v for k, v in part.SUPERSEDED.items())
    assert sum(len(bench_of(g).TASKS) for g in bench_games()) == len(TASKS)
    assert games_offering("shaped_reward") == ("springtime",)
    assert games_offering("pretrained_init") == ("ffo",)


def test_the_logits_agent_plays_the_best_legal_action_or_samples_reproducibly():
    """One agent over a network's logits for every learner: the argmax over the legal actions only (an illegal
    action with a higher logit is never played); sampled, a seed replays its draws."""
    import torch

    from benchmarks.protocol.algos import LogitsAgent

    class State:
        def legal_actions(self) -> list[int]:
            return [1, 3, 4]

    logits = torch.tensor([[9.0, 1.0, 8.0, 2.0, 1.5]])
    greedy = LogitsAgent(lambda s: np.zeros(2, np.float32), lambda obs: logits)
    assert greedy.act_state(State()) == 3
    sampled = LogitsAgent(lambda s: np.zeros(2, np.float32), lambda obs: logits, sample=True)

    def draws(seed: int) -> list[int]:
        sampled.reset(seed)
        return [sampled.act_state(State()) for _ in range(30)]

    assert draws(5) == draws(5) and set(draws(5)) <= {1, 3, 4} and len(set(draws(5))) > 1
