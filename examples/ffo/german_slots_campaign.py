"""Method C of the RL campaign (issue 60): stock sb3-contrib ``MaskablePPO("MlpPolicy")`` (default
hyperparameters) on ``ffo_env/German-compact-v0`` (8 candidate slots, the ``"potential"`` reward) against one
French agent, for millions of steps across sessions, with a learning curve on the campaign's own games.

    python examples/ffo/german_slots_campaign.py --out runs/slots-c --timesteps 2000000
    python examples/ffo/german_slots_campaign.py --resume runs/slots-c      # next session, or after a kill

Training runs in **chunks** of ``--chunk`` learner steps (whole rollouts of 2,048). Chunk ``c`` reseeds torch,
numpy and the env with ``seed + 1009 * c`` and starts new games, and a checkpoint is written only between
chunks, so a run killed at any moment resumes by playing its unfinished chunk again and reaches the same
weights and curve as a run never interrupted (``tests/test_examples.py``). The checkpoint holds plain tensors
(the policy's and the optimiser's state dicts, read with ``torch.load(weights_only=True)``) and a JSON of
counters: no pickle on the load path.

Every ``--curve-every`` chunks (and at the start and the end) the policy is saved as a slot policy file
(:mod:`agents.ffo.flat_policy`, ``"observation": "slots"``) under ``snapshots/`` and plays ``--curve-games``
games against the French ``--curve-opponent`` through the evaluation harness, seeds ``--curve-seed`` on and
``setup=random``: by default the 200 games of the campaign's curve points (seeds 60,000-60,199 against the
French ``expert``), so every point pairs game by game with the shipped policy's and run A's points. A killed
evaluation resumes at the games it had not played. ``curve.csv`` / ``curve.md`` hold one row a point (wins
with the Wilson interval, mean French VP); ``chunks.csv`` each chunk's wall seconds and the load average.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

SEED_STRIDE = 1009
ROLLOUT = 2048  # MaskablePPO's default n_steps with one env: a chunk is whole rollouts
ENV_ID = "ffo_env/German-compact-v0"
CONFIG = "config.json"
PROGRESS = "progress.json"
CHECKPOINT = "checkpoint.pt"


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    p.add_argument("--out", type=Path, help="a new run folder (must not exist or be empty)")
    p.add_argument("--resume", type=Path, help="continue the run in this folder (its config is kept)")
    p.add_argument(
        "--timesteps", type=int, default=2_000_000, help="learner steps in all (default %(default)s)"
    )
    p.add_argument("--chunk", type=int, default=51_200, help="learner steps a chunk, a multiple of 2,048")
    p.add_argument(
        "--curve-every", type=int, default=4, help="chunks between curve points (default %(default)s)"
    )
    p.add_argument("--curve-games", type=int, default=200, help="games a curve point (default %(default)s)")
    p.add_argument(
        "--curve-seed", type=int, default=60_000, help="first game seed of a point (default %(default)s)"
    )
    p.add_argument(
        "--curve-opponent", default="expert", help="the French agent of the curve (default %(default)s)"
    )
    p.add_argument(
        "--opponent", default="expert", help="the French agent trained against (default %(default)s)"
    )
    p.add_argument("--slot-count", type=int, default=8, help="candidate slots (default %(default)s)")
    p.add_argument(
        "--seed", type=int, default=0, help="MaskablePPO's and the chunks' seed (default %(default)s)"
    )
    p.add_argument("--stop-after", type=int, default=None, help="stop after this many chunks of this call")
    return p.parse_args(argv)


def new_config(args: argparse.Namespace) -> dict[str, Any]:
    if args.chunk < ROLLOUT or args.chunk % ROLLOUT:
        raise ValueError(f"--chunk must be a positive multiple of {ROLLOUT}, got {args.chunk}")
    for name in ("timesteps", "curve_every", "curve_games"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    return {
        "env_id": ENV_ID,
        "opponent": args.opponent,
        "slot_count": args.slot_count,
        "timesteps": args.timesteps,
        "chunk": args.chunk,
        "chunks": -(-args.timesteps // args.chunk),
        "seed": args.seed,
        "curve": {
            "every": args.curve_every,
            "games": args.curve_games,
            "seed": args.curve_seed,
            "opponent": args.curve_opponent,
            "setup": "random",
        },
        "algorithm": 'sb3-contrib MaskablePPO("MlpPolicy"), default hyperparameters, one env, device cpu',
        "command": [Path(sys.argv[0]).name, *sys.argv[1:]],
    }


def write_json(path: Path, data: Any) -> None:
    from ffo_env.atomic import atomic_write_text

    atomic_write_text(path, json.dumps(data, indent=1) + "\n")


def make_model(cfg: dict[str, Any]) -> Any:
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    import ffo_env  # noqa: F401 - registers the gymnasium ids

    env = gym.make(cfg["env_id"], opponent=cfg["opponent"], slot_count=cfg["slot_count"])
    return MaskablePPO("MlpPolicy", env, seed=cfg["seed"], verbose=0, device="cpu")


def save_checkpoint(model: Any, folder: Path) -> None:
    import torch

    from ffo_env.atomic import atomic_write_bytes

    buf = io.BytesIO()
    torch.save({"policy": model.policy.state_dict(), "optimizer": model.policy.optimizer.state_dict()}, buf)
    atomic_write_bytes(folder / CHECKPOINT, buf.getvalue())


def load_checkpoint(model: Any, folder: Path) -> None:
    import torch

    state = torch.load(folder / CHECKPOINT, map_location="cpu", weights_only=True)
    model.policy.load_state_dict(state["policy"])
    model.policy.optimizer.load_state_dict(state["optimizer"])


def save_snapshot(model: Any, cfg: dict[str, Any], folder: Path, point: str, steps: int) -> Path:
    from agents.ffo.flat_policy import save_flat_policy, sb3_mlp_weights

    weights, hidden = sb3_mlp_weights(model.policy.state_dict())
    return save_flat_policy(
        weights,
        folder / "snapshots" / f"german_{point}",
        "german",
        hidden,
        "tanh",  # SB3's MlpPolicy default
        {
            "timesteps": steps,
            "method": "C: stock MaskablePPO on the slot layout",
            "opponent": cfg["opponent"],
        },
        slot_count=cfg["slot_count"],
    )


def evaluate_point(cfg: dict[str, Any], folder: Path, point: str, snapshot: Path) -> None:
    from agents.harness import run_tournament

    out = folder / "curve" / point
    c = cfg["curve"]
    run_tournament(
        pairings=[(c["opponent"], f"policy:{snapshot}")],
        games=c["games"],
        seed=c["seed"],
        setup=c["setup"],
        workers=1,
        out=out,
        progress=False,
        resume=(out / "tournament.json").exists(),
    )
    from ffo_env.atomic import atomic_write_text

    atomic_write_text(out / "point.done", f"{snapshot.name}\n")


def write_curve(cfg: dict[str, Any], folder: Path, points: list[dict[str, Any]]) -> None:
    from agents.harness import read_games
    from agents.paired import wilson_interval
    from ffo_env.atomic import atomic_write_text

    rows = []
    for p in points:
        out = folder / "curve" / p["point"]
        if not (out / "point.done").exists():
            continue
        games = read_games(out)
        wins = sum(1 for g in games if g.get("winner") == "german")
        lo, hi = wilson_interval(wins, len(games))
        vps = [float(g["vp"]) for g in games]
        rows.append(
            {
                "point": p["point"],
                "timesteps": p["timesteps"],
                "games": len(games),
                "wins": wins,
                "win_rate": round(wins / len(games), 4),
                "wilson_low": round(lo, 4),
                "wilson_high": round(hi, 4),
                "mean_french_vp": round(sum(vps) / len(vps), 3),
            }
        )
    buf = io.StringIO()
    if rows:
        w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    atomic_write_text(folder / "curve.csv", buf.getvalue())
    c = cfg["curve"]
    lines = [
        f"# Method C: {cfg['algorithm']}, German against the French `{cfg['opponent']}`",
        "",
        f"Each point: {c['games']} games against the French `{c['opponent']}`, seeds {c['seed']}-"
        f"{c['seed'] + c['games'] - 1}, setup random, argmax play; Wilson 95 % intervals.",
        "",
        "| point | learner steps | wins | win rate [95 %] | mean French VP |",
        "|---|---:|---:|---|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['point']} | {r['timesteps']:,} | {r['wins']}/{r['games']} | {r['win_rate']:.3f} "
            f"[{r['wilson_low']:.3f}, {r['wilson_high']:.3f}] | {r['mean_french_vp']} |"
        )
    atomic_write_text(folder / "curve.md", "\n".join(lines) + "\n")


def log_chunk(folder: Path, chunk: int, steps: int, seconds: float) -> None:
    """Add chunk ``chunk``'s cost to chunks.csv (rewritten whole: a kill leaves the old file or the new one)."""
    from ffo_env.atomic import atomic_write_text

    path = folder / "chunks.csv"
    old = path.read_text(encoding="utf-8") if path.exists() else "chunk,timesteps,seconds,load1\n"
    atomic_write_text(path, old + f"{chunk},{steps},{seconds:.1f},{os.getloadavg()[0]:.2f}\n")


def run(folder: Path, cfg: dict[str, Any], stop_after: int | None) -> dict[str, Any]:
    import torch

    torch.set_num_threads(1)
    progress = json.loads((folder / PROGRESS).read_text(encoding="utf-8"))
    model = make_model(cfg)
    if progress["chunks_done"]:
        load_checkpoint(model, folder)
    model.num_timesteps = progress["timesteps"]
    model._n_updates = progress["updates"]
    c_every = cfg["curve"]["every"]

    def point_due(done: int) -> str | None:
        if done == 0:
            return "start"
        return f"c{done}" if done % c_every == 0 or done == cfg["chunks"] else None

    t_start, done_here = time.perf_counter(), 0
    while True:
        done = progress["chunks_done"]
        point = point_due(done)
        if point and not any(p["point"] == point for p in progress["points"]):
            snap = save_snapshot(model, cfg, folder, point, progress["timesteps"])
            progress["points"].append(
                {"point": point, "timesteps": progress["timesteps"], "snapshot": snap.name}
            )
            write_json(folder / PROGRESS, progress)
        for p in progress["points"]:
            if not (folder / "curve" / p["point"] / "point.done").exists():
                evaluate_point(cfg, folder, p["point"], folder / "snapshots" / p["snapshot"])
                write_curve(cfg, folder, progress["points"])
        if done >= cfg["chunks"] or (stop_after is not None and done_here >= stop_after):
            return progress
        t0 = time.perf_counter()
        model.set_random_seed(
            cfg["seed"] + SEED_STRIDE * done
        )  # torch, numpy, random and the env's next reset
        model._last_obs = None  # learn() starts new games from the reseeded env
        model.learn(total_timesteps=cfg["chunk"], reset_num_timesteps=False)
        save_checkpoint(model, folder)
        progress.update(chunks_done=done + 1, timesteps=model.num_timesteps, updates=model._n_updates)
        write_json(folder / PROGRESS, progress)
        seconds = time.perf_counter() - t0
        log_chunk(folder, done, model.num_timesteps, seconds)
        done_here += 1
        left = cfg["chunks"] - done - 1
        rate = (time.perf_counter() - t_start) / done_here
        print(
            f"chunk {done + 1}/{cfg['chunks']}: {model.num_timesteps:,} steps, {seconds:.0f} s; "
            f"ETA {left * rate / 60:.0f} min of training plus the curve points",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    try:
        if (args.out is None) == (args.resume is None):
            raise ValueError("give --out DIR (a new run) or --resume DIR")
        if args.resume is not None:
            folder = args.resume
            try:
                cfg = json.loads((folder / CONFIG).read_text(encoding="utf-8"))
                json.loads((folder / PROGRESS).read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise ValueError(f"{folder}: not a run folder of this script ({e})") from e
        else:
            folder = args.out
            if folder.exists() and any(folder.iterdir()):
                raise ValueError(f"{folder}: exists and is not empty; --resume it or choose another --out")
            cfg = new_config(args)
            folder.mkdir(parents=True, exist_ok=True)
            write_json(folder / CONFIG, cfg)
            write_json(folder / PROGRESS, {"chunks_done": 0, "timesteps": 0, "updates": 0, "points": []})
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    progress = run(folder, cfg, args.stop_after)
    print(
        json.dumps(
            {"folder": str(folder), "chunks_done": progress["chunks_done"], "points": progress["points"]}
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
