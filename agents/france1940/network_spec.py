"""France 1940's part of the one training pipeline (:class:`agents.network_spec.NetworkSpec`): an MLP actor and
critic over the compact observation (``observation_format="compact"``, 9,638 floats; ``policy: {net_arch,
activation}``), its policy files (:mod:`agents.france1940.policy`) and checkpoints (``france1940-checkpoint``).

Why the compact vector: the structured observation's planes (59 x 40 x 32) and the flat vector (84,839 floats)
hold mostly static terrain; the compact one keeps what changes during a game (the globals, the changing unit
columns, the changing planes at the 947 playable hexes), which a stock MLP reads as the other games' do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.network_spec import NetworkSpec

__all__ = ["NETWORK", "France1940Network", "France1940PolicyConfig"]

ACTIVATIONS = ("tanh", "relu")


@dataclass
class France1940PolicyConfig:
    """The network: an MLP actor and critic over the compact observation."""

    net_arch: list[int] = field(default_factory=lambda: [64, 64])  # hidden widths of each of pi and vf
    activation: str = "relu"  # "tanh" or "relu"


class France1940Network(NetworkSpec):
    game = "france1940"
    policy_section = France1940PolicyConfig
    observation = "flat"  # a Box: the compact vector
    monitor_keys = ()
    vec_envs = ("dummy", "subproc")
    rewards = ("win", "shaped")
    setups = ("random",)  # unused: the armies are env options, not setup modes

    def check_policy(self, section: Any, bad: Callable[[str, str, Any], Exception]) -> None:
        from agents.france1940.policy import MAX_LAYERS, MAX_WIDTH

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
        from agents.france1940.policy import OBSERVATION

        return {"observation_format": OBSERVATION, "reward": reward, "max_steps": max_steps}

    def export(
        self, model: Any, path: str | Path, side: str, section: Any, extra: dict[str, Any] | None = None
    ) -> Path:
        from agents.france1940.policy import export_policy

        return export_policy(model.policy, path, side, list(section.net_arch), section.activation, extra)

    def load_policy(self, path: str | Path, deterministic: bool = True) -> Any:
        from agents.france1940.policy import load_policy

        return load_policy(path, deterministic=deterministic)

    def load_pretrained(self, side: str, deterministic: bool = True) -> Any:
        from agents.france1940.policy import load_pretrained

        agent = load_pretrained(side)
        agent.deterministic = deterministic
        return agent

    @property
    def policy_load_error(self) -> type[Exception]:
        from agents.france1940.policy import PolicyLoadError

        return PolicyLoadError

    @property
    def pretrained_dir(self) -> Path:
        from agents.france1940.policy import PRETRAINED_DIR

        return PRETRAINED_DIR

    def checkpoint_kind(self) -> Any:
        return ("france1940-checkpoint", 1, False)

    def checkpoint_checks(self, model: Any) -> dict[str, tuple[Any, str]]:
        from agents.france1940.policy import network_meta
        from ffo_env.france1940.encoding import spec_hash

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


NETWORK = France1940Network()
