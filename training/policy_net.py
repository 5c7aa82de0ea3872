"""The policy network: a small CNN over the hex planes, MLPs over the rest, and a spatial hex head.

Observation (see ``ffo_env.encoding.observation``): a dict of

- ``planes``: ``(C, 60, 26)`` planes over the offset hex grid (column x row);
- ``globals``: ``(G,)`` float vector;
- ``units``: ``(U, F)`` per-unit table.

Features (``HexFeatures``)::

    planes  -> scale -> Conv1x1(C->k) ReLU -> Conv3x3(k->k) ReLU            = cell map (k, 60, 26)
    cell map -> Conv3x3(k->2k, stride 2) ReLU -> Conv3x3(2k->2k, stride 2) ReLU -> flatten
             -> Linear(->cnn_dim) ReLU                                       = board summary
    globals -> Linear(G->64) ReLU
    units   -> Linear(F->32) ReLU per unit -> [mean, max] over units -> 64
    features = [Conv1x1(k->s)(cell map) flattened (s*60*26, when spatial = s > 0), summary, globals, units]

Action head (``HexPolicy``, used when ``spatial > 0``): the 1530 hex actions (destinations,
targets, retreats, placements) get one logit per hex from a 1x1 convolution of the cell map, so
a good hex is scored where it is, instead of through a flat bottleneck; the 62 unit and 15
special actions get logits from a linear layer over the pooled summary. The critic is an MLP
over all features. The action mask is applied to the logits by ``MaskableActorCriticPolicy``.

The 1x1 convolution first mixes the ~70 planes down to ``k`` channels per cell, which makes the
network several times cheaper to train on a CPU than a 3x3 convolution over all planes. A 3x3
kernel on the offset grid covers the six hex neighbours of every cell (plus two non-neighbours
that the network learns to weigh down).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


def _hex_cells() -> np.ndarray:
    """Flat cell (column-1)*26 + row of every hex, in hex-index order (= hex action order)."""
    from ffo_env.core import hexgrid as hg

    return ((hg.HEX_X.astype(np.int64) - 1) * 26 + hg.HEX_Y.astype(np.int64)).copy()


class HexFeatures(BaseFeaturesExtractor):
    def __init__(self, observation_space: gym.spaces.Dict, cnn_dim: int = 256, channels: int = 32,
                 spatial: int = 0) -> None:
        spaces = observation_space.spaces
        planes = spaces["planes"]
        c = int(planes.shape[0])
        self.n_cells = int(planes.shape[1] * planes.shape[2])
        g = int(spaces["globals"].shape[0])
        units = spaces.get("units")
        summary = cnn_dim + 64 + (64 if units is not None else 0)
        super().__init__(observation_space, features_dim=spatial * self.n_cells + summary)
        self.cnn_dim = cnn_dim
        self.channels = channels
        self.spatial = spatial
        self.summary_dim = summary
        # count/CF planes go up to 62/255 but sit at 0-8 in play: divide by min(high, 8) per channel
        high = th.as_tensor(planes.high[:, 0, 0], dtype=th.float32).clamp(1.0, 8.0)
        self.register_buffer("plane_scale", (1.0 / high).view(1, -1, 1, 1))
        self.cell = nn.Sequential(
            nn.Conv2d(c, channels, 1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
        )
        self.cnn = nn.Sequential(
            nn.Conv2d(channels, 2 * channels, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(2 * channels, 2 * channels, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        with th.no_grad():
            n_flat = int(self.cnn(self.cell(th.zeros(1, *planes.shape))).shape[1])
        self.cnn_head = nn.Sequential(nn.Linear(n_flat, cnn_dim), nn.ReLU())
        self.spatial_out: nn.Module | None = nn.Conv2d(channels, spatial, 1) if spatial > 0 else None
        self.globals_net = nn.Sequential(nn.Linear(g, 64), nn.ReLU())
        self.units_net: nn.Module | None = None
        if units is not None:
            self.units_net = nn.Sequential(nn.Linear(int(units.shape[-1]), 32), nn.ReLU())

    def forward(self, obs: dict[str, th.Tensor]) -> th.Tensor:
        planes = obs["planes"].float() * self.plane_scale
        cells = self.cell(planes)
        parts = []
        if self.spatial_out is not None:
            parts.append(self.spatial_out(cells).flatten(1))
        parts += [self.cnn_head(self.cnn(cells)), self.globals_net(obs["globals"])]
        if self.units_net is not None:
            u = self.units_net(obs["units"])
            parts.append(th.cat([u.mean(dim=1), u.max(dim=1).values], dim=1))
        return th.cat(parts, dim=1)


class HexActionHead(nn.Module):
    """Logits in action order: 1530 hexes (1x1 conv of the cell map), then units and specials (linear)."""

    def __init__(self, spatial: int, n_cells: int, summary_dim: int, n_actions: int) -> None:
        super().__init__()
        self.spatial = spatial
        self.n_cells = n_cells
        cells = th.as_tensor(_hex_cells())
        self.register_buffer("hex_cells", cells)
        self.n_hex = int(cells.shape[0])
        self.hex_logit = nn.Linear(spatial, 1)
        self.other = nn.Linear(summary_dim, n_actions - self.n_hex)

    def forward(self, latent: th.Tensor) -> th.Tensor:
        n = self.spatial * self.n_cells
        cell = latent[:, :n].view(-1, self.spatial, self.n_cells).transpose(1, 2)  # (B, cells, s)
        hex_logits = self.hex_logit(cell).squeeze(-1)[:, self.hex_cells]
        return th.cat([hex_logits, self.other(latent[:, n:])], dim=1)


class HexPolicy(MaskableMultiInputActorCriticPolicy):
    """MaskablePPO policy with the spatial hex head (needs ``HexFeatures(spatial > 0)`` and ``net_arch.pi == []``)."""

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        fe = self.features_extractor
        if not isinstance(fe, HexFeatures) or fe.spatial <= 0:
            raise ValueError("HexPolicy needs features_extractor_class=HexFeatures with spatial > 0")
        if self.mlp_extractor.latent_dim_pi != fe.features_dim:
            raise ValueError("HexPolicy needs net_arch with pi=[] so the head sees the cell map")
        self.action_net = HexActionHead(fe.spatial, fe.n_cells, fe.summary_dim, int(self.action_space.n))
        for m in self.action_net.modules():
            if isinstance(m, nn.Linear):
                nn.init.orthogonal_(m.weight, gain=0.01)
                nn.init.zeros_(m.bias)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)
