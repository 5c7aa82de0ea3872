"""``ffo train``: the stable-baselines3 pipeline (default) or Ray RLlib (``--backend rllib``).

    ffo train --config configs/ffo/train_quick.yaml                          # SB3: imitation, then MaskablePPO
    ffo train --game springtime                                          # the same pipeline, Springtime for Hitler
    ffo train --backend rllib --config configs/ffo/train_rllib_smoke.yaml   # RLlib multi-agent PPO
    ffo train --backend rllib --config configs/ffo/train_rllib.yaml --address auto --num-env-runners 32
    ffo train --resume runs/rllib-smoke-20261124-010000                  # either backend: continue a run

The game is the config's ``game`` key, or ``--game`` for a config that names none (the default game's run files
name none); ``--game G`` without ``--config`` takes ``configs/G/train_quick.yaml``; a resumed run keeps its
own. A config file that says ``backend: rllib`` selects RLlib by itself, and one that says ``method:
expert_iteration`` the expert-iteration trainer (``training/expert_iteration.py``), ``method: self_imitation``
the self-imitation trainer (``training/self_imitation.py``); these three train the default game only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from ffo_env.resources import config_file
from training.run_folder import RunFolder

BACKENDS = ("sb3", "rllib")
RLLIB_DEFAULT = "configs/ffo/train_rllib_smoke.yaml"


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

    add_game_option(p, "; without --config, the game's configs/<game>/train_quick.yaml")


def _config_backend(path: str) -> str | None:
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return None  # the backend's own loader reports the problem
    return raw.get("backend") if isinstance(raw, dict) else None


def _config_game(path: Path) -> str | None:
    """The ``game`` key of a run file or a run's config.yaml as written (None if it has none or cannot be read:
    the loader reports the problem)."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    game = raw.get("game") if isinstance(raw, dict) else None
    return game if isinstance(game, str) else None


def run(args: argparse.Namespace) -> int:
    from ffo_env.games import DEFAULT_GAME, refuse_game_options
    from training import train as sb3
    from training.config import default_config

    given_config = args.config != str(sb3.DEFAULT_CONFIG)
    asked = getattr(args, "game", None) or DEFAULT_GAME
    if args.resume:
        game = _config_game(RunFolder(args.resume).config_path) or DEFAULT_GAME
        if asked != DEFAULT_GAME and asked != game:
            print(f"error: --resume {args.resume}: a {game} run, not {asked} (--game)", file=sys.stderr)
            return 2
    elif given_config:
        game = _config_game(config_file(args.config)) or asked
    else:
        game = asked
        args.config = str(default_config(game))
    try:
        refuse_game_options(args, game)
        from agents.network_spec import network_of

        network_of(game)  # a game with no network to train: one error saying so, before any file is read
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    args.train_game = asked if asked != DEFAULT_GAME else None  # the game of a config that names none
    if game != DEFAULT_GAME:  # the one SB3 pipeline; the other trainers are written for the default game
        other = args.backend == "rllib" or args.address or args.num_env_runners is not None
        if other or (not args.resume and _config_backend(str(config_file(args.config))) == "rllib"):
            print(
                f"error: --backend rllib, --address and --num-env-runners train {DEFAULT_GAME} only; "
                f"{game} trains with the SB3 pipeline",
                file=sys.stderr,
            )
            return 2
        if args.resume and given_config:
            print(
                f"error: --resume {args.resume}: a resumed run keeps its config; drop --config",
                file=sys.stderr,
            )
            return 2
        if not args.resume:
            args.config = str(config_file(args.config))
        return sb3.run(args)
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
