"""``ffo bench`` runs end to end and writes its JSON report (no timing assertions: time limits
belong in the benchmark, not in the tests)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import bench

ROOT = Path(__file__).resolve().parents[1]
RATES = (
    "core_decisions_per_s",
    "aec_steps_per_s",
    "aec_raw_steps_per_s",
    "single_agent_steps_per_s",
    "single_agent_compact_steps_per_s",
    # the second game of the suite, Springtime for Hitler, in the same run (report version 4)
    "springtime_core_decisions_per_s",
    "springtime_aec_steps_per_s",
    "springtime_flat_steps_per_s",
    # the scripted bots playing both sides of France Fights On (report version 5)
    "bot_heuristic_decisions_per_s",
    "bot_expert_decisions_per_s",
    # the third game, France, 1940, through the same loop over the suite's registry (report version 6)
    "france1940_core_decisions_per_s",
    "france1940_aec_steps_per_s",
    "france1940_flat_steps_per_s",
)


def _check_rate(v: dict) -> None:
    assert set(v) >= {"median", "min", "max", "repeats"}
    assert v["min"] <= v["median"] <= v["max"]
    assert all(x >= 0 for x in v["repeats"])


def test_quick_bench_report_structure(tmp_path):
    out = tmp_path / "bench.json"
    rc = bench.main(
        [
            "--quick",
            "--seconds",
            "0.05",
            "--warmup",
            "0",
            "--repeats",
            "2",
            "--memory-steps",
            "5",
            "--out",
            str(out),
        ]
    )
    assert rc == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["format"] == "ffo-bench" and report["version"] == bench.VERSION
    assert report["settings"]["seconds"] == 0.05 and report["settings"]["repeats"] == 2
    assert {"python", "numpy", "pettingzoo"} <= set(report["versions"])
    assert {"cpu", "cores", "loadavg_before", "loadavg_after"} <= set(report["machine"])
    r = report["results"]
    for k in RATES:
        _check_rate(r[k])
        assert len(r[k]["repeats"]) == 2
    for k in ("core_games_per_s", *(f"{g}_core_games_per_s" for g in bench.OTHER_GAMES)):
        # a game longer than the 0.05 s repeat is not measured, not 0 games/s
        assert r[k] == {"error": "no game finished within a 0.05 s repeat"} or _check_rate(r[k]) is None
    assert r["aec_steps_per_s"]["median"] > 0
    assert (
        r["memory_mib"]["one_env"] > 0 and r["memory_mib"]["eight_envs"] >= r["memory_mib"]["one_env"] * 0.5
    )
    assert 0 <= r["env_churn_rss_mib"] < 40  # issue bar: 1,000 envs grow a process by < 40 MiB
    for peer in bench.PEERS:
        v = r[f"{peer}_steps_per_s"]
        if "error" in v:
            continue  # optional peer not installed
        _check_rate(v)
        assert r[f"ratio_aec_to_{peer}"] > 0 and len(r[f"ratio_aec_to_{peer}_spread"]) == 2
        for game in bench.OTHER_GAMES:
            assert r[f"ratio_{game}_aec_to_{peer}"] > 0
    for game in bench.OTHER_GAMES:
        assert r[f"{game}_aec_steps_per_s"]["median"] > 0 and r[f"{game}_flat_steps_per_s"]["median"] > 0
        lo, hi = r[f"ratio_{game}_aec_to_ffo_aec_spread"]
        assert lo <= r[f"ratio_{game}_aec_to_ffo_aec"] <= hi and lo > 0
    assert "train" not in r  # --quick skips the training figure
    table = bench.format_table(report)
    assert "AEC env() steps/s" in table and "load average" in table
    for title in ("Springtime for Hitler", "France, 1940"):
        assert f"{title} AEC env() steps/s" in table and f"{title} Gymnasium flat env steps/s" in table
        assert f"{title} AEC / France Fights On AEC = " in table
    assert "expert bot decisions/s (both sides)" in table and r["bot_expert_decisions_per_s"]["median"] > 0


def test_every_other_game_of_the_registry_is_measured_and_one_can_be_left_out(tmp_path, monkeypatch):
    """The games beside France Fights On come from the suite's registry (no game named in the bench): each
    gets its rows under its own name, ``--skip-game`` (and the former ``--skip-springtime``) leaves one out,
    and a name that is not one of them is refused before anything is measured."""
    from ffo_env.games import DEFAULT_GAME, GAME_NAMES

    assert set(bench.OTHER_GAMES) == set(GAME_NAMES) - {DEFAULT_GAME} >= {"springtime", "france1940"}
    measured: list[str] = []
    from benchmarks import report as report_module

    def fake_core(game: str, seconds: float, seed0: int = 0) -> tuple[dict[str, int], float]:
        measured.append(game)
        return {"decisions": 10, "games": 1}, 0.01

    monkeypatch.setattr(report_module, "suite_core_random", fake_core)
    args = ["--quick", "--seconds", "0.02", "--warmup", "0", "--repeats", "1", "--skip-peers"]
    args += ["--memory-steps", "2", "--skip-game", "france1940", "--out", str(tmp_path / "b.json")]
    assert bench.main(args) == 0
    r = json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))["results"]
    assert set(measured) == {"springtime"} and "france1940_aec_steps_per_s" not in r
    assert r["springtime_core_decisions_per_s"]["median"] == pytest.approx(1000.0)
    assert r["springtime_core_games_per_s"]["median"] == pytest.approx(100.0)  # 1 game in 0.01 s
    measured.clear()
    assert bench.main([*args, "--skip-springtime"]) == 0  # both left out now
    r = json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))["results"]
    assert measured == [] and not any(k.startswith(("springtime_", "france1940_")) for k in r)
    with pytest.raises(SystemExit):
        bench.main(["--skip-game", "ffo", "--out", str(tmp_path / "c.json")])
    with pytest.raises(ValueError, match="not among the games"):
        bench.run_bench(0.01, 1, 0, skip_train=True, skip_peers=True, skip_games=("chess",))
    assert not (tmp_path / "c.json").exists()


def test_games_per_s_is_not_measured_when_no_repeat_finishes_a_game():
    from benchmarks.report import _games_per_s

    assert _games_per_s([({"decisions": 500, "games": 0}, 3.0)] * 3, 3.0) == {
        "error": "no game finished within a 3 s repeat"
    }
    r = _games_per_s([({"decisions": 500, "games": 0}, 2.0), ({"decisions": 500, "games": 1}, 2.0)], 2.0)
    assert r["repeats"] == [0.0, 0.5] and r["median"] == 0.25
    table = bench.format_table({"results": {"france1940_core_games_per_s": {"error": "no game finished"}}})
    assert "France, 1940 core full games/s" in table and "n/a" in table


def test_profile_writes_a_breakdown(tmp_path):
    out = tmp_path / "b.json"
    prof = tmp_path / "aec.profile.txt"
    rc = bench.main(["--profile-only", "--seconds", "0.1", "--profile", str(prof), "--out", str(out)])
    assert rc == 0
    text = prof.read_text(encoding="utf-8")
    assert "us per step" in text and "encoder: encode" in text and "sorted by tottime" in text
    p = json.loads(out.read_text(encoding="utf-8"))["profile"]
    assert p["breakdown"]["steps"] > 0 and p["breakdown"]["us_per_step"]["encoder: encode"] > 0
    assert Path(p["prof"]).exists()


def test_step_breakdown_restores_the_patched_functions():
    from ffo_env.ffo.core import evacuation, masks
    from ffo_env.ffo.core import state as st
    from ffo_env.ffo.encoding.observation import ObservationEncoder

    before = (st.State.apply_action, masks.flood_bits, evacuation.flood_bits, ObservationEncoder.encode)
    bench.step_breakdown(0.05)
    assert (
        st.State.apply_action,
        masks.flood_bits,
        evacuation.flood_bits,
        ObservationEncoder.encode,
    ) == before


@pytest.mark.slow
def test_script_entry_point(tmp_path):
    """``python benchmarks/bench.py`` works as well as ``ffo bench``."""
    out = tmp_path / "bench.json"
    args = [
        "--quick",
        "--seconds",
        "0.05",
        "--warmup",
        "0",
        "--skip-peers",
        "--memory-steps",
        "5",
        "--out",
        str(out),
    ]
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench.py"), *args], check=True, cwd=tmp_path)
    assert json.loads(out.read_text())["results"]["aec_steps_per_s"]["median"] > 0
    subprocess.run([sys.executable, "-m", "ffo_env.cli", "bench", *args], check=True, cwd=tmp_path)


def test_table_shows_the_training_figures_and_the_ratio_to_the_wrapper():
    rate = {"median": 2000.0, "min": 1900.0, "max": 2100.0, "repeats": [2000.0]}
    report = {
        "results": {
            "single_agent_steps_per_s": rate,
            "train": {
                "samples_per_s": 500.0,
                "samples_per_cpu_s": 600.0,
                "timesteps": 5000,
                "seconds": 10.0,
                "n_envs": 16,
                "vec_env": "dummy",
                "config": "q.yaml",
            },
            "ratio_train_to_single_agent": 0.25,
            "train_all_cores": {
                "samples_per_s": 700.0,
                "timesteps": 7000,
                "seconds": 10.0,
                "learner_threads": 2,
            },
            "ratio_train_all_cores_to_single_agent": 0.35,
            "train_pipelined": {
                "samples_per_s": 1100.0,
                "samples_per_cpu_s": 560.0,
                "timesteps": 11000,
                "seconds": 10.0,
            },
            "ratio_train_pipelined_to_single_agent": 0.55,
            "imitation_fit": {
                "samples_per_s": 900.0,
                "samples": 9000,
                "seconds": 10.0,
                "batch_size": 64,
                "config": "q.yaml",
            },
        }
    }
    table = bench.format_table(report)
    assert "MaskablePPO: 500 samples/s, 600 per CPU second" in table and "= 0.25" in table
    assert "16 dummy envs" in table
    assert "updates on 2 cores: 700 samples/s" in table and "= 0.35" in table
    assert "pipelined in a worker (vec_env: pipelined, 2 cores): 1,100 samples/s, 560 per CPU" in table
    assert "= 0.55" in table
    assert "imitation fit: 900 samples/s" in table and "batch 64" in table


def _tiny_training_config(tmp_path, vec_env):
    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(
        f"n_envs: 2\nvec_env: {vec_env}\nppo: {{n_steps: 16, batch_size: 32, n_epochs: 1}}\n"
        "policy: {cnn_dim: 16, channels: 4, spatial: 2, net_arch: [8]}\n"
    )
    return cfg


def test_training_figures_measure_a_tiny_config(tmp_path):
    """The MaskablePPO figure runs whole rollout + update cycles of the config it is given, with the learner
    threads it is asked for (the every-core figure sets them as ``ffo train`` does)."""
    pytest.importorskip("sb3_contrib")
    from benchmarks.training_speed import measure_training_speed

    cfg = _tiny_training_config(tmp_path, "dummy")
    r = measure_training_speed(config=str(cfg), seconds=0.1, learner_threads=2)
    assert r["timesteps"] >= 32 and r["timesteps"] % 32 == 0 and r["samples_per_s"] > 0
    assert (r["n_envs"], r["n_steps"], r["learner_threads"]) == (2, 16, 2)


def test_pipelined_figure_counts_the_workers_cpu_and_one_core_figure_keeps_one_process(tmp_path):
    """The pipelined figure runs the rollout worker and adds its CPU seconds to the learner's; the one-core
    figure of a pipelined config steps its envs in the learner process."""
    pytest.importorskip("sb3_contrib")
    from benchmarks.training_speed import measure_training_speed

    cfg = _tiny_training_config(tmp_path, "pipelined")
    piped = measure_training_speed(config=str(cfg), seconds=0.5, learner_threads=1)
    assert piped["vec_env"] == "pipelined" and piped["timesteps"] >= 32
    assert piped["worker_cpu_seconds"] > 0
    assert piped["cpu_seconds"] == pytest.approx(piped["learner_cpu_seconds"] + piped["worker_cpu_seconds"])
    inline = measure_training_speed(config=str(cfg), seconds=0.1, learner_threads=1, one_process=True)
    assert inline["vec_env"] == "dummy" and inline["worker_cpu_seconds"] == 0
