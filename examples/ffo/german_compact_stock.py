"""The stock script of issue 60: sb3-contrib ``MaskablePPO("MlpPolicy")`` with its default hyperparameters on
``ffo_env/German-compact-v0`` as registered, against the ``random`` French; 30 games before and after.

    python examples/ffo/german_compact_stock.py --seed 0 --timesteps 60000 --games 30

The untrained network (``MaskablePPO(..., seed=SEED)`` before ``learn``) and the trained one play the same
evaluation games: game ``g`` is ``env.reset(seed=10_000 + g)`` (the same core seed, so the same random
setup and the same opponent's generator) with the policy's actions masked to the legal ones, as
sb3-contrib's ``evaluate_policy`` plays them (``deterministic=True``, the default there; ``--sample``
samples the policy instead). Printed as JSON: each game's result, the win rates with 95 % Wilson
intervals, the seeds only one of the two won (discordant seeds) with the exact two-sided sign test on
them, the mean return and final VP, and the wall time. The id's defaults are its own (issue 60: the
candidate-slot action layout and ``reward="potential"``); ``--action-layout core --reward win`` trains on
the id's old defaults (one action per hex, unit and special; +1 / -1 at the end only) to show the flat line.

``--control slot0`` (or ``slot0_decline``, ``pass_first``) trains nothing: it plays a fixed policy of the slot
layout on the same games (the first filled slot; the same but declining every attack; the first legal
special whenever one is legal), the control that shows what a candidate order gives away
(``--slot-order``; docs/experiments/2026-11-28-german-compact-slots.md).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks

import ffo_env  # noqa: F401 - registers the gymnasium ids
from agents.paired import sign_test_p, wilson_interval
from ffo_env.ffo.encoding.slots import SLOT_ORDERS

EVAL_SEED = 10_000


def make_env(
    env_id: str,
    reward: str | None,
    action_layout: str | None = None,
    slot_order: str | None = None,
    slot_count: int | None = None,
    opponent: str | None = None,
) -> gym.Env:
    """The id as registered, with only the options given on the command line changed."""
    kwargs: dict[str, Any] = {}
    if opponent is not None:
        kwargs["opponent"] = opponent
    if slot_order is not None:
        kwargs["slot_order"] = slot_order
    if slot_count is not None:
        kwargs["slot_count"] = slot_count
    if reward is not None:
        kwargs["reward"] = reward
    if action_layout is not None:
        kwargs["action_layout"] = action_layout
    return gym.make(env_id, **kwargs)


def play(env: gym.Env, games: int, choose: Callable[[Any, int], int]) -> dict[str, Any]:
    """``games`` games on the fixed evaluation seeds, each action ``choose(obs, game_index)``; the learner's side
    wins or loses each."""
    side = env.unwrapped.side  # type: ignore[attr-defined]
    wins: list[int] = []
    returns: list[float] = []
    vps: list[int] = []
    decisions: list[int] = []
    for g in range(games):
        obs, info = env.reset(seed=EVAL_SEED + g)
        done, total = False, 0.0
        while not done:
            obs, reward, terminated, truncated, info = env.step(choose(obs, g))
            total += float(reward)
            done = terminated or truncated
        wins.append(int(info["winner"] == side))
        returns.append(round(total, 6))
        vps.append(int(info["episode_stats"]["vp"]))
        decisions.append(int(info["episode_stats"]["learner_steps"]))
    lo, hi = wilson_interval(sum(wins), games)
    return {
        "wins": wins,
        "win_rate": sum(wins) / games,
        "wilson95": [round(lo, 3), round(hi, 3)],
        "mean_return": float(np.mean(returns)),
        "mean_vp": float(np.mean(vps)),
        "vp": vps,
        "mean_decisions": float(np.mean(decisions)),
    }


def evaluate(model: MaskablePPO, env: gym.Env, games: int, deterministic: bool) -> dict[str, Any]:
    """``games`` games of the model (argmax or sampled) on the evaluation seeds."""

    def choose(obs: Any, _game: int) -> int:
        action, _ = model.predict(obs, action_masks=get_action_masks(env), deterministic=deterministic)
        return int(action)

    return play(env, games, choose)


# "last_slot": the last filled slot; "uniform": a filled slot or legal special drawn uniformly (a generator
# seeded by the game's index), the two place-only policies besides "slot0" that a slot order could favour
CONTROLS = ("slot0", "slot0_decline", "pass_first", "last_slot", "uniform")


def control_action(env: gym.Env, control: str, rng: np.random.Generator | None = None) -> int:
    """The fixed policy ``control``'s action in the slot layout (its masks: the core's legality)."""
    from ffo_env.ffo.core.phases import Decision

    u: Any = env.unwrapped
    m = u.action_masks()
    k = u.slot_count
    slots, specials = np.flatnonzero(m[:k]), np.flatnonzero(m[k:]) + k
    if control == "uniform":
        assert rng is not None
        return int(rng.choice(np.flatnonzero(m)))
    attack = u.game_state.decision in (Decision.ATTACK_TARGET, Decision.AIR_TARGET)
    if specials.size and (control == "pass_first" or (control == "slot0_decline" and attack)):
        return int(specials[0])
    if not slots.size:
        return int(specials[0])
    return int(slots[-1]) if control == "last_slot" else int(slots[0])


def evaluate_control(env: gym.Env, control: str, games: int) -> dict[str, Any]:
    """``games`` games of the fixed policy ``control`` on the evaluation seeds ("uniform" draws from a generator
    seeded by the game's index)."""
    rngs: dict[int, np.random.Generator] = {}

    def choose(_obs: Any, game: int) -> int:
        return control_action(env, control, rngs.setdefault(game, np.random.default_rng(game)))

    return play(env, games, choose)


def paired(before: list[int], after: list[int]) -> dict[str, Any]:
    """The change of the win rate on the same seeds and the exact sign test on the discordant ones."""
    after_only = sum(1 for b, a in zip(before, after, strict=True) if a and not b)
    before_only = sum(1 for b, a in zip(before, after, strict=True) if b and not a)
    return {
        "rise": (sum(after) - sum(before)) / len(before),
        "won_after_only": after_only,
        "won_before_only": before_only,
        "sign_test_p": sign_test_p(after_only, before_only),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--env-id", default="ffo_env/German-compact-v0", help="a registered id (default: %(default)s)"
    )
    p.add_argument("--reward", default=None, help="override the id's default reward (e.g. 'win')")
    p.add_argument(
        "--action-layout",
        default=None,
        choices=("core", "slots"),
        help="override the id's default action layout ('core': one action per hex, unit and special)",
    )
    p.add_argument(
        "--slot-order",
        default=None,
        choices=SLOT_ORDERS,
        help="the slot layout's candidate order ('overstack_last': destinations that over-stack last; "
        "'board': sorted by public board features)",
    )
    p.add_argument(
        "--slot-count",
        type=int,
        default=None,
        help="the slot layout's number of slots (the id's default: 64; fewer: more narrowing steps)",
    )
    p.add_argument(
        "--opponent",
        default=None,
        help="the other side's agent (any agent name, e.g. 'expert'; the id's default: 'random')",
    )
    p.add_argument(
        "--control",
        default=None,
        choices=CONTROLS,
        help="train nothing: play this fixed policy of the slot layout on the evaluation games",
    )
    p.add_argument("--timesteps", type=int, default=60_000, help="learner decisions to train on")
    p.add_argument("--games", type=int, default=30, help="evaluation games before and after")
    p.add_argument("--seed", type=int, default=0, help="MaskablePPO's seed")
    p.add_argument("--sample", action="store_true", help="sample the policy in evaluation (default: argmax)")
    p.add_argument("--threads", type=int, default=1, help="torch threads (default: %(default)s)")
    p.add_argument("--out", default=None, help="also write the JSON here")
    p.add_argument(
        "--save",
        default=None,
        help="also save the trained policy's weights here (torch state dict: load with weights_only=True)",
    )
    args = p.parse_args(argv)

    import torch

    torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    if args.control:
        cenv = make_env(
            args.env_id, args.reward, args.action_layout, args.slot_order, args.slot_count, args.opponent
        )
        if getattr(cenv.unwrapped, "action_layout", "core") != "slots":
            p.error("--control plays the slot layout: drop --action-layout core")
        out = {
            "env_id": args.env_id,
            "action_layout": "slots",
            "slot_order": getattr(cenv.unwrapped, "slot_order", None),
            "slot_count": getattr(cenv.unwrapped, "slot_count", None),
            "opponent": args.opponent or "random",
            "control": args.control,
            "games": args.games,
            "result": evaluate_control(cenv, args.control, args.games),
            "seconds": round(time.perf_counter() - t0, 1),
        }
        print(json.dumps(out))
        if args.out:
            from ffo_env.atomic import atomic_write_text

            atomic_write_text(args.out, json.dumps(out) + "\n")
        return 0
    env = make_env(
        args.env_id, args.reward, args.action_layout, args.slot_order, args.slot_count, args.opponent
    )
    model = MaskablePPO("MlpPolicy", env, seed=args.seed, verbose=0, device="cpu")
    eval_env = make_env(
        args.env_id, args.reward, args.action_layout, args.slot_order, args.slot_count, args.opponent
    )
    deterministic = not args.sample
    before = evaluate(model, eval_env, args.games, deterministic)
    t1 = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    t2 = time.perf_counter()
    after = evaluate(model, eval_env, args.games, deterministic)
    t3 = time.perf_counter()
    result = {
        "env_id": args.env_id,
        "reward": eval_env.unwrapped.reward_mode,  # type: ignore[attr-defined]
        "action_layout": getattr(eval_env.unwrapped, "action_layout", "core"),
        "slot_order": getattr(eval_env.unwrapped, "slot_order", None),
        "slot_count": getattr(eval_env.unwrapped, "slot_count", None),
        "opponent": args.opponent or "random",
        "seed": args.seed,
        "timesteps": args.timesteps,
        "games": args.games,
        "evaluation": "deterministic" if deterministic else "sample",
        "before": before,
        "after": after,
        "paired": paired(before["wins"], after["wins"]),
        "seconds": {
            "evaluate_before": round(t1 - t0, 1),
            "learn": round(t2 - t1, 1),
            "evaluate_after": round(t3 - t2, 1),
        },
    }
    if args.save:
        import io

        from ffo_env.atomic import atomic_write_bytes

        buf = io.BytesIO()
        torch.save(model.policy.state_dict(), buf)  # weights only; written whole or not at all
        atomic_write_bytes(args.save, buf.getvalue())
    text = json.dumps(result)
    print(text)
    if args.out:
        from ffo_env.atomic import atomic_write_text

        atomic_write_text(args.out, text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
