"""France Fights On's part of the benchmark (issue 62: one benchmark path; the protocol finds it as
``benchmarks.<package>``, :mod:`benchmarks.protocol.games`).

Its tasks (``ffo/...``): the last three turns of expert-vs-expert games from saved start states
(:mod:`benchmarks.ffo.states`, files in ``data/``), the whole game as one side against a fixed bot, and
self-play rated against its frozen ladder (:data:`LADDER`). What a task's fingerprint hashes
(:func:`fingerprint_inputs`) is exactly what it hashed before the move, so the frozen fingerprints stay.
The learners' network part (``HexPolicy`` through :mod:`training`) is :mod:`benchmarks.ffo.learners`.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.protocol.task import EVAL_SEED_BASE, SOLVED_NOTE, Task

GAME = "ffo"
RESULTS = ""  # France Fights On's results sit at the top of benchmarks/results/ (as shipped)
DATA_DIR = Path(__file__).resolve().parent / "data"
FIGURE = "mean_vp"  # an evaluation row's mean final French VP
# maskable_ppo_pretrained: RL from the shipped imitation policy (issue 39)
FEATURES = frozenset({"pretrained_init"})

# agent -> (rating as French, rating as German), Elo points, centred on the ladder's mean; the project's ladder
# regenerated on 2026-11-25 (README, *The ladder*: ``ffo ladder --agents random,pass,heuristic:cautious,
# heuristic,heuristic:aggressive,expert,pretrained --games 50 --workers 2``, 2,450 games, seeds 0-49, random
# setup, ffo-engine-2, reconstruction-v3), frozen (benchmarks.protocol.ladder_ref)
LADDER: dict[str, tuple[float, float]] = {
    "random": (-833.0, -1906.0),
    "heuristic": (592.0, 573.0),
    "expert": (749.0, 718.0),
}
LADDER_SOURCE = "ffo ladder of 2026-11-25 (README, The ladder): 50 games a pairing, seeds 0-49"

_ENDGAME = "endgame-t13-v1.json.gz"  # seeds 0-31: version 1's training and evaluation, version 2's evaluation
_ENDGAME_TRAIN = "endgame-t13-train-v2.json.gz"  # seeds 2000-2399: version 2's training starts
SUPERSEDED = {
    "ffo/french-endgame/v1": "ffo/french-endgame/v2",
    "ffo/german-endgame/v1": "ffo/german-endgame/v2",
}
RETIRED: dict[str, str] = {}


def _endgame_tasks() -> list[Task]:
    """Versions 1 (superseded) and 2 of both sides' endgame tasks."""
    out = []
    for version in (1, 2):
        for side, who, other in (("french", "France", "German"), ("german", "Germany", "French")):
            games = "32 expert-vs-expert games" if version == 1 else "expert-vs-expert games"
            description = f"{who} plays the last 3 turns (13-15) of {games} against the {other} expert"
            if version == 2:
                description += ": trains from 398 positions, evaluated on 32 held-out ones"
            out.append(
                Task(
                    f"ffo/{side}-endgame/v{version}",
                    "endgame",
                    side,
                    "expert",
                    32,
                    20_000,
                    200_000,
                    description,
                    states=_ENDGAME if version == 1 else _ENDGAME_TRAIN,
                    eval_states=None if version == 1 else _ENDGAME,
                )
            )
    return out


def _full(side: str, opponent: str, description: str, **kw: Any) -> Task:
    return Task(
        f"ffo/{side}-vs-{opponent}/v1", "full", side, opponent, 20, 100_000, 2_000_000, description, **kw
    )


TASKS: list[Task] = [
    *_endgame_tasks(),
    _full(
        "french",
        "random",
        "France plays the whole game against the random German",
        counts=False,
        note=SOLVED_NOTE,
    ),
    _full("french", "heuristic", "France plays the whole game against the German heuristic"),
    _full("french", "expert", "France plays the whole game against the German expert"),
    _full("german", "random", "Germany plays the whole game against the random French"),
    _full("german", "heuristic", "Germany plays the whole game against the French heuristic"),
    _full("german", "expert", "Germany plays the whole game against the French expert"),
    Task(
        "ffo/selfplay-ladder/v1",
        "selfplay",
        None,
        None,
        10,
        100_000,
        2_000_000,
        "Both sides learn against each other; rated (Elo) against the frozen reference ladder "
        "(random, heuristic, expert on each side)",
        references=("random", "heuristic", "expert"),
    ),
]


# ------------------------------------------------------------------ fingerprint


def _data_hash() -> dict[str, str]:
    from ffo_env.ffo.core.datasets import data_dir
    from ffo_env.ffo.env import make_game

    folder = data_dir(None)
    h = hashlib.sha256()
    for p in sorted(folder.iterdir()):
        if p.is_file():
            h.update(p.name.encode() + b"\0" + p.read_bytes())
    return {"version": make_game("random").scenario.version, "sha256": h.hexdigest()[:16]}


def probe_state() -> Any:
    """The game the bots' probe plays (:func:`benchmarks.protocol.tasks.bot_probe`): seed 0, random setup."""
    from ffo_env.ffo.env import make_game

    return make_game("random").new_initial_state(0)


def fingerprint_inputs(task: Task) -> dict[str, Any]:
    """What ``task``'s fingerprint hashes: engine, data, observation spec, definition, start states, bots (no
    ``game`` key and no ladder: as frozen before the move)."""
    from agents.ffo.policy import spec_hash
    from benchmarks.protocol.state_sets import file_sha256
    from benchmarks.protocol.tasks import bot_probe
    from ffo_env.ffo.core.version import ENGINE_VERSION

    path = task.state_path()
    inputs = {
        "engine": ENGINE_VERSION,
        "data": _data_hash(),
        "observation": spec_hash(),
        "task": task.definition(),
        "states": None if path is None else file_sha256(path),
        "bots": {name: bot_probe(name, game=GAME) for name in task.bots()},
    }
    if task.eval_states is not None:  # only then: version 1's fingerprints stay as frozen
        inputs["eval_states"] = file_sha256(DATA_DIR / task.eval_states)
    return inputs


# ------------------------------------------------------------------ games and envs


class StartSampler:
    """An endgame task's saved states (checked by the core on load); draws one per training episode with
    freshly seeded dice (R37: the saved dice state is replaced, so every episode has its own rolls)."""

    def __init__(self, path: Path) -> None:
        from benchmarks.ffo.states import start_states

        self.states = start_states(path)

    def draw(self, rng: np.random.Generator) -> dict[str, Any]:
        d = self.states[int(rng.integers(len(self.states)))].to_dict()
        d["dice_state"] = str(int(rng.integers(0, 2**63 - 1)))
        return d


@lru_cache(maxsize=4)
def sampler(path: Path) -> StartSampler:
    return StartSampler(path)


def eval_start(task: Task, i: int) -> Any:
    """Evaluation game ``i``: a new game (random setup) with seed ``EVAL_SEED_BASE + i``, or for an endgame
    task state ``i mod n`` of its evaluation set with dice seeded from that seed."""
    from ffo_env.ffo.core.state import State
    from ffo_env.ffo.env import make_game

    seed = EVAL_SEED_BASE + i
    game = make_game("random")
    path = task.eval_state_path()
    if path is None:
        return game.new_initial_state(seed)
    states = sampler(path).states
    d = states[i % len(states)].to_dict()
    d["dice_state"] = str(seed * 1_000_003 + 17)
    return State.from_dict(game, d)


def make_env(
    task: Task, side: str, opponent: Any, observation_format: str, seed: int, reward: str = "win"
) -> Any:
    """The training env of ``side`` against ``opponent``, reset with ``seed``; an endgame task's episodes
    start from drawn saved states (:class:`benchmarks.protocol.envs.FromStates`). The win reward only."""
    from benchmarks.protocol.envs import FromStates
    from ffo_env.ffo.single_agent import FFOSingleAgentEnv

    if reward != "win":
        raise ValueError(f"the {reward!r} training reward is for Springtime tasks only, not {task.id}")
    env: Any = FFOSingleAgentEnv(side=side, opponent=opponent, observation_format=observation_format)
    path = task.state_path()
    if path is not None:
        env = FromStates(env, sampler(path))
    env.reset(seed=seed)
    return env


def check_vector() -> None:
    """Refuse a learner of the vector observation on an installation without the compact format."""
    from benchmarks.protocol.algos import AlgoError
    from ffo_env.ffo.env import OBSERVATION_FORMATS

    if "compact" not in OBSERVATION_FORMATS:
        raise AlgoError(
            "ppo_mlp_compact needs observation_format='compact' (ffo_env/French-compact-v0), which this "
            f"installation does not have (formats: {', '.join(OBSERVATION_FORMATS)})"
        )


def encode_vector(state: Any, side: str) -> np.ndarray:
    """The compact observation of ``state`` for ``side`` (the env's own encoder)."""
    from ffo_env.ffo.core.sides import Side
    from ffo_env.ffo.encoding.compact import compact_encoder_for

    return np.asarray(compact_encoder_for(state.game).encode(state, int(Side.of(side))), np.float32)


def winner(state: Any) -> str | None:
    from ffo_env.ffo.core.sides import SIDE_NAMES

    return str(SIDE_NAMES[int(state.winner)])


def final_figure(state: Any) -> int:
    """The figure a row averages besides the result: the final French VP."""
    return int(state.vp)


def observation_in(observation: str) -> str:
    """The observation format a learner reading ``observation`` reads here: the same (dict or compact)."""
    return observation


def sb3_part() -> Any:
    from benchmarks.ffo.learners import PART

    return PART


def hyperparameters(algo: str) -> dict[str, Any]:
    from benchmarks.ffo.learners import hyperparameters as of

    return of(algo)


# ------------------------------------------------------------------ baselines


# version 2: held-out evaluation positions (version 1, superseded, trained on its evaluation positions)
ENDGAME = ("ffo/french-endgame/v2", "ffo/german-endgame/v2")
FULL = (
    "ffo/french-vs-heuristic/v1",
    "ffo/german-vs-random/v1",
    "ffo/german-vs-heuristic/v1",
    "ffo/french-vs-expert/v1",
    "ffo/german-vs-expert/v1",
)
SELFPLAY = "ffo/selfplay-ladder/v1"


def baseline_jobs() -> list[tuple[str, str, int]]:
    """The shipped baselines' jobs of France Fights On, in the order ``python -m benchmarks.protocol.baselines``
    runs them (:mod:`benchmarks.protocol.baselines`)."""
    from benchmarks.protocol.baselines import LEARNERS, REFERENCES

    out = [(t, a, 5) for t in ENDGAME for a in (*REFERENCES, *LEARNERS)]
    # RL started from the shipped policy (issue 39): the German endgame first, the side RL has to lift
    out += [(t, "maskable_ppo_pretrained", 5) for t in reversed(ENDGAME)]
    out += [(t, a, 3) for t in (*FULL, "ffo/french-vs-random/v1") for a in REFERENCES]  # the last: solved?
    out += [(t, a, 3) for t in FULL for a in LEARNERS]
    out += [(SELFPLAY, a, 3) for a in (*REFERENCES, *LEARNERS)]  # rated against the frozen ladder
    return out
