"""France 1940's part of the benchmark (issue 63 item 7; found by the protocol as ``benchmarks.<package>``,
:mod:`benchmarks.protocol.games`).

Its tasks (``france1940/...``, :data:`TASKS`):

- the whole game (the historical armies, Allied ``Hist`` against German ``I``, standard rules, the default
  game data) as one side against the other side's ``random``, ``heuristic`` or ``expert`` bot;
- self-play rated against France 1940's own frozen ladder (:data:`LADDER`, measured with ``ffo ladder --game
  france1940``);
- a **generalization task** (``france1940/german-unseen-pairs/v2``): the German against the Allied
  ``heuristic``, trained on 44 of the 66 pairs of Order of Battle Alternatives and evaluated on the 22 others
  (:data:`TRAIN_PAIRS`, :data:`HELDOUT_PAIRS`): a pair is held out when ``(i + j) % 3 == 2`` for its Allied
  column ``i`` and German column ``j`` (the core's orders), so every army of either side is seen in training and
  every held-out pair is a combination of them never played in training, and the historical pair trains;
- a **short graded task** (``france1940/german-late/v2``): the German plays the last four game-turns (7-10) of
  expert-vs-expert games (historical armies) from saved states (:mod:`benchmarks.france1940.states`; 64
  training starts, 24 evaluation starts from other games) against the Allied ``expert``, scored by
  :func:`graded_score`, the share of the German's victory requirement met at the end, finer than win/loss.

Version 2 of every task (session 48) plays the default data ``f40-reconstruction-v3`` (P20) with the Allied
``expert`` of session 45's defence; its late-game starts, its ladder and its bots' probe (the whole probe game,
:data:`PROBE_DECISIONS`) were made again. Version 1 (data ``f40-reconstruction-v2``, session 41's Allied
expert) is retired: its results are kept, its fingerprints stay as frozen.

The learners read the compact observation (9,638 floats, ``ffo_env/France1940-<Side>-compact-v0``): ``maskable_ppo``,
``untrained`` and ``dagger_expert`` with the shared flat-vector part (:class:`benchmarks.protocol.algo_sb3.MlpPart`,
SB3's ``MlpPolicy``) and :data:`SETTINGS`, ``ppo_mlp_compact`` as in every game.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.protocol.task import (
    EVAL_SEED_BASE,
    SOLVED_NOTE,
    STANDARD_NAMES,
    Task,
    TaskError,
    version_bump,
)

GAME = "france1940"
SIDES = ("french", "german")
RESULTS = "france1940"  # its results' folder under benchmarks/results/
DATA_DIR = Path(__file__).resolve().parent / "data"
# an evaluation row's mean final 3 x Allied VP - German VP (the harness's vp_margin)
FIGURE = "mean_vp_margin"
FEATURES: frozenset[str] = frozenset()

HISTORICAL = ("Hist", "I")  # the Allied and the German Order of Battle Alternative column of the rules' game

# France 1940's own ladder, measured again for version 2 of the tasks (session 48, 2026-11-29: data
# f40-reconstruction-v3, the Allied expert with session 45's defence): `ffo ladder --game france1940 --agents
# random,heuristic,expert --games 50 --seed 0 --workers 1` (450 games, seeds 0-49, france1940-core-1, the
# historical armies; 6.3 min wall, 367 CPU s, beside one other job on the 2-core VM), the model and prior of
# benchmarks.protocol.ladder_ref; frozen. Agent -> (rating as French, rating as German). LADDER_V1 is version
# 1's (2026-11-28, 90 games, seeds 0-9, france1940-core-1, f40-reconstruction-v2, session 41's Allied expert),
# kept as the record of what its frozen fingerprint hashed.
LADDER_V1: dict[str, tuple[float, float]] = {
    "random": (-780.0, -537.0),
    "heuristic": (369.0, -48.0),
    "expert": (542.0, 453.0),
}
LADDER: dict[str, tuple[float, float]] = {
    "random": (-928.0, -796.0),
    "heuristic": (495.0, -6.0),
    "expert": (586.0, 649.0),
}
LADDER_SOURCE = (
    "ffo ladder --game france1940 of 2026-11-29 (docs/guide/benchmark_protocol.md, France 1940 tasks): "
    "50 games a pairing, seeds 0-49"
)

# the learners' settings: the Springtime rows' (SB3's MlpPolicy on the game's one flat vector, the rollout settings
# of the France Fights On rows); the vector is the compact observation (9,638 floats)
PPO: dict[str, Any] = {
    "policy": "MlpPolicy",
    "observation": "compact",
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
DAGGER_SETTINGS: dict[str, Any] = {
    "teacher": "expert",
    "keep_fraction": 0.5,
    "epochs": 4,
    "batch_size": 64,
    "learning_rate": 1e-3,
    "value_coef": 0.5,
    "beta": "0.5 ** (segment - 1): the teacher's share of the moves played while collecting",
    "network": PPO["net_arch"],
    # every kept decision is held in memory as float16: 19 kB a decision, ~1 GB for a 100,000-decision run
}
SETTINGS: dict[str, Any] = {"ppo": PPO, "dagger": DAGGER_SETTINGS}

# ------------------------------------------------------------------ armies


def army_pairs() -> list[tuple[str, str]]:
    """Every (Allied column, German column) pair of Order of Battle Alternatives, in the core's orders."""
    from ffo_env.france1940.core.options import ALLIED_COLUMNS, GERMAN_COLUMNS

    return [(a, g) for a in ALLIED_COLUMNS for g in GERMAN_COLUMNS]


def split_pairs() -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """The generalization task's (training pairs, held-out pairs): held out iff ``(i + j) % 3 == 2``. Each Allied
    column has 2 held-out German partners and 4 training ones; each German column 3 or 4 held-out Allied
    partners and 7 or 8 training ones; the historical pair (0, 0) trains."""
    from ffo_env.france1940.core.options import ALLIED_COLUMNS, GERMAN_COLUMNS

    train: list[tuple[str, str]] = []
    held: list[tuple[str, str]] = []
    for i, a in enumerate(ALLIED_COLUMNS):
        for j, g in enumerate(GERMAN_COLUMNS):
            (held if (i + j) % 3 == 2 else train).append((a, g))
    return tuple(train), tuple(held)


TRAIN_PAIRS, HELDOUT_PAIRS = split_pairs()


def check_pairs(task_id: str, what: str, pairs: tuple[tuple[str, str], ...]) -> None:
    """Refuse a task definition naming an unknown army or an ill-formed pair: one TaskError naming the task,
    the list and the pair."""
    from ffo_env.france1940.core.options import ALLIED_COLUMNS, GERMAN_COLUMNS

    if not pairs:
        raise TaskError(f"{task_id}: {what} is empty; expected (Allied column, German column) pairs")
    for p in pairs:
        ok = isinstance(p, tuple) and len(p) == 2
        if not ok or p[0] not in ALLIED_COLUMNS or p[1] not in GERMAN_COLUMNS:
            raise TaskError(
                f"{task_id}: {what} has the unknown army pair {p!r}; expected an Allied column of "
                f"{list(ALLIED_COLUMNS)} and a German column of {list(GERMAN_COLUMNS)}"
            )
    if len(set(pairs)) != len(pairs):
        raise TaskError(f"{task_id}: {what} lists a pair twice")


# ------------------------------------------------------------------ tasks

_SHORT, _LONG, _EVAL = 100_000, 2_000_000, 20  # a game is ~2,500 decisions (both sides), FFO's ~1,400
_LATE_SHORT, _LATE_LONG, _LATE_EVAL = 20_000, 200_000, 24
LATE_TURN = 7  # the late-game task starts at game-turn 7 of 10: ~400 German decisions a game
VERSION = 2  # the current version of every France 1940 task (version 1 is retired, RETIRED)
# the late-game task's state sets by version: (training starts, seeds 2000-2063; evaluation starts, seeds 0-23)
_LATE_STATES = {
    1: ("late-t7-train-v1.json.gz", "late-t7-eval-v1.json.gz"),  # f40-reconstruction-v2, session 41's experts
    2: ("late-t7-train-v2.json.gz", "late-t7-eval-v2.json.gz"),  # f40-reconstruction-v3, session 48's experts
}
VERSIONS = tuple(_LATE_STATES)  # every version this installation lists (1 retired, 2 current)
GENERALIZATION = f"france1940/german-unseen-pairs/v{VERSION}"
LATE = f"france1940/german-late/v{VERSION}"
# the bots' probe (benchmarks.protocol.tasks.bot_probe) plays this many decisions of the probe game, both sides
# one bot: the whole game of the historical armies (expert vs expert ~2,600 decisions, ~1.4 s), so that combat,
# retreats and counter-attacks are in it (version 1's 300 decisions ended in the setup of game-turn 1, where the
# Allied experts of sessions 41 and 45 first differ at decision 420)
PROBE_DECISIONS = 4000
_NAMES_V = (*STANDARD_NAMES, "german-unseen-pairs", "german-late")
SUPERSEDED, RETIRED = version_bump(
    GAME,
    _NAMES_V,
    1,
    VERSION,
    "it was played on the game data f40-reconstruction-v2 with session 41's Allied expert; since session 48 the "
    "default data is f40-reconstruction-v3 (P20) and the Allied expert plays session 45's defence",
)
# the armies of a task that does not play the historical pair: task id -> (training pairs, evaluation pairs)
ARMIES: dict[str, tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]] = {
    f"france1940/german-unseen-pairs/v{v}": (TRAIN_PAIRS, HELDOUT_PAIRS) for v in VERSIONS
}
# the graded tasks: their score is graded_score's, not the win rate
GRADED = frozenset(f"france1940/german-late/v{v}" for v in VERSIONS)
GRADED_SCORE = (
    "min(1, German VP / max(german_min_vp, german_min_ratio x Allied VP)) at the end (1: German win)"
)
# the random German seldom reaches 25 VP against Allies who hold their ground (docs/france1940/bots.md): the untrained
# Allied network won the game measured (docs/guide/benchmark_protocol.md); the random Allies, who move, lose 8 of 10
_SOLVED = {"french-vs-random"}
_NAMES = {"french": "the Allies", "german": "the German"}


def _version(version: int) -> list[Task]:
    """Every France 1940 task of ``version`` (1: retired, superseded by 2)."""
    out = []
    for side, other in (("french", "german"), ("german", "french")):
        for opp in ("random", "heuristic", "expert"):
            name = f"{side}-vs-{opp}"
            solved = name in _SOLVED
            out.append(
                Task(
                    f"france1940/{name}/v{version}",
                    "full",
                    side,
                    opp,
                    _EVAL,
                    _SHORT,
                    _LONG,
                    f"France 1940: {_NAMES[side]} play the whole game (historical armies) against "
                    f"{_NAMES[other]} {opp}",
                    counts=not solved,
                    note=SOLVED_NOTE if solved else "",
                )
            )
    train, evaluation = _LATE_STATES[version]
    out += [
        Task(
            f"france1940/selfplay-ladder/v{version}",
            "selfplay",
            None,
            None,
            10,
            _SHORT,
            _LONG,
            "France 1940: both sides learn against each other (historical armies); rated (Elo) against the "
            "game's frozen reference ladder (random, heuristic, expert on each side)",
            references=("random", "heuristic", "expert"),
        ),
        Task(
            f"france1940/german-unseen-pairs/v{version}",
            "full",
            "german",
            "heuristic",
            len(HELDOUT_PAIRS),
            _SHORT,
            _LONG,
            f"France 1940: the German plays the whole game against the Allied heuristic; trains on "
            f"{len(TRAIN_PAIRS)} pairs of Order of Battle Alternatives, evaluated on the {len(HELDOUT_PAIRS)} "
            "held-out pairs (one game each)",
        ),
        Task(
            f"france1940/german-late/v{version}",
            "endgame",
            "german",
            "expert",
            _LATE_EVAL,
            _LATE_SHORT,
            _LATE_LONG,
            "France 1940: the German plays the last 4 game-turns (7-10) of expert-vs-expert games against the "
            "Allied expert; graded score: the share of the German victory requirement met (64 training starts, "
            "24 held-out evaluation starts)",
            states=train,
            eval_states=evaluation,
        ),
    ]
    return out


# versions 1 (retired) and 2
TASKS: list[Task] = [t for version in VERSIONS for t in _version(version)]

for _tid, (_train, _held) in ARMIES.items():
    check_pairs(_tid, "training pairs", _train)
    check_pairs(_tid, "evaluation pairs", _held)
    if set(_train) & set(_held):
        raise TaskError(f"{_tid}: a pair is both a training and an evaluation pair")


# ------------------------------------------------------------------ fingerprint


def _data_hash() -> dict[str, str]:
    from ffo_env.france1940.core.data import DATA_ROOT, data_choice

    version = data_choice()
    h = hashlib.sha256()
    for p in sorted((DATA_ROOT / version).iterdir()):
        if p.is_file():
            h.update(p.name.encode() + b"\0" + p.read_bytes())
    return {"version": version, "sha256": h.hexdigest()[:16]}


def observation_spec_hash() -> str:
    from ffo_env.france1940.encoding import spec_hash

    return str(spec_hash())


def probe_state() -> Any:
    """The game the bots' probe plays (:func:`benchmarks.protocol.tasks.bot_probe`): historical armies, seed 0."""
    return _new_game(0, HISTORICAL)


def fingerprint_inputs(task: Task) -> dict[str, Any]:
    from benchmarks.protocol.state_sets import file_sha256
    from benchmarks.protocol.tasks import bot_probe
    from ffo_env.france1940.core.game import ENGINE_VERSION

    inputs: dict[str, Any] = {
        "game": GAME,
        "engine": ENGINE_VERSION,
        "data": _data_hash(),
        "observation": observation_spec_hash(),
        "task": task.definition(),
        "bots": {name: bot_probe(name, PROBE_DECISIONS, game=GAME) for name in task.bots()},
        "armies": [list(p) for p in (task_pairs(task))],
    }
    if task.id in ARMIES:
        inputs["eval_armies"] = [list(p) for p in ARMIES[task.id][1]]
    path = task.state_path()
    if path is not None:
        inputs["states"] = file_sha256(path)
        inputs["eval_states"] = file_sha256(DATA_DIR / str(task.eval_states))
    if task.id in GRADED:
        inputs["score"] = GRADED_SCORE
    if task.kind == "selfplay":  # the frozen ratings the score is measured against are part of the task
        inputs["ladder"] = {k: list(v) for k, v in sorted(LADDER.items())}
    inputs["probe_decisions"] = PROBE_DECISIONS
    return inputs


# ------------------------------------------------------------------ games and envs


def task_pairs(task: Task) -> tuple[tuple[str, str], ...]:
    """The army pairs ``task`` trains on (the historical pair unless :data:`ARMIES` says)."""
    return ARMIES[task.id][0] if task.id in ARMIES else (HISTORICAL,)


def _new_game(seed: int, pair: tuple[str, str]) -> Any:
    from ffo_env.france1940.core.game import new_state

    return new_state(seed, None, {"allied_obac": pair[0], "german_obac": pair[1]})


def _dice_state(seed: int) -> int:
    from ffo_env.core.dice import Dice

    return int(Dice(seed).state)


class StartSampler:
    """A late-game task's saved states (checked by the core on load); draws one per training episode with
    freshly seeded dice (the saved dice state is replaced, so every episode has its own rolls)."""

    def __init__(self, path: Path) -> None:
        from benchmarks.france1940.states import start_states

        self.states = start_states(path)

    def draw(self, rng: np.random.Generator) -> Any:
        s = self.states[int(rng.integers(len(self.states)))].clone()
        s.dice_state = _dice_state(int(rng.integers(0, 2**62)))
        return s


class PairSampler:
    """A new game for every training episode: a pair of armies drawn uniformly from ``pairs``, a core seed drawn
    from the episode's generator (never an evaluation seed: those are below 2**20)."""

    def __init__(self, pairs: tuple[tuple[str, str], ...]) -> None:
        self.pairs = pairs

    def draw(self, rng: np.random.Generator) -> Any:
        pair = self.pairs[int(rng.integers(len(self.pairs)))]
        return _new_game(int(rng.integers(2**20, 2**31)), pair)


@lru_cache(maxsize=4)
def sampler(path: Path) -> StartSampler:
    return StartSampler(path)


def eval_start(task: Task, i: int) -> Any:
    """Evaluation game ``i``: a new game with seed ``EVAL_SEED_BASE + i`` (the historical armies, or for the
    generalization task held-out pair ``i mod 22``), or for the late-game task evaluation state ``i mod 24``
    with dice seeded from that seed."""
    seed = EVAL_SEED_BASE + i
    path = task.eval_state_path()
    if path is not None:
        states = sampler(path).states
        s = states[i % len(states)].clone()
        s.dice_state = _dice_state(seed)
        return s
    pairs = ARMIES[task.id][1] if task.id in ARMIES else (HISTORICAL,)
    return _new_game(seed, pairs[i % len(pairs)])


def make_env(
    task: Task, side: str, opponent: Any, observation_format: str, seed: int, reward: str = "win"
) -> Any:
    """The training env of ``side`` against ``opponent`` (an agent object), reset with ``seed``: the compact
    observation for ``flat`` and ``compact`` (the game's one flat vector, 9,638 floats), the dict for ``dict``.
    The generalization task's episodes are new games of drawn training pairs and the late-game task's start
    from drawn saved states (:class:`benchmarks.protocol.envs.FromStates`). The win reward only."""
    from benchmarks.protocol.envs import FromStates
    from ffo_env.france1940.env import France1940SingleAgentEnv

    if reward != "win":
        raise ValueError(f"the {reward!r} training reward is for Springtime tasks only, not {task.id}")
    fmt = "dict" if observation_format == "dict" else "compact"
    pairs = task_pairs(task)
    env: Any = France1940SingleAgentEnv(
        side=side,
        opponent=opponent,
        observation_format=fmt,
        allied_obac=sorted({a for a, _ in pairs}),
        german_obac=sorted({g for _, g in pairs}),
    )
    path = task.state_path()
    if path is not None:
        env = FromStates(env, sampler(path))
    elif task.id in ARMIES:
        env = FromStates(env, PairSampler(pairs))
    env.reset(seed=seed)
    return env


def check_vector() -> None:
    """The compact observation is always there."""


def encode_vector(state: Any, side: str) -> np.ndarray:
    """The compact observation of ``state`` for ``side`` (the env's own encoder), float32."""
    from ffo_env.france1940.env import encode_as

    who = SIDES.index(side)
    legal = state.legal_actions() if state.current_player == who else None
    return np.asarray(encode_as(state, who, legal, "compact"), np.float32)


def winner(state: Any) -> str | None:
    return SIDES[int(state.winner)] if int(state.winner) >= 0 else None


def final_figure(state: Any) -> int:
    """The figure a game's row averages besides its result: the margin of the 3:1 victory ratio, ``3 x Allied
    VP - German VP`` (the harness's ``vp_margin``; more is better for the Allies)."""
    return 3 * int(state.vp[0]) - int(state.vp[1])


def graded_score(task: Task, state: Any, side: str) -> float | None:
    """A graded task's score of a finished game for ``side`` (None: the task is scored by win/loss): the share
    of the German's standard victory requirement met, ``min(1, G / max(25, 3 A))`` with G and A the final German
    and Allied VP (C§12; the 25 and the 3 read from the game's data), 1 exactly when the German wins; the Allies'
    is one minus it."""
    if task.id not in GRADED:
        return None
    vic = state.game.data.tables["victory"]
    g, a = int(state.vp[1]), int(state.vp[0])
    need = max(int(vic["german_min_vp"]), int(vic["german_min_ratio"]) * a)
    share = min(1.0, g / need)
    return share if side == "german" else 1.0 - share


def observation_in(observation: str) -> str:
    """Every learner here reads the compact observation (9,638 floats)."""
    return observation if observation == "-" else "compact"


def sb3_part() -> Any:
    from benchmarks.protocol.algo_sb3 import MlpPart

    return MlpPart("france1940", SETTINGS)


def hyperparameters(name: str) -> dict[str, Any]:
    """The hyperparameters a France 1940 result records for the algorithm ``name`` (beside its spec's)."""
    if name == "dagger_expert":
        return {"source": "benchmarks.france1940.DAGGER_SETTINGS", **PPO, "dagger": DAGGER_SETTINGS}
    if name in ("maskable_ppo", "untrained"):
        return {"source": "benchmarks.france1940.PPO", **PPO}
    return {}


# ------------------------------------------------------------------ baselines

SHORT_TASKS = (LATE,)
FULL = (
    f"france1940/german-vs-random/v{VERSION}",
    f"france1940/french-vs-heuristic/v{VERSION}",
    f"france1940/german-vs-heuristic/v{VERSION}",
    f"france1940/french-vs-expert/v{VERSION}",
    f"france1940/german-vs-expert/v{VERSION}",
    GENERALIZATION,
)
SELFPLAY = f"france1940/selfplay-ladder/v{VERSION}"


def baseline_jobs() -> list[tuple[str, str, int]]:
    """The shipped baselines' jobs of France 1940 (``--only france1940``; results under
    ``benchmarks/results/france1940/``): issue 40's floor, 5 seeds on the short graded task, 3 on the full-game
    and self-play tasks, the reference rows first."""
    from benchmarks.protocol.baselines import LEARNERS, REFERENCES

    out = [(t, a, 5) for t in SHORT_TASKS for a in (*REFERENCES, *LEARNERS)]
    out += [(t, a, 3) for t in (*FULL, f"france1940/french-vs-random/v{VERSION}") for a in REFERENCES]
    out += [(t, a, 3) for t in FULL for a in LEARNERS]
    out += [(SELFPLAY, a, 3) for a in (*REFERENCES, *LEARNERS)]
    return out
