"""Benchmark your own algorithm: REINFORCE with a masked MLP policy on the compact observation, registered
with the benchmark protocol and run by its own commands (tutorial: docs/tutorials/own_algorithm.md).

    python examples/ffo/benchmark_reinforce.py run --task ffo/french-endgame/v2 --algo reinforce --seeds 5 --out runs/reinforce
    python examples/ffo/benchmark_reinforce.py run --resume runs/reinforce      # continue a killed run
    ffo benchmark report runs/reinforce benchmarks/results/french-endgame/v2 --out report/

The arguments are those of ``ffo benchmark`` (``run``, ``tasks``, ``report``); this file only adds the
algorithm ``reinforce``. A resumed run needs the algorithm too, so it is resumed through this file as well.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from benchmarks.protocol.algos import AlgoSpec, Context, Learner, register
from benchmarks.protocol.envs import make_env
from ffo_env.atomic import atomic_write_bytes
from ffo_env.ffo.core.sides import Side
from ffo_env.ffo.encoding.compact import compact_encoder_for

# written into every result file (results.json's run_meta.hyperparameters)
HYPERPARAMETERS: dict[str, Any] = {
    "hidden": 64,
    "learning_rate": 1e-3,
    "episodes_per_update": 8,
    "entropy_coef": 0.01,
}


class ReinforceLearner(Learner):
    """REINFORCE (Williams 1992) with a running-mean baseline: one side's policy, trained on whole episodes
    against the task's training opponent, on the task's own training environments."""

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        torch.set_num_threads(1)
        torch.manual_seed(ctx.seed)
        probe: Any = make_env(ctx.task, ctx.side, ctx.opponent(0), "compact", ctx.seed)  # for the spaces
        n_obs, n_actions = int(probe.observation_space.shape[0]), int(probe.action_space.n)
        hidden = int(HYPERPARAMETERS["hidden"])
        self.net = nn.Sequential(nn.Linear(n_obs, hidden), nn.Tanh(), nn.Linear(hidden, n_actions))
        self.opt = torch.optim.Adam(self.net.parameters(), lr=float(HYPERPARAMETERS["learning_rate"]))
        self.steps = 0  # the learner's own decisions: the benchmark's budget unit
        self.baseline = 0.0

    @property
    def decisions(self) -> int:
        return self.steps

    def _dist(self, obs: Any, mask: Any) -> torch.distributions.Categorical:
        logits = self.net(torch.as_tensor(obs, dtype=torch.float32))
        return torch.distributions.Categorical(
            logits=logits.masked_fill(~torch.as_tensor(mask, dtype=torch.bool), -1e9)
        )

    def learn(self, until: int, segment: int) -> None:
        """Play episodes until ``until`` decisions are used, one update every ``episodes_per_update`` episodes
        and one at the end of the interval."""
        if self.steps >= until:
            return
        # each evaluation interval is seeded by (seed, interval) and starts from fresh environments, so a run
        # resumed from its last point repeats an uninterrupted one
        seed = self.ctx.seed * 1_000 + segment
        torch.manual_seed(seed)
        env: Any = make_env(self.ctx.task, self.ctx.side, self.ctx.opponent(seed), "compact", seed)
        obs, _ = env.reset(seed=seed)
        while self.steps < until:
            episodes: list[tuple[torch.Tensor, torch.Tensor, float]] = []
            while len(episodes) < int(HYPERPARAMETERS["episodes_per_update"]) and self.steps < until:
                logps, entropies, ret, done = [], [], 0.0, False
                while not done:
                    dist = self._dist(obs, env.action_masks())
                    action = dist.sample()
                    logps.append(dist.log_prob(action))
                    entropies.append(dist.entropy())
                    obs, reward, terminated, truncated, _ = env.step(int(action))
                    self.steps += 1
                    ret += float(reward)
                    done = terminated or truncated
                obs, _ = env.reset()
                episodes.append((torch.stack(logps).sum(), torch.stack(entropies).mean(), ret))
            self._update(episodes)

    def _update(self, episodes: list[tuple[torch.Tensor, torch.Tensor, float]]) -> None:
        returns = [ret for _, _, ret in episodes]
        loss = torch.stack(
            [
                -(ret - self.baseline) * logp - float(HYPERPARAMETERS["entropy_coef"]) * ent
                for logp, ent, ret in episodes
            ]
        ).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.baseline = 0.9 * self.baseline + 0.1 * float(np.mean(returns))

    def agent(self) -> Any:
        return _Greedy(self)

    def save(self, folder: Path) -> None:
        payload = {"net": self.net.state_dict(), "opt": self.opt.state_dict(), "steps": self.steps}
        payload["baseline"] = self.baseline
        buf = io.BytesIO()
        torch.save(payload, buf)
        # atomically: a run killed while saving never leaves half a checkpoint
        atomic_write_bytes(folder / f"{self.ctx.side}-reinforce.pt", buf.getvalue())

    def load(self, folder: Path) -> None:
        # weights_only: loading a checkpoint never runs code from it
        payload = torch.load(folder / f"{self.ctx.side}-reinforce.pt", map_location="cpu", weights_only=True)
        self.net.load_state_dict(payload["net"])
        self.opt.load_state_dict(payload["opt"])
        self.steps, self.baseline = int(payload["steps"]), float(payload["baseline"])


class _Greedy:
    """The policy as the evaluated agent: the most likely legal action of the side's compact observation."""

    def __init__(self, learner: ReinforceLearner) -> None:
        self.learner = learner

    def act_state(self, state: Any) -> int:
        obs = compact_encoder_for(state.game).encode(
            state, int(Side.of(self.learner.ctx.side))
        )  # the env's own
        legal = state.legal_actions()
        with torch.inference_mode():
            logits = self.learner.net(torch.as_tensor(np.asarray(obs, np.float32))).numpy()
        return int(legal[int(np.argmax(logits[legal]))])


register(
    AlgoSpec(
        "reinforce",
        "REINFORCE with a running-mean baseline, a 64-unit tanh MLP on the compact observation, masked logits",
        True,  # it learns: the report gives its change from point 0
        "compact",
        ReinforceLearner,
        hyperparameters=HYPERPARAMETERS,
        kinds=("full", "endgame"),  # one side against a fixed opponent; not the self-play task
        games=("ffo",),
    )
)


if __name__ == "__main__":
    from ffo_env.cli import main

    sys.exit(main(["benchmark", *sys.argv[1:]]))
