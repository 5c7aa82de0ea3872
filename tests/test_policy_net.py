"""The policy network's pointer heads: every logit is read from the right place."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch as th  # noqa: E402

from agents.ffo.network import (  # noqa: E402
    PLANE_INDEX,
    UNIT_DIM,
    HexActionHead,
    HexFeatures,
    coarse_cells,
    hex_cells,
    hex_window_cells,
)
from ffo_env.ffo.core import hexgrid as hg  # noqa: E402
from training.config import TrainConfig  # noqa: E402


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> object:
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.envs import make_env_fn
    from training.model import build_model
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


def test_hex_window_holds_the_hex_then_its_neighbours_by_direction() -> None:
    cells = hex_window_cells((60, 26))
    n = 60 * 26
    for h in (0, 100, 777, hg.N_HEX - 1):
        c = int(hex_cells()[h])
        assert cells[c, 0] == c
        for d in range(6):
            nb = int(hg.NEIGHBORS[h, d])
            assert cells[c, 1 + d] == (int(hex_cells()[nb]) if nb >= 0 else n)


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
        plane = PLANE_INDEX["german_control"]
        changed["planes"][0, plane, x, y] = 1 - changed["planes"][0, plane, x, y]
        with th.no_grad():
            return float((fe(changed)[0, h] - base).abs())

    assert moved(0, 1) > 0 or moved(0, -1) > 0  # in the window
    far = [moved(dx, 0) for dx in (30, -30) if not np.isnan(moved(dx, 0))]
    # 30 columns = 7 blocks away: beyond two 3x3 convolutions (float sums in another order aside)
    assert far and all(d < 1e-5 for d in far)


def _prior_shift(policy: object, s: object, k: int) -> th.Tensor:
    """Hex logits of ``s`` for the German with prior ``k`` as trained minus with prior ``k`` at 0."""
    from ffo_env.ffo.encoding.observation import encoder_for

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

    from agents.ffo.network import PRIOR_INIT, PRIOR_PLANES
    from ffo_env.ffo.core.game import Game, RulesOptions

    policy = model.policy  # type: ignore[attr-defined]
    k = PRIOR_PLANES.index(PLANE_INDEX["dest_overstacks"])
    assert policy.features_extractor.priors[k].item() == PRIOR_INIT[k] < 0
    s = position(
        "turn 3 phase GERMAN_MOVEMENT\ngerman: de-III@4414 de-1Mtn@4513 de-XV@4413",
        Game(options=RulesOptions(setup="random")),
    )
    act(s, ua("de-XV"))
    diff = _prior_shift(policy, s, k)
    assert float(diff[H("4414")]) == pytest.approx(PRIOR_INIT[k])  # joins de-III: over-stacks (R9)
    assert float(diff.abs().sum()) == pytest.approx(-PRIOR_INIT[k])  # and no other hex moves


def test_r21_end_game_prior_lowers_only_the_target_holding_the_last_french_units(model: object) -> None:
    from conftest import H, position

    from agents.ffo.network import PRIOR_INIT, PRIOR_PLANES
    from ffo_env.ffo.core.game import Game, RulesOptions

    policy = model.policy  # type: ignore[attr-defined]
    k = PRIOR_PLANES.index(PLANE_INDEX["target_ends_game"])
    assert policy.features_extractor.priors[k].item() == PRIOR_INIT[k] < 0
    # de-III may attack 4414, which holds the last French unit: the game would end (rule 4.1, R21)
    s = position(
        """turn 3 phase GERMAN_COMBAT stuka_used
        french: fr-I@4414
        german: de-III@4415
        dead: garrisons""",
        Game(options=RulesOptions(setup="random")),
    )
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


def test_values_from_the_summary_alone_are_sb3s_values(model: object) -> None:
    """HexPolicy.predict_values runs only the board summary (the critic reads nothing else): bit for bit the
    values of SB3's path through every feature, on dense planes and on their entries."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from agents.ffo.network import PLANE_ENTRIES

    policy = model.policy  # type: ignore[attr-defined]
    obs = _obs_batch(model, 3)
    sparse = {k: v for k, v in obs.items() if k != "planes"}
    sparse[PLANE_ENTRIES] = policy.features_extractor.sparse_planes(obs["planes"])
    with th.no_grad():
        full = MaskableActorCriticPolicy.predict_values(policy, obs)
        assert th.equal(policy.predict_values(obs), full)
        assert th.equal(policy.predict_values(sparse), full)
        assert len(set(full.reshape(-1).tolist())) == 3  # three positions, three values


def _obs_batch(model: object, n: int = 3) -> dict[str, th.Tensor]:
    """Observations of ``n`` positions of one played game (the last one has a hex action to choose)."""
    env = model.get_env().envs[0]  # type: ignore[attr-defined]
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    rows = []
    for i in range(400):
        if i % 150 == 149:
            rows.append(env._obs())  # type: ignore[attr-defined]
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if term or trunc:
            env.reset(seed=i)
    rows.append(_played_env(model)._obs())  # type: ignore[attr-defined]
    return {k: th.as_tensor(np.stack([r[k] for r in rows[-n:]])) for k in rows[0]}


def test_entries_found_by_words_are_the_nonzero_bytes(model: object) -> None:
    fe = model.policy.features_extractor  # type: ignore[attr-defined]
    raw = _obs_batch(model)["planes"].flatten(2)
    fast = fe._entries(raw)  # 8-byte words first
    plain = fe._entries(raw.float())  # nonzero over every value
    assert fast[0].numel() > 100
    key = lambda e: sorted(zip(*(t.tolist() for t in e), strict=True))  # noqa: E731
    assert key(fast) == key((*plain[:3], plain[3].to(th.uint8)))
    lo, hi = fe.dynamic_range
    assert int((raw[:, lo:hi] != 0).sum()) == fast[0].numel()


def test_pooled_and_window_inputs_match_a_dense_computation(model: object) -> None:
    """The sparse paths (scatter-add pooling, byte table of occupied cells) compute what the dense
    definition says: inputs = [dynamic planes / scale, count planes > 0] averaged over 4x4 blocks, and the
    window layer = W . (inputs at the hex and its six neighbours)."""
    fe = model.policy.features_extractor  # type: ignore[attr-defined]
    raw = _obs_batch(model)["planes"].flatten(2)
    b = raw.shape[0]
    dyn = raw[:, fe.dynamic_index].float()  # (B, D, cells)
    dense = th.cat([dyn * fe.plane_scale[: fe.n_dynamic, None], (dyn[:, fe.count_planes] > 0).float()], 1)
    coarse = th.as_tensor(coarse_cells(fe.grid))
    want = th.zeros(b, fe.n_coarse, fe.n_in).index_add_(1, coarse, dense.transpose(1, 2)) / 16
    eb, ec, ecell, ev = fe._entries(raw)
    assert th.allclose(fe._pooled(b, eb, ec, ecell, ev), want, atol=1e-6)
    qb = th.tensor([0, 1, 2, 2])
    qc = th.as_tensor(hex_cells()[[0, 500, 777, 1529]])
    local, centre = fe._windows(b, eb, ec, ecell, ev, qb, qc, 2)
    padded = th.cat([dense, th.zeros(b, fe.n_in, 1)], 2)
    win = fe.window[qc]  # (M, 7)
    values = padded[qb.unsqueeze(1), :, win]  # (M, 7, inputs)
    w = fe.local.weight.view(fe.channels, 7, fe.n_in)
    ref = th.einsum("mjd,kjd->mk", values, w) + fe.local.bias
    with th.no_grad():
        assert th.allclose(local, ref, atol=1e-5)
    assert th.equal(centre, dyn[qb[:2], :, qc[:2]])


def test_a_map_that_is_not_the_games_is_refused_with_a_clear_error(model: object) -> None:
    obs = _obs_batch(model, 1)
    obs["planes"][0, PLANE_INDEX["city"], 10, 10] ^= 1
    with pytest.raises(ValueError, match="map planes .* differ from this game's map"):
        model.policy.features_extractor(obs)  # type: ignore[attr-defined]


def test_plane_entries_give_the_features_of_the_planes(model: object) -> None:
    """A batch that carries its planes' entries (found once per rollout) in place of the planes gets the same
    features, bit for bit."""
    from agents.ffo.network import PLANE_ENTRIES

    fe = model.policy.features_extractor  # type: ignore[attr-defined]
    obs = _obs_batch(model, 3)
    sparse = {k: v for k, v in obs.items() if k != "planes"}
    sparse[PLANE_ENTRIES] = fe.sparse_planes(obs["planes"])
    with th.no_grad():
        assert th.equal(fe(sparse), fe(obs))


def test_ppo_minibatches_carry_the_plane_entries_of_their_own_samples(tmp_path: Path) -> None:
    """The rollout buffer finds the entries of every stored sample once; a minibatch (any subset, any order)
    gets exactly the features that its dense planes give."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.ffo.network import PLANE_ENTRIES
    from training.envs import make_env_fn
    from training.model import build_model
    from training.opponents import OpponentPool

    cfg = TrainConfig(n_envs=2, vec_env="dummy")
    cfg.ppo.n_steps, cfg.ppo.batch_size, cfg.ppo.n_epochs = 48, 32, 1
    cfg.policy.cnn_dim, cfg.policy.channels, cfg.policy.spatial, cfg.policy.net_arch = 32, 8, 4, [16]
    pool = OpponentPool("french", {"random": 1.0})
    env = DummyVecEnv([make_env_fn(cfg, "german", pool, r) for r in range(2)])
    ppo = build_model(cfg, env, tmp_path, 0)
    ppo.learn(total_timesteps=96)
    buf = ppo.rollout_buffer
    assert buf.planes_reader is ppo.policy.features_extractor
    batches = list(buf.get(32))
    assert all(PLANE_ENTRIES in b.observations and "planes" not in b.observations for b in batches)
    fe = ppo.policy.features_extractor
    rng = np.random.default_rng(0)
    for inds in (rng.permutation(96)[:40], np.arange(96), np.array([95, 0, 47, 48])):
        sparse = buf._get_samples(inds)
        entries, buf.plane_entries = buf.plane_entries, None
        dense = buf._get_samples(inds)
        buf.plane_entries = entries
        assert "planes" in dense.observations
        with th.no_grad():
            assert th.equal(fe(sparse.observations), fe(dense.observations))
    # rows of the buffer as filled (step * n_envs + env), as the pipelined value refresh reads them
    step, env_i = 30, 1
    rows = buf.observations_of_rows(step * 2 + env_i, step * 2 + env_i + 1)
    dense_row = {k: th.from_numpy(v[step, env_i][None]) for k, v in buf.observations.items()}
    with th.no_grad():
        assert th.equal(fe(rows), fe(dense_row))


def test_inverse_cdf_sampling_draws_each_action_with_its_probability() -> None:
    """The rollout's sampler: frequencies match the masked probabilities (chi-square), a masked action is never
    drawn, not even the last one or when only one action is legal."""
    from agents.ffo.network import InverseCdfCategorical

    th.manual_seed(0)
    logits = th.tensor([[0.0, 1.0, 2.0, 0.5, -1.0, 3.0], [0.0, 0.0, 0.0, 0.0, 0.0, 5.0]])
    logits = logits.repeat_interleave(2000, dim=0)
    masks = np.array([[1, 1, 0, 1, 1, 0], [0, 0, 0, 1, 0, 0]], dtype=bool).repeat(2000, axis=0)
    dist = InverseCdfCategorical(6).proba_distribution(logits)
    dist.apply_masking(masks)
    counts = np.zeros((2, 6))
    for _ in range(10):
        a = dist.sample().numpy()
        assert masks[np.arange(len(a)), a].all()
        for row in range(2):
            counts[row] += np.bincount(a[row * 2000 : (row + 1) * 2000], minlength=6)
    assert counts[1, 3] == 20000
    p = dist.distribution.probs[0].numpy()
    expected = p * counts[0].sum()
    legal = masks[0]
    chi2 = float((((counts[0] - expected) ** 2)[legal] / expected[legal]).sum())
    assert chi2 < 16.3  # chi-square, 3 degrees of freedom, p = 0.001
    assert (counts[0][~legal] == 0).all()


def test_flat_heads_train_on_the_dense_planes(tmp_path: Path) -> None:
    """``spatial: 0`` uses SB3's own policy, which preprocesses each observation key by the space: its
    minibatches keep the planes (an entries key would not be in the space)."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.envs import make_env_fn
    from training.model import build_model
    from training.opponents import OpponentPool

    cfg = TrainConfig(n_envs=1, vec_env="dummy")
    cfg.ppo.n_steps, cfg.ppo.batch_size, cfg.ppo.n_epochs = 32, 16, 1
    cfg.policy.cnn_dim, cfg.policy.channels, cfg.policy.spatial, cfg.policy.net_arch = 16, 4, 0, [8]
    env = DummyVecEnv([make_env_fn(cfg, "french", OpponentPool("german", {"random": 1.0}), 0)])
    ppo = build_model(cfg, env, tmp_path, 0)
    ppo.learn(total_timesteps=64)
    assert ppo.rollout_buffer.planes_reader is None
    assert all("planes" in b.observations for b in ppo.rollout_buffer.get(16))


def test_legal_categorical_matches_sb3_contrib_masked_categorical() -> None:
    """The policy's distribution over the legal actions only: log-probabilities, entropy, probabilities, dense
    logits and the gradient of a PPO-like loss equal sb3-contrib's ``MaskableCategorical`` (also for a
    masked action, a row with one legal action, and the dense fallback: no mask, a row without any)."""
    from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution

    from agents.ffo.network import InverseCdfCategorical, LegalCategorical

    gen = th.Generator().manual_seed(1)
    b, n = 64, 300
    raw = th.randn(b, n, generator=gen) * 4
    masks = th.rand(b, n, generator=gen) < 0.05
    masks[:, 7] = True
    masks[3] = False
    masks[3, 299] = True  # one legal action
    actions = th.stack([th.nonzero(r)[th.randint(int(r.sum()), (1,), generator=gen)][0, 0] for r in masks])
    actions[5] = int(th.nonzero(~masks[5])[0, 0])  # a masked action: log-probability ~ -1e8
    weights = th.linspace(-1, 1, b)
    for m in (masks, None):
        got: list[th.Tensor] = []
        want: list[th.Tensor] = []
        for cls, out in ((InverseCdfCategorical, got), (MaskableCategoricalDistribution, want)):
            x = raw.clone().requires_grad_(True)
            dist = cls(n).proba_distribution(x)
            dist.apply_masking(None if m is None else m.numpy())
            lp, ent = dist.log_prob(actions), dist.entropy()
            finite = lp > -1e7
            ((lp * weights)[finite].sum() + 0.1 * ent.sum()).backward()
            assert x.grad is not None
            out += [lp.detach(), ent.detach(), dist.distribution.probs.detach()]
            out += [dist.distribution.logits.detach().clamp(min=-1e3), x.grad]
        if m is not None:
            assert isinstance(dist := InverseCdfCategorical(n).proba_distribution(raw), InverseCdfCategorical)
            dist.apply_masking(m)
            assert isinstance(dist.distribution, LegalCategorical) and dist.distribution._legal is not None
        for a, w in zip(got, want, strict=True):
            th.testing.assert_close(a, w, rtol=1e-5, atol=1e-5)
    empty = masks.clone()
    empty[9] = False
    dist = InverseCdfCategorical(n).proba_distribution(raw)
    dist.apply_masking(empty)
    # a row with no legal action: the dense form, as sb3-contrib's
    assert isinstance(dist.distribution, LegalCategorical) and dist.distribution._legal is None
    ref = MaskableCategoricalDistribution(n).proba_distribution(raw)
    ref.apply_masking(empty)
    th.testing.assert_close(dist.entropy(), ref.entropy())


def test_grid_pool_is_the_adaptive_average_pool() -> None:
    """The board summary's pooling: the same averages and input gradients as ``nn.AdaptiveAvgPool2d``, on the
    policy's 15x7 -> 8x4 context and on grids whose bins overlap differently."""
    from agents.ffo.network import GridPool

    gen = th.Generator().manual_seed(3)
    for inp, out in (((15, 7), (8, 4)), ((5, 9), (3, 4)), ((4, 4), (4, 4)), ((7, 3), (1, 1))):
        x = th.randn(6, 5, *inp, generator=gen)
        w = th.randn(6, 5, *out, generator=gen)
        got, want = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
        y = GridPool(inp, out)(got)
        z = th.nn.AdaptiveAvgPool2d(out)(want)
        th.testing.assert_close(y, z)
        (y * w).sum().backward()
        (z * w).sum().backward()
        th.testing.assert_close(got.grad, want.grad)
