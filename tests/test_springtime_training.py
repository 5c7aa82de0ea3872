"""``ffo train --game springtime`` (issue 41 item 5): the run folder, resume, policy files as opponents, the
shipped pretrained pair, and one clear error for a bad config or a policy of the other game."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from agents.springtime import make_agent  # noqa: E402
from agents.springtime.policy import PRETRAINED_DIR, PolicyLoadError, load_policy  # noqa: E402
from ffo_env.cli import main as ffo  # noqa: E402
from ffo_env.springtime.core.game import ENGINE_VERSION, Game  # noqa: E402
from training.run_folder import RunFolder  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TINY = """\
game: springtime
run_name: tiny
seed: 5
policy: {net_arch: [16], activation: relu}
imitation: {teacher: heuristic, decisions: 100, iterations: 2, epochs: 1, opponents: {random: 1.0}}
ppo: {rounds: 1, steps_per_round: 64, checkpoint_every: 32, n_envs: 2, n_steps: 16, batch_size: 32, n_epochs: 1}
eval: {games: 1, opponents: [random], compare_imitation: false}
"""


def _train(tmp: Path, *extra: str, text: str = TINY) -> tuple[int, Path | None]:
    cfg = tmp / "tiny.yaml"
    cfg.write_text(text)
    out = tmp / "runs"
    code = ffo(["train", "--game", "springtime", "--config", str(cfg), "--out", str(out), *extra])
    runs = sorted(out.glob("tiny-*")) if out.exists() else []
    return code, (runs[-1] if runs else None)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    code, run = _train(tmp_path_factory.mktemp("sfh_train"))
    assert code == 0 and run is not None
    return run


def _play(french: object, german: object, seed: int) -> int:
    bots = [french, german]
    s = Game().new_initial_state(seed)
    while not s.is_terminal():
        a = bots[s.current_side].act_state(s)  # type: ignore[attr-defined]
        assert a in s.legal_actions()
        s.apply_action(a)
    return int(s.winner)


def test_the_run_folder_holds_config_progress_checkpoints_policies_and_evaluation(run_dir: Path) -> None:
    run = RunFolder.locate(run_dir)
    assert run.read_config()["game"] == "springtime" and run.read_seed() == 5
    progress = run.read_progress()
    for key in ("imitation:french:2", "imitation:german:2", "ppo:french:r1", "ppo:german:r1", "export"):
        assert key in progress["done"]
    assert {"eval:final:french:random", "eval:final:german:random"} <= set(progress["done"])
    for side in ("french", "german"):
        assert progress["timesteps"][side] >= 64
        assert run.checkpoint_manifest(side).is_file() and run.policy(side).is_file()
        assert run.pretrain_report(side).is_file()
        curve = (run.stage_dir("ppo") / f"{side}.jsonl").read_text().splitlines()
        assert len(curve) >= 2 and json.loads(curve[-1])["timesteps"] >= 64
    results = run.read_json(run.eval_results, "evaluation")
    assert {(p["policy"], p["side"], p["opponent"]) for p in results["pairings"]} == {
        ("final", "french", "random"),
        ("final", "german", "random"),
    }
    assert all(0 <= p["wilson95"][0] <= p["wilson95"][1] <= 1 for p in results["pairings"])


def test_run_policies_load_as_policy_path_agents_and_play_legal_games(run_dir: Path) -> None:
    run = RunFolder(run_dir)
    french = make_agent(f"policy:{run.policy('french')}", "french", seed=1)
    german = make_agent(f"policy:{run.policy('german')}", "german", seed=1)
    assert _play(french, german, 3) in (0, 1)
    meta = json.loads(run.policy("german").with_suffix(".json").read_text())
    assert meta["game"] == "springtime" and meta["side"] == "german" and meta["extra"]["seed"] == 5


def test_a_policy_is_an_opponent_in_the_gymnasium_env(run_dir: Path) -> None:
    import gymnasium as gym
    import numpy as np

    import ffo_env  # noqa: F401  (registers the ids)

    env = gym.make(
        "ffo_env/Springtime-French-flat-v0", opponent=f"policy:{RunFolder(run_dir).policy('german')}"
    )
    obs, info = env.reset(seed=0)
    for _ in range(30):
        legal = np.flatnonzero(info["action_mask"])
        obs, _r, done, trunc, info = env.step(int(legal[0]))
        if done or trunc:
            break
    env.close()


def test_a_policy_of_the_wrong_side_is_refused(run_dir: Path) -> None:
    with pytest.raises(ValueError, match="plays the french side, not german"):
        make_agent(f"policy:{RunFolder(run_dir).policy('french')}", "german")


def test_a_policy_of_the_other_game_is_one_clear_error(run_dir: Path) -> None:
    from agents import make_agent as make_ffo_agent
    from agents.ffo.pretrained import pretrained_path

    with pytest.raises(ValueError, match="a Springtime for Hitler policy; play it with --game springtime"):
        make_ffo_agent(f"policy:{RunFolder(run_dir).policy('french')}", "french")
    with pytest.raises(PolicyLoadError, match="a France Fights On policy, not a Springtime for Hitler one"):
        make_agent(f"policy:{pretrained_path('french')}", "french")


def test_a_changed_observation_layout_is_refused_with_what_to_do(run_dir: Path, tmp_path: Path) -> None:
    import shutil

    src = RunFolder(run_dir).policy("french")
    shutil.copy(src, tmp_path / "p.pt")
    meta = json.loads(src.with_suffix(".json").read_text())
    meta["observation_spec_hash"] = "0" * 16
    (tmp_path / "p.json").write_text(json.dumps(meta))
    with pytest.raises(PolicyLoadError, match="retrain it with 'ffo train --game springtime'"):
        load_policy(tmp_path / "p.pt")


@pytest.mark.parametrize(("engine", "loads"), [("springtime-core-1", True), ("springtime-core-0", False)])
def test_a_policy_of_a_compatible_earlier_engine_loads_and_another_is_refused(
    run_dir: Path, tmp_path: Path, engine: str, loads: bool
) -> None:
    """Issue 61: springtime-core-1 policies (the shipped pair) play on springtime-core-2 (same observation and
    actions; COMPATIBLE_ENGINES), any other engine is refused with what to do."""
    import shutil

    src = RunFolder(run_dir).policy("french")
    shutil.copy(src, tmp_path / "p.pt")
    meta = json.loads(src.with_suffix(".json").read_text())
    assert meta["engine"] == ENGINE_VERSION
    meta["engine"] = engine
    (tmp_path / "p.json").write_text(json.dumps(meta))
    if loads:
        assert load_policy(tmp_path / "p.pt").meta["engine"] == engine
    else:
        with pytest.raises(PolicyLoadError, match="rules engine 'springtime-core-0'.*retrain it"):
            load_policy(tmp_path / "p.pt")


def test_an_interrupted_run_resumes_from_its_last_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from training.springtime import ppo

    real = ppo.save_checkpoint
    calls = {"n": 0}

    def save_then_die(model: object, run: RunFolder, side: str) -> Path:
        path = real(model, run, side)
        calls["n"] += 1
        if calls["n"] == 3:  # french round done, german's first checkpoint written: the machine goes down
            raise KeyboardInterrupt
        return path

    monkeypatch.setattr(ppo, "save_checkpoint", save_then_die)
    assert _train(tmp_path)[0] == 130  # ffo reports "interrupted"
    monkeypatch.setattr(ppo, "save_checkpoint", real)
    (run_dir,) = (tmp_path / "runs").glob("tiny-*")
    run = RunFolder(run_dir)
    before = run.read_progress()
    assert "ppo:french:r1" in before["done"] and "ppo:german:r1" not in before["done"]
    # killed after german's first checkpoint was written, before progress.json said so
    assert json.loads(run.checkpoint_manifest("german").read_text())["num_timesteps"] == 32
    assert ffo(["train", "--resume", str(run_dir)]) == 0  # the run folder says game: springtime
    after = run.read_progress()
    assert {"ppo:german:r1", "export", "eval:final:german:random"} <= set(after["done"])
    assert after["done"].count("imitation:german:1") == 1 and after["timesteps"]["german"] == 64
    curve = [json.loads(x) for x in (run.stage_dir("ppo") / "german.jsonl").read_text().splitlines()]
    assert [c["timesteps"] for c in curve] == [64]  # continued from the checkpoint at 32, not restarted
    assert len(run.read_commands()) == 2 and len(run.read_versions()) == 2


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (TINY.replace("rounds: 1", "rounds: one"), "ppo.rounds: expected int"),
        (TINY.replace("teacher: heuristic", "teacher: oracle"), "imitation.teacher"),
        (TINY + "lerning_rate: 0.1\n", "lerning_rate: unknown key"),
        (TINY.replace("random: 1.0", "random: -1.0"), "imitation.opponents.random"),
        ("game: springtime\nppo: [1, 2\n", "not valid YAML"),
        ("run_name: x\nrounds: 2\n", "game: missing; a Springtime for Hitler config says 'game: springtime'"),
    ],
)
def test_a_bad_config_is_one_clear_error_and_no_run_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, where: str
) -> None:
    code, run = _train(tmp_path, text=text)
    err = capsys.readouterr().err.strip()
    assert code == 2 and run is None
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and "tiny.yaml" in err and where in err, (
        err
    )


def test_a_bad_set_override_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, run = _train(tmp_path, "--set", "ppo.n_envs=0")
    err = capsys.readouterr().err.strip()
    assert (
        code == 2
        and run is None
        and err == f"error: {tmp_path / 'tiny.yaml'}: ppo.n_envs: expected a positive number, got 0"
    )


@pytest.mark.parametrize(
    "option", [["--backend", "rllib"], ["--data", "reconstruction-v3"], ["--trust-pickle"]]
)
def test_ffo_options_are_refused_for_springtime(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    code, run = _train(tmp_path, *option)
    err = capsys.readouterr().err
    assert (
        code == 2
        and run is None
        and err.startswith("error: --backend")
        and len(err.strip().splitlines()) == 1
    )


def test_the_shipped_configs_load() -> None:
    from training.springtime.config import load_config

    for name in ("train_quick", "train"):
        cfg = load_config(ROOT / "configs" / "springtime" / f"{name}.yaml")
        assert cfg.sides == ["french", "german"] and cfg.ppo.rounds >= 1 and cfg.imitation.teacher


def test_no_springtime_load_path_unpickles() -> None:
    offenders = []
    for path in [*ROOT.glob("training/springtime/*.py"), ROOT / "agents" / "springtime" / "policy.py"]:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if re.search(r"torch\.load\(", code) and "weights_only=True" not in code:
                offenders.append(f"{path.name}:{n}")
            if re.search(r"np\.load\(", code) and "allow_pickle=False" not in code:
                offenders.append(f"{path.name}:{n}")
            if re.search(r"\bpickle\.loads?\(|\bPPO\.load\(", code):
                offenders.append(f"{path.name}:{n}")
    assert not offenders, offenders


def test_release_installs_the_pair_with_a_model_card_read_from_the_run(run_dir: Path, tmp_path: Path) -> None:
    from training.springtime.release import main as release

    assert release([str(run_dir), "--dest", str(tmp_path)]) == 0
    card = (tmp_path / "MODEL_CARD.md").read_text()
    assert "| final | french | random | 1 |" in card and "seed 5" in card and ENGINE_VERSION in card
    for side in ("french", "german"):
        assert (tmp_path / f"{side}.pt").read_bytes() == RunFolder(run_dir).policy(side).read_bytes()
        assert load_policy(tmp_path / f"{side}.pt").side == side


def test_release_refuses_an_unfinished_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from training.springtime.release import main as release

    run = RunFolder(tmp_path / "run")
    run.root.mkdir()
    run.write_config({"game": "springtime"})
    run.write_progress({"done": [], "snapshots": {}, "timesteps": {}})
    assert release([str(run.root), "--dest", str(tmp_path / "dest")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "has not finished export" in err and not (tmp_path / "dest").exists()


# --- the shipped pair (agents/springtime/pretrained_policies) -------------------------------------------------


def test_the_pretrained_pair_loads_with_its_model_card() -> None:
    for side in ("french", "german"):
        agent = make_agent("pretrained", side, seed=0)
        assert agent.side == side and agent.name == "pretrained"
        assert (PRETRAINED_DIR / f"{side}.pt").stat().st_size < 5_000_000
    card = (PRETRAINED_DIR / "MODEL_CARD.md").read_text()
    assert "| final | german | random | 200 |" in card and "Wilson" in card


@pytest.mark.parametrize(("side", "opponent"), [("german", "random"), ("french", "heuristic")])
def test_the_pretrained_policy_beats_what_random_play_cannot(side: str, opponent: str) -> None:
    # The telling pairings (environment card, 200 games): random Axis beat random Allies in 1 of 200, random
    # Allies beat the heuristic Axis in 1 of 200. Seeds 0-9, argmax play: deterministic.
    me = make_agent("pretrained", side, seed=0)
    wins = 0
    for seed in range(10):
        bot = make_agent(opponent, "german" if side == "french" else "french", seed=seed)
        winner = _play(me, bot, seed) if side == "french" else _play(bot, me, seed)
        wins += int(winner == (0 if side == "french" else 1))
    assert wins >= (7 if side == "german" else 3), f"{side} vs {opponent}: {wins}/10"


def test_the_policys_fast_probabilities_are_sb3_contribs_distribution() -> None:
    """SpringtimePolicyAgent.probabilities skips building torch distributions; it must read the same numbers."""
    import numpy as np
    import torch

    from ffo_env.springtime.core.actions import N_ACTIONS
    from ffo_env.springtime.encoding import encode

    agents = {s: make_agent("pretrained", s, seed=0) for s in ("french", "german")}
    bots = {s: make_agent("heuristic", s, seed=1) for s in ("french", "german")}
    state = Game().new_initial_state(3)
    checked = 0
    while not state.is_terminal() and checked < 40:
        side = "french" if int(state.current_side) == 0 else "german"
        legal = state.legal_actions()
        if len(legal) > 1:
            obs = encode(state, int(state.current_side))
            mask = np.zeros(N_ACTIONS, dtype=bool)
            mask[legal] = True
            with torch.no_grad():
                x = torch.as_tensor(obs, dtype=torch.float32).reshape(1, -1)
                want = agents[side].policy.get_distribution(x, action_masks=mask[None]).distribution.probs[0]
            assert np.allclose(agents[side].probabilities(obs, mask), want.numpy(), atol=1e-6)
            checked += 1
        state.apply_action(bots[side].act_state(state))
    assert checked == 40


def test_no_springtime_training_module_spells_a_run_folder_name() -> None:
    # the layout belongs to training/run_folder.py (RunFolder), as for France Fights On's trainers
    import ast

    from training import run_folder as rf

    names = {
        rf.CONFIG,
        rf.COMMAND,
        rf.SEED,
        rf.VERSIONS,
        rf.PROGRESS,
        rf.CHECKPOINTS,
        rf.POLICIES,
        rf.RESULTS,
    }
    found = [
        f"{path.name}:{node.lineno}: {node.value!r}"
        for path in ROOT.glob("training/springtime/*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value in names
    ]
    assert not found, found
