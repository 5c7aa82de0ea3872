"""Springtime for Hitler's part of the one training pipeline (:class:`agents.network_spec.NetworkSpec`): an MLP
actor and critic over the flat observation (``policy: {net_arch, activation}``), its policy files
(:mod:`agents.springtime.policy`) and checkpoints (``springtime-checkpoint``), and the translation of a run
folder of ``training/springtime/``, the game's own pipeline before issue 62 (:mod:`.legacy_runs`).

The hook is the shared vector-MLP one (:class:`agents.vector_policy.VectorMlpNetwork`, the same for France
1940); what is the game's own is its policy kind, its defaults, its checkpoint kind and the legacy runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agents.springtime.policy import KIND, SpringtimePolicyAgent
from agents.vector_policy import VectorMlpNetwork

__all__ = ["NETWORK", "SpringtimeNetwork", "SpringtimePolicyConfig"]


@dataclass
class SpringtimePolicyConfig:
    """The network: an MLP actor and critic over the flat 1351-float observation."""

    net_arch: list[int] = field(default_factory=lambda: [128, 128])  # hidden widths of each of pi and vf
    activation: str = "tanh"  # "tanh" or "relu"


class SpringtimeNetwork(VectorMlpNetwork):
    game = "springtime"
    kind = KIND
    agent = SpringtimePolicyAgent
    policy_section = SpringtimePolicyConfig
    setups = ("random",)  # the game has no setup modes: the config's default, unused

    # the first Springtime manifests had no version and no network: read as version 1, network unchecked
    def checkpoint_kind(self) -> Any:
        return ("springtime-checkpoint", 1, True)

    checkpoint_optional = ("network",)

    def legacy_config(self, raw: dict[str, Any]) -> dict[str, Any] | None:
        from agents.springtime.legacy_runs import translate_config

        return translate_config(raw)

    def legacy_progress(self, progress: dict[str, Any], config: Any) -> dict[str, Any] | None:
        from agents.springtime.legacy_runs import translate_progress

        return translate_progress(progress, config)


NETWORK = SpringtimeNetwork()
