"""The policy network: per-hex linear maps at full resolution, convolutions on a coarse grid only, a
per-unit encoder, and pointer heads. Needs torch and sb3-contrib (the ``train`` extra); the scripted
bots never import this module.

Observation (see ``ffo_env.encoding.observation``): a dict of

- ``planes``: ``(C, 60, 26)`` uint8 planes over the offset hex grid (column x row);
- ``globals``: ``(G,)`` float vector (phase, decision, dice, battle, ...);
- ``units``: ``(U, F)`` per-unit table, one row per unit in unit-action order.

Features (``HexFeatures``), with ``k = channels`` and every full-resolution step a matrix product
over the 1560 cells (no 3x3 convolution at full resolution)::

    inputs = [planes scaled to ~[0, 1], planes > 0 for the count planes]      (C', 1560)
    cells  = ReLU(W_stem inputs + Linear(globals -> k) on every cell)        (k, 1560)
    coarse = 4x4 average pool of cells                                       (k, 15, 7)
    context = Conv3x3(k->2k) ReLU, Conv3x3(2k->2k) ReLU on the coarse grid   (2k, 15, 7)
    board summary = Linear(context flattened -> cnn_dim) ReLU
    fine   = ReLU(W_fine cells + Conv1x1(context -> k) at each cell's 4x4 block)   (k, 1560)
    hexes  = W_out fine + W_skip inputs at the 1530 hexes                         (s, 1530)
    prior  = sum_j prior_j x planes[PRIOR_PLANES[j]] at the 1530 hexes      (one learned scalar each)
    units: Linear(F -> 32) ReLU; [it, fine at the unit's hex] -> Linear(-> 32) ReLU = unit features
    summary = [board summary, Linear(globals -> 64) ReLU, mean and max of the unit encodings]
    features = [hexes (hex-major) and prior, unit features, summary]                 (spatial = s > 0)

Why this shape (measured, see the README's ablation): the first version ran a U-Net with 3x3
convolutions at full resolution, ~22 M multiply-adds a sample whose backward pass on one CPU thread
took ~20 ms a sample. The bots steer by distances across the whole map (ports, French cities, the
nearest enemy); the 4x4-pooled context (each coarse cell after two 3x3 convolutions sees ~20 hexes
around it) brought back to every cell by indexing gives each hex that view for about a fifth of the
cost, and every full-resolution step is one batched matrix product. The globals are added to every
cell so that the same hex is scored differently for a move, an attack or a retreat.

Heads (``HexPolicy``, used when ``spatial > 0``): each of the 1530 hex actions (destinations,
targets, retreats, placements) gets its logit from its own hex of the ``s``-channel map, plus
learned offsets (``PRIOR_INIT`` at the start) where moving the decision's unit there would
over-stack it (rule 6.5, R9: the excess is removed for 3-4 VP each) and where a German attack
would wipe out the last French units while French cities remain (rule 4.1, 4.3, R21: the game
ends and counts them for France); each of the 62 unit actions from that unit's features (a pointer
over the units: the fine map at its hex says where it stands); the 15 special actions from the
summary. The critic is an MLP over the summary only (``net_arch``). The action mask is applied to
the logits by ``MaskableActorCriticPolicy``. With ``spatial = 0`` the features are the summary and
SB3's flat MLP heads are used.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from ffo_env.encoding.observation import P as _P

# Version of the architecture, written into policy metadata: a file of another version is refused.
NETWORK_VERSION = 2
POOL = 4  # side of the square of cells averaged into one coarse cell
POOL_CHUNK = 32  # samples pooled at a time


def hex_cells() -> np.ndarray:
    """Flat cell (column-1)*26 + row of every hex, in hex-index order (= hex action order)."""
    from ffo_env.core import hexgrid as hg

    return ((hg.HEX_X.astype(np.int64) - 1) * 26 + hg.HEX_Y.astype(np.int64)).copy()


def coarse_cells(grid: tuple[int, int], pool: int = POOL) -> np.ndarray:
    """Flat coarse cell of every fine cell for a ``pool`` x ``pool`` average pool with ceil mode."""
    cols, rows = grid
    coarse_rows = -(-rows // pool)
    c = np.arange(cols)[:, None] // pool
    r = np.arange(rows)[None, :] // pool
    return (c * coarse_rows + r).reshape(-1).astype(np.int64)


def window_cells(grid: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The 3x3 window of every cell ``(cells, 9)`` (clamped at the edges) and which entries are on the grid.

    On the offset grid a 3x3 window holds the six hex neighbours (plus two non-neighbours that the
    network learns to weigh down), as a 3x3 convolution would see them."""
    cols, rows = grid
    c = np.arange(cols)[:, None, None] + np.array([-1, -1, -1, 0, 0, 0, 1, 1, 1])[None, None, :]
    r = np.arange(rows)[None, :, None] + np.array([-1, 0, 1, -1, 0, 1, -1, 0, 1])[None, None, :]
    c, r = np.broadcast_arrays(c, r)
    valid = (c >= 0) & (c < cols) & (r >= 0) & (r < rows)
    cells = np.clip(c, 0, cols - 1) * rows + np.clip(r, 0, rows - 1)
    return cells.reshape(-1, 9).astype(np.int64), valid.reshape(-1, 9)


UNIT_X, UNIT_Y, UNIT_DIM = 27, 28, 32  # units-table columns x = column/60, y = (row+1)/26
# Decider-only planes whose hexes get a learned logit offset; at the start e^-4 ~ 1/55 of the
# probability of an equal hex. Over-stacking (rule 6.5, R9) and ending the game while French
# cities remain (rule 4.1, 4.3, R21) are choices the scripted teachers never make.
PRIOR_PLANES = (_P["dest_overstacks"], _P["target_ends_game"])
PRIOR_INIT = (-4.0, -4.0)


class HexFeatures(BaseFeaturesExtractor):
    def __init__(self, observation_space: gym.spaces.Dict, cnn_dim: int = 256, channels: int = 32,
                 spatial: int = 0) -> None:
        spaces = observation_space.spaces
        planes = spaces["planes"]
        c = int(planes.shape[0])
        self.grid = (int(planes.shape[1]), int(planes.shape[2]))
        self.n_cells = self.grid[0] * self.grid[1]
        g = int(spaces["globals"].shape[0])
        units = spaces["units"]
        self.n_units = int(units.shape[0])
        cells = hex_cells()
        self.n_hex = int(cells.shape[0])
        summary = cnn_dim + 64 + 64
        unit_part = self.n_units * UNIT_DIM if spatial > 0 else 0
        hex_part = self.n_hex if spatial > 0 else 0  # the hex logits themselves (see HexActionHead)
        super().__init__(observation_space, features_dim=hex_part + unit_part + summary)
        self.cnn_dim = cnn_dim
        self.channels = channels
        self.spatial = spatial
        self.summary_dim = summary
        k = channels
        high = th.as_tensor(planes.high[:, 0, 0], dtype=th.float32)
        # count/CF planes go up to 62/255 but sit at 0-8 in play: divide by min(high, 8) per channel;
        # they also get a 0/1 "present" copy (a count scaled to 1/8 would need a weight 8x larger to
        # matter), which 0/1 planes do not need: they already are their own indicator
        self.register_buffer("count_planes", th.nonzero(high > 1).flatten())
        n_in = c + int(self.count_planes.numel())
        scale = th.ones(n_in)
        scale[:c] = 1.0 / high.clamp(1.0, 8.0)
        self.register_buffer("plane_scale", scale)
        self.register_buffer("hex_index", th.as_tensor(cells))
        cell_to_hex = th.full((self.n_cells,), -1, dtype=th.long)
        cell_to_hex[th.as_tensor(cells)] = th.arange(self.n_hex)
        self.register_buffer("cell_to_hex", cell_to_hex)
        self.register_buffer("coarse_index", th.as_tensor(coarse_cells(self.grid)))
        window, valid = window_cells(self.grid)
        self.register_buffer("window", th.as_tensor(window))
        self.register_buffer("window_valid", th.as_tensor(valid, dtype=th.uint8))
        self.legal_plane = int(_P["legal_hex"])
        self.n_planes = c
        self.n_in = n_in
        self.coarse_shape = (-(-self.grid[0] // POOL), -(-self.grid[1] // POOL))
        row_pool = th.zeros(self.grid[1], self.coarse_shape[1])
        row_pool[th.arange(self.grid[1]), th.arange(self.grid[1]) // POOL] = 1.0
        self.register_buffer("row_pool", row_pool)
        self.register_buffer("pool_scale", (scale / POOL**2).view(1, -1, 1, 1))
        self.stem = nn.Conv2d(n_in, k, 1)  # on the 4x4-pooled planes
        self.stem_globals = nn.Linear(g, k, bias=False)
        self.context = nn.Sequential(
            nn.Conv2d(k, 2 * k, 3, padding=1), nn.ReLU(),
            nn.Conv2d(2 * k, 2 * k, 3, padding=1), nn.ReLU(),
        )
        n_coarse = self.coarse_shape[0] * self.coarse_shape[1]
        self.cnn_head = nn.Sequential(nn.Flatten(), nn.Linear(2 * k * n_coarse, cnn_dim), nn.ReLU())
        self.globals_net = nn.Sequential(nn.Linear(g, 64), nn.ReLU())
        self.units_net = nn.Sequential(nn.Linear(int(units.shape[-1]), UNIT_DIM), nn.ReLU())
        self.local: nn.Module | None = None
        self.local_globals: nn.Module | None = None
        self.context_to_cells: nn.Module | None = None
        self.spatial_out: nn.Module | None = None
        self.spatial_skip: nn.Module | None = None
        self.unit_out: nn.Module | None = None
        if spatial > 0:
            self.local = nn.Linear(9 * n_in, k)  # a 3x3 convolution, evaluated only where it is read
            self.local_globals = nn.Linear(g, k, bias=False)
            self.context_to_cells = nn.Conv2d(2 * k, k, 1)
            self.spatial_out = nn.Linear(k, spatial)
            self.hex_logit = nn.Linear(spatial, 1)
            # the hex's own inputs skip to the head: "a counted unit already stands there" (rule 6.5) or
            # "this is the unit's own hex" must reach a hex's logit as a single weight, not be relearned
            # from the rare states where they decide the choice
            self.spatial_skip = nn.Linear(n_in, spatial, bias=False)
            self.unit_out = nn.Sequential(nn.Linear(UNIT_DIM + k, UNIT_DIM), nn.ReLU())
            # Learned logit offsets for the PRIOR_PLANES hexes, started at PRIOR_INIT: the scripted
            # teachers never over-stack (rule 6.5, R9) nor end the game with French cities left
            # (rule 4.1, R21), so imitation gives those choices only a faint push down among the
            # hundreds of hexes it also does not pick, while each costs France's opponent several VP.
            # Starting from the prior, learning can still move it either way.
            self.register_buffer("prior_planes", th.as_tensor(PRIOR_PLANES))
            self.priors = nn.Parameter(th.tensor(PRIOR_INIT))

    def unit_cells(self, units: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """Flat cell of each unit's hex ``(B, U)`` and whether it has one (on the map and visible)."""
        col = th.round(units[:, :, UNIT_X] * self.grid[0]) - 1
        row = th.round(units[:, :, UNIT_Y] * self.grid[1]) - 1
        on = (col >= 0) & (row >= 0)
        idx = (col.clamp(min=0) * self.grid[1] + row.clamp(min=0)).long().clamp(max=self.n_cells - 1)
        return idx, on

    def _fine(self, raw: th.Tensor, b: th.Tensor, cell: th.Tensor, g: th.Tensor, up: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """Features of the cells ``cell`` of samples ``b`` only: the 3x3 window of inputs, the globals and the
        context of the cell's coarse block; returns them ``(M, k)`` and the hex-logit skip of the cell's own
        inputs ``(M, s)``. The window is gathered and masked as bytes and the plane scale folded into the
        weights, so the only float copy is the ``(M, 9, C)`` window itself."""
        assert self.local is not None and self.local_globals is not None and self.spatial_skip is not None
        c, n_in = self.n_planes, self.n_in
        win = self.window[cell]  # (M, 9)
        values = raw[b.unsqueeze(1), :, win] * self.window_valid[cell].unsqueeze(-1)  # (M, 9, C), raw's dtype
        present = (values[:, :, self.count_planes] > 0).float()
        values = values.float()
        w = self.local.weight.view(-1, 9, n_in)
        scale = self.plane_scale[:c]
        fine = (nn.functional.linear(values.flatten(1), (w[:, :, :c] * scale).flatten(1), self.local.bias)
                + nn.functional.linear(present.flatten(1), w[:, :, c:].flatten(1))
                + self.local_globals(g)[b] + up[b, self.coarse_index[cell]])
        ws = self.spatial_skip.weight
        skip = nn.functional.linear(values[:, 4], ws[:, :c] * scale) + nn.functional.linear(present[:, 4], ws[:, c:])
        return th.relu(fine), skip

    def _pool(self, x: th.Tensor) -> th.Tensor:
        """Sums over the 4x4 blocks of the grid: ``(B, P, cells)`` -> ``(B, P, coarse columns, coarse rows)``."""
        b, p, _ = x.shape
        cols, rows = self.coarse_shape
        col_sums = x.view(b * p * cols, POOL, self.grid[1]).sum(1)
        return (col_sums @ self.row_pool).view(b, p, cols, rows)

    def forward(self, obs: dict[str, th.Tensor]) -> th.Tensor:
        raw = obs["planes"].flatten(2)  # (B, C, cells), uint8 when HexPolicy hands it over
        b, c, n = raw.shape
        k = self.channels
        g = obs["globals"].float()
        # the board, 4x4-pooled: the four columns of each block summed as floats, then the rows of each
        # block by a (rows, coarse rows) 0/1 matrix product (measured 4x faster than avg_pool2d here)
        # in chunks of samples: a float copy of a whole PPO minibatch's planes (440 kB a sample) would
        # leave the cache, which made a batch of 512 cost 2x more per sample than one of 64
        chunks = [raw] if b <= POOL_CHUNK else raw.split(POOL_CHUNK)
        pooled = [th.cat([self._pool(r.float()), self._pool((r[:, self.count_planes] > 0).float())], dim=1)
                  for r in chunks]
        pooled = (pooled[0] if len(pooled) == 1 else th.cat(pooled)) * self.pool_scale
        coarse = th.relu(self.stem(pooled) + self.stem_globals(g)[:, :, None, None])
        ctx = self.context(coarse)
        units = obs["units"].float()
        u = self.units_net(units)
        summary = [self.cnn_head(ctx), self.globals_net(g), u.mean(dim=1), u.max(dim=1).values]
        if self.local is None:
            return th.cat(summary, dim=1)
        assert self.context_to_cells is not None and self.spatial_out is not None
        assert self.spatial_skip is not None and self.unit_out is not None
        up = self.context_to_cells(ctx).flatten(2).transpose(1, 2)  # (B, coarse cells, k)
        # hex logits only where the legal_hex plane says a hex action is legal: the rest are masked anyway
        lb, lc = raw[:, self.legal_plane].nonzero(as_tuple=True)
        lh = self.cell_to_hex[lc]
        keep = lh >= 0
        lb, lc, lh = lb[keep], lc[keep], lh[keep]
        # and the units that have a hex on the map: one gather for both (a rollout step runs at batch 1,
        # where the count of torch calls, not their size, sets the cost)
        idx, on = self.unit_cells(units)
        ub, ui = on.nonzero(as_tuple=True)
        n_legal = int(lb.shape[0])
        fine, skip = self._fine(raw, th.cat([lb, ub]), th.cat([lc, idx[ub, ui]]), g, up)
        marks = raw[:, self.prior_planes][lb, :, lc].float()  # (M, priors)
        logit = self.hex_logit(th.relu(self.spatial_out(fine[:n_legal]) + skip[:n_legal])).squeeze(-1)
        hexes = raw.new_zeros((b, self.n_hex), dtype=th.float32).index_put((lb, lh), logit + marks @ self.priors)
        at = units.new_zeros((b, self.n_units, k)).index_put((ub, ui), fine[n_legal:])
        unit_feat = self.unit_out(th.cat([u, at], dim=2))
        return th.cat([hexes, unit_feat.flatten(1), *summary], dim=1)


class HexActionHead(nn.Module):
    """Logits in action order: 1530 hexes (computed by :class:`HexFeatures` at the legal hexes), 62 units
    (pointer over the unit features), then the specials (linear over the summary)."""

    def __init__(self, n_hex: int, n_units: int, summary_dim: int, n_actions: int) -> None:
        super().__init__()
        self.n_hex = n_hex
        self.n_units = n_units
        self.unit_logit = nn.Linear(UNIT_DIM, 1)
        self.other = nn.Linear(summary_dim, n_actions - n_hex - n_units)

    def forward(self, latent: th.Tensor) -> th.Tensor:
        h = self.n_hex
        m = h + self.n_units * UNIT_DIM
        unit_logits = self.unit_logit(latent[:, h:m].view(-1, self.n_units, UNIT_DIM)).squeeze(-1)
        return th.cat([latent[:, :h], unit_logits, self.other(latent[:, m:])], dim=1)


class SummaryCritic(nn.Module):
    """The ``mlp_extractor`` of :class:`HexPolicy`: the actor passes every feature on to the pointer
    heads; the critic is an MLP over the summary (the last ``summary_dim`` features) only."""

    def __init__(self, features_dim: int, summary_dim: int, vf_arch: list[int]) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        d = summary_dim
        for h in vf_arch:
            layers += [nn.Linear(d, h), nn.ReLU()]
            d = h
        self.value_body = nn.Sequential(*layers)
        self.summary_dim = summary_dim
        self.latent_dim_pi = features_dim
        self.latent_dim_vf = d

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return features

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self.value_body(features[:, -self.summary_dim:])


class HexPolicy(MaskableMultiInputActorCriticPolicy):
    """MaskablePPO policy with the pointer heads (needs ``HexFeatures(spatial > 0)`` and ``net_arch.pi == []``)."""

    def _build_mlp_extractor(self) -> None:
        fe = self.features_extractor
        if not isinstance(fe, HexFeatures) or fe.spatial <= 0:
            raise ValueError("HexPolicy needs features_extractor_class=HexFeatures with spatial > 0")
        arch = self.net_arch
        if not isinstance(arch, dict) or arch.get("pi"):
            raise ValueError("HexPolicy needs net_arch={'pi': [], 'vf': [...]}: the heads read the features directly")
        self.mlp_extractor = SummaryCritic(fe.features_dim, fe.summary_dim, list(arch.get("vf", [])))  # type: ignore[assignment]

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        fe = self.features_extractor
        assert isinstance(fe, HexFeatures)
        self.action_net = HexActionHead(fe.n_hex, fe.n_units, fe.summary_dim, int(self.action_space.n))
        for m in [*self.action_net.modules(), fe.hex_logit]:
            if isinstance(m, nn.Linear):
                nn.init.orthogonal_(m.weight, gain=0.01)
                nn.init.zeros_(m.bias)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def extract_features(self, obs: Any, features_extractor: BaseFeaturesExtractor | None = None) -> Any:
        """The observation as it comes, without SB3's float copy of the planes: :class:`HexFeatures`
        transposes them while they are still uint8 (4x less memory to move) and converts them itself."""
        return (features_extractor or self.features_extractor)(obs)
