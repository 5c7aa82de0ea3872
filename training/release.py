"""Install a finished training run's policies as the package's pretrained policies.

    ffo train --config configs/ffo/train_release.yaml      # train both sides and evaluate (>= 200 games a pairing)
    ffo release runs/release-20261123-102231            # copy its policies into agents/<game>/pretrained_policies/

Every game the same way (issue 62): the game is the run's (its config's ``game``, France Fights On's when it
names none); its policy files are loaded and its pretrained folder found through the game's training hook
(:func:`agents.network_spec.network_of`), and the model card is headed with the game's title from the
registry. (``python -m training.springtime.release RUN_DIR [--dest DIR]``, Springtime's own command before,
runs this one.)

Each side's ``.pt`` is copied byte for byte (it stays a weights-only ``state_dict``) and its ``.json``
gains ``extra.release``: the training command, config and seed, the wall seconds of every stage and
of the evaluation, and the policy's win rate against each evaluation opponent with its 95 % Wilson
interval, read from the run's own ``eval/results.json``. A ``MODEL_CARD.md`` beside them says the same
for a person. Nothing is written unless every check passes: the run finished, its evaluation is
complete, each policy loads on this installation and is at most 10 MB.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml

from ffo_env.atomic import atomic_write_bytes, atomic_write_text
from ffo_env.games import DEFAULT_GAME, SIDES, game_info
from training.envs import other_side
from training.run_folder import RunFolder, RunFolderError

MAX_SHIPPED_BYTES = 10 * 1024 * 1024


class ReleaseError(ValueError):
    """A run that cannot be released as it is."""


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise ReleaseError(f"{path}: missing; release takes a run folder written by 'ffo train'") from e
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ReleaseError(f"{path}: cannot read ({e})") from e


def _policy_results(
    results: dict[str, Any], side: str, policy_pt: Path, figure: str = "vp"
) -> list[dict[str, Any]]:
    """The evaluation pairings in which ``policy_pt`` played ``side``, as the policy's own win rates and the mean
    of the game's ``figure`` (:attr:`ffo_env.games.GameInfo.figure`)."""
    other = other_side(side)
    rows = []
    for p in results.get("pairings", []):
        name = p.get(side, "")
        if not (isinstance(name, str) and name.startswith("policy:")):
            continue
        if Path(name.split(":", 1)[1]).name != policy_pt.name:
            continue
        lo, hi = p[f"{side}_win_ci95"]
        rows.append(
            {
                "opponent": p[other],
                "games": int(p["games"]),
                "wins": int(p[f"{side}_wins"]),
                "win_rate": round(float(p[f"{side}_win_rate"]), 4),
                "wilson95": [round(float(lo), 4), round(float(hi), 4)],
                # the game's figure (France Fights On: french_vp_mean); None where the games had none
                f"french_{figure}_mean": (
                    round(float(p[f"{figure}_mean"]), 2) if p.get(f"{figure}_mean") is not None else None
                ),
            }
        )
    return rows


def release_metadata(run_dir: Path) -> dict[str, dict[str, Any]]:
    """``extra.release`` for each side's policy of ``run_dir``; raises :class:`ReleaseError` naming what is missing."""
    if not run_dir.is_dir():
        raise ReleaseError(f"{run_dir}: not a run folder")
    run = RunFolder(run_dir)
    progress = _read_json(run.progress_path)
    results = _read_json(run.eval_results)
    try:
        config = yaml.safe_load(run.config_path.read_text(encoding="utf-8"))
        commands = run.read_commands()
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RunFolderError) as e:
        raise ReleaseError(f"{run_dir}: cannot read config.yaml / command.txt ({e})") from e
    if not isinstance(config, dict) or not isinstance(progress, dict) or not isinstance(results, dict):
        raise ReleaseError(f"{run_dir}: config.yaml, progress.json and eval/results.json must be mappings")
    seconds = progress.get("seconds", {})
    out: dict[str, dict[str, Any]] = {}
    for side in config.get("sides", SIDES):
        pt = run.policy(side)
        evaluation = _policy_results(results, side, pt, game_info(run_game(run_dir)).figure)
        if not evaluation:
            raise ReleaseError(
                f"{run.eval_results}: no evaluation of the {side} policy; "
                f"finish the run first ('ffo train --resume {run_dir}')"
            )
        stage = {k: v for k, v in seconds.items() if k.endswith(f":{side}")}
        out[side] = {
            "run": run_dir.name,
            "command": commands[0] if commands else "",
            "resumed_with": commands[1:],
            "config": config,
            "seed": config.get("seed"),
            "timesteps": progress.get("timesteps", {}).get(side),
            "train_seconds": round(sum(stage.values()), 1) if stage else None,
            "stage_seconds": stage,
            "run_train_seconds": round(sum(seconds.values()), 1) if seconds else None,
            "eval_seconds": results.get("wall_seconds"),
            "evaluation": evaluation,
            "evaluation_seed": results.get("seed"),
        }
    return out


def run_game(run_dir: Path) -> str:
    """The game of a run folder: its config's ``game`` (the default game when it names none)."""
    try:
        config = yaml.safe_load(RunFolder(run_dir).config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise ReleaseError(f"{run_dir}: cannot read config.yaml ({e})") from e
    game = config.get("game", DEFAULT_GAME) if isinstance(config, dict) else DEFAULT_GAME
    try:
        game_info(str(game))
    except (KeyError, ValueError) as e:
        raise ReleaseError(f"{run_dir}/config.yaml: game: {e}") from e
    return str(game)


def model_card(metas: dict[str, dict[str, Any]], game: str = DEFAULT_GAME) -> str:
    """A Markdown summary of the released policies of ``game`` (written as ``MODEL_CARD.md``)."""
    lines = [f"# Pretrained policies of {game_info(game).title}", ""]
    for side, meta in metas.items():
        rel = meta["extra"]["release"]
        lines += [
            f"## {side}",
            "",
            f"- trained by `{rel['command']}` (seed {rel['seed']}), run `{rel['run']}`",
            f"- engine {meta['engine']}, game data {meta['data_version']}, observation spec "
            f"{meta['observation_spec_hash']}, network version {meta['network']['version']}",
            f"- PPO timesteps {rel['timesteps']}; wall time of this side's stages "
            f"{rel['train_seconds']} s (whole run's training {rel['run_train_seconds']} s, "
            f"evaluation {rel['eval_seconds']} s)",
            "",
            "| opponent | games | wins | win rate | 95 % Wilson |",
            "|---|---|---|---|---|",
        ]
        for r in rel["evaluation"]:
            lo, hi = r["wilson95"]
            lines.append(
                f"| {r['opponent']} | {r['games']} | {r['wins']} | {r['win_rate']:.3f} | [{lo:.3f}, {hi:.3f}] |"
            )
        lines.append("")
    return "\n".join(lines)


def release(
    run_dir: Path, to: Path | None = None, sides: list[str] | None = None
) -> dict[str, dict[str, Any]]:
    """Check ``run_dir`` and install its policies in ``to`` (default: the package's pretrained folder): every
    side it trained, or only ``sides`` (a side whose policy came out weaker than the one installed keeps the
    installed one, and its part of the model card)."""
    from agents.network_spec import network_of

    extras = release_metadata(run_dir)
    game = run_game(run_dir)
    spec = network_of(game)
    target = to or spec.pretrained_dir
    if sides is not None:
        missing = [side for side in sides if side not in extras]
        if missing:
            raise ReleaseError(
                f"{run_dir}: trained {', '.join(extras) or 'no side'}, not {', '.join(missing)} (--side)"
            )
        extras = {side: rel for side, rel in extras.items() if side in sides}
    files: dict[str, tuple[bytes, dict[str, Any]]] = {}
    for side, rel in extras.items():
        pt = RunFolder(run_dir).policy(side)
        try:
            agent = spec.load_policy(pt)
        except spec.policy_load_error as e:
            raise ReleaseError(f"{pt}: does not load on this installation: {e}") from e
        if agent.side != side:
            raise ReleaseError(f"{pt}: holds a {agent.side} policy")
        data = pt.read_bytes()
        if len(data) > MAX_SHIPPED_BYTES:
            raise ReleaseError(
                f"{pt}: {len(data):,} bytes; a shipped policy holds at most {MAX_SHIPPED_BYTES:,}"
            )
        meta = agent.meta  # the metadata load_policy read and checked
        meta.setdefault("extra", {})["release"] = rel
        files[side] = (data, meta)
    target.mkdir(parents=True, exist_ok=True)
    for side, (data, meta) in files.items():
        atomic_write_bytes(target / f"{side}.pt", data)
        atomic_write_text(target / f"{side}.json", json.dumps(meta, indent=1) + "\n")
    metas = {side: meta for side, (_, meta) in files.items()}
    atomic_write_text(target / "MODEL_CARD.md", model_card(_installed(target, metas), game))
    return metas


def _installed(target: Path, metas: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every side's metadata in ``target``, by side order: ``metas`` (just installed) and the released policy
    of a side the run did not train, which stays installed, so a one-side release keeps the other side's
    part of the model card."""
    from agents.policy_files import peek_metadata

    out = {}
    for side in SIDES:
        # nothing (readable) installed for a side: the card covers the run's sides
        meta = metas.get(side) or peek_metadata(target / side)
        if meta is not None and isinstance(meta.get("extra"), dict) and "release" in meta["extra"]:
            out[side] = meta
    return out


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", type=Path, help="a finished 'ffo train' run folder (its eval/ complete)")
    p.add_argument(
        "--to",
        "--dest",
        dest="to",
        type=Path,
        default=None,
        help="install into this folder instead of the package's agents/<game>/pretrained_policies/",
    )
    p.add_argument(
        "--side",
        action="append",
        choices=SIDES,
        default=None,
        help="install only this side's policy (repeat for both; default: every side the run trained); the "
        "other side's installed policy and its part of MODEL_CARD.md stay as they are",
    )


def run(args: argparse.Namespace) -> int:
    from agents.network_spec import network_of

    metas = release(args.run_dir, args.to, args.side)
    game = run_game(args.run_dir)
    target = args.to or network_of(game).pretrained_dir
    print(model_card(metas, game))
    print(f"installed {', '.join(f'{s}.pt' for s in metas)} and MODEL_CARD.md in {target}")
    return 0


def main(argv: list[str] | None = None) -> int:
    from ffo_env.cli import main as ffo_main

    return ffo_main(["release", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    if (
        __spec__ is not None and __spec__.name != "training.release"
    ):  # python -m <old name> (ffo_env/_moved.py)
        print(f"note: python -m {__spec__.name} is 'ffo release RUN_DIR' now (issue 62)", file=sys.stderr)
    sys.exit(main())
