"""Random legal play on the rules core, the AEC env, PettingZoo peers and the single-agent wrapper, for
France Fights On and (through the suite's game interface, :mod:`ffo_env.games`) every other game of the suite
(Springtime for Hitler, France, 1940)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.games import game_info


def core_random(seconds: float, seed0: int = 0) -> tuple[dict[str, int], float]:
    """Random legal play on the core: (decisions, games) in ``seconds``.

    Decisions are counted continuously; ``games`` counts the games finished in the time."""
    game = Game(options=RulesOptions(setup="random"))
    return _random_play(game.new_initial_state, seconds, seed0)


def suite_core_random(game: str, seconds: float, seed0: int = 0) -> tuple[dict[str, int], float]:
    """:func:`core_random` for any game of the suite (``game_info(game).new_state``, default scenario and
    rules): (decisions, games) in ``seconds``."""
    return _random_play(game_info(game).new_state, seconds, seed0)


def _random_play(new_state: Callable[[int], Any], seconds: float, seed0: int) -> tuple[dict[str, int], float]:
    """Uniform random legal play from ``new_state(seed)``, one game after another (seeds ``seed0``, ``seed0 + 1``,
    ...), for ``seconds``: the decisions made and the games finished, and the time taken."""
    rng = random.Random(seed0)
    decisions = 0
    games = 0
    seed = seed0
    s = new_state(seed)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        if s.is_terminal():
            games += 1
            seed += 1
            s = new_state(seed)
            continue
        legal = s.legal_actions()
        s.apply_action(legal[rng.randrange(len(legal))])
        decisions += 1
    return {"decisions": decisions, "games": games}, time.perf_counter() - t0


def bot_play(bot: str, seconds: float, seed0: int = 0) -> tuple[int, float]:
    """``bot`` (``heuristic``, ``expert``) playing both sides of France Fights On, one seeded game after
    another from game ``seed0``: its decisions in ``seconds``, and the time taken. What an evaluation
    against the scripted bots, the ladder and training against them spend per opponent decision."""
    from agents import make_agent
    from agents.harness import agent_seed

    game = Game(options=RulesOptions(setup="random"))
    decisions = 0
    seed = seed0

    def new_game(seed: int) -> tuple[Any, dict[str, Any]]:
        sides = ("french", "german")
        return game.new_initial_state(seed), {
            side: make_agent(bot, side, seed=agent_seed(seed, side)) for side in sides
        }

    s, agents = new_game(seed)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        if s.is_terminal():
            seed += 1
            s, agents = new_game(seed)
            continue
        s.apply_action(int(agents[s.current_agent].act_state(s)))
        decisions += 1
    return decisions, time.perf_counter() - t0


# ---------------------------------------------------------- AEC environments


def aec_random(make_env: Callable[[], Any], seconds: float, seed: int = 0) -> tuple[int, float]:
    """Steps of random legal play through an AEC env, reading the observation and mask every step
    (``last()`` + ``step()``: what a PettingZoo training loop does)."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = 0
    episode = 0
    env.reset(seed=seed)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, _r, term, trunc, _info = env.last()
        if term or trunc:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(legal.size)])
        env.step(action)
        steps += 1
        if not env.agents:
            episode += 1
            env.reset(seed=seed + episode)
    return steps, time.perf_counter() - t0


def _ffo_env() -> Any:
    import ffo_env

    return ffo_env.env()


def _ffo_raw_env() -> Any:
    import ffo_env

    return ffo_env.raw_env()


def _chess_env() -> Any:
    from pettingzoo.classic import chess_v6

    return chess_v6.env()


def _c4_env() -> Any:
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


def suite_aec_env(game: str) -> Callable[[], Any]:
    """A maker of the AEC env of any game of the suite (``game_info(game).aec_env()``, its default options)."""

    def make() -> Any:
        return game_info(game).aec_env()

    return make


def suite_flat_id(game: str) -> str:
    """The game's Gymnasium id of the French side with the flat observation (its ``-flat-v0`` id)."""
    ids = [i for i in game_info(game).gym_ids.get("french", ()) if i.endswith("-flat-v0")]
    if not ids:
        raise ValueError(f"game {game!r} registers no French -flat-v0 Gymnasium id")
    return ids[0]


PEERS: dict[str, Callable[[], Any]] = {"chess_v6": _chess_env, "connect_four_v3": _c4_env}


def single_agent_random(seconds: float, seed: int = 0, observation_format: str = "dict") -> tuple[int, float]:
    """Learner steps of the single-agent wrapper (random learner vs random opponent; the
    opponent's decisions are extra and not counted), observations in ``observation_format``."""
    from ffo_env.ffo.single_agent import FFOSingleAgentEnv

    env = FFOSingleAgentEnv(side="french", opponent=None, observation_format=observation_format)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        legal = np.flatnonzero(env.action_masks())
        _obs, _r, term, trunc, _info = env.step(int(legal[rng.integers(legal.size)]))
        steps += 1
        if term or trunc:
            env.reset()
    return steps, time.perf_counter() - t0


def gym_id_random(env_id: str, seconds: float, seed: int = 0) -> tuple[int, float]:
    """Learner steps of a registered Gymnasium id through ``gymnasium.make`` (its default opponent;
    the opponent's decisions are extra and not counted), the legal actions from ``action_masks()``."""
    import gymnasium as gym

    import ffo_env  # noqa: F401 - registers the ids

    env = gym.make(env_id)
    masks = env.unwrapped.action_masks  # type: ignore[attr-defined]
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        legal = np.flatnonzero(masks())
        _obs, _r, term, trunc, _info = env.step(int(legal[rng.integers(legal.size)]))
        steps += 1
        if term or trunc:
            env.reset()
    env.close()
    return steps, time.perf_counter() - t0
