"""The policy network: layers at the legal hexes and the units' hexes only, convolutions on a coarse grid
only, a per-unit encoder, and pointer heads. Needs torch and sb3-contrib (the ``train`` extra); the scripted
bots never import this module.

Observation (see ``ffo_env.ffo.encoding.observation``): a dict of

- ``planes``: ``(C, 60, 26)`` uint8 planes over the offset hex grid (column x row);
- ``globals``: ``(G,)`` float vector (phase, decision, dice, battle, ...);
- ``units``: ``(U, F)`` per-unit table, one row per unit in unit-action order.

Features (``HexFeatures``, version 3), with ``k = channels``; nothing is computed per map cell::

    map planes (terrain, rivers, cities, ...: MAP_GROUPS) = the encoder's template, the same in every
        observation: their share of each layer is computed once per batch (checked: sample 0 must match)
    entries = the non-zero values of the other planes (~650 of 70,000 a sample; found 8 bytes at a time)
    inputs  = [entries scaled to ~[0, 1], a 1 in a "present" channel for each count-plane entry]
    coarse  = ReLU(W_stem (inputs averaged over 4x4 blocks: one scatter-add) + W_map maps + globals)  (k, 15, 7)
    context = Conv3x3(k->2k) ReLU, Conv3x3(2k->2k) ReLU on the coarse grid                            (2k, 15, 7)
    board summary = Linear(context averaged over 2x2 coarse cells (2k, 8, 4) -> cnn_dim) ReLU
    fine(q) = ReLU(W_hex inputs at q and its 6 neighbours + W_map (same) + globals + Conv1x1(context)
              at q's block), only at the queried hexes q: the legal hexes and the units' hexes
    hexes   = W_out fine + W_skip (q's own inputs) at the legal hexes                              (s, legal)
    prior   = sum_j prior_j x planes[PRIOR_PLANES[j]] at the legal hexes         (one learned scalar each)
    units: Linear(F -> 32) ReLU; [it, fine at the unit's hex] -> Linear(-> 32) ReLU = unit features
    summary = [board summary, Linear(globals -> 64) ReLU, mean and max of the unit encodings]
    features = [hexes (hex-major) and prior, unit features, summary]                 (spatial = s > 0)

Why this shape (measured: ``docs/experiments/2026-11-23-network-v3-speed.md``): the first version ran a U-Net with 3x3
convolutions at full resolution (~20 ms a sample for the backward pass on one CPU thread); version 2
evaluated its layers at the legal hexes only but still converted and pooled all 71 x 1560 plane
bytes of every sample and gathered 3x3 windows over all planes; version 3 touches only the non-zero
entries of the non-map planes, windows are a hex and its six neighbours (the 3x3 window of the
offset grid held two cells that are not neighbours), and the board summary reads a 2x2-averaged
context (its layer held 85 % of the parameters, and Adam's update of them cost as much as a batch of
64). The bots steer by distances across the whole map (ports, French cities, the nearest enemy): the
4x4-pooled context after two 3x3 convolutions gives each hex a view of ~20 hexes around it. The
globals are added to every hex so that the same hex is scored differently for a move, an attack or
a retreat.

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
from sb3_contrib.common.maskable.distributions import (
    MaskableCategorical,
    MaskableCategoricalDistribution,
    MaybeMasks,
)
from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn
from torch.distributions.utils import lazy_property

from ffo_env.ffo.encoding.observation import PLANE_GROUPS, PLANE_INDEX

# Version of the architecture, written into policy metadata: a file of another version is refused.
NETWORK_VERSION = 3
POOL = 4  # side of the square of cells averaged into one coarse cell


def hex_cells() -> np.ndarray:
    """Flat cell (column-1)*26 + row of every hex, in hex-index order (= hex action order)."""
    from ffo_env.ffo.core import hexgrid as hg

    return ((hg.HEX_X.astype(np.int64) - 1) * 26 + hg.HEX_Y.astype(np.int64)).copy()


def coarse_cells(grid: tuple[int, int], pool: int = POOL) -> np.ndarray:
    """Flat coarse cell of every fine cell for a ``pool`` x ``pool`` average pool with ceil mode."""
    cols, rows = grid
    coarse_rows = -(-rows // pool)
    c = np.arange(cols)[:, None] // pool
    r = np.arange(rows)[None, :] // pool
    return (c * coarse_rows + r).reshape(-1).astype(np.int64)


WINDOW = 7  # a hex and its six neighbours


def hex_window_cells(grid: tuple[int, int]) -> np.ndarray:
    """``(cells, 7)``: each hex's cell, then the cells of its six neighbours in the direction order of
    ``hexgrid.NEIGHBORS`` (E, NE, NW, W, SW, SE), so a weight per position is a weight per direction;
    ``cells`` (one past the last cell) where there is no neighbour. A non-hex cell has only itself."""
    from ffo_env.ffo.core import hexgrid as hg

    n = grid[0] * grid[1]
    out = np.full((n, WINDOW), n, dtype=np.int64)
    out[:, 0] = np.arange(n)
    cells = hex_cells()
    out[cells, 1:] = np.where(hg.NEIGHBORS >= 0, cells[hg.NEIGHBORS], n)
    return out


# The planes the encoder fills from the map alone (its per-game template), identical in every observation.
MAP_GROUPS = ("off_map", "terrain", "river", "blocked", "city", "port", "coastal", "inland1", "row")


def map_planes() -> np.ndarray:
    """Plane indices of :data:`MAP_GROUPS`, ascending."""
    size = {group[0]: int(group[1]) for group in PLANE_GROUPS}
    return np.sort(
        np.concatenate([np.arange(PLANE_INDEX[name], PLANE_INDEX[name] + size[name]) for name in MAP_GROUPS])
    )


def map_template() -> np.ndarray:
    """The map planes ``(S, cells)`` as the encoder writes them into every observation."""
    from ffo_env.ffo.core.game import Game
    from ffo_env.ffo.encoding.observation import encoder_for

    return np.ascontiguousarray(encoder_for(Game()).template[map_planes()])


# Optional observation key: the non-zero entries of the non-map planes, ``(4, E)`` int64 rows sample, plane,
# cell, value, found once per rollout by :meth:`HexFeatures.sparse_planes` (training/model.py); a batch that
# carries it needs no ``planes`` (a PPO update reads each sample's ~110 kB of planes once per epoch otherwise).
PLANE_ENTRIES = "plane_entries"
UNIT_X, UNIT_Y, UNIT_DIM = 27, 28, 32  # units-table columns x = column/60, y = (row+1)/26
# Decider-only planes whose hexes get a learned logit offset; at the start e^-4 ~ 1/55 of the
# probability of an equal hex. Over-stacking (rule 6.5, R9) and ending the game while French
# cities remain (rule 4.1, 4.3, R21) are choices the scripted teachers never make.
PRIOR_PLANES = (PLANE_INDEX["dest_overstacks"], PLANE_INDEX["target_ends_game"])
PRIOR_INIT = (-4.0, -4.0)


class GridPool(nn.Module):
    """``nn.AdaptiveAvgPool2d(out)`` over an ``inp`` grid, as one product with its fixed pooling matrix: the
    same averages (the matrix is the adaptive pool applied to each basis cell), but its backward pass is one
    small matrix product instead of torch's adaptive-pool backward (measured ~5x faster on the 15x7 -> 8x4
    context of a PPO minibatch). No parameters: a policy's weights are the same either way."""

    def __init__(self, inp: tuple[int, int], out: tuple[int, int]) -> None:
        super().__init__()
        n = inp[0] * inp[1]
        basis = th.eye(n).view(n, 1, *inp)
        matrix = nn.functional.adaptive_avg_pool2d(basis, out).view(n, out[0] * out[1])
        self.register_buffer("matrix", matrix.contiguous(), persistent=False)  # (in cells, out cells)
        self.out = out

    def forward(self, x: th.Tensor) -> th.Tensor:
        return (x.flatten(2) @ self.matrix).view(*x.shape[:2], *self.out)


class HexFeatures(BaseFeaturesExtractor):
    def __init__(
        self, observation_space: gym.spaces.Dict, cnn_dim: int = 256, channels: int = 32, spatial: int = 0
    ) -> None:
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
        n = self.n_cells
        cols, rows = self.coarse_shape = (-(-self.grid[0] // POOL), -(-self.grid[1] // POOL))
        self.n_coarse = cols * rows
        # --- the map planes: the same in every observation, so their share of every layer is computed
        # from the encoder's template once per batch instead of from each sample's copy
        static = map_planes()
        template = map_template()
        if template.shape != (len(static), n):
            raise ValueError(f"map template {template.shape} does not fit planes {tuple(planes.shape)}")
        self.register_buffer("map_index", th.as_tensor(static), persistent=False)
        self.register_buffer("map_template", th.as_tensor(template), persistent=False)
        coarse = coarse_cells(self.grid)
        map_pooled = np.zeros((len(static), self.n_coarse), dtype=np.float32)
        np.add.at(map_pooled.T, coarse, template.T.astype(np.float32))
        self.register_buffer("map_pooled", th.as_tensor(map_pooled.T / POOL**2), persistent=False)
        window = hex_window_cells(self.grid)
        padded = np.concatenate([template, np.zeros((len(static), 1), dtype=template.dtype)], axis=1)
        map_window = padded.T[window].astype(np.float32)  # (cells, 7, S)
        self.register_buffer("map_window", th.as_tensor(map_window.reshape(n, -1)), persistent=False)
        self.register_buffer("map_center", th.as_tensor(template.T.astype(np.float32)), persistent=False)
        # --- the other planes: ~1 % of their entries are non-zero (units, control, the decision's hexes)
        dynamic = np.setdiff1d(np.arange(c), static)
        self.n_dynamic = d = len(dynamic)
        self.dynamic_range = (
            (int(dynamic[0]), int(dynamic[-1]) + 1)
            if len(dynamic) and dynamic[-1] - dynamic[0] + 1 == d
            else None
        )
        self.register_buffer("dynamic_index", th.as_tensor(dynamic, dtype=th.long), persistent=False)
        high = planes.high[dynamic, 0, 0].astype(np.float32)
        # count/CF planes go up to 62/255 but sit at 0-8 in play: divide by min(high, 8) per channel;
        # they also get a 0/1 "present" channel (a count scaled to 1/8 would need a weight 8x larger to
        # matter), which 0/1 planes do not need: they already are their own indicator
        counts = np.flatnonzero(high > 1)
        slot = np.full(d, -1, dtype=np.int64)
        slot[counts] = d + np.arange(len(counts))
        self.register_buffer("present_slot", th.as_tensor(slot), persistent=False)
        self.register_buffer("count_planes", th.as_tensor(counts), persistent=False)
        self.n_in = n_in = d + len(counts)
        scale = np.ones(n_in, dtype=np.float32)
        scale[:d] = 1.0 / np.clip(high, 1.0, 8.0)
        self.register_buffer("plane_scale", th.as_tensor(scale), persistent=False)
        self.register_buffer("coarse_index", th.as_tensor(coarse), persistent=False)
        self.register_buffer("hex_index", th.as_tensor(cells), persistent=False)
        cell_to_hex = th.full((n,), -1, dtype=th.long)
        cell_to_hex[th.as_tensor(cells)] = th.arange(self.n_hex)
        self.register_buffer("cell_to_hex", cell_to_hex, persistent=False)
        self.register_buffer("window", th.as_tensor(window), persistent=False)
        local = {int(p): i for i, p in enumerate(dynamic)}
        self.legal_plane = local[int(PLANE_INDEX["legal_hex"])]
        self.register_buffer(
            "prior_planes", th.as_tensor([local[int(p)] for p in PRIOR_PLANES]), persistent=False
        )
        self.stem = nn.Linear(n_in, k)  # on the 4x4-pooled planes, each coarse cell alike
        self.stem_map = nn.Linear(len(static), k, bias=False)
        self.stem_globals = nn.Linear(g, k, bias=False)
        self.context = nn.Sequential(
            nn.Conv2d(k, 2 * k, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(2 * k, 2 * k, 3, padding=1),
            nn.ReLU(),
        )
        # the board summary reads the context averaged over 2x2 coarse cells (8x4): over the 15x7 grid this
        # one layer held 85 % of the parameters, and Adam's update of them cost as much as a batch of 64
        self.summary_grid = (-(-cols // 2), -(-rows // 2))
        self.cnn_head = nn.Sequential(
            GridPool((cols, rows), self.summary_grid),
            nn.Flatten(),
            nn.Linear(2 * k * self.summary_grid[0] * self.summary_grid[1], cnn_dim),
            nn.ReLU(),
        )
        self.globals_net = nn.Sequential(nn.Linear(g, 64), nn.ReLU())
        self.units_net = nn.Sequential(nn.Linear(int(units.shape[-1]), UNIT_DIM), nn.ReLU())
        self.local: nn.Linear | None = None
        self.local_map: nn.Linear | None = None
        self.local_globals: nn.Module | None = None
        self.context_to_cells: nn.Module | None = None
        self.spatial_out: nn.Module | None = None
        self.spatial_skip: nn.Linear | None = None
        self.skip_map: nn.Linear | None = None
        self.unit_out: nn.Module | None = None
        if spatial > 0:
            # a hex convolution (the hex and its 6 neighbours), evaluated only where it is read
            self.local = nn.Linear(WINDOW * n_in, k)
            self.local_map = nn.Linear(WINDOW * len(static), k, bias=False)
            self.local_globals = nn.Linear(g, k, bias=False)
            self.context_to_cells = nn.Conv2d(2 * k, k, 1)
            self.spatial_out = nn.Linear(k, spatial)
            self.hex_logit = nn.Linear(spatial, 1)
            # the hex's own inputs skip to the head: "a counted unit already stands there" (rule 6.5) or
            # "this is the unit's own hex" must reach a hex's logit as a single weight, not be relearned
            # from the rare states where they decide the choice
            self.spatial_skip = nn.Linear(n_in, spatial, bias=False)
            self.skip_map = nn.Linear(len(static), spatial, bias=False)
            self.unit_out = nn.Sequential(nn.Linear(UNIT_DIM + k, UNIT_DIM), nn.ReLU())
            # Learned logit offsets for the PRIOR_PLANES hexes, started at PRIOR_INIT: the scripted
            # teachers never over-stack (rule 6.5, R9) nor end the game with French cities left
            # (rule 4.1, R21), so imitation gives those choices only a faint push down among the
            # hundreds of hexes it also does not pick, while each costs France's opponent several VP.
            # Starting from the prior, learning can still move it either way.
            self.priors = nn.Parameter(th.tensor(PRIOR_INIT))

    def unit_cells(self, units: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """Flat cell of each unit's hex ``(B, U)`` and whether it has one (on the map and visible)."""
        col = th.round(units[:, :, UNIT_X] * self.grid[0]) - 1
        row = th.round(units[:, :, UNIT_Y] * self.grid[1]) - 1
        on = (col >= 0) & (row >= 0)
        idx = (col.clamp(min=0) * self.grid[1] + row.clamp(min=0)).long().clamp(max=self.n_cells - 1)
        return idx, on

    def _check_map(self, raw: th.Tensor) -> None:
        """The map planes of the first sample must be the template's (one compare a batch): a policy
        fed another map would silently read this one's."""
        first = raw[0].index_select(0, self.map_index)
        if not th.equal(first.to(th.uint8), self.map_template):
            raise ValueError(
                "observation 'planes': the map planes (terrain, rivers, cities, ...) differ from this "
                "game's map; the policy network reads the map of the game it was built for"
            )

    def _entries(self, raw: th.Tensor) -> tuple[th.Tensor, th.Tensor, th.Tensor, th.Tensor]:
        """The non-zero entries of the non-map planes as (sample, channel, cell, value), ordered by sample:
        every per-sample input of the planes that the network reads."""
        lo_hi = self.dynamic_range
        b = raw.shape[0]
        if (
            lo_hi is not None
            and raw.dtype == th.uint8
            and (lo_hi[0] * self.n_cells) % 8 == 0
            and raw.shape[1] * self.n_cells % 8 == 0
            and (lo_hi[1] - lo_hi[0]) * self.n_cells % 8 == 0
        ):
            # ~99 % of the bytes are 0: find the non-zero 8-byte words first, then the bytes within them
            # (measured ~4x faster than nonzero over the bytes)
            w0, w1 = lo_hi[0] * self.n_cells // 8, lo_hi[1] * self.n_cells // 8
            words = raw.reshape(b, -1).contiguous().view(th.int64)[:, w0:w1]
            wb, wi = words.nonzero(as_tuple=True)
            octets = words[wb, wi].view(th.uint8).view(-1, 8)
            j, byte = octets.nonzero(as_tuple=True)
            pos = wi[j] * 8 + byte
            eb, c, cell, v = wb[j], pos // self.n_cells, pos % self.n_cells, octets[j, byte]
        else:
            dyn = (
                raw[:, lo_hi[0] : lo_hi[1]] if lo_hi is not None else raw.index_select(1, self.dynamic_index)
            )
            eb, c, cell = dyn.nonzero(as_tuple=True)
            v = dyn[eb, c, cell]
        return eb, c, cell, v

    def sparse_planes(self, planes: th.Tensor) -> th.Tensor:
        """``(4, E)`` int64: the non-zero entries of the non-map planes of ``planes`` ``(B, C, cols, rows)``
        (uint8) as rows sample, plane, cell, value, ordered by sample: what :meth:`forward` reads of them,
        for a batch that carries them under :data:`PLANE_ENTRIES`."""
        raw = planes.reshape(planes.shape[0], planes.shape[1], self.n_cells)
        self._check_map(raw)
        eb, ec, ecell, ev = self._entries(raw)
        return th.stack([eb, ec, ecell, ev.long()])

    def _pooled(self, b: int, eb: th.Tensor, ec: th.Tensor, ecell: th.Tensor, ev: th.Tensor) -> th.Tensor:
        """The scaled inputs averaged over 4x4 blocks ``(B, coarse cells, channels)``: one scatter-add of the
        entries, and of a 1 in the "present" channel of each count-plane entry."""
        d_in = self.n_in
        slot = self.present_slot[ec]
        has = slot >= 0
        pb, pch, pcell = th.cat([eb, eb[has]]), th.cat([ec, slot[has]]), th.cat([ecell, ecell[has]])
        pv = th.cat([ev.float() * self.plane_scale[ec], th.ones(int(has.sum()))])
        flat = (pb * self.n_coarse + self.coarse_index[pcell]) * d_in + pch
        pooled = pv.new_zeros(b * self.n_coarse * d_in).index_add_(0, flat, pv / POOL**2)
        return pooled.view(b, self.n_coarse, d_in)

    def _windows(
        self,
        b: int,
        eb: th.Tensor,
        ec: th.Tensor,
        ecell: th.Tensor,
        ev: th.Tensor,
        qb: th.Tensor,
        qc: th.Tensor,
        n_centre: int,
    ) -> tuple[th.Tensor, th.Tensor]:
        """The hex-window layer over the inputs (planes and "present" channels) at the queried cells
        ``(qb, qc)``: ``(M, k)`` (with its bias), and the raw planes ``(n_centre, planes)`` of the first
        ``n_centre`` queried cells themselves.

        The entries go into a byte table with one row per (sample, cell) that has any (~100 of the 1560
        cells of a sample) and one zero row that every other cell, and every missing neighbour, reads.
        Each table row is projected once through the weights of all seven window positions, and a window
        sums the projections of its occupied positions. (Measured: gathering each window's seven rows of
        inputs and converting them to float cost more than the layer itself, ~15 % slower overall; a dense
        (B, cells, planes) table spent more on zero-filling; an ``embedding_bag`` over the entries in each
        window was 3x slower, its backward pass sorts the ~36 entries per window.)"""
        assert self.local is not None
        n, d, k = self.n_cells, self.n_in, self.channels
        slot = self.present_slot[ec]
        has = slot >= 0
        eb, ec, ecell, ev = (
            th.cat([eb, eb[has]]),
            th.cat([ec, slot[has]]),
            th.cat([ecell, ecell[has]]),
            th.cat([ev, th.ones_like(ev[has])]),
        )
        occupied = th.zeros(b * n + 1, dtype=th.bool)
        occupied[eb * n + ecell] = True
        n_rows = int(occupied.sum())
        row_of = th.where(occupied, th.cumsum(occupied, 0) - 1, n_rows)
        table = th.zeros((n_rows + 1, d), dtype=th.uint8)
        table[row_of[eb * n + ecell], ec] = ev.to(th.uint8)
        window = self.window[qc]  # (M, 7), n_cells for a missing neighbour, which reads the zero row
        rows = row_of[th.where(window < n, qb.unsqueeze(1) * n + window, b * n)]
        w = self.local.weight.view(k, WINDOW, d) * self.plane_scale[:d]  # scale folded in
        projected = table[:n_rows].float() @ w.permute(2, 1, 0).reshape(d, WINDOW * k)  # (rows, 7 k)
        m, pos = (rows < n_rows).nonzero(as_tuple=True)
        parts = projected.view(-1, k).index_select(0, rows[m, pos] * WINDOW + pos)
        local = self.local.bias.expand(rows.shape[0], k).index_add(0, m, parts)
        centre = table.index_select(0, rows[:n_centre, 0])[:, : self.n_dynamic].float()
        return local, centre

    def _map_part(self, weight: th.Tensor, table: th.Tensor, cell: th.Tensor) -> th.Tensor:
        """``table[cell] @ weight.T`` for a constant per-cell ``table``: over every cell once when there are
        more queries than cells (a training batch), at the queried cells only otherwise (a rollout step)."""
        if cell.shape[0] > self.n_cells:
            return nn.functional.linear(table, weight)[cell]
        return nn.functional.linear(table[cell], weight)

    def _plane_entries(self, obs: dict[str, th.Tensor]) -> tuple[th.Tensor, th.Tensor, th.Tensor, th.Tensor]:
        entries = obs.get(PLANE_ENTRIES)
        if entries is not None:
            eb, ec, ecell, ev = entries.unbind(0)
            return eb, ec, ecell, ev.to(th.uint8)
        planes = obs["planes"]  # uint8 as the env gives it (HexPolicy skips SB3's float copy)
        raw = planes.reshape(planes.shape[0], planes.shape[1], self.n_cells)
        self._check_map(raw)
        return self._entries(raw)

    def _summary(
        self,
        obs: dict[str, th.Tensor],
        g: th.Tensor,
        eb: th.Tensor,
        ec: th.Tensor,
        ecell: th.Tensor,
        ev: th.Tensor,
    ) -> tuple[th.Tensor, th.Tensor, th.Tensor, list[th.Tensor]]:
        """The coarse context, the unit rows (float) and their embeddings, and the board summary's parts."""
        b, k = int(g.shape[0]), self.channels
        stem = self.stem(self._pooled(b, eb, ec, ecell, ev)) + self.stem_map(self.map_pooled)
        coarse = th.relu(stem + self.stem_globals(g).unsqueeze(1)).transpose(1, 2)
        coarse = coarse.reshape(b, k, *self.coarse_shape)
        ctx = self.context(coarse)
        units = obs["units"].float()
        u = self.units_net(units)
        return ctx, units, u, [self.cnn_head(ctx), self.globals_net(g), u.mean(dim=1), u.max(dim=1).values]

    def summary(self, obs: dict[str, th.Tensor]) -> th.Tensor:
        """The board summary alone ``(B, summary_dim)``, the last features of :meth:`forward` (the critic
        reads only these): without the hex-window layer and the pointer features, a fraction of the cost."""
        g = obs["globals"].float()
        return th.cat(self._summary(obs, g, *self._plane_entries(obs))[3], dim=1)

    def forward(self, obs: dict[str, th.Tensor]) -> th.Tensor:
        g = obs["globals"].float()
        b = int(g.shape[0])
        k = self.channels
        eb, ec, ecell, ev = self._plane_entries(obs)
        ctx, units, u, summary = self._summary(obs, g, eb, ec, ecell, ev)
        if self.local is None:
            return th.cat(summary, dim=1)
        assert (
            self.local_map is not None
            and self.local_globals is not None
            and self.context_to_cells is not None
        )
        assert self.spatial_out is not None and self.spatial_skip is not None and self.skip_map is not None
        assert self.unit_out is not None
        up = self.context_to_cells(ctx).flatten(2).transpose(1, 2)  # (B, coarse cells, k)
        # hex logits only where the legal_hex plane says a hex action is legal (the rest are masked anyway),
        # and features at the hexes of the units on the map: one computation for both
        is_legal = ec == self.legal_plane
        lb, lc = eb[is_legal], ecell[is_legal]
        lh = self.cell_to_hex[lc]
        keep = lh >= 0
        lb, lc, lh = lb[keep], lc[keep], lh[keep]
        idx, on = self.unit_cells(units)
        ub, ui = on.nonzero(as_tuple=True)
        n_legal = int(lb.shape[0])
        qb, qc = th.cat([lb, ub]), th.cat([lc, idx[ub, ui]])
        local, centre = self._windows(b, eb, ec, ecell, ev, qb, qc, n_legal)
        fine = th.relu(
            local
            + self._map_part(self.local_map.weight, self.map_window, qc)
            + self.local_globals(g)[qb]
            + up[qb, self.coarse_index[qc]]
        )
        centre_in = th.cat(
            [centre * self.plane_scale[: self.n_dynamic], (centre[:, self.count_planes] > 0).float()], 1
        )
        skip = nn.functional.linear(centre_in, self.spatial_skip.weight) + self._map_part(
            self.skip_map.weight, self.map_center, lc
        )
        marks = centre[:, self.prior_planes]  # (M, priors), 0/1 planes
        logit = self.hex_logit(th.relu(self.spatial_out(fine[:n_legal]) + skip)).squeeze(-1)
        hexes = g.new_zeros((b, self.n_hex)).index_put((lb, lh), logit + marks @ self.priors)
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
        self.summary_dim = summary_dim
        self.unit_logit = nn.Linear(UNIT_DIM, 1)
        self.other = nn.Linear(summary_dim, n_actions - n_hex - n_units)

    def forward(self, latent: th.Tensor) -> th.Tensor:
        # split, not slices: the backward pass of each slice zero-fills a gradient of the whole latent
        hexes, units, summary = latent.split([self.n_hex, self.n_units * UNIT_DIM, self.summary_dim], dim=1)
        unit_logits = self.unit_logit(units.reshape(-1, self.n_units, UNIT_DIM)).squeeze(-1)
        return th.cat([hexes, unit_logits, self.other(summary)], dim=1)


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
        # contiguous, as HexPolicy.predict_values' summary is: a Linear over a strided view may take another
        # BLAS kernel (seen on an AMD EPYC: values 2e-7 apart), and the two paths must give the same bits
        summary = features[:, features.shape[1] - self.summary_dim :].contiguous()
        return self.value_body(summary)


class LegalCategorical(MaskableCategorical):
    """sb3-contrib's masked categorical, computed over the legal actions only.

    ``MaskableCategorical`` normalises the raw logits (a log-sum-exp over all 1607 actions), again when it
    forgets any earlier mask, and once more after masking; its entropy multiplies and masks full
    (rows x 1607) matrices, and a PPO update runs the backward pass of all of it. A decision has tens of
    legal actions, so here the legal logits are gathered once and the normaliser, the log-probabilities
    and the entropy are per-row sums over them. The distribution is the same: a masked action has
    probability 0 and log-probability -1e8 minus the normaliser, as there. Dense ``logits`` and ``probs``
    (sampling, ``mode``) are built only when read. Without a mask, or when a row has no legal action, it
    is torch's categorical over the raw logits (as sb3-contrib's then is)."""

    def __init__(self, logits: th.Tensor, masks: MaybeMasks = None) -> None:
        self._raw = logits
        self.apply_masking(masks)

    def apply_masking(self, masks: MaybeMasks) -> None:
        raw = self._raw
        for cached in ("logits", "probs"):
            self.__dict__.pop(cached, None)
        self._original_logits = self._param = raw
        self._num_events = int(raw.shape[-1])
        th.distributions.Distribution.__init__(self, raw.shape[:-1], validate_args=False)
        self.masks = None
        self._legal: tuple[th.Tensor, th.Tensor, th.Tensor, th.Tensor] | None = None
        if masks is None:
            return
        m = th.as_tensor(masks, dtype=th.bool, device=raw.device).reshape(raw.shape)
        self.masks = m
        if raw.dim() != 2:
            return
        rows, cols = m.nonzero(as_tuple=True)
        b = raw.shape[0]
        if int(th.unique_consecutive(rows).numel()) != b:  # a row without a legal action: the dense form
            return
        vals = raw[rows, cols]
        # the log-normaliser of each row over its legal logits (the shift by the row's max cancels exactly)
        top = vals.new_full((b,), -th.inf).scatter_reduce(0, rows, vals.detach(), "amax")
        lse = top + vals.new_zeros(b).index_add(0, rows, (vals - top[rows]).exp()).log()
        self._legal = (rows, cols, vals - lse[rows], lse)

    @lazy_property
    def logits(self) -> th.Tensor:  # type: ignore[override]
        raw = self._raw
        if self._legal is None:
            z = (
                raw
                if self.masks is None
                else th.where(self.masks, raw, th.tensor(-1e8, dtype=raw.dtype, device=raw.device))
            )
            return z - z.logsumexp(dim=-1, keepdim=True)
        rows, cols, logp, lse = self._legal
        return (-1e8 - lse).unsqueeze(1).expand_as(raw).index_put((rows, cols), logp)

    def log_prob(self, value: th.Tensor) -> th.Tensor:
        if self._legal is None or value.shape != self._raw.shape[:1]:
            return super().log_prob(value)
        lse = self._legal[3]
        at, a = th.arange(value.shape[0], device=value.device), value.long()
        assert self.masks is not None
        return th.where(self.masks[at, a], self._raw[at, a], -1e8) - lse

    def entropy(self) -> th.Tensor:
        if self._legal is None:
            return super().entropy()
        rows, _cols, logp, lse = self._legal
        return -lse.new_zeros(lse.shape[0]).index_add(0, rows, logp.exp() * logp)


class InverseCdfCategorical(MaskableCategoricalDistribution):
    """The masked categorical distribution (:class:`LegalCategorical`), sampled by inverse CDF: one uniform
    per row against the cumulative probabilities. (torch's ``multinomial`` draws an exponential for each of
    the 1607 actions and takes an argmax: measured ~1 ms of a 16-sample rollout policy call, 60 % of
    everything after the features.)"""

    def proba_distribution(self, action_logits: th.Tensor) -> InverseCdfCategorical:
        self.distribution = LegalCategorical(action_logits.view(-1, self.action_dim))
        return self

    def sample(self) -> th.Tensor:
        cdf = self.distribution.probs.cumsum(-1)
        total = cdf[..., -1:].contiguous()
        u = th.rand(total.shape, dtype=cdf.dtype, device=cdf.device) * total
        # the first action whose cumulative probability exceeds u: never one of probability 0 (a masked
        # action adds nothing to the sum); u rounded up to the total would give len, so the index is capped
        # at the last action of positive probability, the first whose cumulative sum reaches the total
        last = th.searchsorted(cdf, total, right=False)
        return th.minimum(th.searchsorted(cdf, u, right=True), last).squeeze(-1)


class HexPolicy(MaskableMultiInputActorCriticPolicy):
    """MaskablePPO policy with the pointer heads (needs ``HexFeatures(spatial > 0)`` and ``net_arch.pi == []``).

    ``inference_only=True`` (what :func:`agents.ffo.policy.load_policy` builds, whose weights all come from the file)
    builds the same modules without initialising them for training: SB3's ``_build`` first makes a default
    action head (a ``features x actions`` linear layer, ~6 M weights) that this class replaces, and gives it an
    orthogonal initialisation, a QR factorisation that cost seconds of every policy load."""

    def __init__(self, *args: Any, inference_only: bool = False, **kwargs: Any) -> None:
        object.__setattr__(self, "_inference_only", inference_only)  # read by _build, during super().__init__
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        fe = self.features_extractor
        if not isinstance(fe, HexFeatures) or fe.spatial <= 0:
            raise ValueError("HexPolicy needs features_extractor_class=HexFeatures with spatial > 0")
        arch = self.net_arch
        if not isinstance(arch, dict) or arch.get("pi"):
            raise ValueError(
                "HexPolicy needs net_arch={'pi': [], 'vf': [...]}: the heads read the features directly"
            )
        self.mlp_extractor = SummaryCritic(fe.features_dim, fe.summary_dim, list(arch.get("vf", [])))  # type: ignore[assignment]

    def _build(self, lr_schedule: Any) -> None:
        if self._inference_only:  # the modules of SB3's _build below, left as constructed (no discarded head)
            self._build_mlp_extractor()
            self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        else:
            super()._build(lr_schedule)
        fe = self.features_extractor
        assert isinstance(fe, HexFeatures)
        self.action_dist = InverseCdfCategorical(int(self.action_space.n))
        self.action_net = HexActionHead(fe.n_hex, fe.n_units, fe.summary_dim, int(self.action_space.n))
        if self._inference_only:
            self.optimizer = self.optimizer_class(
                self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
            )
            return
        for m in [*self.action_net.modules(), fe.hex_logit]:
            if isinstance(m, nn.Linear):
                nn.init.orthogonal_(m.weight, gain=0.01)
                nn.init.zeros_(m.bias)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def predict_values(self, obs: Any) -> th.Tensor:
        """The critic's values from the board summary alone (the same numbers as SB3's path through every
        feature, which also computes the pointer features the critic does not read)."""
        fe = self.features_extractor
        assert isinstance(fe, HexFeatures) and isinstance(self.mlp_extractor, SummaryCritic)
        return self.value_net(self.mlp_extractor.value_body(fe.summary(obs)))

    def extract_features(self, obs: Any, features_extractor: BaseFeaturesExtractor | None = None) -> Any:
        """The observation as it comes, without SB3's float copy of the planes: :class:`HexFeatures`
        transposes them while they are still uint8 (4x less memory to move) and converts them itself."""
        return (features_extractor or self.features_extractor)(obs)
