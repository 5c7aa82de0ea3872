"""``ffo train``: the stable-baselines3 pipeline (default) or Ray RLlib (``--backend rllib``).

    ffo train --config configs/train_quick.yaml                          # SB3: imitation, then MaskablePPO
    ffo train --backend rllib --config configs/train_rllib_smoke.yaml   # RLlib multi-agent PPO
    ffo train --backend rllib --config configs/train_rllib.yaml --address auto --num-env-runners 32
    ffo train --resume runs/rllib-smoke-20261124-010000                  # either backend: continue a run
    ffo train --game springtime --config configs/springtime/train_quick.yaml  # Springtime for Hitler

A config file that says ``backend: rllib`` selects RLlib by itself, and one that says ``method:
expert_iteration`` the expert-iteration trainer (``training/expert_iteration.py``), ``method: self_imitation``
the self-imitation trainer (``training/self_imitation.py``). ``--game springtime``
(or a config or resumed run that says ``game: springtime``) trains Springtime for Hitler
(``training/springtime``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from ffo_env.resources import config_file
from training.run_folder import RunFolder

BACKENDS = ("sb3", "rllib")
RLLIB_DEFAULT = "configs/train_rllib_smoke.yaml"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from training import train as sb3

    sb3.add_arguments(p)
    g = p.add_argument_group("backend")
    g.add_argument(
        "--backend",
        choices=BACKENDS,
        default=None,
        help="sb3 (one machine; default) or rllib (Ray, one machine or a cluster); "
        "default: the config's 'backend' key, else sb3",
    )
    g.add_argument("--address", default=None, help="rllib: Ray cluster address ('auto' on a cluster node)")
    g.add_argument("--num-env-runners", type=int, default=None, help="rllib: EnvRunner actors")
    from ffo_env.games import add_game_option

    add_game_option(p, "; springtime's default config is configs/springtime/train_quick.yaml")


def _config_backend(path: str) -> str | None:
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return None  # the backend's own loader reports the problem
    return raw.get("backend") if isinstance(raw, dict) else None


def _springtime(args: argparse.Namespace, given_config: bool) -> bool:
    """Is this a Springtime for Hitler run (``--game springtime``, or its config or resumed run says so)?"""
    from training.springtime.config import is_springtime_config

    if getattr(args, "game", "ffo") == "springtime":
        return True
    if args.resume:
        return is_springtime_config(RunFolder(args.resume).config_path)
    return given_config and is_springtime_config(config_file(args.config))


def run(args: argparse.Namespace) -> int:
    from training import train as sb3

    given_config = args.config != str(sb3.DEFAULT_CONFIG)
    if _springtime(args, given_config):  # issue 41: the second game's trainer
        from training.springtime import command as springtime

        ffo_only = args.backend or args.address or args.num_env_runners is not None or args.trust_pickle
        if ffo_only or getattr(args, "data", None) is not None:
            print(
                "error: --backend, --address, --num-env-runners, --trust-pickle and --data are options of France "
                "Fights On's training; Springtime for Hitler trains with its own MaskablePPO pipeline",
                file=sys.stderr,
            )
            return 2
        if args.resume and given_config:
            print(
                f"error: --resume {args.resume}: a resumed run keeps its config; drop --config",
                file=sys.stderr,
            )
            return 2
        if not given_config:
            args.config = springtime.DEFAULT_CONFIG
        return springtime.command(args)
    args.config = str(config_file(args.config))
    from training import expert_iteration as ei

    method = ei.config_method(args.resume or args.config)
    if method == ei.METHOD:  # `method: expert_iteration` (issue 39)
        return ei.command(args.config, Path(args.out), args.resume, args.set)
    if method == "self_imitation":  # issue 39: training/self_imitation.py
        from training import self_imitation

        return self_imitation.command(args.config, Path(args.out), args.resume, args.set)
    resumed = RunFolder(args.resume) if args.resume else None
    resumed_backend = resumed.backend() if resumed is not None else None
    backend = args.backend or resumed_backend or _config_backend(args.config) or "sb3"
    if backend not in BACKENDS:
        source = resumed.config_path if resumed is not None and resumed_backend else args.config
        print(f"error: {source}: backend must be one of {BACKENDS}, got {backend!r}", file=sys.stderr)
        return 2
    if backend == "rllib":
        if args.set or args.no_eval or args.trust_pickle:
            print(
                "error: --set, --no-eval and --trust-pickle are options of the sb3 backend; the rllib backend takes "
                "its settings from the config file",
                file=sys.stderr,
            )
            return 2
        if args.resume and (given_config or resumed_backend != "rllib"):
            print(
                f"error: --resume {args.resume}: "
                + (
                    "a resumed run keeps the config it was started with; drop --config"
                    if given_config
                    else "not an RLlib run folder (its config.yaml does not say backend: rllib)"
                ),
                file=sys.stderr,
            )
            return 2
        if not given_config:
            args.config = str(config_file(RLLIB_DEFAULT))
        from training import rllib_train

        return rllib_train.run(args)
    if resumed_backend == "rllib":
        print(f"error: --resume {args.resume} is an RLlib run; drop --backend sb3", file=sys.stderr)
        return 2
    if args.address or args.num_env_runners is not None:
        print("error: --address and --num-env-runners need --backend rllib", file=sys.stderr)
        return 2
    if _config_backend(args.config) == "rllib":
        print(f"error: {args.config} is an rllib config; add --backend rllib", file=sys.stderr)
        return 2
    return sb3.run(args)
