"""The policy network: a small U-Net over the hex planes, a per-unit encoder, and pointer heads.

Observation (see ``ffo_env.encoding.observation``): a dict of

- ``planes``: ``(C, 60, 26)`` planes over the offset hex grid (column x row);
- ``globals``: ``(G,)`` float vector (phase, decision, dice, battle, ...);
- ``units``: ``(U, F)`` per-unit table, one row per unit in unit-action order.

Features (``HexFeatures``)::

    planes -> scale -> Conv1x1(C->k) + Linear(globals->k) broadcast to every cell, ReLU
           -> Conv3x3(k->k) ReLU                                          = cells (k, 60, 26)
    cells -> Conv3x3 s2 (k->2k) -> Conv3x3 s2 (2k->2k) -> 2x Conv3x3 (2k->2k), ReLUs
                                                                          = context (2k, 15, 7)
    context -> flatten -> Linear(->cnn_dim) ReLU                          = board summary
    [cells, context upsampled x4] -> Conv3x3(3k->k) ReLU                  = fine (k, 60, 26)
    units -> Linear(F->32) ReLU; [it, fine at the unit's hex] -> Linear(->32) ReLU = unit features
    summary = [board summary, Linear(globals->64) ReLU, mean and max of the unit encodings]
    prior = sum_k prior_k x planes[PRIOR_PLANES[k]]                       (one learned scalar each)
    features = [Conv1x1([fine, planes, planes > 0]->s) and prior flattened, unit features, summary]
                                                                          (spatial = s > 0)

Why this shape: the scripted bots steer by distances across the whole map (to the ports, the
French cities, the nearest enemy), which a stack of 3x3 convolutions at full resolution cannot
see; the stride-4 context (each of its cells sees about 15 hexes around it) brought back to full
resolution gives every hex that view, at the cost of one more full-resolution convolution. The
globals are added to every cell so that the same hex is scored differently for a move, an
attack or a retreat.

Heads (``HexPolicy``, used when ``spatial > 0``): each of the 1530 hex actions (destinations,
targets, retreats, placements) gets its logit from its own cell of the ``s``-channel map, plus
learned offsets (``PRIOR_INIT`` at the start) where moving the decision's unit there would
over-stack it (rule 6.5, R9: the excess is removed for 3-4 VP each) and where a German attack
would wipe out the last French units while French cities remain (rule 4.1, 4.3, R21: the game
ends and counts them for France); each of
the 62 unit actions from that unit's features (a pointer over the units: the fine map at its hex
says where it stands); the 15 special actions from the summary. The critic is an MLP over the
summary only (``net_arch``), which keeps it small and cheap. The action mask is applied to the
logits by ``MaskableActorCriticPolicy``. With ``spatial = 0`` the features are the summary and
SB3's flat MLP heads are used.

A 3x3 kernel on the offset grid covers the six hex neighbours of every cell (plus two
non-neighbours that the network learns to weigh down).
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


def _hex_cells() -> np.ndarray:
    """Flat cell (column-1)*26 + row of every hex, in hex-index order (= hex action order)."""
    from ffo_env.core import hexgrid as hg

    return ((hg.HEX_X.astype(np.int64) - 1) * 26 + hg.HEX_Y.astype(np.int64)).copy()


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
        summary = cnn_dim + 64 + 64
        unit_part = self.n_units * UNIT_DIM if spatial > 0 else 0
        # the spatial map carries one more channel: the priors (see HexActionHead)
        hex_part = (spatial + 1) * self.n_cells if spatial > 0 else 0
        super().__init__(observation_space, features_dim=hex_part + unit_part + summary)
        self.cnn_dim = cnn_dim
        self.channels = channels
        self.spatial = spatial
        self.summary_dim = summary
        k = channels
        # count/CF planes go up to 62/255 but sit at 0-8 in play: divide by min(high, 8) per channel
        high = th.as_tensor(planes.high[:, 0, 0], dtype=th.float32).clamp(1.0, 8.0)
        self.register_buffer("plane_scale", (1.0 / high).view(1, -1, 1, 1))
        self.stem = nn.Conv2d(c, k, 1)
        self.stem_globals = nn.Linear(g, k)
        self.cell = nn.Sequential(nn.Conv2d(k, k, 3, padding=1), nn.ReLU())
        self.down = nn.Sequential(
            nn.Conv2d(k, 2 * k, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(2 * k, 2 * k, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(2 * k, 2 * k, 3, padding=1), nn.ReLU(),
            nn.Conv2d(2 * k, 2 * k, 3, padding=1), nn.ReLU(),
        )
        with th.no_grad():
            ctx = self.down(th.zeros(1, k, *self.grid))
        self.ctx_shape = tuple(int(x) for x in ctx.shape[1:])
        self.cnn_head = nn.Sequential(nn.Flatten(), nn.Linear(int(ctx.numel()), cnn_dim), nn.ReLU())
        self.globals_net = nn.Sequential(nn.Linear(g, 64), nn.ReLU())
        self.units_net = nn.Sequential(nn.Linear(int(units.shape[-1]), UNIT_DIM), nn.ReLU())
        self.fine: nn.Module | None = None
        self.spatial_out: nn.Module | None = None
        self.unit_out: nn.Module | None = None
        if spatial > 0:
            self.fine = nn.Sequential(nn.Conv2d(3 * k, k, 3, padding=1), nn.ReLU())
            # the raw planes skip to the head: "a counted unit already stands there" (rule 6.5) or
            # "this is the unit's own hex" must reach a hex's logit as a single weight, not be
            # relearned through the U-Net from the rare states where they decide the choice
            # (as 0/1 indicators too: a count scaled to 1/8 would need a weight 8x larger to matter)
            self.spatial_out = nn.Conv2d(k + 2 * c, spatial, 1)
            self.unit_out = nn.Sequential(nn.Linear(UNIT_DIM + k, UNIT_DIM), nn.ReLU())
            # Learned logit offsets for the PRIOR_PLANES hexes, started at PRIOR_INIT: the scripted
            # teachers never over-stack (rule 6.5, R9) nor end the game with French cities left
            # (rule 4.1, R21), so imitation gives those choices only a faint push down among the
            # hundreds of hexes it also does not pick, while each costs France's opponent several VP.
            # Starting from the prior, learning can still move it either way.
            self.prior_planes = list(PRIOR_PLANES)
            self.priors = nn.Parameter(th.tensor(PRIOR_INIT))

    def unit_cells(self, units: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """Flat cell of each unit's hex ``(B, U)`` and whether it has one (on the map and visible)."""
        col = th.round(units[:, :, UNIT_X] * self.grid[0]) - 1
        row = th.round(units[:, :, UNIT_Y] * self.grid[1]) - 1
        on = (col >= 0) & (row >= 0)
        idx = (col.clamp(min=0) * self.grid[1] + row.clamp(min=0)).long().clamp(max=self.n_cells - 1)
        return idx, on

    def forward(self, obs: dict[str, th.Tensor]) -> th.Tensor:
        planes = obs["planes"].float() * self.plane_scale
        g = obs["globals"].float()
        x = th.relu(self.stem(planes) + self.stem_globals(g)[:, :, None, None])
        cells = self.cell(x)
        ctx = self.down(cells)
        units = obs["units"].float()
        u = self.units_net(units)
        summary = [self.cnn_head(ctx), self.globals_net(g), u.mean(dim=1), u.max(dim=1).values]
        if self.fine is None:
            return th.cat(summary, dim=1)
        assert self.spatial_out is not None and self.unit_out is not None
        up = nn.functional.interpolate(ctx, size=self.grid, mode="nearest")
        fine = self.fine(th.cat([cells, up], dim=1))
        flat = fine.flatten(2)  # (B, k, cells)
        idx, on = self.unit_cells(units)
        at = th.gather(flat, 2, idx.unsqueeze(1).expand(-1, flat.shape[1], -1)).transpose(1, 2)
        at = at * on.unsqueeze(-1).float()
        unit_feat = self.unit_out(th.cat([u, at], dim=2))
        hexes = self.spatial_out(th.cat([fine, planes, (planes > 0).float()], dim=1))
        marks = obs["planes"][:, self.prior_planes].float()  # (B, k, 60, 26)
        prior = (marks * self.priors[None, :, None, None]).sum(dim=1)
        return th.cat([hexes.flatten(1), prior.flatten(1), unit_feat.flatten(1), *summary], dim=1)


class HexActionHead(nn.Module):
    """Logits in action order: 1530 hexes (their cells of the spatial map), 62 units (pointer over the
    unit features), then the specials (linear over the summary)."""

    def __init__(self, spatial: int, n_cells: int, n_units: int, summary_dim: int, n_actions: int) -> None:
        super().__init__()
        self.spatial = spatial
        self.n_cells = n_cells
        self.n_units = n_units
        cells = th.as_tensor(_hex_cells())
        self.register_buffer("hex_cells", cells)
        self.n_hex = int(cells.shape[0])
        self.hex_logit = nn.Linear(spatial, 1)
        self.unit_logit = nn.Linear(UNIT_DIM, 1)
        self.other = nn.Linear(summary_dim, n_actions - self.n_hex - n_units)

    def forward(self, latent: th.Tensor) -> th.Tensor:
        s = self.spatial
        n = (s + 1) * self.n_cells
        m = n + self.n_units * UNIT_DIM
        cell = latent[:, :n].view(-1, s + 1, self.n_cells).transpose(1, 2)  # (B, cells, s + prior)
        hex_logits = (self.hex_logit(cell[:, :, :s]).squeeze(-1) + cell[:, :, s])[:, self.hex_cells]
        unit_logits = self.unit_logit(latent[:, n:m].view(-1, self.n_units, UNIT_DIM)).squeeze(-1)
        return th.cat([hex_logits, unit_logits, self.other(latent[:, m:])], dim=1)


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
        self.action_net = HexActionHead(fe.spatial, fe.n_cells, fe.n_units, fe.summary_dim, int(self.action_space.n))
        for m in self.action_net.modules():
            if isinstance(m, nn.Linear):
                nn.init.orthogonal_(m.weight, gain=0.01)
                nn.init.zeros_(m.bias)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)
