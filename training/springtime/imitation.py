"""DAgger from a scripted Springtime bot: gather the teacher's labels on the learner's decisions, fit the
policy to them, repeat with the student playing part of the moves.

Iteration 1 is behaviour cloning: the teacher plays every learner decision. From iteration 2 each learner
decision is played by the teacher with probability ``beta``, else by the current student (argmax), and is
always labelled with the teacher's choice, so the student learns to recover from the positions its own
mistakes lead to (Ross et al., 2011). The critic is fitted at the same time to the game's result (+1/-1 for
the learner), which gives PPO a value function that already knows who is winning.

Observations are the learner's own view only (:func:`ffo_env.springtime.encoding.encode`, S59). Datasets
are stored as ``.npz`` (float16 observations; read back with ``allow_pickle=False``).
"""

from __future__ import annotations

import io
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.springtime import make_agent
from ffo_env.atomic import atomic_write_bytes
from ffo_env.springtime.core.actions import N_ACTIONS
from ffo_env.springtime.core.game import Game
from ffo_env.springtime.encoding import OBS_SIZE, encode
from training.springtime.opponents import MixOpponent

KEYS = ("obs", "mask", "label", "ret")


def collect(
    side: str,
    teacher: str,
    student: Any,
    beta: float,
    decisions: int,
    opponents: dict[str, float],
    seed: int,
    report: Callable[[int], None] | None = None,
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """``decisions`` teacher-labelled learner decisions (whole games, the last one finished) against the mix
    ``opponents``; ``student`` None or ``beta`` 1 means the teacher plays every move. Returns the arrays and
    the games' statistics."""
    me = 0 if side == "french" else 1
    rng = random.Random(seed)
    game = Game()
    coach = make_agent(teacher, side, seed)
    opp = MixOpponent("german" if side == "french" else "french", opponents)
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    labels: list[int] = []
    rets: list[float] = []
    games = wins = 0
    while len(labels) < decisions:
        state = game.new_initial_state(rng.randrange(2**31))
        opp.reset(rng.randrange(2**31))
        coach.reset(rng.randrange(2**31))
        start = len(labels)
        while not state.is_terminal():
            if state.current_side != me:
                state.apply_action(opp.act_state(state))
                continue
            legal = state.legal_actions()
            label = int(coach.act_state(state))
            if len(legal) > 1:
                mask = np.zeros(N_ACTIONS, dtype=bool)
                mask[legal] = True
                obs.append(encode(state, me).astype(np.float16))
                masks.append(mask)
                labels.append(label)
                if report is not None and len(labels) % 1000 == 0:
                    report(len(labels))
            play = label
            if student is not None and beta < 1.0 and rng.random() >= beta:
                play = int(student.act_state(state))
            state.apply_action(play)
        games += 1
        won = state.winner == me
        wins += int(won)
        rets.extend([1.0 if won else -1.0] * (len(labels) - start))
    data = {
        "obs": np.asarray(obs, dtype=np.float16).reshape(-1, OBS_SIZE),
        "mask": np.asarray(masks, dtype=bool).reshape(-1, N_ACTIONS),
        "label": np.asarray(labels, dtype=np.int16),
        "ret": np.asarray(rets, dtype=np.float32),
    }
    return data, {"games": games, "learner_wins": wins, "decisions": len(labels)}


def save_data(path: Path, data: dict[str, np.ndarray]) -> None:
    buf = io.BytesIO()
    np.savez_compressed(buf, obs=data["obs"], mask=data["mask"], label=data["label"], ret=data["ret"])
    atomic_write_bytes(path, buf.getvalue())


def load_data(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as f:
        return {k: f[k] for k in KEYS}


def concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([p[k] for p in parts]) for k in KEYS}


def fit(
    policy: Any,
    optimizer: Any,
    data: dict[str, np.ndarray],
    epochs: int,
    batch_size: int,
    value_coef: float,
    seed: int,
) -> dict[str, float]:
    """Minimise ``-log pi(label | obs, mask) + value_coef * (V(obs) - ret)^2`` over ``data``; returns the last
    epoch's mean losses and the accuracy of the argmax against the labels."""
    import torch

    n = len(data["label"])
    gen = np.random.default_rng(seed)
    obs = torch.as_tensor(data["obs"])  # float16, converted batch by batch
    masks = torch.as_tensor(data["mask"])
    labels = torch.as_tensor(data["label"].astype(np.int64))
    rets = torch.as_tensor(data["ret"])
    policy.set_training_mode(True)
    out: dict[str, float] = {}
    t0 = time.time()
    for _ in range(epochs):
        order = torch.as_tensor(gen.permutation(n))
        tot_pi = tot_v = correct = 0.0
        for i in range(0, n, batch_size):
            idx = order[i : i + batch_size]
            x = obs[idx].float()
            values, log_prob, _ = policy.evaluate_actions(x, labels[idx], action_masks=masks[idx])
            loss_pi = -log_prob.mean()
            loss_v = torch.nn.functional.mse_loss(values.flatten(), rets[idx])
            loss = loss_pi + value_coef * loss_v
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            with torch.no_grad():
                dist = policy.get_distribution(x, action_masks=masks[idx].numpy())
                correct += float((dist.distribution.probs.argmax(dim=1) == labels[idx]).sum())
            tot_pi += loss_pi.item() * len(idx)
            tot_v += loss_v.item() * len(idx)
        out = {"policy_loss": tot_pi / n, "value_loss": tot_v / n, "accuracy": correct / n}
    policy.set_training_mode(False)
    out["seconds"] = round(time.time() - t0, 1)
    return out
