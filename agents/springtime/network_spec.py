"""Springtime for Hitler's part of the one training pipeline (:class:`agents.network_spec.NetworkSpec`): an MLP
actor and critic over the flat observation (``policy: {net_arch, activation}``), its policy files
(:mod:`agents.springtime.policy`) and checkpoints (``springtime-checkpoint``), and the translation of a run
folder of ``training/springtime/``, the game's own pipeline before issue 62 (:mod:`.legacy_runs`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.network_spec import NetworkSpec

__all__ = ["SpringtimeNetwork", "SpringtimePolicyConfig"]

ACTIVATIONS = ("tanh", "relu")


@dataclass
class SpringtimePolicyConfig:
    """The network: an MLP actor and critic over the flat 1351-float observation."""

    net_arch: list[int] = field(default_factory=lambda: [128, 128])  # hidden widths of each of pi and vf
    activation: str = "tanh"  # "tanh" or "relu"


class SpringtimeNetwork(NetworkSpec):
    game = "springtime"
    policy_section = SpringtimePolicyConfig
    observation = "flat"
    monitor_keys = ()
    vec_envs = ("dummy", "subproc")
    rewards = ("win", "shaped")
    setups = ("random",)  # the game has no setup modes: the config's default, unused

    def check_policy(self, section: Any, bad: Callable[[str, str, Any], Exception]) -> None:
        from agents.springtime.policy import MAX_LAYERS, MAX_WIDTH

        arch = section.net_arch
        if (
            not isinstance(arch, list)
            or not 1 <= len(arch) <= MAX_LAYERS
            or any(isinstance(w, bool) or not isinstance(w, int) or not 1 <= w <= MAX_WIDTH for w in arch)
        ):
            raise bad("policy.net_arch", f"1..{MAX_LAYERS} layer widths in [1, {MAX_WIDTH}]", arch)
        if section.activation not in ACTIVATIONS:
            raise bad("policy.activation", " or ".join(repr(a) for a in ACTIVATIONS), section.activation)

    def policy_spec(self, section: Any) -> tuple[Any, dict[str, Any]]:
        import torch

        act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[section.activation]
        return "MlpPolicy", {
            "net_arch": {"pi": list(section.net_arch), "vf": list(section.net_arch)},
            "activation_fn": act,
        }

    def env_kwargs(self, setup: str, reward: str, max_steps: int) -> dict[str, Any]:
        return {"observation_format": "flat", "reward": reward, "max_steps": max_steps}

    def export(
        self, model: Any, path: str | Path, side: str, section: Any, extra: dict[str, Any] | None = None
    ) -> Path:
        from agents.springtime.policy import export_policy

        return export_policy(model.policy, path, side, list(section.net_arch), section.activation, extra)

    def load_policy(self, path: str | Path, deterministic: bool = True) -> Any:
        from agents.springtime.policy import load_policy

        return load_policy(path, deterministic=deterministic)

    def load_pretrained(self, side: str, deterministic: bool = True) -> Any:
        from agents.springtime.policy import load_pretrained

        agent = load_pretrained(side)
        agent.deterministic = deterministic
        return agent

    @property
    def policy_load_error(self) -> type[Exception]:
        from agents.springtime.policy import PolicyLoadError

        return PolicyLoadError

    @property
    def pretrained_dir(self) -> Path:
        from agents.springtime.policy import PRETRAINED_DIR

        return PRETRAINED_DIR

    # the first Springtime manifests had no version and no network: read as version 1, network unchecked
    def checkpoint_kind(self) -> Any:
        return ("springtime-checkpoint", 1, True)

    checkpoint_optional = ("network",)

    def checkpoint_checks(self, model: Any) -> dict[str, tuple[Any, str]]:
        from agents.springtime.policy import network_meta, spec_hash

        arch = model.policy.net_arch
        widths = arch["pi"] if isinstance(arch, dict) else arch
        network = network_meta(list(widths), model.policy.activation_fn.__name__.lower())
        return {
            "observation_spec_hash": (
                spec_hash(),
                "written for another observation layout: the run cannot be resumed on this version",
            ),
            "network": (network, "resume with the run's own config.yaml (without --set on policy.*)"),
        }

    def legacy_config(self, raw: dict[str, Any]) -> dict[str, Any] | None:
        from agents.springtime.legacy_runs import translate_config

        return translate_config(raw)

    def legacy_progress(self, progress: dict[str, Any], config: Any) -> dict[str, Any] | None:
        from agents.springtime.legacy_runs import translate_progress

        return translate_progress(progress, config)


NETWORK = SpringtimeNetwork()
