"""Install a finished Springtime run's policies as the shipped ``pretrained`` pair, with its model card.

    python -m training.springtime.release RUN_DIR [--dest agents/springtime/pretrained_policies]

Copies ``policies/<side>.pt`` + ``.json`` of both sides and writes ``MODEL_CARD.md`` from what the run folder
recorded (config, command lines, seed, versions, wall time by stage, samples, the evaluation's win rates with
Wilson 95 % intervals and seeds): nothing in the card is typed by hand. Refused, with one error line, unless
the run finished its policies and its evaluation of both sides.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path

import yaml

from agents.springtime.policy import PRETRAINED_DIR, load_policy
from ffo_env.atomic import atomic_write_bytes, atomic_write_text
from training.run_folder import RunFolder, RunFolderError
from training.springtime.command import EXPORT

SIDES = ("french", "german")


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical cores, {platform.system()} {platform.release()}"


def model_card(run: RunFolder) -> str:
    cfg = run.read_config()
    progress = run.read_progress()
    results = run.read_json(run.eval_results, "the evaluation")
    versions = run.read_versions()
    commands = run.read_commands()
    meta = {
        side: json.loads(run.policy(side).with_suffix(".json").read_text(encoding="utf-8")) for side in SIDES
    }
    secs = progress.get("seconds", {})
    im, ppo, ev = cfg["imitation"], cfg["ppo"], cfg["eval"]
    lines = [
        "# Springtime for Hitler: the pretrained policies (model card)",
        "",
        '`make_agent("pretrained", side, game="springtime")` (or `pretrained` with `--game springtime`) loads',
        "`french.pt` (the Allied player) or `german.pt` (the Axis player) beside this card: weights-only",
        "`state_dict`s of an sb3-contrib `MaskableActorCriticPolicy` over the flat 1351-float observation, with",
        "their metadata in `<side>.json` (`agents/springtime/policy.py`). Written by",
        "`python -m training.springtime.release RUN_DIR` from the run folder; every figure below is read from it.",
        "",
        "## Versions",
        "",
        f"- rules engine `{meta['french']['engine']}`, game data `{meta['french']['data_version']}`, observation "
        f"spec `{meta['french']['observation_spec_hash']}` ({meta['french']['obs_size']} floats), "
        f"{meta['french']['n_actions']} actions",
        f"- network: actor and critic MLPs {cfg['policy']['net_arch']}, {cfg['policy']['activation']}",
        f"- packages: {', '.join(f'{k} {v}' for k, v in versions[-1]['packages'].items() if v)}; "
        f"Python {versions[-1]['python']}",
        "",
        "## Training",
        "",
        f"- command: `{commands[0]}`"
        + (f" (resumed {len(commands) - 1} time(s))" if len(commands) > 1 else ""),
        f"- config: `{cfg['run_name']}`, seed {cfg['seed']} (resolved config below)",
        f"- method: DAgger from the `{im['teacher']}` bot, {im['iterations']} iterations of {im['decisions']:,} "
        f"labelled decisions per side (beta {im['beta']}), against {im['opponents']}; then MaskablePPO, "
        f"{ppo['rounds']} rounds of {ppo['steps_per_round']:,} decisions per side against {ppo['opponents']} "
        "(`self`: the other side's latest policy)",
        f"- samples: imitation {im['iterations'] * im['decisions']:,} decisions per side; PPO "
        + ", ".join(f"{side} {int(progress['timesteps'].get(side, 0)):,}" for side in SIDES)
        + " decisions",
        "- wall time: "
        + ", ".join(f"{k} {v / 60:.1f} min" for k, v in secs.items())
        + f" ({sum(secs.values()) / 60:.1f} min in all, `nice -n 10`, on a machine shared with other jobs)",
        f"- machine: {_machine()}",
        f"- date: {versions[0]['time']}",
        "",
        "## Evaluation",
        "",
        f"Each policy plays argmax over the legal actions against the scripted bot on core seeds "
        f"{ev['first_seed']}..{ev['first_seed'] + ev['games'] - 1} (each agent seeded by a hash of the core seed "
        "and its side, `agents.springtime.evaluate.bot_seed`); Wilson 95 % intervals.",
        "",
        "| policy | side | opponent | games | wins | win rate | Wilson 95 % |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    for p in results["pairings"]:
        lo, hi = p["wilson95"]
        lines.append(
            f"| {p['policy']} | {p['side']} | {p['opponent']} | {p['games']} | {p['wins']} | "
            f"{p['win_rate']:.3f} | {lo:.3f}-{hi:.3f} |"
        )
    lines += [
        "",
        "For scale (the bots' figures on the environment card, `docs/environments/springtime_for_hitler.md`, 200",
        "games on seeds 0-199): random Allies beat random Axis in 199 of 200 games and the heuristic Axis in 1 of",
        "200; heuristic against heuristic, the Allies win 95 of 200 (Wilson 40.7-54.4 %). So the telling figures",
        "are the Axis policy against random and the Allied policy against the heuristic.",
        "",
        "## Resolved config",
        "",
        "```yaml",
        yaml.safe_dump(cfg, sort_keys=False).rstrip(),
        "```",
        "",
    ]
    return "\n".join(lines)


def release(run_dir: str | Path, dest: Path = PRETRAINED_DIR) -> Path:
    run = RunFolder.locate(run_dir)
    progress = run.read_progress()
    missing = [k for k in (EXPORT, *(f"eval:final:{s}:random" for s in SIDES)) if k not in progress["done"]]
    if missing:
        raise RunFolderError(f"{run.progress_path}: the run has not finished {', '.join(missing)}")
    for side in SIDES:
        load_policy(run.policy(side))  # refuses a file that does not fit this installation
    card = model_card(run)
    dest.mkdir(parents=True, exist_ok=True)
    for side in SIDES:
        for src in (run.policy(side), run.policy(side).with_suffix(".json")):
            atomic_write_bytes(dest / src.name, src.read_bytes())
    atomic_write_text(dest / "MODEL_CARD.md", card)
    return dest


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m training.springtime.release", description=__doc__.split("\n")[0]
    )
    p.add_argument("run_dir", help="a finished run folder of 'ffo train --game springtime'")
    p.add_argument(
        "--dest", type=Path, default=PRETRAINED_DIR, help="where to install (default: the package's)"
    )
    a = p.parse_args(argv)
    try:
        dest = release(a.run_dir, a.dest)
    except (RunFolderError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(dest)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
