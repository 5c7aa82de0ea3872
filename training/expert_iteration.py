"""Expert iteration: a policy improved by its own play checked by search (issue 39).

Each iteration, for each side trained:

1. **play**: the current student, wrapped as :class:`agents.ffo.search.PolicySearchAgent`, plays
   ``games`` games against opponents drawn from ``opponents``. At every decision of its side the
   agent takes the policy's argmax, except where the policy is unsure and determinized rollouts
   (only what the side may see) score one of its other top candidates clearly better: then that one.
   The states are the student's own (DAgger-style: the improved policy's play supplies them);
2. **label**: every such decision is labelled with the move played. Decisions where search changed the
   policy's choice carry what is new; ``keep_unchanged`` of the others are kept as the policy's own
   choice (self-distillation), which anchors everything the search did not look at;
3. **fit**: ``epochs`` passes of masked cross-entropy over all the iterations' data so far, the changed
   decisions counted ``changed_weight`` times, starting from the previous student.

No bot labels a decision: the scripted bots only play the rollouts' continuations and the opponents.
Outputs in the run folder (:class:`training.run_folder.RunFolder`, the layout every ``ffo train`` method
shares): ``config.yaml`` (resolved, with ``method: expert_iteration``), ``command.txt``, ``seed.txt``,
``versions.json``, ``progress.json`` (per side, per iteration: games, the search's win rate and counts, fit
losses, seconds), the stage folders ``students/<side>_it<i>.pt`` and ``data/<side>_it<i>.npz`` after each
iteration (a finished iteration is not redone: resuming the run continues it), ``policies/<side>.pt`` (the
last student).
"""

from __future__ import annotations

import multiprocessing as mp
import random
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.ffo.search import TeacherSettings
from training import student_loop
from training.method_command import MethodCommand
from training.method_config import SIDES, common_checks, enforce, read_run_file, start_sided_run
from training.run_folder import RunFolder
from training.student_loop import OBS_KEYS, Played, load_student

METHOD = "expert_iteration"  # the config key `method` that makes `ffo train` run this trainer


class ExpertIterationError(ValueError):
    """A config that cannot be used; the message names the file and key."""


@dataclass
class ExpertIterationConfig:
    """One expert-iteration run (``configs/ffo/train_expert_iteration.yaml``)."""

    run_name: str = "expert_iteration"
    seed: int = 0
    sides: list[str] = field(default_factory=lambda: ["french", "german"])
    init_policy: str = "pretrained"  # the start of each side: 'pretrained' or a policy .pt of that side
    iterations: int = 2
    games: int = 40  # games played per side per iteration (split over the workers)
    workers: int = 1
    opponents: dict[str, float] = field(default_factory=lambda: {"expert": 0.5, "heuristic": 0.5})
    keep_unchanged: float = (
        0.1  # share of the decisions where search kept the policy's choice, kept as labels
    )
    changed_weight: int = 4  # each decision where search changed the choice counts this many times in the fit
    epochs: int = 2
    batch_size: int = 64
    learning_rate: float = 1e-4
    teacher: dict[str, Any] = field(default_factory=dict)  # TeacherSettings fields
    setup: str = "random"  # setup mode of every game (R2), as `ffo eval` and `ffo compare` play them

    def teacher_settings(self) -> TeacherSettings:
        t = dict(self.teacher)
        if "decisions" in t:
            t["decisions"] = tuple(t["decisions"])
        return TeacherSettings(**t)


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> ExpertIterationConfig:
    """Read and check a run file; errors name the file and the key."""
    p, cfg = read_run_file(path, METHOD, ExpertIterationConfig, ExpertIterationError, overrides)
    checks = [*common_checks(cfg), ("teacher", isinstance(cfg.teacher, dict), "a mapping of search settings")]
    enforce(p, cfg, checks, ExpertIterationError)
    try:
        cfg.teacher_settings()
    except (TypeError, ValueError) as e:
        raise ExpertIterationError(f"{p}: key 'teacher': {e}") from e
    return cfg


# ------------------------------------------------------------------ collection


@dataclass
class PlayJob:
    """What one collection worker plays (picklable, for spawned processes)."""

    side: str
    student: str  # 'pretrained' or a policy .pt path
    teacher: dict[str, Any]
    opponents: dict[str, float]
    games: int
    seed: int
    keep_unchanged: float
    setup: str = "random"


def play(job: PlayJob) -> dict[str, Any]:
    """Play ``job.games`` games with the student + search; returns the kept decisions and the game stats."""
    import torch

    from agents.ffo.search import PolicySearchAgent
    from agents.registry import make_agent
    from ffo_env.ffo.core.sides import Side
    from ffo_env.ffo.encoding.observation import encoder_for
    from ffo_env.ffo.env import make_game

    torch.set_num_threads(1)  # one worker per core
    rng = random.Random(job.seed)
    t = dict(job.teacher)
    if "decisions" in t:
        t["decisions"] = tuple(t["decisions"])
    agent = PolicySearchAgent(load_student(job.student, job.side), TeacherSettings(**t), seed=job.seed)
    me = int(Side.of(job.side))
    other = SIDES[1 - me]
    names = sorted(job.opponents)
    weights = [job.opponents[n] for n in names]
    rows: dict[str, list[Any]] = {k: [] for k in (*OBS_KEYS, "mask", "action", "changed")}
    games: list[dict[str, Any]] = []
    game = make_game(job.setup)
    enc = encoder_for(game)
    for _g in range(job.games):
        seed = rng.randrange(2**31)
        state = game.new_initial_state(seed)
        opp_name = rng.choices(names, weights)[0]
        opp = make_agent(opp_name, other, seed=rng.randrange(2**31))
        agent.reset(rng.randrange(2**31))
        before = agent.stats.as_dict()
        while not state.is_terminal():
            if int(state.current_side) != me:
                state.apply_action(opp.act_state(state))
                continue
            legal = state.legal_actions()
            chosen, own = agent.label(state)
            changed = chosen != own
            if len(legal) > 1 and (changed or rng.random() < job.keep_unchanged):
                obs = enc.encode(state, me, legal=legal)
                for k in OBS_KEYS:
                    rows[k].append(np.array(obs[k], copy=True))
                rows["mask"].append(enc.mask(state, legal))
                rows["action"].append(np.int64(chosen))
                rows["changed"].append(np.bool_(changed))
            state.apply_action(chosen)
        after = agent.stats.as_dict()
        games.append(
            {
                "seed": seed,
                "opponent": opp_name,
                "win": int(state.winner == me),
                "vp": state.vp,
                "searched": after["searched"] - before["searched"],
                "changed": after["changed"] - before["changed"],
            }
        )
    data = {k: np.stack(v) if v else np.zeros((0,)) for k, v in rows.items()}
    return {"data": data, "games": games, "search": agent.stats.as_dict()}


def _run_jobs(jobs: list[PlayJob]) -> list[dict[str, Any]]:
    if len(jobs) == 1:
        return [play(jobs[0])]
    with mp.get_context("spawn").Pool(len(jobs)) as pool:
        return pool.map(play, jobs)


def train_side(cfg: ExpertIterationConfig, side: str, folder: RunFolder, progress: dict[str, Any]) -> Path:
    """All iterations for ``side`` (:func:`training.student_loop.train_side`); returns the last student's ``.pt``."""

    def play_iteration(it: int, student: str) -> Played:
        per = -(-cfg.games // cfg.workers)
        base = cfg.seed * 7_919 + 1_000 * it + (0 if side == "french" else 500)
        jobs = [
            PlayJob(
                side,
                student,
                dict(cfg.teacher),
                dict(cfg.opponents),
                per,
                base + w,
                cfg.keep_unchanged,
                cfg.setup,
            )
            for w in range(cfg.workers)
        ]
        results = _run_jobs(jobs)
        games = [g for r in results for g in r["games"]]
        wins = sum(g["win"] for g in games)
        row = {
            "games": len(games),
            "search_win_rate": wins / max(len(games), 1),
            "searched": sum(g["searched"] for g in games),
            "changed": sum(g["changed"] for g in games),
            "game_rows": games,
        }

        summary = (
            f"expert iteration {side} {it + 1}/{cfg.iterations}: {len(games)} games, policy+search won {wins}, "
            f"searched {row['searched']} decisions and changed {row['changed']}"
        )
        return Played([r["data"] for r in results], row, summary)

    return student_loop.train_side(cfg, side, folder, progress, METHOD, play_iteration)


def run(cfg: ExpertIterationConfig, out: Path, argv: list[str] | None = None) -> dict[str, Path]:
    """Start or continue the run in the folder ``out``: what each start writes (config, command, seed,
    versions), then every side's iterations not done yet."""
    resolved = {"method": METHOD, **asdict(cfg)}
    folder, progress = start_sided_run(out, resolved, cfg.seed, argv, ExpertIterationError)
    return {side: train_side(cfg, side, folder, progress) for side in cfg.sides}


def config_method(path: str | Path) -> str | None:
    """The ``method`` key of a run file or of a run folder's ``config.yaml`` (None: absent or unreadable)."""
    import yaml

    p = Path(path)
    if p.is_dir():
        p = RunFolder(p).config_path
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    return raw.get("method") if isinstance(raw, dict) else None


CLI = MethodCommand(
    "python -m training.expert_iteration",
    __doc__ or "",
    "configs/ffo/train_expert_iteration.yaml",
    "--set games=4 --set 'sides=[french]'",
    load_config,
    run,
)
command = CLI.command
main = CLI.main


if __name__ == "__main__":
    sys.exit(main())
