"""Before and after in one run: the scripted bots of two source trees, timed on the same seeded games.

    git worktree add --detach /tmp/before <commit>
    python -m benchmarks.bot_speed_ab /tmp/before . --pairs 5

Each pair runs the games in a fresh process on each tree (``PYTHONPATH=<tree>``), alternating, so that a
load that comes and goes falls on both; the ratio is taken per pair and its median reported. The games are
four seeded full games of the registry's default game, France Fights On, or of ``--game`` (expert vs expert,
heuristic vs heuristic, and each against the other); each process also prints a hash of every decision, and trees whose bots decide differently are
reported, since a speed change must not change a decision.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

from ffo_env.games import DEFAULT_GAME, GAME_NAMES

GAMES = """
import hashlib, sys, time
from agents import make_agent
from agents.harness import agent_seed
from ffo_env.games import SIDES, game_info
game = sys.argv[1]
h = hashlib.sha256()
t = time.perf_counter()
for fr, ge, seed in [("expert", "expert", 0), ("heuristic", "heuristic", 1), ("expert", "heuristic", 2),
                     ("heuristic", "expert", 3)]:
    s = game_info(game).new_state(seed)
    ag = {"french": make_agent(fr, "french", seed=agent_seed(seed, "french"), game=game),
          "german": make_agent(ge, "german", seed=agent_seed(seed, "german"), game=game)}
    while not s.is_terminal():
        a = int(ag[SIDES[s.current_player]].act_state(s))
        h.update(a.to_bytes(4, "little"))
        s.apply_action(a)
print(f"{time.perf_counter() - t:.3f} {h.hexdigest()}")
"""


def time_tree(tree: Path, game: str = DEFAULT_GAME) -> tuple[float, str]:
    """Seconds of the games of ``game`` on ``tree``'s bots, and the hash of their decisions."""
    env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    out = subprocess.run(
        [sys.executable, "-c", GAMES, game], env=env, cwd="/", capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"{tree}: the games failed ({last})")
    seconds, digest = out.stdout.split()
    return float(seconds), digest


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bot_speed_ab", description=__doc__.splitlines()[0])
    p.add_argument("before", help="source tree of the former bots (e.g. a git worktree)")
    p.add_argument("after", help="source tree of the new bots")
    p.add_argument("--pairs", type=int, default=5, help="alternating pairs of processes (default 5)")
    p.add_argument(
        "--game", default=DEFAULT_GAME, choices=GAME_NAMES, help=f"the game played (default {DEFAULT_GAME})"
    )
    args = p.parse_args(argv)
    trees = [Path(args.before), Path(args.after)]
    for tree in trees:
        if not (tree / "agents").is_dir() or not (tree / "ffo_env").is_dir():
            print(f"error: {tree} is not a source tree of ffo_env (no agents/ and ffo_env/)", file=sys.stderr)
            return 2
    if not 1 <= args.pairs <= 100:
        print(f"error: --pairs must be in 1..100, got {args.pairs}", file=sys.stderr)
        return 2
    ratios = []
    digests = set()
    try:
        for i in range(args.pairs):
            (b, db), (a, da) = time_tree(trees[0], args.game), time_tree(trees[1], args.game)
            digests |= {db, da}
            ratios.append(b / a)
            print(f"pair {i + 1}: before {b:.2f} s, after {a:.2f} s, ratio {b / a:.2f}", flush=True)
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"median ratio {statistics.median(ratios):.2f} (per pair {min(ratios):.2f}-{max(ratios):.2f})")
    if len(digests) > 1:
        print("the two trees' bots decide differently: the ratio compares different games", file=sys.stderr)
        return 1
    print("the same decisions on both trees")
    return 0


if __name__ == "__main__":
    sys.exit(main())
