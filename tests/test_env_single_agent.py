"""The single-agent gymnasium env (ffo_env.ffo.single_agent): checkers, masks, opponents, MaskablePPO."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

from ffo_env.ffo.core.actions import IllegalActionError
from ffo_env.ffo.single_agent import FFOSingleAgentEnv


class FirstLegal:
    """An act_state opponent."""

    name = "first"

    def act_state(self, state):  # type: ignore[no-untyped-def]
        return state.legal_actions()[0]


class MaskOpponent:
    """An observation opponent: act(observation, action_mask)."""

    def act(self, observation, action_mask):  # type: ignore[no-untyped-def]
        assert set(observation) == {"planes", "globals", "units"}
        return int(np.flatnonzero(action_mask)[-1])


def test_gymnasium_check_env():
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(FFOSingleAgentEnv(), skip_render_check=True)
        check_env(FFOSingleAgentEnv(observation_format="flat"), skip_render_check=True)


def test_sb3_check_env():
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(FFOSingleAgentEnv(side="german"), warn=True)
        check_env(FFOSingleAgentEnv(side="german", observation_format="flat"), warn=True)


@pytest.mark.parametrize("side", ["french", "german"])
@pytest.mark.parametrize("opponent", [None, FirstLegal(), MaskOpponent(), lambda s: s.legal_actions()[-1]])
def test_full_episode_reward_and_info(side, opponent):
    env = FFOSingleAgentEnv(side=side, opponent=opponent, reward="win")
    obs, info = env.reset(seed=5)
    assert env.observation_space.contains(obs)
    rng = random.Random(0)
    total, done, steps = 0.0, False, 0
    while not done:
        m = env.action_masks()
        assert m.any() and m.dtype == bool
        obs, r, term, trunc, info = env.step(rng.choice(np.flatnonzero(m).tolist()))
        total += r
        done = term or trunc
        steps += 1
    assert term and total in (1.0, -1.0)
    winner = info["winner"]
    assert (total == 1.0) == (winner == side)
    ep = info["episode_stats"]
    assert ep["learner_steps"] == steps and ep["opponent_steps"] > 0 and ep["winner"] == winner


def test_illegal_action_ends_the_episode_by_default_and_raise_mode_raises():
    env = FFOSingleAgentEnv()
    env.reset(seed=1)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    before = env.game_state.to_json()
    _, r, term, trunc, info = env.step(bad)
    assert (
        r == -1.0 and term and not trunc and info["illegal_action"] == bad and "not legal" in info["reason"]
    )
    assert info["winner"] == "german" and info["episode_stats"]["winner"] == "german"
    assert env.game_state.to_json() == before  # the core state is not changed
    assert not env.action_masks().any() and not info["action_mask"].any()
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(bad)
    env = FFOSingleAgentEnv(illegal_action="raise")
    env.reset(seed=1)
    with pytest.raises(IllegalActionError):
        env.step(bad)
    with pytest.raises(IllegalActionError, match="integer"):
        env.step(1379.9)
    env = FFOSingleAgentEnv(penalty=-2.0)
    env.reset(seed=1)
    for junk in ("1379", None, float("nan")):
        env.reset(seed=1)
        _, r, term, _, info = env.step(junk)
        assert r == -2.0 and term and info["reason"]


def test_flat_observation_and_info_mask():
    env = FFOSingleAgentEnv(observation_format="flat")
    obs, info = env.reset(seed=2)
    assert obs.dtype == np.float32 and obs.shape == env.observation_space.shape and obs.ndim == 1
    assert env.observation_space.contains(obs)
    assert np.array_equal(info["action_mask"].astype(bool), env.action_masks())
    rng = random.Random(3)
    for _ in range(50):
        obs, _r, term, trunc, info = env.step(rng.choice(np.flatnonzero(info["action_mask"]).tolist()))
        assert env.observation_space.contains(obs)
        if term or trunc:
            break


def test_opponent_sampler_is_called_every_reset():
    picked = []

    def sampler(rng):  # type: ignore[no-untyped-def]
        o = FirstLegal()
        picked.append(o)
        return o

    env = FFOSingleAgentEnv(opponent_sampler=sampler)
    env.reset(seed=0)
    env.reset()
    assert len(picked) == 2 and env.opponent is picked[-1]


def test_seeded_resets_are_deterministic():
    a, b = FFOSingleAgentEnv(side="german"), FFOSingleAgentEnv(side="german")
    oa, _ = a.reset(seed=9)
    ob, _ = b.reset(seed=9)
    assert all(np.array_equal(oa[k], ob[k]) for k in oa)
    for _ in range(50):
        act = int(np.flatnonzero(a.action_masks())[0])
        ra = a.step(act)
        rb = b.step(act)
        assert all(np.array_equal(ra[0][k], rb[0][k]) for k in ra[0]) and ra[1:4] == rb[1:4]
        if ra[2]:
            break


def _make(seed: int):  # type: ignore[no-untyped-def]
    def f():  # type: ignore[no-untyped-def]
        return FFOSingleAgentEnv(side="french", reward="shaped", max_steps=40)

    return f


def test_maskable_ppo_trains_briefly_on_subproc_vec_env():
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import SubprocVecEnv

    venv = SubprocVecEnv([_make(0), _make(1)], start_method="fork")
    try:
        venv.reset()
        masks = get_action_masks(venv)
        assert masks.shape == (2, 1607) and masks.any(axis=1).all()
        model = MaskablePPO(
            "MultiInputPolicy",
            venv,
            n_steps=32,
            batch_size=32,
            n_epochs=1,
            seed=0,
            policy_kwargs={"net_arch": [16]},
            device="cpu",
        )
        model.learn(total_timesteps=256)
        obs = venv.reset()
        act, _ = model.predict(obs, action_masks=get_action_masks(venv))
        assert all(get_action_masks(venv)[i, a] for i, a in enumerate(act))
    finally:
        venv.close()


def test_shaped_reward_charges_an_overstack_to_the_move_that_makes_it_r09():
    """Potential-based shaping: the German pays at the move, not at the removal (rule 6.5, R9)."""
    from conftest import H, U, ua

    from agents.ffo.simple import PassAgent
    from ffo_env.ffo.core.actions import Special
    from ffo_env.ffo.core.notation import position
    from ffo_env.ffo.core.state import DEAD, Phase

    env = FFOSingleAgentEnv(side="german", reward="shaped", opponent=PassAgent())
    env.reset(seed=0)
    env.state = position("turn 3 phase GERMAN_MOVEMENT\ngerman: de-III@4414 de-IV@4416", env.game)
    _, r_pick, *_ = env.step(ua("de-III"))
    assert H("4416") in env.state.legal_actions()
    _, r_move, *_ = env.step(H("4416"))
    assert r_pick == 0.0 and r_move == pytest.approx(-0.02 * 3)
    vp = env.state.vp
    # end of the phase: the French remove one unit (+3 VP) and the pending 3 VP are gone: net 0
    _, r_end, *_ = env.step(env.game.layout.special(Special.PASS))
    s = env.state
    assert DEAD in (s.status[U("de-III")], s.status[U("de-IV")]) and s.vp == vp + 3
    assert s.phase != Phase.GERMAN_MOVEMENT and r_end == pytest.approx(0.0, abs=1e-9)


# ---------------------------------------------------------------- reward="potential" (issue 60)


@pytest.mark.parametrize("side", ["french", "german"])
def test_potential_reward_credits_each_decision_and_sums_to_the_result(side: str) -> None:
    """Every step but the last gives the learner 0.02 x the change of the projected VP (its sign); the last
    gives back the shaping, so the episode's rewards add up to its +1 / -1 exactly, as with reward="win"."""
    from ffo_env.ffo.adapter import projected_vp

    env = FFOSingleAgentEnv(side=side, reward="potential")
    env.reset(seed=4)
    sign = 1.0 if side == "french" else -1.0
    rng = np.random.default_rng(4)
    total, credited, done = 0.0, 0, False
    while not done:
        before = projected_vp(env.game_state)
        _, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        total += r
        done = term or trunc
        if not done:
            assert r == pytest.approx(sign * 0.02 * (projected_vp(env.game_state) - before), abs=1e-12)
            credited += r != 0.0
    result = env.game_state.returns()[env.learner]
    assert term and total == pytest.approx(result, abs=1e-9)
    assert credited > 5  # the signal arrives during the game, not only at its end


def _potential_env_at(text: str) -> FFOSingleAgentEnv:
    from agents.ffo.simple import PassAgent
    from ffo_env.ffo.core.notation import position

    env = FFOSingleAgentEnv(side="german", setup="decide", reward="potential", opponent=PassAgent())
    env.reset(options={"state": position(text, env.game)})
    return env


def test_potential_reward_credits_a_city_taken_at_the_move_4_3():
    """Rule 4.3: a city the French hold at the end is worth 1 VP to them; the German who enters one is
    credited at that move (+0.02), not at the end of the game."""
    from conftest import H, nb, ua

    env = _potential_env_at(f"turn 3 phase GERMAN_MOVEMENT\ngerman: de-III@{nb('4912', 'E')}")
    s = env.game_state
    assert s.city_vp_if_ended() == 20
    _, r_pick, *_ = env.step(ua("de-III"))
    _, r_move, *_ = env.step(H("4912"))  # Vichy
    assert r_pick == 0.0 and r_move == pytest.approx(0.02) and s.city_vp_if_ended() == 19


def test_potential_reward_charges_an_overstack_to_the_move_that_makes_it_r09():
    from conftest import H, ua

    from ffo_env.ffo.core.actions import Special

    env = _potential_env_at("turn 3 phase GERMAN_MOVEMENT\ngerman: de-III@4414 de-IV@4416")
    env.step(ua("de-III"))
    _, r_move, *_ = env.step(H("4416"))
    assert r_move == pytest.approx(-0.02 * 3)
    # the French remove one unit (+3 VP) at the end of the phase: already charged, so no reward then
    _, r_end, *_ = env.step(env.game.layout.special(Special.PASS))
    assert r_end == pytest.approx(0.0, abs=1e-9)


def test_potential_reward_illegal_action_gives_the_shaping_back():
    from conftest import H, ua

    env = _potential_env_at("turn 3 phase GERMAN_MOVEMENT\ngerman: de-III@4414 de-IV@4416")
    env.step(ua("de-III"))
    _, r_move, *_ = env.step(H("4416"))
    _, r_bad, term, _, info = env.step(0)  # hex 0 is no legal action here
    assert term and "illegal_action" in info
    assert r_move + r_bad == pytest.approx(-1.0)


def test_potential_reward_truncation_keeps_the_shaping():
    from ffo_env.ffo.adapter import projected_vp

    env = FFOSingleAgentEnv(side="german", reward="potential", max_steps=60)
    env.reset(seed=5)
    start = projected_vp(env.game_state)
    rng = np.random.default_rng(5)
    total, done = 0.0, False
    while not done:
        _, r, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        total += r
        done = term or trunc
    assert trunc and not term
    assert total == pytest.approx(-0.02 * (projected_vp(env.game_state) - start), abs=1e-9)


def test_potential_reward_is_refused_where_it_has_no_meaning():
    import ffo_env
    from ffo_env.games import game_info

    with pytest.raises(ValueError, match="one-side Gymnasium env"):
        ffo_env.env(reward="potential")
    with pytest.raises(ValueError, match="needs a projected score"):
        game_info("springtime").single_agent_env(side="german", reward="potential")
    with pytest.raises(ValueError, match="reward must be one of"):
        FFOSingleAgentEnv(reward="vp")
