"""Random legal play on the rules core, the AEC env, PettingZoo peers and the single-agent wrapper, for the
registry's default game and every other game of the suite, through the game interface (:mod:`ffo_env.games`)
and each game's optional speed part (:mod:`benchmarks.speed_parts`); no game is named here."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.speed_parts import core_options, gym_id, make_aec_env, raw_env_maker, register_gym_ids
from ffo_env.games import DEFAULT_GAME, SIDES, game_info


def core_random(seconds: float, seed0: int = 0) -> tuple[dict[str, int], float]:
    """Random legal play on the default game's core: (decisions, games) in ``seconds``.

    Decisions are counted continuously; ``games`` counts the games finished in the time."""
    return suite_core_random(DEFAULT_GAME, seconds, seed0)


def suite_core_random(game: str, seconds: float, seed0: int = 0) -> tuple[dict[str, int], float]:
    """:func:`core_random` for any game of the suite (``game_info(game).new_state``, default scenario, the
    rules options of its speed part): (decisions, games) in ``seconds``."""
    return _random_play(_new_state(game), seconds, seed0)


def _new_state(game: str) -> Callable[[int], Any]:
    info, options = game_info(game), core_options(game)

    def new_state(seed: int) -> Any:
        return info.new_state(seed, options=options)

    return new_state


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


def bot_play(bot: str, seconds: float, seed0: int = 0, game: str = DEFAULT_GAME) -> tuple[int, float]:
    """``bot`` (``heuristic``, ``expert``) playing both sides of ``game`` (default: the registry's default game),
    one seeded game after another from game ``seed0``: its decisions in ``seconds``, and the time taken. What
    an evaluation against the scripted bots, the ladder and training against them spend per opponent
    decision."""
    from agents import make_agent
    from agents.harness import agent_seed

    new_state = _new_state(game)
    decisions = 0
    seed = seed0

    def new_game(seed: int) -> tuple[Any, dict[str, Any]]:
        return new_state(seed), {
            side: make_agent(bot, side, seed=agent_seed(seed, side), game=game) for side in SIDES
        }

    s, agents = new_game(seed)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        if s.is_terminal():
            seed += 1
            s, agents = new_game(seed)
            continue
        s.apply_action(int(agents[SIDES[s.current_player]].act_state(s)))
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


def _default_env() -> Any:
    """The default game's AEC env (the reference of every ratio)."""
    return make_aec_env(DEFAULT_GAME)()


def _default_raw_env() -> Any:
    """The default game's unwrapped AEC env (its speed part's ``raw_env``)."""
    maker = raw_env_maker(DEFAULT_GAME)
    if maker is None:
        raise ValueError(f"the default game {DEFAULT_GAME!r} gives no raw_env in its speed part")
    return maker()


def _chess_env() -> Any:
    from pettingzoo.classic import chess_v6

    return chess_v6.env()


def _c4_env() -> Any:
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


def suite_aec_env(game: str) -> Callable[[], Any]:
    """A maker of the AEC env of any game of the suite (``game_info(game).aec_env()``, its default options)."""
    return make_aec_env(game)


def suite_flat_id(game: str) -> str:
    """The game's Gymnasium id of the French side with the flat observation (its ``-flat-v0`` id)."""
    return gym_id(game, "flat")


PEERS: dict[str, Callable[[], Any]] = {"chess_v6": _chess_env, "connect_four_v3": _c4_env}


def single_agent_random(seconds: float, seed: int = 0, observation_format: str = "dict") -> tuple[int, float]:
    """Learner steps of the default game's single-agent wrapper (random learner vs random opponent; the
    opponent's decisions are extra and not counted), observations in ``observation_format``."""
    env = game_info(DEFAULT_GAME).single_agent_env(
        side="french", opponent=None, observation_format=observation_format
    )
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

    register_gym_ids()
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
