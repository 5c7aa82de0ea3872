"""Springtime for Hitler's part of the benchmark (issue 41; issue 62: one benchmark path, found by the protocol as
``benchmarks.<package>``, :mod:`benchmarks.protocol.games`):

- its tasks (``springtime/...``): the whole campaign (standard rules) as one side against the other side's
  ``random``, ``heuristic`` or ``expert`` bot, and self-play rated against its own frozen ladder (:data:`LADDER`);
- the fingerprint's inputs (:func:`fingerprint_inputs`): the core's engine version, the bytes of the game's
  data files, the observation layout of :mod:`ffo_env.springtime.encoding`, the task's definition and a
  probe of every bot the task uses (exactly the inputs frozen before the move);
- the start of an evaluation game (:func:`eval_start`: the campaign scenario, standard rules, game seed
  ``EVAL_SEED_BASE + i``) and the training env (:func:`make_env`: :class:`SpringtimeSingleAgentEnv`);
- the learners' settings (:data:`SETTINGS`): ``maskable_ppo`` and ``untrained`` are sb3-contrib
  ``MaskablePPO("MlpPolicy")`` on the flat observation (1,351 floats), SB3's default MLP (two layers of 64
  tanh units for the actor and the critic), with the rollout settings of the France Fights On rows (2 envs x 512
  decisions, 4 epochs, batch 256, lr 3e-4, gamma 0.999); evaluation plays the argmax over the legal actions
  (:class:`benchmarks.protocol.algo_sb3.MlpPart`, the part of any flat-vector game).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.protocol.task import EVAL_SEED_BASE, SOLVED_NOTE, STANDARD_NAMES, Task, version_bump

GAME = "springtime"
SIDES = ("french", "german")
RESULTS = "springtime"  # its results' folder under benchmarks/results/
DATA_DIR = Path(__file__).resolve().parent / "data"  # no saved start states (its tasks start new campaigns)
FIGURE = "mean_morale"  # an evaluation row's mean final French Morale (rule 17)
FEATURES = frozenset({"shaped_reward"})

# Springtime for Hitler's own ladder (docs/results/springtime_bots.md, *Ladder*: ``ffo ladder --game springtime
# --agents random,pass,heuristic,expert --games 20 --seed 0 --workers 2``, 320 games, seeds 0-19,
# springtime-core-1, sfh-reconstruction-v1), the model and prior of benchmarks.protocol.ladder_ref; frozen
LADDER: dict[str, tuple[float, float]] = {
    "random": (-234.0, -1154.0),
    "heuristic": (649.0, 574.0),
    "expert": (746.0, 806.0),
}
LADDER_SOURCE = (
    "ffo ladder --game springtime of 2026-11-26 (docs/results/springtime_bots.md, Ladder): 20 games a pairing, "
    "seeds 0-19"
)

PPO: dict[str, Any] = {
    "policy": "MlpPolicy",
    "observation": "flat",
    "n_envs": 2,
    "n_steps": 512,
    "batch_size": 256,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "gamma": 0.999,
    "gae_lambda": 0.95,
    "ent_coef": 0.0,
    "net_arch": "SB3 default (64, 64) tanh, separate actor and critic",
    "reward": "win",
    "evaluation": "greedy",
}
# the shaped reward's scale: the French potential (Morale / 30) from 30 to 0 is worth this many wins
SHAPING_SCALE = 0.5  # the env's default: Morale 30 -> 0 is worth half a win
EVALUATIONS = ("greedy", "sample")
# maskable_ppo_shaped: MaskablePPO's settings with the shaped training reward (docs/experiments/2026-11-26-springtime-rl.md)
SHAPED: dict[str, Any] = {
    **PPO,
    "ent_coef": 0.01,  # rescued 1 of 3 collapsing seeds in the experiments; no other single change did more
    "reward": "shaped",
    "shaping_scale": SHAPING_SCALE,
    "evaluation": "sample",
}
# dagger_expert on this game: the France Fights On rows' DAgger settings into the MlpPolicy of maskable_ppo; a
# Springtime observation is 1,351 float16 (2.7 kB), so every labelled decision of the run is kept (DAgger's
# aggregate; France Fights On keeps a window of 4,000 for memory)
DAGGER_SETTINGS: dict[str, Any] = {
    "teacher": "expert",
    "keep_fraction": 0.5,
    "epochs": 4,
    "batch_size": 64,
    "learning_rate": 1e-3,
    "value_coef": 0.5,
    "beta": "0.5 ** (segment - 1): the teacher's share of the moves played while collecting",
    "network": PPO["net_arch"],
}
SETTINGS: dict[str, Any] = {"ppo": PPO, "shaped": SHAPED, "dagger": DAGGER_SETTINGS}

# ------------------------------------------------------------------ tasks

# Springtime for Hitler's rules changed with engine springtime-core-2 (issue 61: an Event window opens whenever
# a marker is held, P10; a BEF eliminated in combat is rebuilt per rule 12.3.2 / S64): its tasks are version 2,
# and version 1, played on springtime-core-1, can no longer be run here (its results stay, superseded)
_NAMES = STANDARD_NAMES
SUPERSEDED, RETIRED = version_bump(
    GAME, _NAMES, 1, 2, "it was played on springtime-core-1, whose rules issue 61 changed (springtime-core-2)"
)
# a game is ~350-700 decisions (both sides), so the tracks are shorter than France Fights On's
_SHORT, _LONG, _EVAL = 50_000, 1_000_000, 20
# measured with `ffo benchmark run --algo random/untrained` (docs/guide/benchmark_protocol.md): the random
# French beats the random German in every game, so France against random is solved before training
_SOLVED = {"french-vs-random"}


def _version(version: int) -> list[Task]:
    names = {"french": "France (the Allied player)", "german": "Germany (the Axis player)"}
    out = []
    for side, other in (("french", "german"), ("german", "french")):
        for opp in ("random", "heuristic", "expert"):
            name = f"{side}-vs-{opp}"
            solved = name in _SOLVED
            out.append(
                Task(
                    f"springtime/{name}/v{version}",
                    "full",
                    side,
                    opp,
                    _EVAL,
                    _SHORT,
                    _LONG,
                    f"Springtime for Hitler: {names[side]} plays the whole campaign against the {opp} "
                    f"{other.capitalize()}",
                    counts=not solved,
                    note=SOLVED_NOTE if solved else "",
                )
            )
    out.append(
        Task(
            f"springtime/selfplay-ladder/v{version}",
            "selfplay",
            None,
            None,
            10,
            2 * _SHORT,  # both sides together: each side gets a one-side task's short budget
            2 * _LONG,
            "Springtime for Hitler: both sides learn against each other; rated (Elo) against the game's frozen "
            "reference ladder (random, heuristic, expert on each side)",
            references=("random", "heuristic", "expert"),
        )
    )
    return out


# versions 1 (superseded and retired) and 2
TASKS: list[Task] = [t for version in (1, 2) for t in _version(version)]


# ------------------------------------------------------------------ fingerprint


def _data_hash() -> dict[str, str]:
    from ffo_env.springtime.core.data import DATA_DIR as GAME_DATA
    from ffo_env.springtime.core.data import DATA_VERSION

    h = hashlib.sha256()
    for p in sorted(GAME_DATA.iterdir()):
        if p.is_file():
            h.update(p.name.encode() + b"\0" + p.read_bytes())
    return {"version": DATA_VERSION, "sha256": h.hexdigest()[:16]}


def observation_spec_hash() -> str:
    """A hash of the observation layout (the game interface's,
    :func:`ffo_env.springtime.interface.observation_spec_hash`)."""
    from ffo_env.springtime.interface import observation_spec_hash as spec_hash

    return spec_hash()


def probe_state() -> Any:
    """The game the bots' probe plays (:func:`benchmarks.protocol.tasks.bot_probe`): the campaign, seed 0."""
    from ffo_env.games import game_info

    return game_info(GAME).new_state(0)


def fingerprint_inputs(task: Any) -> dict[str, Any]:
    from benchmarks.protocol.tasks import bot_probe
    from ffo_env.springtime.core.game import ENGINE_VERSION

    inputs = {
        "game": GAME,
        "engine": ENGINE_VERSION,
        "data": _data_hash(),
        "observation": observation_spec_hash(),
        "task": task.definition(),
        "bots": {name: bot_probe(name, game=GAME) for name in task.bots()},
    }
    if task.kind == "selfplay":  # the frozen ratings the score is measured against are part of the task
        inputs["ladder"] = {k: list(v) for k, v in sorted(LADDER.items())}
    return inputs


# ------------------------------------------------------------------ games and envs


def eval_start(task: Task, i: int) -> Any:
    """A new campaign game (standard rules) with game seed ``EVAL_SEED_BASE + i``."""
    from ffo_env.games import game_info

    return game_info(GAME).new_state(EVAL_SEED_BASE + i)


def make_env(
    task: Task, side: str, opponent: Any, observation_format: str, seed: int, reward: str = "win"
) -> Any:
    """The training env of ``side`` against ``opponent`` (an agent object), reset with ``seed``. The
    observation is the flat vector for ``flat`` and ``compact`` (1,351 floats: already compact) and the
    ``{"observation", "action_mask"}`` dict for ``dict``. ``reward``: ``"win"`` (the task's +1/-1 at the end)
    or ``"shaped"`` (the env's potential-based shaping from French Morale, :data:`SHAPING_SCALE`; a training
    choice of an algorithm: the task's score stays the win rate)."""
    from ffo_env.springtime.env import SpringtimeSingleAgentEnv

    fmt = "dict" if observation_format == "dict" else "flat"
    kwargs: dict[str, Any] = {}
    if reward != "win":
        kwargs = {"reward": reward, "shaping_scale": SHAPING_SCALE}
    env = SpringtimeSingleAgentEnv(side=side, opponent=opponent, observation_format=fmt, **kwargs)
    env.reset(seed=seed)
    return env


def check_vector() -> None:
    """The flat observation is always there."""


def encode_vector(state: Any, side: str) -> np.ndarray:
    """The flat observation of ``state`` for ``side`` (the env's own encoder)."""
    from ffo_env.springtime.encoding import encode as encode_obs

    return encode_obs(state, SIDES.index(side))


def winner(state: Any) -> str | None:
    return SIDES[int(state.winner)] if int(state.winner) >= 0 else None


def final_figure(state: Any) -> int:
    """The figure a game's row averages besides its result: the final French Morale (rule 17)."""
    return int(state.morale)


def observation_in(observation: str) -> str:
    """Every learner here reads the flat observation (1,351 floats)."""
    return observation if observation == "-" else "flat"


def sb3_part() -> Any:
    from benchmarks.protocol.algo_sb3 import MlpPart

    return MlpPart("springtime", SETTINGS)


def hyperparameters(name: str) -> dict[str, Any]:
    """The hyperparameters a Springtime result records for the algorithm ``name`` (beside its spec's)."""
    if name == "dagger_expert":
        return {"source": "benchmarks.springtime.DAGGER_SETTINGS", **PPO, "dagger": DAGGER_SETTINGS}
    if name == "maskable_ppo_shaped":
        return {"source": "benchmarks.springtime.SHAPED", **SHAPED}
    if name == "ppo_mlp_compact_shaped":
        return {"reward": "shaped", "shaping_scale": SHAPING_SCALE, "evaluation": "sample"}
    if name in ("maskable_ppo", "untrained"):
        return {"source": "benchmarks.springtime.PPO", **PPO}
    return {}


# ------------------------------------------------------------------ baselines

_CHEAP = (
    "springtime/french-vs-random/v2",
    "springtime/french-vs-heuristic/v2",
    "springtime/german-vs-random/v2",
    "springtime/german-vs-heuristic/v2",
)
_EXPERT = ("springtime/french-vs-expert/v2", "springtime/german-vs-expert/v2")
_LEARN = ("springtime/german-vs-random/v2",)
_LEARN_LATE = ("springtime/french-vs-heuristic/v2", "springtime/german-vs-heuristic/v2")
_SELFPLAY = "springtime/selfplay-ladder/v2"
_CLEANRL = ("ppo_mlp_compact", "ppo_mlp_compact_shaped")


def baseline_jobs() -> list[tuple[str, str, int]]:
    """The shipped baselines' jobs of Springtime for Hitler (``--only springtime``; results under
    ``benchmarks/results/springtime/``), in the order :mod:`benchmarks.protocol.baselines` runs them."""
    from benchmarks.protocol.baselines import LEARNERS, REFERENCES

    out = [(t, a, 3) for t in _CHEAP for a in ("random", "untrained")]
    out += [(t, "maskable_ppo", 3) for t in _LEARN]
    out += [(t, "expert", 3) for t in _CHEAP if t.startswith("springtime/german")]
    out += [(t, a, 3) for t in _EXPERT for a in ("random", "untrained")]
    out += [(t, "expert", 3) for t in (*_CHEAP, *_EXPERT) if not t.startswith("springtime/german-vs-r")]
    out += [(t, "maskable_ppo", 3) for t in _LEARN_LATE]
    # the shaped-reward learners (docs/experiments/2026-11-26-springtime-rl.md): the Axis from scratch first
    out += [(t, a, 3) for t in _LEARN for a in ("maskable_ppo_shaped", *_CLEANRL)]
    out += [(t, "maskable_ppo_shaped", 3) for t in _LEARN_LATE]
    out += [(t, a, 3) for t in _LEARN_LATE for a in _CLEANRL]
    # the imitation reference (issue 40), against the heuristics first
    out += [(t, "dagger_expert", 3) for t in (*_LEARN_LATE, *_LEARN)]
    # the rest of issue 40's floor on this game: three learners on the expert tasks, then self-play
    out += [(t, a, 3) for t in _EXPERT for a in LEARNERS]
    out += [(_SELFPLAY, a, 3) for a in (*REFERENCES, *LEARNERS)]
    return out
