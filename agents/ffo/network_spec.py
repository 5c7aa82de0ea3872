"""France Fights On's part of the one training pipeline (:class:`agents.network_spec.NetworkSpec`): the
``policy:`` section of a run config (:class:`PolicyConfig`), the hex network built from it
(:mod:`agents.ffo.network`), its policy files (:mod:`agents.ffo.policy`) and checkpoints (``ffo-checkpoint``).

Everything here was France Fights On's code in ``training/`` before issue 62 (``training.config.PolicyConfig``,
``training.model.policy_spec``, ``training.checkpoint``'s network record); the values it gives are those, so
runs, checkpoints and policy files of earlier versions read as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.network_spec import NetworkSpec

__all__ = ["FFONetwork", "PolicyConfig"]


@dataclass
class PolicyConfig:
    """Network sizes (see agents/ffo/network.py)."""

    cnn_dim: int = 256  # board summary from the 4x4-pooled context
    channels: int = 32  # k: channels of the coarse context and of the local features
    spatial: int = 8  # hidden width of the per-hex logit, computed at the legal hexes (0: flat head)
    net_arch: list[int] = field(
        default_factory=lambda: [256]
    )  # critic MLP (and actor MLP with the flat head)


def network_meta(model: Any) -> dict[str, Any]:
    """The network of ``model`` as a checkpoint records it (version, policy class, parameters, sizes)."""
    from agents.ffo.network import NETWORK_VERSION

    fe = model.policy.features_extractor
    net_arch = model.policy.net_arch
    if not isinstance(net_arch, dict):
        net_arch = {"pi": list(net_arch), "vf": list(net_arch)}
    return {
        "version": NETWORK_VERSION,
        "policy": type(model.policy).__name__,
        "parameters": int(sum(p.numel() for p in model.policy.parameters())),
        "features_extractor_kwargs": {
            k: getattr(fe, k)
            for k in ("cnn_dim", "channels", "spatial")
            if isinstance(getattr(fe, k, None), int)
        },
        "net_arch": {"pi": list(net_arch["pi"]), "vf": list(net_arch["vf"])},
    }


class FFONetwork(NetworkSpec):
    game = "ffo"
    policy_section = PolicyConfig
    observation = "dict"
    monitor_keys = ("vp",)
    vec_envs = ("subproc", "dummy", "pipelined")
    rewards = ("win", "shaped")
    action_kind_names = ("hex", "unit", "special")

    @property
    def setups(self) -> tuple[str, ...]:  # type: ignore[override]
        from ffo_env.ffo.core.game import SETUP_MODES

        return tuple(SETUP_MODES)

    def check_policy(self, section: Any, bad: Callable[[str, str, Any], Exception]) -> None:
        from agents.ffo.policy import MAX_LAYERS, MAX_WIDTH, SIZE_LOWER, are_layer_widths, is_size

        for key, lo in SIZE_LOWER.items():
            if not is_size(getattr(section, key), lo):
                raise bad(f"policy.{key}", f"an integer in [{lo}, {MAX_WIDTH}]", getattr(section, key))
        if not are_layer_widths(section.net_arch, min_layers=1):
            raise bad(
                "policy.net_arch",
                f"a list of 1..{MAX_LAYERS} layer widths in [1, {MAX_WIDTH}]",
                section.net_arch,
            )

    def legal_head(self, section: Any) -> bool:
        return bool(section.spatial > 0)

    def policy_spec(self, section: Any) -> tuple[Any, dict[str, Any]]:
        from agents.ffo.network import HexFeatures, HexPolicy

        fe = {"cnn_dim": section.cnn_dim, "channels": section.channels, "spatial": section.spatial}
        if section.spatial > 0:
            # foreach: one multi-tensor Adam update instead of a loop over the ~40 parameter tensors
            return HexPolicy, {
                "features_extractor_class": HexFeatures,
                "features_extractor_kwargs": fe,
                "net_arch": {"pi": [], "vf": list(section.net_arch)},
                "optimizer_kwargs": {"foreach": True},
            }
        return "MultiInputPolicy", {
            "features_extractor_class": HexFeatures,
            "features_extractor_kwargs": fe,
            "net_arch": {"pi": list(section.net_arch), "vf": list(section.net_arch)},
        }

    def env_kwargs(self, setup: str, reward: str, max_steps: int) -> dict[str, Any]:
        return {"setup": setup, "reward": reward, "max_steps": max_steps}

    def export(
        self, model: Any, path: str | Path, side: str, section: Any, extra: dict[str, Any] | None = None
    ) -> Path:
        from agents.ffo.policy import export_policy

        return export_policy(model, path, side=side, extra=extra)

    def load_policy(self, path: str | Path, deterministic: bool = True) -> Any:
        from agents.ffo.policy import load_policy

        return load_policy(path, deterministic=deterministic)

    def load_pretrained(self, side: str, deterministic: bool = True) -> Any:
        from agents.ffo.pretrained import load_pretrained

        return load_pretrained(side, deterministic=deterministic)

    @property
    def policy_load_error(self) -> type[Exception]:
        from agents.ffo.policy import PolicyLoadError

        return PolicyLoadError

    @property
    def pretrained_dir(self) -> Path:
        from agents.ffo.pretrained import PRETRAINED_DIR

        return PRETRAINED_DIR

    def checkpoint_kind(self) -> Any:
        return ("ffo-checkpoint", 1, False)

    def checkpoint_checks(self, model: Any) -> dict[str, tuple[Any, str]]:
        from agents.ffo.policy import spec_hash

        return {
            "observation_spec_hash": (
                spec_hash(),
                "the observation spec changed: the run cannot be resumed on this version",
            ),
            "network": (
                network_meta(model),
                "this run's config builds another network: resume with the run's own config.yaml (without "
                "--set on policy.*)",
            ),
        }

    def action_kinds(self, policy: Any, actions: Any) -> Any:
        import numpy as np

        from agents.ffo.network import hex_cells

        n_hex = len(hex_cells())
        n_units = int(policy.observation_space["units"].shape[0])
        return np.where(actions < n_hex, 0, np.where(actions < n_hex + n_units, 1, 2))


NETWORK = FFONetwork()
