"""The policy network's pointer heads: every logit is read from the right place."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch as th  # noqa: E402

from agents.policy_net import UNIT_DIM, HexActionHead, HexFeatures, coarse_cells, hex_cells, window_cells  # noqa: E402
from ffo_env.core import hexgrid as hg  # noqa: E402
from training.config import TrainConfig  # noqa: E402


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> object:
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.model import build_model, make_env_fn
    from training.opponents import OpponentPool

    cfg = TrainConfig(n_envs=1, vec_env="dummy")
    cfg.policy.cnn_dim, cfg.policy.channels, cfg.policy.spatial, cfg.policy.net_arch = 32, 8, 4, [16]
    env = DummyVecEnv([make_env_fn(cfg, "german", OpponentPool("french", {"random": 1.0}), 0)])
    return build_model(cfg, env, Path(tmp_path_factory.mktemp("tb")), 0)


def _played_env(model: object, steps: int = 300) -> object:
    """The model's env after ``steps`` random legal decisions of a fresh game, then on to a decision with a
    hex action to choose."""
    env = model.get_env().envs[0]  # type: ignore[attr-defined]
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for i in range(10 * steps):
        mask = env.action_masks()
        if i >= steps and mask[:1530].any():
            break
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term or trunc:
            env.reset(seed=i)
    return env


def test_hex_cells_follow_the_plane_layout() -> None:
    cells = hex_cells()
    assert len(set(cells.tolist())) == hg.N_HEX
    for h in (0, 100, hg.N_HEX - 1):
        assert cells[h] == (hg.HEX_X[h] - 1) * 26 + hg.HEX_Y[h]


def test_unit_pointer_reads_the_cell_of_each_units_hex(model: object) -> None:
    env = _played_env(model)
    fe = model.policy.features_extractor  # type: ignore[attr-defined]
    assert isinstance(fe, HexFeatures)
    obs = env._obs()  # type: ignore[attr-defined]
    idx, on = fe.unit_cells(th.as_tensor(obs["units"])[None])
    s = env.state  # type: ignore[attr-defined]
    visible = obs["units"][:, 2] > 0
    checked = 0
    for u in range(len(s.units)):
        if visible[u] and s.loc[u] >= 0 and s.status[u] == 1:
            assert bool(on[0, u]) and int(idx[0, u]) == hex_cells()[s.loc[u]], u
            checked += 1
        elif not visible[u]:
            assert not bool(on[0, u]), u
    assert checked > 10


def test_head_scores_each_unit_from_its_own_slot_and_passes_the_hex_logits_on() -> None:
    n_hex, n_units, summary = hg.N_HEX, 62, 5
    head = HexActionHead(n_hex, n_units, summary, 1607)
    with th.no_grad():
        head.unit_logit.weight.fill_(1.0)
        for m in (head.unit_logit, head.other):
            m.bias.zero_()
        head.other.weight.zero_()
    h, u = 777, 41
    latent = th.zeros(1, n_hex + n_units * UNIT_DIM + summary)
    latent[0, h] = 5.0
    latent[0, n_hex + u * UNIT_DIM + 3] = 2.0  # a feature of unit u
    with th.no_grad():
        logits = head(latent)[0]
    assert logits.shape == (1607,)
    assert int(logits[:1530].argmax()) == h and float(logits[h]) == pytest.approx(5.0)
    assert int(logits[1530:1592].argmax()) == u and float(logits[1530 + u]) == pytest.approx(2.0)


def test_hex_logits_are_computed_at_the_legal_hexes_only(model: object) -> None:
    env = _played_env(model)
    policy = model.policy  # type: ignore[attr-defined]
    obs = {k: th.as_tensor(v)[None] for k, v in env._obs().items()}  # type: ignore[attr-defined]
    fe = policy.features_extractor
    with th.no_grad():
        fe.hex_logit.weight.normal_()
        fe.hex_logit.bias.fill_(1.0)
        hexes = fe(obs)[0, :1530]
    mask = env.action_masks()[:1530]  # type: ignore[attr-defined]
    assert mask.any()
    assert bool((hexes[th.as_tensor(mask)] != 0).all()) and bool((hexes[th.as_tensor(~mask)] == 0).all())


def test_window_cells_hold_the_six_hex_neighbours() -> None:
    cells, valid = window_cells((60, 26))
    for h in (100, 777):
        c = int(hex_cells()[h])
        window = {int(w) for w, ok in zip(cells[c], valid[c], strict=True) if ok}
        assert {int(hex_cells()[n]) for n in hg.NEIGHBOR_LISTS[h]} <= window and c in window


def test_coarse_cells_pool_each_4x4_block_of_the_grid() -> None:
    idx = coarse_cells((60, 26)).reshape(60, 26)
    assert idx[0, 0] == idx[3, 3] == 0 and idx[0, 4] == 1 and idx[4, 0] == 7 and idx[59, 25] == 15 * 7 - 1


def test_a_hex_logit_sees_its_window_and_the_context_of_its_block(model: object) -> None:
    """The local features read the 3x3 window around a legal hex; a change farther away reaches its logit
    only through the coarse context (a neighbouring 4x4 block), and not at all beyond the context's reach."""
    env = _played_env(model)
    policy = model.policy  # type: ignore[attr-defined]
    fe = policy.features_extractor
    obs = {k: th.as_tensor(v)[None] for k, v in env._obs().items()}  # type: ignore[attr-defined]
    legal = np.flatnonzero(env.action_masks()[:1530])  # type: ignore[attr-defined]
    h = int(legal[0])
    with th.no_grad():
        fe.hex_logit.weight.normal_()
        base = fe(obs)[0, h]

    def moved(dx: int, dy: int) -> float:
        x, y = int(hg.HEX_X[h]) - 1 + dx, int(hg.HEX_Y[h]) + dy
        if not (0 <= x < 60 and 0 <= y < 26):
            return float("nan")
        changed = {k: v.clone() for k, v in obs.items()}
        changed["planes"][0, 0, x, y] = 1 - changed["planes"][0, 0, x, y]  # flip the off-map plane
        with th.no_grad():
            return float((fe(changed)[0, h] - base).abs())

    assert moved(0, 1) > 0 or moved(0, -1) > 0  # in the window
    far = [moved(dx, 0) for dx in (30, -30) if not np.isnan(moved(dx, 0))]
    assert far and all(d == 0.0 for d in far)  # 30 columns = 7 blocks away: beyond two 3x3 convolutions


def _prior_shift(policy: object, s: object, k: int) -> th.Tensor:
    """Hex logits of ``s`` for the German with prior ``k`` as trained minus with prior ``k`` at 0."""
    from ffo_env.encoding.observation import encoder_for

    fe = policy.features_extractor  # type: ignore[attr-defined]
    enc = encoder_for(s.game)  # type: ignore[attr-defined]
    obs = {n: th.as_tensor(v)[None] for n, v in enc.encode(s, 1, legal=s.legal_actions()).items()}  # type: ignore[attr-defined]

    def logits() -> th.Tensor:
        return policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(obs)))[0]  # type: ignore[attr-defined]

    with th.no_grad():
        base = logits()
        kept = float(fe.priors[k])
        fe.priors[k] = 0.0
        flat = logits()
        fe.priors[k] = kept
    return (base - flat)[:1530]


def test_r9_overstack_prior_lowers_only_destinations_that_overstack(model: object) -> None:
    from conftest import H, act, position, ua

    from agents.policy_net import _P, PRIOR_INIT, PRIOR_PLANES
    from ffo_env.core.game import Game, RulesOptions

    policy = model.policy  # type: ignore[attr-defined]
    k = PRIOR_PLANES.index(_P["dest_overstacks"])
    assert policy.features_extractor.priors[k].item() == PRIOR_INIT[k] < 0
    s = position("turn 3 phase GERMAN_MOVEMENT\ngerman: de-III@4414 de-1Mtn@4513 de-XV@4413",
                 Game(options=RulesOptions(setup="random")))
    act(s, ua("de-XV"))
    diff = _prior_shift(policy, s, k)
    assert float(diff[H("4414")]) == pytest.approx(PRIOR_INIT[k])  # joins de-III: over-stacks (R9)
    assert float(diff.abs().sum()) == pytest.approx(-PRIOR_INIT[k])  # and no other hex moves


def test_r21_end_game_prior_lowers_only_the_target_holding_the_last_french_units(model: object) -> None:
    from conftest import H, position

    from agents.policy_net import _P, PRIOR_INIT, PRIOR_PLANES
    from ffo_env.core.game import Game, RulesOptions

    policy = model.policy  # type: ignore[attr-defined]
    k = PRIOR_PLANES.index(_P["target_ends_game"])
    assert policy.features_extractor.priors[k].item() == PRIOR_INIT[k] < 0
    # de-III may attack 4414, which holds the last French unit: the game would end (rule 4.1, R21)
    s = position("""turn 3 phase GERMAN_COMBAT stuka_used
        french: fr-I@4414
        german: de-III@4415
        dead: garrisons""", Game(options=RulesOptions(setup="random")))
    diff = _prior_shift(policy, s, k)
    assert float(diff[H("4414")]) == pytest.approx(PRIOR_INIT[k])
    assert float(diff.abs().sum()) == pytest.approx(-PRIOR_INIT[k])


def test_critic_reads_only_the_summary(model: object) -> None:
    policy = model.policy  # type: ignore[attr-defined]
    fe = policy.features_extractor
    f = th.randn(3, fe.features_dim)
    g = f.clone()
    g[:, : fe.features_dim - fe.summary_dim] += 10.0
    with th.no_grad():
        v1 = policy.value_net(policy.mlp_extractor.forward_critic(f))
        v2 = policy.value_net(policy.mlp_extractor.forward_critic(g))
        g[:, -1] += 10.0
        v3 = policy.value_net(policy.mlp_extractor.forward_critic(g))
    assert th.equal(v1, v2) and not th.equal(v2, v3)
