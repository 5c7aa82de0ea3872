"""Springtime for Hitler in the benchmark protocol (issue 41 item 7): its tasks, their fingerprints, runs.

Fast tests first; the learning algorithms with tiny budgets and a resumed run are marked slow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks.protocol.tasks import TASKS, fingerprint_inputs, get_task
from ffo_env.cli import main

# the current Springtime tasks (version 1 is superseded and retired: issue 61 changed the rules)
SFH = sorted(t for t, task in TASKS.items() if t.startswith("springtime/") and task.superseded_by is None)


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


def test_tasks_list_both_games_with_a_game_field(capsys):
    code, out, _ = _ffo(capsys, "benchmark", "tasks", "--json")
    assert code == 0
    rows = {r["id"]: r for r in json.loads(out)}
    assert {r["game"] for r in rows.values()} == {"ffo", "springtime", "france1940"}
    assert all(r["game"] == r["id"].split("/")[0] for r in rows.values())
    one_side = [t for t in SFH if rows[t]["kind"] != "selfplay"]
    sides = {(rows[t]["side"], rows[t]["opponent"]) for t in one_side}
    assert sides == {(s, o) for s in ("french", "german") for o in ("random", "heuristic", "expert")}
    assert all(rows[t]["kind"] == "full" for t in one_side)
    assert [t for t in SFH if t not in one_side] == ["springtime/selfplay-ladder/v2"]
    code, out, _ = _ffo(capsys, "benchmark", "tasks")
    assert code == 0 and "springtime/german-vs-heuristic/v2  springtime" in out


def test_springtime_fingerprints_cover_its_own_engine_data_observation_and_bots():
    task = get_task("springtime/german-vs-heuristic/v2")
    inputs = fingerprint_inputs(task)
    assert inputs["game"] == "springtime" and inputs["engine"].startswith("springtime-core")
    assert inputs["data"]["version"].startswith("sfh-") and inputs["observation"]
    assert set(inputs["bots"]) == {"expert", "heuristic", "random"}
    ffo = fingerprint_inputs(get_task("ffo/german-vs-heuristic/v1"))
    assert "game" not in ffo and ffo["data"] != inputs["data"]  # FFO's inputs (and fingerprints) as they were


def test_a_springtime_reference_run_writes_the_documented_layout(tmp_path):
    doc = _run(tmp_path / "r", "springtime/german-vs-random/v2", "random", "--eval-games", "2")
    assert doc["meta"]["game"] == "springtime" and doc["meta"]["engine"].startswith("springtime-core")
    run = doc["ffo_env"]["springtime/german-vs-random/v2"]["random"]["seed_0"]
    assert (
        run["run_meta"]["fingerprint"]
        == json.loads(
            (Path(__file__).resolve().parents[1] / "benchmarks/protocol/data/fingerprints.json").read_text()
        )["springtime/german-vs-random/v2"]
    )
    ev = run["step_0"]["eval"]["opponents"]["random"]
    assert ev["games"] == 2 and len(ev["per_game"]) == 2 and "mean_morale" in ev


def test_report_of_one_game_keeps_only_its_tasks(tmp_path, capsys):
    _run(tmp_path / "runs" / "sfh", "springtime/german-vs-random/v2", "random", "--eval-games", "1")
    _run(tmp_path / "runs" / "sfh-x", "springtime/german-vs-random/v2", "expert", "--eval-games", "1")
    runs = str(tmp_path / "runs")
    code, out, err = _ffo(capsys, "benchmark", "report", runs, "--out", str(tmp_path / "rep"),
                          "--game", "springtime", "--reps", "100")  # fmt: skip
    assert code == 0, err
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert list(rep["tasks"]) == ["springtime/german-vs-random/v2"]
    assert set(rep["tasks"]["springtime/german-vs-random/v2"]["algorithms"]) == {"random", "expert"}
    code, _, err = _ffo(capsys, "benchmark", "report", runs, "--out", str(tmp_path / "rep2"),
                        "--game", "ffo")  # fmt: skip
    assert code == 2 and "no result of a ffo task" in err and not (tmp_path / "rep2").exists()


def test_an_algorithm_of_one_game_is_refused_on_the_other_with_one_error(tmp_path, capsys):
    out = tmp_path / "d"
    code, _, err = _ffo(capsys, "benchmark", "run", "--task", "ffo/french-endgame/v2", "--algo",
                        "maskable_ppo_shaped", "--out", str(out), "--no-progress")  # fmt: skip
    assert code == 2 and err.startswith("error: ") and "springtime tasks only" in err and err.count("\n") == 1
    assert not out.exists()


def test_springtime_dagger_labels_the_teachers_moves_with_the_games_results(tmp_path):
    """dagger_expert on Springtime: its first interval's labels are the expert's own moves (the teacher
    plays every move), each with the learner's result of a finished game, and the data survives a save."""
    from agents.springtime import make_agent
    from benchmarks.protocol.algo_sb3 import DaggerLearner
    from benchmarks.protocol.algos import Context

    task = get_task("springtime/german-vs-random/v2")
    ctx = Context(task, "german", 0, 400, tmp_path, lambda r: make_agent("random", "french", r))
    learner = DaggerLearner(ctx)
    data = learner.part.dagger_collect(learner, 400, 1.0, 11)
    n = len(data["label"])
    assert (
        100 < n < 300 and data["obs"].shape == (n, 1351) and data["mask"][np.arange(n), data["label"]].all()
    )
    finished = data["ret"][~np.isnan(data["ret"])]
    assert len(finished) and set(np.unique(finished)) <= {-1.0, 1.0}
    learner.parts = [data]
    learner._decisions = 400
    learner.save(tmp_path)
    again = DaggerLearner(ctx)
    again.load(tmp_path)
    assert again.decisions == 400 and np.array_equal(again.parts[0]["label"], data["label"])


@pytest.mark.slow
@pytest.mark.parametrize(
    "algo",
    [
        "maskable_ppo",
        "ppo_mlp_compact",
        "untrained",
        "maskable_ppo_shaped",
        "ppo_mlp_compact_shaped",
        "dagger_expert",
    ],
)
def test_every_algorithm_runs_a_springtime_task_with_a_tiny_budget(algo, tmp_path):
    task = "springtime/german-vs-heuristic/v2"
    doc = _run(tmp_path / algo, task, algo, "--budget", "300", "--evals", "2", "--eval-games", "2")
    run = doc["ffo_env"][task][algo]["seed_0"]
    assert run["run_meta"]["observation"] == "flat" and run["run_meta"]["hyperparameters"]
    learns = algo != "untrained"
    assert ("step_1" in run) == learns
    last = run[[k for k in run if k.startswith("step_")][-1]]
    if learns:
        assert last["step_count"] >= 300 and last["train_seconds"] > 0
    assert 0.0 <= last["score"][0] <= 1.0 and run["run_meta"]["complete"]


@pytest.mark.slow
def test_a_springtime_run_killed_after_its_first_interval_resumes_as_an_uninterrupted_one(tmp_path):
    """The run stops right after point 1 is written (its checkpoint kept, point 0's deleted); resumed, it
    ends with the same decisions and scores as the uninterrupted run."""
    task = "springtime/french-vs-heuristic/v2"
    whole = _run(
        tmp_path / "whole", task, "maskable_ppo", "--budget", "1100", "--evals", "3", "--eval-games", "2"
    )
    whole_run = whole["ffo_env"][task]["maskable_ppo"]["seed_0"]
    part = tmp_path / "part"
    _killed_after_point_1(part, task, "maskable_ppo", 1100)
    assert [p.name for p in (part / "seed-0").glob("point-*")] == ["point-1"]
    assert main(["benchmark", "run", "--resume", str(part), "--no-progress"]) == 0
    resumed = json.loads((part / "results.json").read_text())["ffo_env"][task]["maskable_ppo"]["seed_0"]
    assert resumed["run_meta"]["resumed"] == 1 and resumed["run_meta"]["complete"]
    for j in range(3):
        assert resumed[f"step_{j}"]["step_count"] == whole_run[f"step_{j}"]["step_count"]
        assert resumed[f"step_{j}"]["eval"] == whole_run[f"step_{j}"]["eval"]


def _as_algo(src: Path, dst: Path, algo: str, score: float) -> None:
    """A copy of the one-task result ``src`` whose runs are filed under ``algo`` with final score ``score``."""
    doc = json.loads((src / "results.json").read_text())
    for task_id, algos in doc["ffo_env"].items():
        runs = algos.pop(next(iter(algos)))
        for run in runs.values():
            run["run_meta"]["algorithm"] = algo
            for key, row in run.items():
                if key.startswith("step_") or key == "absolute_metrics":
                    row["score"] = row["win_rate"] = [score]
        doc["ffo_env"][task_id] = {algo: runs}
    dst.mkdir(parents=True)
    (dst / "results.json").write_text(json.dumps(doc))


def test_report_over_both_games_aggregates_each_game_apart(tmp_path, capsys):
    """Results of the two games in one report: each game gets its own normalised aggregate, profile and
    probability of improvement; no aggregate mixes a France Fights On task with a Springtime task."""
    src = tmp_path / "src"
    for task in ("springtime/german-vs-random/v2", "ffo/german-endgame/v2"):
        # 3 runs: a learner row joins its game's aggregate with 3 complete runs or more (MIN_AGGREGATE_RUNS)
        _run(src / task.split("/")[0], task, "random", "--eval-games", "1", "--seeds", "3")
    runs = tmp_path / "runs"
    for game, learner in (("springtime", 0.5), ("ffo", 0.25)):
        _as_algo(src / game, runs / game / "random", "random", 0.0)
        _as_algo(src / game, runs / game / "expert", "expert", 1.0)
        _as_algo(src / game, runs / game / "learner", "maskable_ppo", learner)
    code, _, err = _ffo(
        capsys, "benchmark", "report", str(runs), "--out", str(tmp_path / "rep"), "--reps", "100"
    )
    assert code == 0, err
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert set(rep["tasks"]) == {"springtime/german-vs-random/v2", "ffo/german-endgame/v2"}
    agg = rep["aggregate"]
    assert set(agg) == {"ffo", "springtime"}
    for game, learner in (("springtime", 0.5), ("ffo", 0.25)):
        row = agg[game]["normalised_final"]["maskable_ppo"]
        assert [t.split("/")[0] for t in row["tasks"]] == [game]
        assert row["iqm"]["value"] == pytest.approx(learner)  # pooled, it would be 0.375
        assert (tmp_path / "rep" / f"performance_profile_{game}.png").exists()
    assert not (tmp_path / "rep" / "performance_profile.png").exists()
    runs = rep["tasks"]["springtime/german-vs-random/v2"]["algorithms"]["maskable_ppo"]["run_curves"]
    assert (
        runs == [[[0, pytest.approx(r[0][1]), 0.5]] for r in runs] and len(runs) == 3
    )  # each run's own points
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "France Fights On benchmark tasks" in md and "Springtime for Hitler benchmark tasks" in md


def test_springtime_self_play_is_rated_against_its_own_frozen_ladder(tmp_path, capsys):
    from benchmarks.ffo import LADDER as REFERENCE_LADDER
    from benchmarks.protocol.ladder_ref import rate_one
    from benchmarks.springtime import LADDER as SPRINGTIME_LADDER

    task = "springtime/selfplay-ladder/v2"
    t = get_task(task)
    assert t.kind == "selfplay" and t.side is None and t.references == ("random", "heuristic", "expert")
    assert fingerprint_inputs(t)["ladder"] == {k: list(v) for k, v in sorted(SPRINGTIME_LADDER.items())}
    doc = _run(tmp_path / "sp", task, "random", "--eval-games", "1")
    row = doc["ffo_env"][task]["random"]["seed_0"]["step_0"]
    ev = row["eval"]
    assert set(ev["opponents"]) == {f"{r}@{s}" for r in t.references for s in ("french", "german")}
    for side, seat in (("french", "german"), ("german", "french")):
        col = 1 if side == "french" else 0  # the reference plays the other seat
        games = [(SPRINGTIME_LADDER[r][col], ev["opponents"][f"{r}@{seat}"]["wins"], 1) for r in t.references]
        assert ev["elo"][side]["elo"] == pytest.approx(rate_one(games)[0])
        ffo_games = [
            (REFERENCE_LADDER[r][col], w, n) for (_, w, n), r in zip(games, t.references, strict=True)
        ]
        assert ev["elo"][side]["elo"] != pytest.approx(rate_one(ffo_games)[0])  # not FFO's ladder
    assert row["score"][0] == pytest.approx((ev["elo"]["french"]["elo"] + ev["elo"]["german"]["elo"]) / 2)


@pytest.mark.slow
@pytest.mark.parametrize("algo", ["maskable_ppo", "ppo_mlp_compact"])
def test_springtime_self_play_trains_both_sides_with_a_tiny_budget(algo, tmp_path):
    """Each side trains against the other's current policy; the campaign opens with an Axis decision, so the
    French learner is made before the German one it plays against."""
    task = "springtime/selfplay-ladder/v2"
    doc = _run(tmp_path / algo, task, algo, "--budget", "1200", "--evals", "2", "--eval-games", "1")
    run = doc["ffo_env"][task][algo]["seed_0"]
    assert run["run_meta"]["complete"] and run["step_1"]["step_count"] >= 1200
    assert set(run["step_1"]["eval"]["elo"]) == {"french", "german"}


@pytest.mark.parametrize("algo", ["maskable_ppo_shaped", "ppo_mlp_compact_shaped"])
def test_shaped_learners_are_refused_on_ffo_tasks_with_one_error(algo, tmp_path, capsys):
    out = tmp_path / "x"
    code, _, err = _ffo(capsys, "benchmark", "run", "--task", "ffo/german-endgame/v2", "--algo", algo,
                        "--out", str(out), "--no-progress")  # fmt: skip
    assert code == 2 and "springtime tasks only" in err and err.count("\n") == 1 and not out.exists()


def test_a_shaped_learner_trains_on_the_shaped_reward_and_samples_reproducibly(tmp_path):
    """The training env pays the German learner minus the change of the French potential (Morale / 30) times
    the scale; the evaluated agent draws from the policy with a generator its reset seeds, so a seed
    replays a game and another seed need not."""
    import benchmarks.springtime as springtime
    from agents import make_agent
    from benchmarks.protocol.algo_table import get_algo
    from benchmarks.protocol.algos import Context

    task = get_task("springtime/german-vs-random/v2")

    def opponent(rank: int) -> Any:
        return make_agent("random", "french", seed=rank, game="springtime")

    learner = get_algo("maskable_ppo_shaped").make(Context(task, "german", 0, 100, tmp_path, opponent))
    env = learner.vec_env(0).envs[0]  # type: ignore[attr-defined]
    assert env.reward_mode == "shaped" and env.shaping_scale == springtime.SHAPING_SCALE
    state = env.game_state
    before, total = state.morale, 0.0
    for _ in range(200):
        mask = env.action_masks()
        _, r, done, _, _ = env.step(int(mask.nonzero()[0][-1]))
        total += r
        if done:
            break
    assert not state.is_terminal() and state.morale != before  # Morale moved: the test measures something
    assert total == pytest.approx(-springtime.SHAPING_SCALE * (state.morale - before) / 30)

    def german_moves(seed: int) -> list[int]:
        s, agent, french = springtime.eval_start(task, 0), learner.agent(), opponent(1)
        agent.reset(seed)
        moves: list[int] = []
        while len(moves) < 40:
            a = int(agent.act_state(s) if s.current_player == 1 else french.act_state(s))
            moves += [a] if s.current_player == 1 else []
            s.apply_action(a)
        return moves

    assert german_moves(7) == german_moves(7) and german_moves(7) != german_moves(8)


def _killed_after_point_1(folder: Path, task: str, algo: str, budget: int) -> None:
    """A run of ``algo`` stopped right after its point 1 was written, as a kill would leave it."""
    from benchmarks.protocol import run as runner

    class Killed(Exception):
        pass

    def kill_after_point_1(seed: int, j: int, row: dict) -> None:
        if j == 1:
            raise Killed

    plan = runner.make_plan(task, algo, budget, None, 1, 0, 3, 2, ["test"])
    runner.start(plan, folder)
    with pytest.raises(Killed):
        runner.run_seed(folder, plan, 0, on_point=kill_after_point_1)


def test_a_seed_whose_checkpoint_is_gone_runs_again_from_point_0(tmp_path, capsys):
    """Checkpoints are not shipped (benchmarks/results/.gitignore): a folder cloned with a seed part way
    has its progress but no weights. Resumed, that seed is run again from point 0, says so, and ends as the
    uninterrupted run does."""
    import shutil

    task, algo = "springtime/german-vs-heuristic/v2", "ppo_mlp_compact"
    whole = _run(tmp_path / "whole", task, algo, "--budget", "300", "--evals", "3", "--eval-games", "2")
    whole_run = whole["ffo_env"][task][algo]["seed_0"]
    part = tmp_path / "part"
    _killed_after_point_1(part, task, algo, 300)
    shutil.rmtree(part / "seed-0" / "point-1")
    capsys.readouterr()
    assert main(["benchmark", "run", "--resume", str(part), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "checkpoint of point 1 (point-1/) is missing; running seed 0 again from point 0" in out
    run = json.loads((part / "results.json").read_text())["ffo_env"][task][algo]["seed_0"]
    assert run["run_meta"]["restarted"] == 1 and run["run_meta"]["complete"]
    for j in range(3):
        assert run[f"step_{j}"]["step_count"] == whole_run[f"step_{j}"]["step_count"]
        assert run[f"step_{j}"]["eval"] == whole_run[f"step_{j}"]["eval"]


def test_a_damaged_checkpoint_is_one_error_naming_it_and_changes_nothing(tmp_path, capsys):
    task, algo = "springtime/german-vs-heuristic/v2", "ppo_mlp_compact"
    part = tmp_path / "part"
    _killed_after_point_1(part, task, algo, 300)
    weights = next((part / "seed-0" / "point-1").iterdir())
    weights.write_bytes(b"not a checkpoint")
    before = (part / "seed-0" / "progress.json").read_text()
    capsys.readouterr()
    assert main(["benchmark", "run", "--resume", str(part), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "point-1: cannot load the checkpoint" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert (part / "seed-0" / "progress.json").read_text() == before


def test_a_resumed_run_starts_its_progress_bar_at_the_points_already_done(tmp_path, monkeypatch):
    """The ETA of a resumed run is from the points it runs, not the ones a killed run left: the done points
    start the bar (tqdm's ``initial``) and only new points are counted as progress."""
    import tqdm

    from benchmarks.protocol import run as runner

    task, algo = "springtime/german-vs-heuristic/v2", "ppo_mlp_compact"
    part = tmp_path / "part"
    _killed_after_point_1(part, task, algo, 300)
    seen: dict[str, Any] = {"updates": []}

    class Bar(tqdm.tqdm):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            seen["kwargs"] = kwargs
            super().__init__(*args, **kwargs)

        def update(self, n: float | None = 1) -> bool | None:
            seen["updates"].append(n)
            return super().update(n)

    monkeypatch.setattr(tqdm, "tqdm", Bar)
    runner.execute(part, runner.check_resumable(part), progress_bar=False)
    assert seen["kwargs"]["total"] == 3 and seen["kwargs"]["initial"] == 2
    assert sum(seen["updates"]) == 1
