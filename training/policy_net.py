"""The policy network's feature extractor: a small CNN over the hex planes + MLPs over the rest.

Observation (see ``ffo_env.encoding.observation``): a dict of

- ``planes``: ``(C, 60, 26)`` float planes over the offset hex grid (column x row);
- ``globals``: ``(G,)`` float vector;
- ``units``: ``(U, F)`` per-unit table (optional).

Architecture (``HexFeatures``)::

    planes  -> scale -> Conv1x1(C->k) ReLU -> Conv3x3(k->k) ReLU -> Conv3x3(k->2k, stride 2) ReLU
            -> Conv3x3(2k->2k, stride 2) ReLU -> flatten -> Linear(->cnn_dim) ReLU      (k = channels)
    globals -> Linear(G->64) ReLU
    units   -> Linear(F->32) ReLU per unit -> [mean, max] over units -> 64
    concat  -> features (cnn_dim + 64 + 64)

The 1x1 convolution first mixes the ~70 planes down to ``k`` channels per cell, which makes
the network several times cheaper to train on a CPU than a 3x3 convolution over all planes.
A 3x3 kernel on the offset grid covers the six hex neighbours of every cell (plus two
non-neighbours that the network learns to weigh down). The actor and critic heads are
SB3's ``net_arch`` MLPs on top of these features, with the action mask applied to the
logits by ``MaskableActorCriticPolicy``.
"""

from __future__ import annotations

import gymnasium as gym
import torch as th
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


class HexFeatures(BaseFeaturesExtractor):
    def __init__(self, observation_space: gym.spaces.Dict, cnn_dim: int = 256, channels: int = 32) -> None:
        spaces = observation_space.spaces
        planes = spaces["planes"]
        c = int(planes.shape[0])
        g = int(spaces["globals"].shape[0])
        units = spaces.get("units")
        features = cnn_dim + 64 + (64 if units is not None else 0)
        super().__init__(observation_space, features_dim=features)
        self.cnn_dim = cnn_dim
        self.channels = channels
        # count/CF planes go up to 62/255 but sit at 0-8 in play: divide by min(high, 8) per channel
        high = th.as_tensor(planes.high[:, 0, 0], dtype=th.float32).clamp(1.0, 8.0)
        self.register_buffer("plane_scale", (1.0 / high).view(1, -1, 1, 1))
        self.cnn = nn.Sequential(
            nn.Conv2d(c, channels, 1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, 2 * channels, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(2 * channels, 2 * channels, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        with th.no_grad():
            n_flat = int(self.cnn(th.zeros(1, *planes.shape)).shape[1])
        self.cnn_head = nn.Sequential(nn.Linear(n_flat, cnn_dim), nn.ReLU())
        self.globals_net = nn.Sequential(nn.Linear(g, 64), nn.ReLU())
        self.units_net: nn.Module | None = None
        if units is not None:
            self.units_net = nn.Sequential(nn.Linear(int(units.shape[-1]), 32), nn.ReLU())

    def forward(self, obs: dict[str, th.Tensor]) -> th.Tensor:
        planes = obs["planes"].float() * self.plane_scale
        parts = [self.cnn_head(self.cnn(planes)), self.globals_net(obs["globals"])]
        if self.units_net is not None:
            u = self.units_net(obs["units"])
            parts.append(th.cat([u.mean(dim=1), u.max(dim=1).values], dim=1))
        return th.cat(parts, dim=1)
