"""The policy network's pointer heads: every logit is read from the right place."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch as th  # noqa: E402

from ffo_env.core import hexgrid as hg  # noqa: E402
from training.config import TrainConfig  # noqa: E402
from training.policy_net import UNIT_DIM, HexActionHead, HexFeatures, _hex_cells  # noqa: E402


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> object:
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.opponents import OpponentPool
    from training.train import build_model, make_env_fn

    cfg = TrainConfig(n_envs=1, vec_env="dummy")
    cfg.policy.cnn_dim, cfg.policy.channels, cfg.policy.spatial, cfg.policy.net_arch = 32, 8, 4, [16]
    env = DummyVecEnv([make_env_fn(cfg, "german", OpponentPool("french", {"random": 1.0}), 0)])
    return build_model(cfg, env, Path(tmp_path_factory.mktemp("tb")), 0)


def _played_env(model: object) -> object:
    env = model.get_env().envs[0]  # type: ignore[attr-defined]
    rng = np.random.default_rng(0)
    for _ in range(300):
        env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    return env


def test_hex_cells_follow_the_plane_layout() -> None:
    cells = _hex_cells()
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
            assert bool(on[0, u]) and int(idx[0, u]) == _hex_cells()[s.loc[u]], u
            checked += 1
        elif not visible[u]:
            assert not bool(on[0, u]), u
    assert checked > 10


def test_head_scores_each_hex_and_unit_from_its_own_slot() -> None:
    spatial, n_cells, n_units, summary = 2, 60 * 26, 62, 5
    head = HexActionHead(spatial, n_cells, n_units, summary, 1607)
    with th.no_grad():
        head.hex_logit.weight.fill_(1.0)
        head.unit_logit.weight.fill_(1.0)
        for m in (head.hex_logit, head.unit_logit, head.other):
            m.bias.zero_()
        head.other.weight.zero_()
    h, u, full = 777, 41, 900
    latent = th.zeros(1, (spatial + 1) * n_cells + n_units * UNIT_DIM + summary)
    latent[0, 1 * n_cells + int(_hex_cells()[h])] = 5.0  # channel 1 at hex h's cell
    latent[0, 1 * n_cells + int(_hex_cells()[full])] = 6.0
    latent[0, spatial * n_cells + int(_hex_cells()[full])] = -4.0  # the over-stack prior channel
    latent[0, (spatial + 1) * n_cells + u * UNIT_DIM + 3] = 2.0  # a feature of unit u
    with th.no_grad():
        logits = head(latent)[0]
    assert logits.shape == (1607,)
    assert int(logits[:1530].argmax()) == h and float(logits[h]) == pytest.approx(5.0)
    assert float(logits[full]) == pytest.approx(2.0)  # 6 - 4: the prior is added to its hex's logit
    assert int(logits[1530:1592].argmax()) == u and float(logits[1530 + u]) == pytest.approx(2.0)


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

    from ffo_env.core.game import Game, RulesOptions
    from training.policy_net import _P, PRIOR_INIT, PRIOR_PLANES

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

    from ffo_env.core.game import Game, RulesOptions
    from training.policy_net import _P, PRIOR_INIT, PRIOR_PLANES

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
