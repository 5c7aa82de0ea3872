"""Distributed training on Ray RLlib: both sides as one multi-agent PPO with action masking.

    ffo train --backend rllib --config configs/train_rllib_smoke.yaml            # local Ray, 2 runners
    ffo train --backend rllib --config configs/train_rllib.yaml --address auto   # an existing cluster

RLlib's current API stack (RLModule + Learner, EnvRunners): every side is its own policy
(``"french"``, ``"german"``: self-play, each learning against the other) over the flat observation
(:mod:`ffo_env.envs.flat`), an MLP whose action logits are masked to the legal actions
(``ActionMaskingTorchRLModule``). Episodes come from ``--num-env-runners`` EnvRunner actors, which Ray
places on any node of the cluster.

The run folder has the layout of the SB3 path where the two backends have the same things:
``config.yaml`` (resolved), ``command.txt``, ``seed.txt``, ``progress.json`` (iterations done, metrics),
``policies/<side>.pt`` + ``.json`` (the weights-only format that ``policy:PATH`` loads in ``ffo play`` /
``ffo eval``) and ``eval/results.json`` (the final evaluation against ``random``, also ``results.json``);
RLlib adds ``metrics.csv`` and ``command.json`` (with the cluster address). It has no ``checkpoints/``:
an RLlib run cannot be resumed yet (RLlib's own checkpoints use pickle). Every file is written atomically; policies are exported after every
``export_every`` iterations, so a killed run keeps its last export.

On a multi-node cluster: start Ray on the head node (``ray start --head``) and on every worker node
(``ray start --address=HEAD_IP:6379``), install this package on all of them, then run the command above
on the head node with ``--address auto`` and as many ``--num-env-runners`` as the cluster has spare CPUs.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from ffo_env.atomic import atomic_write_text
from ffo_env.core.game import SETUP_MODES
from ffo_env.core.sides import Side
from training.config import REWARDS, one_of

__all__ = ["RllibConfig", "add_arguments", "load_config", "run", "train_rllib"]


class RllibConfigError(ValueError):
    """A config that cannot be used; the message names the file and key."""


ACTIVATIONS = ("relu", "tanh")


@dataclass
class RllibConfig:
    """One RLlib run. Keys of the YAML file; anything else is refused."""

    run_name: str = "rllib"
    seed: int = 0
    iterations: int = 20  # PPO training iterations
    setup: str = "random"  # R2 setup mode of the games
    reward: str = "shaped"  # "win" or "shaped" (AEC env)
    max_steps: int = 3000  # decisions per game before truncation
    num_env_runners: int = 2  # EnvRunner actors (0: sample in the driver)
    rollout_fragment_length: int = 256
    train_batch_size: int = 2048  # env steps per iteration (both sides together)
    minibatch_size: int = 256
    num_epochs: int = 4
    lr: float = 3e-4
    gamma: float = 0.999
    entropy_coeff: float = 0.01
    hidden: list[int] = field(default_factory=lambda: [64])  # MLP over the flat observation
    activation: str = "relu"  # one of ACTIVATIONS
    export_every: int = 5  # iterations between policy exports
    eval_games: int = 10  # per side, against random, at the end
    num_cpus: int = 0  # for a local Ray instance (0: all)


def _check(cfg: RllibConfig, where: str) -> None:
    def bad(key: str, want: str) -> RllibConfigError:
        return RllibConfigError(f"{where}: {key} must be {want}, got {getattr(cfg, key)!r}")

    ints = {
        "seed": 0,
        "iterations": 1,
        "max_steps": 1,
        "num_env_runners": 0,
        "rollout_fragment_length": 1,
        "train_batch_size": 1,
        "minibatch_size": 1,
        "num_epochs": 1,
        "export_every": 1,
        "eval_games": 0,
        "num_cpus": 0,
    }
    for key, low in ints.items():
        v = getattr(cfg, key)
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise bad(key, f"an integer >= {low}")
    for key, lo, hi in (("lr", 0.0, 1.0), ("gamma", 0.0, 1.0), ("entropy_coeff", 0.0, 1.0)):
        v = getattr(cfg, key)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo < v <= hi:
            raise bad(key, f"a number in ({lo}, {hi}]")
    if cfg.minibatch_size > cfg.train_batch_size:
        raise RllibConfigError(
            f"{where}: minibatch_size ({cfg.minibatch_size}) exceeds train_batch_size "
            f"({cfg.train_batch_size})"
        )
    if cfg.setup not in SETUP_MODES:
        raise bad("setup", one_of(SETUP_MODES))
    if cfg.reward not in REWARDS:
        raise bad("reward", one_of(REWARDS))
    if cfg.activation not in ACTIVATIONS:
        raise bad("activation", one_of(ACTIVATIONS))
    if (
        not isinstance(cfg.hidden, list)
        or not cfg.hidden
        or len(cfg.hidden) > 8
        or not all(isinstance(h, int) and not isinstance(h, bool) and 1 <= h <= 4096 for h in cfg.hidden)
    ):
        raise bad("hidden", "a list of 1-8 layer sizes in 1..4096")
    if (
        not isinstance(cfg.run_name, str)
        or not cfg.run_name
        or any(c in cfg.run_name for c in "/\\")
        or cfg.run_name.startswith(".")
    ):
        raise bad("run_name", "a plain folder name (no '/', not starting with '.')")


def load_config(path: str | Path) -> RllibConfig:
    """Read and validate a YAML run file (unknown keys are refused with the nearest valid name)."""
    import difflib

    p = Path(path)
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    except OSError as e:
        raise RllibConfigError(f"{p}: cannot read: {e.strerror or e}") from e
    except yaml.YAMLError as e:
        raise RllibConfigError(f"{p}: not valid YAML: {e}") from e
    if not isinstance(raw, dict):
        raise RllibConfigError(f"{p}: a run file is a mapping of keys, got {type(raw).__name__}")
    raw.pop("backend", None)
    known = [f.name for f in fields(RllibConfig)]
    for key in raw:
        if key not in known:
            near = difflib.get_close_matches(str(key), known, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else f"; known keys: {', '.join(known)}"
            raise RllibConfigError(f"{p}: unknown key {key!r}{hint}")
    cfg = RllibConfig(**raw)
    if isinstance(cfg.lr, int):
        cfg.lr = float(cfg.lr)
    _check(cfg, str(p))
    return cfg


def _new_run_dir(out: Path, name: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for k in range(1000):
        d = out / (f"{name}-{stamp}" if k == 0 else f"{name}-{stamp}-{k}")
        try:
            d.mkdir(parents=True)
            return d
        except FileExistsError:
            continue
    raise RuntimeError(f"cannot create a run folder under {out}")  # pragma: no cover


def _module_spec(cfg: RllibConfig) -> Any:
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={
            "fcnet_hiddens": list(cfg.hidden),
            "fcnet_activation": cfg.activation,
            "head_fcnet_hiddens": [],
            "vf_share_layers": True,
        },
    )


def build_algo(cfg: RllibConfig) -> Any:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.tune.registry import register_env

    from training.rllib_env import FFOMultiAgentEnv

    register_env("france_fights_on", lambda c: FFOMultiAgentEnv(c))
    env_config = {"setup": cfg.setup, "reward": cfg.reward, "max_steps": cfg.max_steps}
    config = (
        PPOConfig()
        .environment("france_fights_on", env_config=env_config)
        .env_runners(
            num_env_runners=cfg.num_env_runners,
            rollout_fragment_length=cfg.rollout_fragment_length,
            num_cpus_per_env_runner=1,
            sample_timeout_s=600,
        )
        .training(
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.minibatch_size,
            num_epochs=cfg.num_epochs,
            lr=cfg.lr,
            gamma=cfg.gamma,
            entropy_coeff=cfg.entropy_coeff,
        )
        .multi_agent(policies={"french", "german"}, policy_mapping_fn=lambda agent_id, *a, **k: agent_id)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={"french": _module_spec(cfg), "german": _module_spec(cfg)}
            )
        )
        .debugging(seed=cfg.seed)
    )
    return config.build_algo()


def export_side(algo: Any, cfg: RllibConfig, side: str, run_dir: Path, extra: dict[str, Any]) -> Path:
    """Write one side's RLModule as a weights-only flat-MLP policy (:mod:`agents.flat_policy`)."""
    from agents.flat_policy import save_flat_policy

    sd = algo.get_module(side).state_dict()
    weights = {}
    for i in range(len(cfg.hidden)):
        weights[f"hidden.{i}.weight"] = sd[f"encoder.encoder.net.mlp.{2 * i}.weight"]
        weights[f"hidden.{i}.bias"] = sd[f"encoder.encoder.net.mlp.{2 * i}.bias"]
    weights["pi.weight"] = sd["pi.net.mlp.0.weight"]
    weights["pi.bias"] = sd["pi.net.mlp.0.bias"]
    import torch

    tensors = {k: torch.as_tensor(v) for k, v in weights.items()}
    return save_flat_policy(tensors, run_dir / "policies" / side, side, cfg.hidden, cfg.activation, extra)


def _evaluate(run_dir: Path, games: int, seed: int) -> dict[str, Any]:
    from agents.base import RandomAgent
    from agents.flat_policy import load_flat_policy
    from ffo_env.core.game import Game, RulesOptions

    game = Game(options=RulesOptions(setup="random"))
    out: dict[str, Any] = {}
    for side in ("french", "german"):
        agent = load_flat_policy(run_dir / "policies" / side)
        wins = 0
        for g in range(games):
            state = game.new_initial_state(seed + g)
            rnd = RandomAgent(seed=seed + 7919 * g)
            while not state.is_terminal():
                mine = state.current_agent == side
                state.apply_action(agent.act_state(state) if mine else rnd.act_state(state))
            wins += int(state.winner == Side.of(side))
        out[side] = {"opponent": "random", "games": games, "wins": wins}
    return out


def train_rllib(
    cfg: RllibConfig,
    out: Path,
    address: str | None = None,
    command: list[str] | None = None,
    progress_bar: bool = True,
) -> Path:
    """Run the training; returns the run folder."""
    import ray
    from tqdm import tqdm

    run_dir = _new_run_dir(out, cfg.run_name)
    atomic_write_text(
        run_dir / "config.yaml", yaml.safe_dump({"backend": "rllib", **asdict(cfg)}, sort_keys=False)
    )
    atomic_write_text(run_dir / "command.txt", " ".join(command or sys.argv) + "\n")
    atomic_write_text(run_dir / "seed.txt", f"{cfg.seed}\n")
    atomic_write_text(
        run_dir / "command.json", json.dumps({"argv": command or sys.argv, "address": address}) + "\n"
    )
    init: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "ignore_reinit_error": True}
    if address:
        init["address"] = address
    elif cfg.num_cpus:
        init["num_cpus"] = cfg.num_cpus
    ray.init(**init)
    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    try:
        algo = build_algo(cfg)
        bar = tqdm(total=cfg.iterations, desc="rllib PPO", unit="iter", disable=not progress_bar)
        for it in range(1, cfg.iterations + 1):
            result = algo.train()
            runners = result.get("env_runners", {})
            row = {
                "iteration": it,
                "seconds": round(time.perf_counter() - t0, 1),
                "env_steps": int(runners.get("num_env_steps_sampled_lifetime", 0) or 0),
                "episodes": int(runners.get("num_episodes_lifetime", 0) or 0),
                "episode_len_mean": runners.get("episode_len_mean"),
            }
            rows.append(row)
            bar.update(1)
            bar.set_postfix(steps=row["env_steps"])
            if it % cfg.export_every == 0 or it == cfg.iterations:
                extra = {
                    "backend": "rllib",
                    "iterations": it,
                    "env_steps": row["env_steps"],
                    "seed": cfg.seed,
                    "wall_seconds": row["seconds"],
                    "command": command or sys.argv,
                }
                for side in ("french", "german"):
                    export_side(algo, cfg, side, run_dir, extra)
            buf = io.StringIO()
            w = csv.DictWriter(buf, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
            atomic_write_text(run_dir / "metrics.csv", buf.getvalue())
            atomic_write_text(
                run_dir / "progress.json", json.dumps({"backend": "rllib", "done": rows}, indent=1)
            )
        bar.close()
        algo.stop()
    finally:
        ray.shutdown()
    results = {
        "train_seconds": round(time.perf_counter() - t0, 1),
        "iterations": cfg.iterations,
        "env_steps": rows[-1]["env_steps"] if rows else 0,
    }
    if cfg.eval_games:
        results["vs_random"] = _evaluate(run_dir, cfg.eval_games, 10_000 + cfg.seed)
    atomic_write_text(run_dir / "results.json", json.dumps(results, indent=1) + "\n")
    atomic_write_text(run_dir / "eval" / "results.json", json.dumps(results, indent=1) + "\n")  # as ffo train
    return run_dir


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", default="configs/train_rllib_smoke.yaml", help="run file (YAML)")
    p.add_argument("--out", default="runs", help="folder for the run folder (default: runs)")
    p.add_argument(
        "--address",
        default=None,
        help="Ray cluster address ('auto' for the cluster this node belongs to); default: a local Ray",
    )
    p.add_argument(
        "--num-env-runners", type=int, default=None, help="EnvRunner actors (overrides the config)"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    try:
        cfg = load_config(args.config)
        if args.num_env_runners is not None:
            if args.num_env_runners < 0:
                raise RllibConfigError(f"--num-env-runners must be >= 0, got {args.num_env_runners}")
            cfg.num_env_runners = args.num_env_runners
    except RllibConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        import ray  # noqa: F401
    except ImportError:
        print("error: the RLlib backend needs Ray: pip install 'ffo_env[rllib]'", file=sys.stderr)
        return 2
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    run_dir = train_rllib(
        cfg,
        Path(args.out),
        args.address,
        command=getattr(args, "command_line", None),
        progress_bar=not args.no_progress,
    )
    res = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    print(f"run folder: {run_dir}")
    print(f"{res['iterations']} iterations, {res['env_steps']} env steps in {res['train_seconds']} s")
    for side, r in res.get("vs_random", {}).items():
        print(f"  {side:<7} vs random: {r['wins']}/{r['games']}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.rllib_train", description=__doc__.splitlines()[0])
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
