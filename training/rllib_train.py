"""Distributed training on Ray RLlib: both sides as one multi-agent PPO with action masking.

    ffo train --backend rllib --config configs/ffo/train_rllib_smoke.yaml            # local Ray, 2 runners
    ffo train --backend rllib --config configs/ffo/train_rllib.yaml --address auto   # an existing cluster

RLlib's current API stack (RLModule + Learner, EnvRunners): every side is its own policy
(``"french"``, ``"german"``: self-play, each learning against the other) over the flat observation
(:mod:`ffo_env.ffo.encoding.flat`), an MLP whose action logits are masked to the legal actions
(``ActionMaskingTorchRLModule``). Episodes come from ``--num-env-runners`` EnvRunner actors, which Ray
places on any node of the cluster.

The run folder has the layout of the SB3 path where the two backends have the same things:
``config.yaml`` (resolved), ``command.txt``, ``seed.txt``, ``progress.json`` (iterations done, metrics),
``policies/<side>.pt`` + ``.json`` (the weights-only format that ``policy:PATH`` loads in ``ffo play`` /
``ffo eval``) and ``eval/results.json`` (the final evaluation against ``random``, also ``results.json``);
RLlib adds ``metrics.csv`` and ``command.json`` (with the cluster address). Every file is written atomically.

Every ``export_every`` iterations the policies are exported and the learner is checkpointed in
``checkpoints/``: ``learner-<iteration>.pt`` (both modules' weights and Adam states, weights-only: RLlib's own
checkpoints use pickle) and ``learner.json`` (which file, the iteration, the step counts). ``ffo train
--resume RUN_DIR`` continues a killed run from there with the config it was started with: weights, optimizer
states, iteration and step counts are restored, and the EnvRunners start new games, so a resumed run samples
other games than an uninterrupted one would have.

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

from ffo_env.atomic import atomic_write_bytes, atomic_write_text
from ffo_env.ffo.core.game import SETUP_MODES
from ffo_env.ffo.core.sides import SIDE_NAMES, Side
from training.config import REWARDS, one_of
from training.run_folder import RunFolder

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
    """Write one side's RLModule as a weights-only flat-MLP policy (:mod:`agents.ffo.flat_policy`)."""
    from agents.ffo.flat_policy import save_flat_policy

    sd = algo.get_module(side).state_dict()
    weights = {}
    for i in range(len(cfg.hidden)):
        weights[f"hidden.{i}.weight"] = sd[f"encoder.encoder.net.mlp.{2 * i}.weight"]
        weights[f"hidden.{i}.bias"] = sd[f"encoder.encoder.net.mlp.{2 * i}.bias"]
    weights["pi.weight"] = sd["pi.net.mlp.0.weight"]
    weights["pi.bias"] = sd["pi.net.mlp.0.bias"]
    import torch

    tensors = {k: torch.as_tensor(v) for k, v in weights.items()}
    return save_flat_policy(
        tensors, RunFolder(run_dir).flat_policy(side), side, cfg.hidden, cfg.activation, extra
    )


def _evaluate(run_dir: Path, games: int, seed: int) -> dict[str, Any]:
    from agents.base import RandomAgent
    from agents.ffo.flat_policy import load_flat_policy
    from ffo_env.ffo.core.game import Game, RulesOptions

    game = Game(options=RulesOptions(setup="random"))
    out: dict[str, Any] = {}
    for side in SIDE_NAMES:
        agent = load_flat_policy(RunFolder(run_dir).flat_policy(side))
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


CHECKPOINT_FORMAT = "ffo-rllib-checkpoint"


def _numpy_to_torch(x: Any) -> Any:
    import numpy as np
    import torch

    if isinstance(x, dict):
        return {k: _numpy_to_torch(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_numpy_to_torch(v) for v in x)
    return torch.from_numpy(np.ascontiguousarray(x)) if isinstance(x, np.ndarray) else x


def _torch_to_numpy(x: Any) -> Any:
    import torch

    if isinstance(x, dict):
        return {k: _torch_to_numpy(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_torch_to_numpy(v) for v in x)
    return x.numpy() if isinstance(x, torch.Tensor) else x


def save_checkpoint(algo: Any, run_dir: Path, counters: dict[str, Any]) -> Path:
    """The learner's modules and optimizer states as a weights-only file, then the manifest naming it (so a
    kill between the two leaves the previous checkpoint whole); older files are removed after."""
    import torch

    state = algo.learner_group.get_state()["learner"]
    keep = {"rl_module": state["rl_module"], "optimizer": state["optimizer"]}
    run = RunFolder(run_dir)
    weights = run.learner_weights(counters["iteration"])
    buf = io.BytesIO()
    torch.save(_numpy_to_torch(keep), buf)
    atomic_write_bytes(weights, buf.getvalue())
    manifest = {"format": CHECKPOINT_FORMAT, "version": 1, "file": weights.name, **counters}
    atomic_write_text(run.learner_manifest, json.dumps(manifest, indent=1) + "\n")
    for old in run.checkpoints.glob(run.learner_weights_glob()):
        if old.name != weights.name:
            old.unlink(missing_ok=True)
    return weights


def read_checkpoint(run_dir: Path) -> dict[str, Any]:
    """The manifest of the run's last checkpoint, checked; raises :class:`RllibConfigError` naming what is
    wrong."""
    path = RunFolder(run_dir).learner_manifest
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RllibConfigError(
            f"{path}: no checkpoint (a run is checkpointed every export_every iterations); start it again"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RllibConfigError(f"{path}: cannot read: {e}") from e
    if not isinstance(manifest, dict) or manifest.get("format") != CHECKPOINT_FORMAT:
        raise RllibConfigError(f"{path}: not an {CHECKPOINT_FORMAT} manifest")
    for key in ("iteration", "env_steps", "episodes"):
        v = manifest.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise RllibConfigError(f"{path}: {key}: expected an integer >= 0, got {v!r}")
    if not isinstance(manifest.get("seconds"), (int, float)) or not isinstance(manifest.get("file"), str):
        raise RllibConfigError(f"{path}: seconds and file are missing or malformed")
    if Path(manifest["file"]).name != manifest["file"] or not (path.parent / manifest["file"]).is_file():
        raise RllibConfigError(f"{path}: file: {manifest['file']!r} is not a file beside it")
    return manifest


def restore_checkpoint(algo: Any, run_dir: Path, manifest: dict[str, Any]) -> None:
    """Load the checkpoint's weights and optimizer states into the learner (weights-only: no pickle) and send
    the weights to every EnvRunner."""
    import torch

    path = RunFolder(run_dir).checkpoints / manifest["file"]
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        if not (isinstance(state, dict) and set(state) == {"rl_module", "optimizer"}):
            raise ValueError("expected the keys rl_module and optimizer")
        algo.learner_group.set_state({"learner": _torch_to_numpy(state)})
    except Exception as e:  # noqa: BLE001 - torch, pickle and RLlib raise many kinds for a bad file
        raise RllibConfigError(f"{path}: cannot restore the learner: {e}") from None
    # RLlib's sync_weights is fire-and-forget and drops the call while an EnvRunner still has a request in
    # flight (seen on a loaded machine): the resumed run's first rollout would then sample with the fresh
    # weights. So the weights are set on every EnvRunner, the driver's included, and the call waits; with
    # no weights sequence number the EnvRunners take them unconditionally.
    modules = algo.learner_group.get_state(components="learner/rl_module", inference_only=True)["learner"]
    weights = {"rl_module": modules["rl_module"]}
    algo.env_runner_group.foreach_env_runner(lambda runner: runner.set_state(weights), local_env_runner=True)


def train_rllib(
    cfg: RllibConfig,
    out: Path,
    address: str | None = None,
    command: list[str] | None = None,
    progress_bar: bool = True,
    resume: Path | None = None,
) -> Path:
    """Run the training (or resume the run in ``resume`` from its last checkpoint); returns the run folder."""
    import ray
    from tqdm import tqdm

    manifest: dict[str, Any] | None = None
    rows: list[dict[str, Any]] = []
    if resume is not None:
        run = RunFolder(resume)
        manifest = read_checkpoint(run.root)
        rows = _progress_rows(run.root, manifest["iteration"])
    else:
        run = RunFolder.create(out, cfg.run_name)
        run.write_config({"backend": "rllib", **asdict(cfg)})
        run.write_command_line(" ".join(command or sys.argv))
        run.write_seed(cfg.seed)
        atomic_write_text(
            run.command_json, json.dumps({"argv": command or sys.argv, "address": address}) + "\n"
        )
    run.append_versions()
    run_dir = run.root
    init: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "ignore_reinit_error": True}
    if address:
        init["address"] = address
    elif cfg.num_cpus:
        init["num_cpus"] = cfg.num_cpus
    # a resumed run counts on from its checkpoint (RLlib's lifetime counters start again at 0)
    base = manifest or {"iteration": 0, "env_steps": 0, "episodes": 0, "seconds": 0.0}
    ray.init(**init)
    t0 = time.perf_counter()
    try:
        algo = build_algo(cfg)
        if manifest is not None:
            restore_checkpoint(algo, run_dir, manifest)
        bar = tqdm(
            total=cfg.iterations,
            initial=base["iteration"],
            desc="rllib PPO",
            unit="iter",
            disable=not progress_bar,
        )
        for it in range(base["iteration"] + 1, cfg.iterations + 1):
            result = algo.train()
            runners = result.get("env_runners", {})
            row = {
                "iteration": it,
                "seconds": round(base["seconds"] + time.perf_counter() - t0, 1),
                "env_steps": base["env_steps"] + int(runners.get("num_env_steps_sampled_lifetime", 0) or 0),
                "episodes": base["episodes"] + int(runners.get("num_episodes_lifetime", 0) or 0),
                "episode_len_mean": runners.get("episode_len_mean"),
            }
            rows.append(row)
            bar.update(1)
            bar.set_postfix(steps=row["env_steps"])
            # the rows first: a checkpoint is only ever of an iteration that progress.json holds
            buf = io.StringIO()
            w = csv.DictWriter(buf, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
            atomic_write_text(run.metrics_csv, buf.getvalue())
            atomic_write_text(run.progress_path, json.dumps({"backend": "rllib", "done": rows}, indent=1))
            if it % cfg.export_every == 0 or it == cfg.iterations:
                extra = {
                    "backend": "rllib",
                    "iterations": it,
                    "env_steps": row["env_steps"],
                    "seed": cfg.seed,
                    "wall_seconds": row["seconds"],
                    "command": command or sys.argv,
                }
                for side in SIDE_NAMES:
                    export_side(algo, cfg, side, run_dir, extra)
                counters = {k: row[k] for k in ("iteration", "env_steps", "episodes", "seconds")}
                save_checkpoint(algo, run_dir, counters)
        bar.close()
        algo.stop()
    finally:
        ray.shutdown()
    results = {
        "train_seconds": rows[-1]["seconds"] if rows else 0.0,
        "iterations": cfg.iterations,
        "env_steps": rows[-1]["env_steps"] if rows else 0,
    }
    if cfg.eval_games:
        results["vs_random"] = _evaluate(run_dir, cfg.eval_games, 10_000 + cfg.seed)
    run.write_json(run.results, results)
    run.write_json(run.eval_results, results)  # as ffo train
    return run_dir


def _progress_rows(run_dir: Path, iterations: int) -> list[dict[str, Any]]:
    """The metric rows of the iterations up to ``iterations`` (the checkpoint's) from ``progress.json``."""
    path = RunFolder(run_dir).progress_path
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        rows = [r for r in doc["done"] if int(r["iteration"]) <= iterations]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
        raise RllibConfigError(f"{path}: cannot read the iterations done: {e}") from e
    if [int(r["iteration"]) for r in rows] != list(range(1, iterations + 1)):
        raise RllibConfigError(f"{path}: the iterations done do not run 1..{iterations} (the checkpoint's)")
    return rows


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", default="configs/ffo/train_rllib_smoke.yaml", help="run file (YAML)")
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
    resume = Path(args.resume) if getattr(args, "resume", None) else None
    try:
        # a resumed run goes on with the config it was started with, as written into its folder
        cfg = load_config(RunFolder(resume).config_path if resume is not None else args.config)
        if resume is not None:
            read_checkpoint(resume)
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
    try:
        run_dir = train_rllib(
            cfg,
            Path(args.out),
            args.address,
            command=getattr(args, "command_line", None),
            progress_bar=not args.no_progress,
            resume=resume,
        )
    except RllibConfigError as e:  # a checkpoint that cannot be restored
        print(f"error: {e}", file=sys.stderr)
        return 2
    res = json.loads(RunFolder(run_dir).results.read_text(encoding="utf-8"))
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
