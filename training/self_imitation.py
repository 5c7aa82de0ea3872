"""Self-imitation: a policy improved by the outcomes of its own sampled deviations (issue 39).

Filtered behaviour cloning with a paired sign label, after Oh et al. 2018, "Self-Imitation Learning": the
policy tries other moves where it is unsure, and learns to repeat the tries of the games that went better
than usual and to drop those of the games that went worse. Each iteration, for each side trained:

1. **play**: the current student plays ``games`` games against opponents drawn from ``opponents``, in the
   ``setup`` mode (``random`` by default, as ``ffo eval`` and ``ffo compare``). At each of its decisions with
   more than one legal action the masked policy distribution is computed once; where the margin between its
   two most probable legal actions is below ``explore_margin`` and the decision kind (the core's pending
   :class:`ffo_env.ffo.core.phases.Decision`, as the census of ``docs/experiments/2026-11-26-rl.md`` counted
   them) is in ``explore_kinds`` (empty: every kind), the move is sampled from the policy's ``top_k``
   legal actions renormalised at ``temperature``; everywhere else it is the argmax. A decision where the
   sample differs from the argmax is a *deviation*;
2. **label** at the end of the iteration, by each game's outcome for the side against a baseline: the score
   is the result (win 1, loss 0) with ties broken by VP (the German wants fewer French VP, the French more),
   compared with the median score of the iteration's games against the same opponent. A game better than
   the median labels its deviations with the move sampled; a worse game labels them with the argmax (the
   deviation is discouraged); a game at the median labels none. ``keep_unchanged`` of the other decisions
   (drawn as they are played) are labelled with the argmax, an anchor against drift;
3. **fit**: ``epochs`` passes of masked cross-entropy over all the iterations' labels so far, from the
   previous student, the deviation labels counted ``changed_weight`` times
   (:func:`training.student_loop.fit_student`). No value target; no bot labels a decision.

Outputs in the run folder (:class:`training.run_folder.RunFolder`): ``config.yaml`` (resolved, with
``method: self_imitation``), ``command.txt``, ``seed.txt``, ``versions.json``, ``progress.json`` (per side,
per iteration: games, wins per opponent, deviations, labels kept, fit loss, seconds, every game's row),
``students/<side>_it<i>.pt`` and ``data/<side>_it<i>.npz`` after each iteration (a finished iteration is not
redone: resuming the run continues it), ``policies/<side>.pt`` (the last student).

A run replays exactly from its seed: each worker draws its games' seeds, opponents and agent seeds from one
``random.Random`` seeded by the run's seed, and each game's sampling and anchor draws from a generator seeded
from that one.
"""

from __future__ import annotations

import multiprocessing as mp
import random
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from training import student_loop
from training.method_command import MethodCommand
from training.method_config import (
    SIDES,
    common_checks,
    enforce,
    int_in,
    num_in,
    read_run_file,
    start_sided_run,
)
from training.run_folder import RunFolder
from training.student_loop import OBS_KEYS, Played, load_student

METHOD = "self_imitation"  # the config key `method` that makes `ffo train` run this trainer
ROW_KEYS = (
    *OBS_KEYS,
    "mask",
    "sampled",
    "argmax",
    "deviated",
    "game",
)  # a played decision kept for labelling
LABEL_KEYS = (*OBS_KEYS, "mask", "action", "changed", "game")  # a labelled decision (data/<side>_it<i>.npz)


class SelfImitationError(ValueError):
    """A config that cannot be used; the message names the file and key."""


def _decision_kinds() -> frozenset[str]:
    from agents.ffo.search import DECISION_NAMES

    return DECISION_NAMES


@dataclass
class SelfImitationConfig:
    """One self-imitation run (``configs/ffo/train_self_imitation.yaml``)."""

    run_name: str = "self_imitation"
    seed: int = 0
    sides: list[str] = field(default_factory=lambda: ["german"])
    init_policy: str = "pretrained"  # the start of each side: 'pretrained' or a policy .pt of that side
    iterations: int = 2
    games: int = 120  # games played per side per iteration (split over the workers)
    workers: int = 1
    opponents: dict[str, float] = field(default_factory=lambda: {"expert": 0.5, "heuristic": 0.5})
    setup: str = "random"  # setup mode of every game (R2): 'random', 'fixed' or 'decide'
    explore_margin: float = 0.5  # sample only where p(top) - p(second) < explore_margin
    explore_kinds: list[str] = field(default_factory=list)  # decision kinds sampled; empty: every kind
    top_k: int = 3  # the sample is drawn from the policy's top_k legal actions, renormalised
    temperature: float = 1.0  # of that renormalised draw (p ** (1 / temperature))
    keep_unchanged: float = 0.1  # share of the decisions not deviated from, kept as argmax labels
    changed_weight: int = 4  # each deviation label counts this many times in the fit
    epochs: int = 2
    batch_size: int = 64
    learning_rate: float = 1e-4


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> SelfImitationConfig:
    """Read and check a run file; errors name the file and the key."""
    p, cfg = read_run_file(path, METHOD, SelfImitationConfig, SelfImitationError, overrides)
    kinds = _decision_kinds()
    checks = [
        *common_checks(cfg),
        ("explore_margin", num_in(cfg.explore_margin, 0.0, 1.0), "a number in [0, 1]"),
        (
            "explore_kinds",
            isinstance(cfg.explore_kinds, list) and all(k in kinds for k in cfg.explore_kinds),
            f"a list of decision kinds ({', '.join(sorted(kinds))}); empty: every kind",
        ),
        ("top_k", int_in(cfg.top_k, 2, 16), "an integer in [2, 16]"),
        ("temperature", num_in(cfg.temperature, 0.01, 100.0), "a number in [0.01, 100]"),
    ]
    enforce(p, cfg, checks, SelfImitationError)
    return cfg


# ------------------------------------------------------------------ the rules of play and of labels


def choose(
    probs: np.ndarray, explore: bool, margin: float, top_k: int, temperature: float, rng: random.Random
) -> tuple[int, int]:
    """``(index played, index of the argmax)`` into ``probs`` (the policy's probabilities of the legal
    actions): the argmax, or where ``explore`` and the top two are closer than ``margin``, a draw from the
    ``top_k`` most probable renormalised at ``temperature`` (one ``rng.random()`` call)."""
    order = np.argsort(-probs, kind="stable")
    best = int(order[0])
    if not explore or len(order) < 2 or probs[order[0]] - probs[order[1]] >= margin:
        return best, best
    top = order[:top_k]
    p = np.asarray(probs[top], dtype=np.float64)
    with np.errstate(divide="ignore"):
        w = np.where(p > 0, np.exp(np.log(np.where(p > 0, p, 1.0)) / temperature), 0.0)
    if w.sum() <= 0:
        return best, best
    cum = np.cumsum(w / w.sum())
    i = min(int(np.searchsorted(cum, rng.random(), side="right")), len(top) - 1)
    return int(top[i]), best


def outcome_score(winner: int | None, me: int, vp: int) -> float:
    """The side's result (win 1, draw 0.5, loss 0) with ties broken by VP: fewer French VP are better for the
    German (side 1), more for the French (side 0). VP stay far below 1000, so the order is lexicographic."""
    result = 0.5 if winner is None else float(winner == me)
    return result + (vp if me == 0 else -vp) / 1000.0


def game_signs(games: list[dict[str, Any]]) -> list[int]:
    """+1 / -1 / 0: each game's ``score`` above, below or at the median score of the games against the same
    ``opponent``."""
    by_opp: dict[str, list[float]] = {}
    for g in games:
        by_opp.setdefault(g["opponent"], []).append(g["score"])
    med = {k: float(np.median(v)) for k, v in by_opp.items()}
    return [int(np.sign(g["score"] - med[g["opponent"]])) for g in games]


def outcome_labels(
    rows: dict[str, np.ndarray], games: list[dict[str, Any]]
) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """Label the kept decisions ``rows`` (:data:`ROW_KEYS`; ``game`` indexes ``games``) by their game's sign
    (:func:`game_signs`): a deviation of a better game -> the sampled move, of a worse game -> the argmax, of a
    median game -> dropped; a decision without deviation (an anchor) -> its argmax. Returns the labels
    (:data:`LABEL_KEYS`; ``changed`` marks deviation labels) and their counts."""
    sign = np.asarray(game_signs(games), dtype=np.int64)
    n = len(rows["game"])
    gs = sign[rows["game"]] if n else np.zeros(0, dtype=np.int64)
    dev = rows["deviated"].astype(bool)
    keep = ~dev | (gs != 0)
    action = np.where(dev & (gs > 0), rows["sampled"], rows["argmax"])
    out = {k: rows[k][keep] for k in (*OBS_KEYS, "mask", "game")}
    out["action"] = action[keep].astype(np.int64)
    out["changed"] = dev[keep]
    counts = {
        "sampled_labels": int((dev & (gs > 0)).sum()),
        "argmax_labels": int((dev & (gs < 0)).sum()),
        "dropped_at_median": int((dev & (gs == 0)).sum()),
        "anchors": int((~dev).sum()),
    }
    return out, counts


# ------------------------------------------------------------------ collection


@dataclass
class PlayJob:
    """What one collection worker plays (picklable, for spawned processes)."""

    side: str
    student: str  # 'pretrained' or a policy .pt path
    opponents: dict[str, float]
    games: int
    seed: int
    setup: str
    explore_margin: float
    explore_kinds: list[str]
    top_k: int
    temperature: float
    keep_unchanged: float
    label: str = ""  # what the progress lines call this job


def play(job: PlayJob) -> dict[str, Any]:
    """Play ``job.games`` games of the sampling student; returns the kept decisions (:data:`ROW_KEYS`, ``game``
    local to the job) and one row per game."""
    import torch

    from agents.ffo.policy import legal_probabilities
    from agents.registry import make_agent
    from ffo_env.ffo.core.sides import Side
    from ffo_env.ffo.encoding.observation import encoder_for
    from ffo_env.ffo.env import make_game

    torch.set_num_threads(1)  # one worker per core
    rng = random.Random(job.seed)
    policy = load_student(job.student, job.side).policy
    policy.set_training_mode(False)
    me = int(Side.of(job.side))
    other = SIDES[1 - me]
    names = sorted(job.opponents)
    weights = [job.opponents[n] for n in names]
    kinds = frozenset(job.explore_kinds)
    rows: dict[str, list[Any]] = {k: [] for k in ROW_KEYS}
    games: list[dict[str, Any]] = []
    game = make_game(job.setup)
    enc = encoder_for(game)
    t0 = time.perf_counter()
    for g in range(job.games):
        seed = rng.randrange(2**31)
        opp_name = rng.choices(names, weights)[0]
        opp = make_agent(opp_name, other, seed=rng.randrange(2**31))
        draw = random.Random(rng.randrange(2**31))  # this game's samples and anchor draws
        state = game.new_initial_state(seed)
        stats = {"decisions": 0, "explored": 0, "deviated": 0, "anchors": 0}
        dev_kinds: dict[str, int] = {}
        while not state.is_terminal():
            if int(state.current_side) != me:
                state.apply_action(opp.act_state(state))
                continue
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply_action(legal[0])
                continue
            obs = enc.encode(state, me, legal=legal)
            mask = enc.mask(state, legal)
            probs = legal_probabilities(policy, obs, mask, legal)
            kind = state.decision.name.lower()
            explore = not kinds or kind in kinds
            i, best = choose(probs, explore, job.explore_margin, job.top_k, job.temperature, draw)
            stats["decisions"] += 1
            order = np.sort(probs)[::-1]
            stats["explored"] += int(explore and order[0] - order[1] < job.explore_margin)
            deviated = i != best
            if deviated:
                stats["deviated"] += 1
                dev_kinds[kind] = dev_kinds.get(kind, 0) + 1
            elif draw.random() < job.keep_unchanged:
                stats["anchors"] += 1
            else:
                state.apply_action(legal[i])
                continue
            for k in OBS_KEYS:
                rows[k].append(np.array(obs[k], copy=True))
            rows["mask"].append(np.array(mask, copy=True))
            rows["sampled"].append(np.int64(legal[i]))
            rows["argmax"].append(np.int64(legal[best]))
            rows["deviated"].append(np.bool_(deviated))
            rows["game"].append(np.int64(g))
            state.apply_action(legal[i])
        win = int(state.winner == me)
        games.append(
            {
                "seed": seed,
                "opponent": opp_name,
                "win": win,
                "vp": int(state.vp),
                "score": outcome_score(state.winner, me, int(state.vp)),
                **stats,
                "deviated_by_kind": dict(sorted(dev_kinds.items())),
            }
        )
        dt = time.perf_counter() - t0
        eta = dt / (g + 1) * (job.games - g - 1)
        print(
            f"{job.label}game {g + 1}/{job.games} vs {opp_name}: {'won' if win else 'lost'} (French VP "
            f"{state.vp}), {stats['deviated']} deviations; {dt / (g + 1):.1f} s a game, ETA {eta / 60:.1f} min",
            flush=True,
        )
    data = {k: np.stack(v) if v else np.zeros((0,)) for k, v in rows.items()}
    return {"rows": data, "games": games}


def _run_jobs(jobs: list[PlayJob]) -> list[dict[str, Any]]:
    if len(jobs) == 1:
        return [play(jobs[0])]
    with mp.get_context("spawn").Pool(len(jobs)) as pool:
        return pool.map(play, jobs)


def _merge(results: list[dict[str, Any]]) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """The workers' rows and games as one iteration, ``game`` renumbered to index the merged games."""
    parts: list[dict[str, np.ndarray]] = []
    games: list[dict[str, Any]] = []
    for r in results:
        if len(r["rows"]["game"]):
            parts.append({**r["rows"], "game": r["rows"]["game"] + len(games)})
        games.extend(r["games"])
    if not parts:
        return {k: np.zeros((0,), dtype=np.int64) for k in ROW_KEYS}, games
    return {k: np.concatenate([p[k] for p in parts]) for k in ROW_KEYS}, games


# ------------------------------------------------------------------ the loop


def train_side(cfg: SelfImitationConfig, side: str, folder: RunFolder, progress: dict[str, Any]) -> Path:
    """All iterations for ``side`` (:func:`training.student_loop.train_side`); returns the last student's ``.pt``."""

    def play_iteration(it: int, student: str) -> Played:
        per = -(-cfg.games // cfg.workers)
        base = cfg.seed * 7_919 + 1_000 * it + (0 if side == "french" else 500)
        jobs = [
            PlayJob(
                side,
                student,
                dict(cfg.opponents),
                per,
                base + w,
                cfg.setup,
                cfg.explore_margin,
                list(cfg.explore_kinds),
                cfg.top_k,
                cfg.temperature,
                cfg.keep_unchanged,
                label=f"self-imitation {side} iteration {it + 1}/{cfg.iterations} worker {w}: ",
            )
            for w in range(cfg.workers)
        ]
        played, games = _merge(_run_jobs(jobs))
        labels, counts = outcome_labels(played, games)
        del played
        for g, s in zip(games, game_signs(games), strict=True):
            g["vs_median"] = s
        wins: dict[str, list[int]] = {}
        for g in games:
            w = wins.setdefault(g["opponent"], [0, 0])
            w[0] += g["win"]
            w[1] += 1
        row = {
            "games": len(games),
            "wins": {
                k: {"won": v[0], "games": v[1], "rate": round(v[0] / v[1], 4)}
                for k, v in sorted(wins.items())
            },
            "decisions": sum(g["decisions"] for g in games),
            "explored": sum(g["explored"] for g in games),
            "deviations": sum(g["deviated"] for g in games),
            **counts,
            "game_rows": games,
        }
        rates = ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(wins.items()))

        summary = (
            f"self-imitation {side} {it + 1}/{cfg.iterations}: {len(games)} games, won {rates}; "
            f"{row['deviations']} deviations -> {counts['sampled_labels']} sampled + {counts['argmax_labels']} "
            f"argmax labels ({counts['dropped_at_median']} at the median dropped), {counts['anchors']} anchors"
        )
        return Played([labels], row, summary, extra={"games": len(games)}, keys=LABEL_KEYS)

    def final_extra(done: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "games": sum(r["games"] for r in done),
            "deviation_labels": sum(r["sampled_labels"] + r["argmax_labels"] for r in done),
            "anchor_labels": sum(r["anchors"] for r in done),
        }

    return student_loop.train_side(cfg, side, folder, progress, METHOD, play_iteration, final_extra)


def run(cfg: SelfImitationConfig, out: Path, argv: list[str] | None = None) -> dict[str, Path]:
    """Start or continue the run in the folder ``out``: what each start writes (config, command, seed,
    versions), then every side's iterations not done yet."""
    resolved = {"method": METHOD, **asdict(cfg)}
    folder, progress = start_sided_run(out, resolved, cfg.seed, argv, SelfImitationError)
    return {side: train_side(cfg, side, folder, progress) for side in cfg.sides}


CLI = MethodCommand(
    "python -m training.self_imitation",
    __doc__ or "",
    "configs/ffo/train_self_imitation.yaml",
    "--set games=4 --set 'opponents={heuristic: 1}'",
    load_config,
    run,
)
command = CLI.command
main = CLI.main


if __name__ == "__main__":
    sys.exit(main())
