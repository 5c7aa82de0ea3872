"""France 1940's part of the one training pipeline (:class:`agents.network_spec.NetworkSpec`): an MLP actor and
critic over the compact observation (``observation_format="compact"``, 9,638 floats; ``policy: {net_arch,
activation}``), its policy files (:mod:`agents.france1940.policy`) and checkpoints (``france1940-checkpoint``).

Why the compact vector: the structured observation's planes (59 x 40 x 32) and the flat vector (84,839 floats)
hold mostly static terrain; the compact one keeps what changes during a game (the globals, the changing unit
columns, the changing planes at the 947 playable hexes), which a stock MLP reads as the other games' do.

The hook is the shared vector-MLP one (:class:`agents.vector_policy.VectorMlpNetwork`, the same for Springtime
for Hitler); what is the game's own is its policy kind (the compact observation), its defaults and its
checkpoint kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agents.france1940.policy import KIND, France1940PolicyAgent
from agents.vector_policy import VectorMlpNetwork

__all__ = ["NETWORK", "France1940Network", "France1940PolicyConfig"]


@dataclass
class France1940PolicyConfig:
    """The network: an MLP actor and critic over the compact observation."""

    net_arch: list[int] = field(default_factory=lambda: [64, 64])  # hidden widths of each of pi and vf
    activation: str = "relu"  # "tanh" or "relu"


class France1940Network(VectorMlpNetwork):
    game = "france1940"
    kind = KIND
    agent = France1940PolicyAgent
    policy_section = France1940PolicyConfig
    setups = ("random",)  # unused: the armies are env options, not setup modes

    def checkpoint_kind(self) -> Any:
        return ("france1940-checkpoint", 1, False)


NETWORK = France1940Network()
