"""Imitation warm start: DAgger from a scripted teacher, before PPO.

PPO from scratch learns the French side in a few thousand games but not the German one: the
German loses when it over-stacks (rule 6.5, R9) or attacks at bad odds, and the VP those cost
arrive many decisions after the moves that caused them. A policy that starts from the scripted
German bot's play does not have to discover that by chance. ``pretrain`` in a run config turns
this stage on; PPO then fine-tunes the pretrained network against the opponent pool.

DAgger (Ross, Gordon & Bagnell 2011), iteration ``i`` of ``pretrain.iterations``:

1. play games of the learner's side against opponents drawn from ``pretrain.opponents``; at each
   learner decision the teacher (``pretrain.teacher``, any agent name) labels the state with its
   own choice, and the move actually played is the teacher's with probability
   ``beta = 0.5 ** i`` and the student's (the network so far, argmax) otherwise, so later
   iterations visit the states the student's own mistakes lead to;
2. add the labelled decisions to the data set (observation, action mask, teacher action, and the
   discounted return of the env's reward from that decision on, for the critic); with
   ``pretrain.keep_fraction`` < 1 only that share of the decisions played is kept, so the same
   budget (``pretrain.decisions`` x ``pretrain.side_scale[side]``) covers more games;
3. fit the network for ``pretrain.epochs`` (a side's own ``pretrain.side_epochs[side]`` if given)
   passes over everything gathered so far: cross-entropy of the masked policy on the teacher's action,
   plus ``value_coef`` x the squared error of the value head on the return.

Every game the same way (issue 62): the games are played in ``game_info(cfg.game).single_agent_env`` with the
env options of the game's training hook (:func:`agents.network_spec.network_of`), the teacher and the
opponents are the game's agents by name, and the observation is stored by the keys of the env's space (each
key of a ``Dict`` space, or one ``obs`` array for a flat ``Box``), in the space's dtype.

Collection runs in ``pretrain.workers`` spawned processes, fitting in the learner process with
``learner_threads`` torch threads. Metrics go to TensorBoard (``pretrain/*``) and to
``pretrain/<side>.json`` in the run folder: per iteration the teacher-agreement of the student on held-out decisions and the games
the collection played.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ffo_env.games import DEFAULT_GAME
from training.run_folder import RunFolder

OBS_KEYS = ("planes", "globals", "units")  # France Fights On's observation keys (the name before issue 62)
FLAT = "obs"  # the one observation array of a game whose env observes a flat Box
LABELS = ("mask", "action", "ret", "has_return", "games")  # the other arrays of a collected part


@dataclass
class CollectJob:
    """What one collection worker plays (picklable, for spawned processes)."""

    side: str
    teacher: str
    opponents: dict[str, float]
    snapshots: list[str]
    setup: str
    reward: str
    max_steps: int
    gamma: float
    decisions: int
    seed: int
    student: str | None  # path of an exported policy, or None: the teacher plays every move
    beta: float  # probability that the teacher's move is the one played
    keep: float = 1.0  # probability that a learner decision is kept in the data set
    game: str = DEFAULT_GAME


def learner_vp(vp: Any, side: str) -> float:
    """The learner's VP in an episode's ``info["vp"]``: one number (France Fights On's VP) or one per side in
    the suite's side order (France 1940's ``[Allied, German]``)."""
    from ffo_env.games import SIDES

    if isinstance(vp, (list, tuple)):
        return float(vp[SIDES.index(side)])
    return float(vp)


def collect(job: CollectJob) -> dict[str, Any]:
    """Play until ``job.decisions`` learner decisions are labelled; returns the arrays and game stats.

    Each decision is kept with probability ``job.keep`` (all are played). Decisions of a game cut
    short by the budget or by ``max_steps`` keep their labels but get no return (``has_return``
    False), so the critic only fits games played to their end."""
    import random

    import torch
    from gymnasium import spaces as gym_spaces

    from agents.network_spec import network_of
    from agents.registry import make_agent
    from ffo_env.games import game_info
    from training.envs import other_side
    from training.opponents import OpponentPool

    torch.set_num_threads(1)  # one worker per core
    rng = random.Random(job.seed)
    spec = network_of(job.game)
    pool = OpponentPool(other_side(job.side), job.opponents, job.snapshots, seed=job.seed, game=job.game)
    options = spec.env_kwargs(job.setup, job.reward, job.max_steps)
    env = game_info(job.game).single_agent_env(side=job.side, opponent_sampler=pool, **options)
    teacher = make_agent(job.teacher, job.side, seed=job.seed, game=job.game)
    student = None
    if job.student is not None and job.beta < 1.0:
        student = spec.load_policy(job.student)
    n = job.decisions
    space = observation_spaces(env.observation_space, gym_spaces)
    obs_keys = tuple(space)
    flat = not isinstance(env.observation_space, gym_spaces.Dict)
    data: dict[str, np.ndarray] = {k: np.zeros((n, *space[k].shape), dtype=space[k].dtype) for k in obs_keys}
    data["mask"] = np.zeros((n, env.action_space.n), dtype=bool)
    data["action"] = np.zeros(n, dtype=np.int64)
    data["ret"] = np.zeros(n, dtype=np.float32)
    data["has_return"] = np.zeros(n, dtype=bool)
    games = {"games": 0, "wins": 0, "vp": 0.0}
    obs, _ = env.reset(seed=job.seed)
    teacher.reset(rng.randrange(2**31))
    rewards: list[float] = []
    kept: list[tuple[int, int]] = []  # (row in data, decision number in the game) of this game
    i = 0
    while i < n:
        state = env.game_state
        assert state is not None
        mask = env.action_masks()
        a_teacher = int(teacher.act_state(state))
        if job.keep >= 1.0 or rng.random() < job.keep:
            for k in obs_keys:
                data[k][i] = obs if flat else obs[k]
            data["mask"][i] = mask
            data["action"][i] = a_teacher
            kept.append((i, len(rewards)))
            i += 1
        a = a_teacher
        if student is not None and rng.random() >= job.beta:
            a = student.act(obs, mask)
        obs, r, term, trunc, info = env.step(a)
        rewards.append(r)
        if term or trunc:
            ret = np.zeros(len(rewards) + 1)
            for j in range(len(rewards) - 1, -1, -1):  # discounted return from each decision on
                ret[j] = rewards[j] + job.gamma * ret[j + 1]
            for row, j in kept:
                data["ret"][row] = ret[j]
                data["has_return"][row] = term  # a truncated game has no outcome to learn a value from
            games["games"] += 1
            games["wins"] += int(info.get("winner") == job.side)
            vp = info.get("vp")  # Springtime's episodes end with no VP (its figure is Morale): not a VP of 0
            games["vp"] += learner_vp(vp, job.side) if vp is not None else float("nan")
            obs, _ = env.reset()
            teacher.reset(rng.randrange(2**31))
            rewards, kept = [], []
    data["games"] = np.array([games["games"], games["wins"], games["vp"]], dtype=np.float64)
    return data


def observation_spaces(space: Any, gym_spaces: Any) -> dict[str, Any]:
    """The arrays of an observation: a ``Dict`` space's keys, or :data:`FLAT` for one ``Box``."""
    if isinstance(space, gym_spaces.Dict):
        return dict(space.spaces)
    return {FLAT: space}


def policy_input(d: dict[str, np.ndarray], keys: tuple[str, ...]) -> Any:
    """The policy's input for the decisions ``d`` holds: a dict of tensors, or the one tensor of a flat Box."""
    import torch as th

    if keys == (FLAT,):
        return th.as_tensor(d[FLAT])
    return {k: th.as_tensor(d[k]) for k in keys}


class Dataset:
    """Labelled decisions kept as the workers' arrays, never concatenated (a decision's planes take
    ~100 kB, so a copy of the whole set would double the peak memory); ``batch`` gathers by index."""

    def __init__(self) -> None:
        self.parts: list[dict[str, np.ndarray]] = []
        self.starts: list[int] = []
        self.n = 0

    @property
    def obs_keys(self) -> tuple[str, ...]:
        """The observation arrays of the decisions (the env space's keys, or :data:`FLAT`)."""
        return tuple(k for k in self.parts[0] if k not in LABELS) if self.parts else OBS_KEYS

    def add(self, part: dict[str, np.ndarray]) -> None:
        self.parts.append({k: v for k, v in part.items() if k != "games"})
        self.starts.append(self.n)
        self.n += len(part["action"])

    def batch(self, idx: np.ndarray) -> dict[str, np.ndarray]:
        idx = np.sort(np.asarray(idx))
        which = np.searchsorted(np.asarray(self.starts), idx, side="right") - 1
        out: dict[str, list[np.ndarray]] = {}
        for p in np.unique(which):
            local = idx[which == p] - self.starts[p]
            for k, v in self.parts[p].items():
                out.setdefault(k, []).append(v[local])
        return {k: np.concatenate(v) for k, v in out.items()}


def _run_jobs(jobs: list[CollectJob]) -> list[dict[str, Any]]:
    if len(jobs) == 1:
        return [collect(jobs[0])]
    with mp.get_context("spawn").Pool(len(jobs)) as pool:
        return pool.map(collect, jobs)


def _values_and_log_prob(
    policy: Any, obs: dict[str, Any], actions: Any, masks: np.ndarray
) -> tuple[Any, Any]:
    """``policy.evaluate_actions`` without the entropy, which behaviour cloning does not use (it is an
    exp and a sum over the 1607 actions of every sample, forward and backward)."""
    if not getattr(policy, "share_features_extractor", True):
        values, logp, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
        return values, logp
    features = policy.extract_features(obs)
    latent_pi, latent_vf = policy.mlp_extractor(features)
    dist = policy._get_action_dist_from_latent(latent_pi)
    dist.apply_masking(masks)
    return policy.value_net(latent_vf), dist.log_prob(actions)


def fit(
    policy: Any,
    data: Dataset,
    idx: np.ndarray,
    epochs: int,
    batch_size: int,
    lr: float,
    value_coef: float,
    seed: int,
    log: Any = None,
    desc: str = "fit",
    progress: bool = True,
) -> dict[str, float]:
    """Supervised passes over ``data[idx]``: masked cross-entropy on the teacher's action + value MSE."""
    import torch as th
    from tqdm import tqdm

    # a policy that fits its teacher closely has near-zero probabilities whose gradients underflow to
    # denormals, which the CPU handles many times slower; flushing them to zero changes no result
    th.set_flush_denormal(True)
    opt = th.optim.Adam(policy.parameters(), lr=lr, foreach=True)  # one fused update for all ~40 tensors
    policy.set_training_mode(True)
    gen = np.random.default_rng(seed)
    steps = epochs * ((len(idx) + batch_size - 1) // batch_size)
    bar = tqdm(total=steps, desc=desc, unit="batch", dynamic_ncols=True, disable=not progress)
    last: dict[str, float] = {}
    for _epoch in range(epochs):
        order = gen.permutation(idx)
        tot = {"loss_pi": 0.0, "loss_v": 0.0, "n": 0}
        for b in range(0, len(order), batch_size):
            d = data.batch(order[b : b + batch_size])
            obs = policy_input(d, data.obs_keys)
            values, logp = _values_and_log_prob(policy, obs, th.as_tensor(d["action"]), d["mask"])
            loss_pi = -logp.mean()
            has = th.as_tensor(d["has_return"])
            ret = th.as_tensor(d["ret"])
            v = values.flatten()
            loss_v = ((v - ret) ** 2 * has).sum() / has.sum().clamp(min=1)
            loss = loss_pi + value_coef * loss_v
            opt.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
            k = len(d["action"])
            lp, lv = loss_pi.item(), loss_v.item()
            tot["loss_pi"] += lp * k
            tot["loss_v"] += lv * k
            tot["n"] += k
            bar.update(1)
            bar.set_postfix(pi=f"{lp:.3f}", v=f"{lv:.3f}")
        last = {"loss_pi": tot["loss_pi"] / max(tot["n"], 1), "loss_v": tot["loss_v"] / max(tot["n"], 1)}
    bar.close()
    policy.set_training_mode(False)
    return last


def agreement(
    policy: Any, data: Dataset, idx: np.ndarray, batch_size: int = 512, game: str = DEFAULT_GAME
) -> dict[str, float]:
    """How often the policy's argmax over the legal actions is the teacher's action, on ``data[idx]``:
    overall and, where the game's training hook sorts its actions into kinds (France Fights On: hex, unit,
    special), by the kind of the teacher's action over decisions with a choice."""
    import torch as th

    from agents.network_spec import network_of

    spec = network_of(game)
    names = spec.action_kind_names
    hits = dict.fromkeys(("all", *names), 0)
    count = dict.fromkeys(hits, 0)
    policy.set_training_mode(False)
    with th.inference_mode():
        for b in range(0, len(idx), batch_size):
            d = data.batch(idx[b : b + batch_size])
            obs = policy_input(d, data.obs_keys)
            dist = policy.get_distribution(obs, action_masks=d["mask"])
            ok = dist.distribution.probs.argmax(dim=1).numpy() == d["action"]
            hits["all"] += int(ok.sum())
            count["all"] += len(ok)
            if not names:
                continue
            choice = d["mask"].sum(axis=1) > 1
            kind = spec.action_kinds(policy, d["action"])
            for i, name in enumerate(names):
                sel = choice & (kind == i)
                hits[name] += int(ok[sel].sum())
                count[name] += int(sel.sum())
    return {k: hits[k] / count[k] if count[k] else float("nan") for k in hits}


def pretrain(
    model: Any, cfg: Any, side: str, run_dir: Path | RunFolder, snapshots: list[str], progress: bool = True
) -> dict[str, Any]:
    """Run the DAgger schedule of ``cfg.pretrain`` on ``model.policy`` (in place); returns the metrics
    also written to the run folder's ``pretrain/<side>.json`` (:meth:`RunFolder.pretrain_report`)."""
    import torch
    from stable_baselines3.common.logger import configure

    from training.config import learner_threads, spec_of

    spec = spec_of(cfg)
    pc = cfg.pretrain
    run = run_dir if isinstance(run_dir, RunFolder) else RunFolder(run_dir)
    data = Dataset()
    holdout: list[np.ndarray] = []
    report: dict[str, Any] = {
        "side": side,
        "teacher": pc.teacher,
        "epochs": pc.epochs_of(side),
        "iterations": [],
    }
    student_path: str | None = None
    logger = configure(str(run.tensorboard_log(f"pretrain_{side}")), ["tensorboard"])
    t_start = time.perf_counter()
    for it in range(pc.iterations):
        # the teacher plays every move of the first iteration (behaviour cloning), then with probability beta
        beta = 1.0 if it == 0 else (pc.beta if pc.beta > 0 else 0.5**it)
        t0 = time.perf_counter()
        per = -(-int(pc.decisions * pc.side_scale.get(side, 1.0)) // pc.workers)
        jobs = [
            CollectJob(
                side=side,
                teacher=pc.teacher,
                opponents=dict(pc.opponents),
                snapshots=list(snapshots),
                setup=cfg.setup,
                reward=cfg.reward,
                max_steps=cfg.max_steps,
                gamma=cfg.ppo.gamma,
                decisions=per,
                seed=cfg.seed * 7_919 + 1_000 * it + w + (0 if side == "french" else 500),
                student=student_path,
                beta=beta,
                keep=pc.keep_fraction,
                game=cfg.game,
            )
            for w in range(pc.workers)
        ]
        results = _run_jobs(jobs)
        g = np.sum([r["games"] for r in results], axis=0)
        t_collect = time.perf_counter() - t0
        n_new = 0
        for r in results:
            # the last 10 % of each worker's decisions are held out to measure agreement
            n = len(r["action"])
            holdout.append(np.arange(data.n + int(n * 0.9), data.n + n))
            data.add(r)
            n_new += n
        del results
        train_idx = np.setdiff1d(np.arange(data.n), np.concatenate(holdout))
        test_idx = np.concatenate(holdout)
        torch.set_num_threads(learner_threads(cfg))
        t1 = time.perf_counter()
        losses = fit(
            model.policy,
            data,
            train_idx,
            pc.epochs_of(side),
            pc.batch_size,
            pc.learning_rate,
            pc.value_coef,
            seed=cfg.seed + it,
            desc=f"pretrain {side} {it + 1}/{pc.iterations}",
            progress=progress,
        )
        t_fit = time.perf_counter() - t1
        agree = agreement(model.policy, data, test_idx, game=cfg.game)
        torch.set_num_threads(cfg.torch_threads)
        row = {
            "iteration": it,
            "beta": beta,
            "decisions": n_new,
            "total_decisions": data.n,
            "games": int(g[0]),
            "learner_win_rate": float(g[1] / max(g[0], 1)),
            "mean_vp": float(g[2] / max(g[0], 1)) if np.isfinite(g[2]) else None,
            "heldout_agreement": agree["all"],
            "heldout_agreement_by_kind": {k: agree[k] for k in spec.action_kind_names},
            **losses,
            "collect_s": round(t_collect, 1),
            "fit_s": round(t_fit, 1),
        }
        report["iterations"].append(row)
        for k in ("heldout_agreement", "loss_pi", "loss_v", "learner_win_rate", "mean_vp"):
            if row[k] is not None:
                logger.record(f"pretrain/{k}", row[k])
        logger.dump(it)
        student = spec.export(
            model,
            run.pretrain_student(side),
            side,
            cfg.policy,
            extra={"pretrain_iteration": it, "teacher": pc.teacher},
        )
        student_path = str(student)
        kinds = ", ".join(f"{k} {agree[k]:.2f}" for k in spec.action_kind_names)
        print(
            f"pretrain {side} iteration {it + 1}/{pc.iterations}: {n_new} decisions in {int(g[0])} games "
            f"(played with beta={beta:.2f}: win rate {row['learner_win_rate']:.2f}), teacher agreement "
            f"{agree['all']:.3f} on held-out decisions{f' ({kinds})' if kinds else ''}, "
            f"{t_collect:.0f} s collecting + {t_fit:.0f} s fitting",
            flush=True,
        )
    logger.close()
    report["seconds"] = round(time.perf_counter() - t_start, 1)
    run.write_json(run.pretrain_report(side), report)
    return report


def measure_imitation_speed(
    config: str | Path | None = None, seconds: float = 20.0, decisions: int = 512
) -> dict[str, Any]:
    """Behaviour-cloning fit samples/s with a config's network and ``pretrain`` batch size (default: the quick
    config), over ``decisions`` teacher-labelled decisions gathered first (not timed), for ``bench``."""
    import tempfile

    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.config import DEFAULT_CONFIG, load_config
    from training.envs import make_env_fn
    from training.model import build_model
    from training.opponents import OpponentPool

    cfg = load_config(config or DEFAULT_CONFIG)
    pc = cfg.pretrain
    job = CollectJob(
        side="german",
        teacher=pc.teacher or "heuristic",
        opponents={"random": 1.0},
        snapshots=[],
        setup=cfg.setup,
        reward=cfg.reward,
        max_steps=cfg.max_steps,
        gamma=cfg.ppo.gamma,
        decisions=decisions,
        seed=cfg.seed,
        student=None,
        beta=1.0,
        game=cfg.game,  # the config's game: its teacher, its observation, its network
    )
    data = Dataset()
    data.add(collect(job))
    idx = np.arange(data.n)
    with tempfile.TemporaryDirectory() as tmp:
        env = DummyVecEnv(
            [make_env_fn(cfg, "german", OpponentPool("french", {"random": 1.0}, game=cfg.game), 0)]
        )
        model = build_model(cfg, env, RunFolder(tmp).tensorboard, cfg.seed)
        fit(
            model.policy,
            data,
            idx[: pc.batch_size],
            1,
            pc.batch_size,
            pc.learning_rate,
            pc.value_coef,
            seed=0,
            progress=False,
        )  # warm-up
        t0, c0 = time.perf_counter(), time.process_time()
        n = 0
        while time.perf_counter() - t0 < seconds:
            fit(
                model.policy,
                data,
                idx,
                1,
                pc.batch_size,
                pc.learning_rate,
                pc.value_coef,
                seed=n,
                progress=False,
            )
            n += len(idx)
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        env.close()
    return {
        "samples_per_s": n / dt,
        "samples_per_cpu_s": n / cpu if cpu > 0 else 0.0,
        "samples": n,
        "seconds": dt,
        "cpu_seconds": cpu,
        "batch_size": pc.batch_size,
        "config": str(config or DEFAULT_CONFIG.relative_to(DEFAULT_CONFIG.parents[2])),
    }
