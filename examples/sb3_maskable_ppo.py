"""Train sb3-contrib MaskablePPO on a registered France Fights On id, then evaluate it.

    python examples/sb3_maskable_ppo.py --env-id ffo_env/French-flat-v0 --opponent random --timesteps 20000

Nothing here is specific to ffo_env beyond ``import ffo_env`` (which registers the ids): the env comes
from ``gymnasium.make``, the mask from the env's ``action_masks()`` method, as sb3-contrib expects.
The full training pipeline of the project (imitation warm start, opponent pool, a policy network made
for the map) is ``ffo train``; this is the minimal stock-tool path.
"""

from __future__ import annotations

import argparse
import json
import time

import gymnasium as gym
from sb3_contrib import MaskablePPO

import ffo_env  # noqa: F401 - registers the gymnasium ids


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--env-id", default="ffo_env/French-flat-v0", help="a registered id (default: %(default)s)"
    )
    p.add_argument("--opponent", default="random", help="agent name of the other side (default: %(default)s)")
    p.add_argument("--timesteps", type=int, default=20_000, help="learner decisions to train on")
    p.add_argument("--n-steps", type=int, default=512, help="rollout length per update")
    p.add_argument("--eval-games", type=int, default=10, help="games to evaluate the trained policy on")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-steps", type=int, default=None, help="truncate episodes after this many decisions")
    args = p.parse_args(argv)

    env = gym.make(args.env_id, opponent=args.opponent, max_steps=args.max_steps)
    policy = "MlpPolicy" if len(env.observation_space.shape or ()) == 1 else "MultiInputPolicy"
    model = MaskablePPO(
        policy,
        env,
        n_steps=args.n_steps,
        batch_size=min(64, args.n_steps),
        seed=args.seed,
        policy_kwargs={"net_arch": [64, 64]},
        verbose=0,
    )
    t0 = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    train_s = time.perf_counter() - t0

    wins = 0
    for g in range(args.eval_games):
        obs, info = env.reset(seed=10_000 + g)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
            obs, _r, term, trunc, info = env.step(int(action))
            done = term or trunc
        wins += info.get("winner") == env.unwrapped.side
    print(
        json.dumps(
            {
                "env_id": args.env_id,
                "opponent": args.opponent,
                "timesteps": args.timesteps,
                "train_seconds": round(train_s, 1),
                "eval_games": args.eval_games,
                "win_rate": wins / max(1, args.eval_games),
                "samples_per_second": round(args.timesteps / max(train_s, 1e-9), 1),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
