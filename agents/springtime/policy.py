"""Trained Springtime for Hitler policies: the policy file pair, its checked loader and the agent.

A policy is ``<name>.pt`` (the ``state_dict`` of an sb3-contrib ``MaskableActorCriticPolicy`` over the flat
1351-float observation, written with ``torch.save`` and read back with ``torch.load(weights_only=True)``:
no pickle) beside ``<name>.json`` (metadata: ``game: springtime``, side, env, engine and data versions, the
observation layout and its hash, the action count, the network, and free-form ``extra``).

:func:`load_policy` refuses, with one message saying what differs, a file of the other game (France Fights
On's ``ffo-policy`` files say ``env: france_fights_on_v0`` and have no ``game`` key), or one whose engine,
data, observation layout or network does not fit this installation. The agent plays from
``State.visible_to`` only (through :func:`ffo_env.springtime.encoding.encode`, S59).

The file pair, the loader and the agent are the shared vector-MLP policy's (:mod:`agents.vector_policy`, the
same for France 1940); this module is the game's descriptor of it (:data:`KIND`) and its names.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from agents import policy_io
from agents import vector_policy as vp

__all__ = [
    "FORMAT",
    "GAME",
    "KIND",
    "SpringtimePolicyAgent",
    "build_policy",
    "export_policy",
    "is_springtime_policy",
    "load_policy",
    "network_meta",
    "observation_spec",
    "spec_hash",
]

FORMAT = "springtime-policy"
VERSION = 1
GAME = "springtime"
ENV_NAME = "springtime_v0"
MAX_POLICY_BYTES = 64 * 1024 * 1024
# the version of the network code (agents.vector_policy.build_policy); files without one were written by version 1
NETWORK_VERSION = 1
PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained_policies"

# earlier rules engines whose policies still play here: their observation and actions are this
# installation's (the observation spec hash, its size and the action count are checked apart) and their rules
# differ only where a policy needs no retraining. springtime-core-1 -> 2: an Event window is also opened when
# the held marker cannot be played now, with NO its one legal action (P10; the agent answers a single legal
# action without the network), and a BEF eliminated in combat is rebuilt in any Allied Area (rule 12.3.2, S64)
COMPATIBLE_ENGINES = ("springtime-core-1",)


class PolicyLoadError(policy_io.PolicyLoadError):
    """A Springtime policy file that cannot be used with this installation (the message names the file)."""


def observation_spec() -> dict[str, Any]:
    """The observation layout a policy was trained on (blocks and feature names)."""
    from ffo_env.springtime import encoding as enc
    from ffo_env.springtime.core.state import DECISIONS

    return {
        "layout": [[name, size] for name, size in enc.LAYOUT],
        "area_features": list(enc.AREA_FEATURES),
        "unit_features": list(enc.UNIT_FEATURES),
        "track_features": list(enc.TRACK_FEATURES),
        "decisions": list(DECISIONS),
        "size": enc.OBS_SIZE,
    }


def spec_hash(spec: dict[str, Any] | None = None) -> str:
    text = json.dumps(spec if spec is not None else observation_spec(), sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _obs_size() -> int:
    from ffo_env.springtime.encoding import OBS_SIZE

    return OBS_SIZE


def _n_actions() -> int:
    from ffo_env.springtime.core.actions import N_ACTIONS

    return N_ACTIONS


def _encode(state: Any, side: int, legal: list[int]) -> np.ndarray:
    from ffo_env.springtime.encoding import encode

    return encode(state, side)


def _versions() -> dict[str, tuple[Any, str]]:
    """What a policy file must have been trained on: ``key: (this installation's value, what it is)``."""
    from ffo_env.springtime.core.data import DATA_VERSION
    from ffo_env.springtime.core.game import ENGINE_VERSION

    return {
        "engine": (ENGINE_VERSION, "rules engine"),
        "data_version": (DATA_VERSION, "game data"),
        "obs_size": (_obs_size(), "observation size"),
        "n_actions": (_n_actions(), "action count"),
        "observation_spec_hash": (spec_hash(), "observation spec"),
    }


KIND = vp.VectorPolicyKind(
    game=GAME,
    title="Springtime",
    format=FORMAT,
    env_name=ENV_NAME,
    module="agents/springtime/policy.py",
    pretrained_dir=PRETRAINED_DIR,
    versions=_versions,
    obs_size=_obs_size,
    n_actions=_n_actions,
    encode=_encode,
    train_hint="ffo train --game springtime",
    version=VERSION,
    network_version=NETWORK_VERSION,
    max_bytes=MAX_POLICY_BYTES,
    compatible_engines=COMPATIBLE_ENGINES,
    error=PolicyLoadError,
)
RETRAIN = KIND.retrain


class SpringtimePolicyAgent(vp.VectorPolicyAgent):
    """A frozen policy playing one side: ``act_state(state)`` encodes the side's redacted view and picks a legal
    action (argmax by default; sampled with ``deterministic=False`` from the agent's own seeded generator)."""

    kind = KIND


def is_springtime_policy(path: str | Path) -> bool:
    """Does the metadata beside ``path`` say it is a Springtime policy (without loading anything)?"""
    return vp.is_policy_of(KIND, path)


def network_meta(net_arch: list[int], activation: str) -> dict[str, Any]:
    """The network of a policy file (and of a training checkpoint): the actor's layer widths and activation."""
    return vp.network_meta(KIND, net_arch, activation)


def build_policy(net_arch: list[int], activation: str, optimizer_class: Any = None) -> Any:
    """A fresh ``MaskableActorCriticPolicy`` for the flat Springtime observation (weights to be loaded)."""
    return vp.build_policy(KIND, net_arch, activation, optimizer_class)


def export_policy(
    policy: Any,
    path: str | Path,
    side: str,
    net_arch: list[int],
    activation: str,
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write ``policy``'s weights and metadata side by side (atomically); returns the ``.pt`` path."""
    return vp.export_policy(KIND, policy, path, side, net_arch, activation, extra)


def load_policy(path: str | Path, deterministic: bool = True) -> SpringtimePolicyAgent:
    """The Springtime policy at ``path`` (either file or their stem) as an agent; one clear
    :class:`PolicyLoadError` otherwise."""
    agent: SpringtimePolicyAgent = vp.load_policy(KIND, path, SpringtimePolicyAgent, deterministic)
    return agent


def load_pretrained(side: str, directory: Path | None = None) -> SpringtimePolicyAgent:
    """The shipped Springtime policy of ``side`` (``agents/springtime/pretrained_policies/<side>.pt`` + ``.json``,
    model card ``MODEL_CARD.md`` beside them): the agent name ``pretrained`` with ``--game springtime``."""
    agent: SpringtimePolicyAgent = vp.load_pretrained(KIND, side, SpringtimePolicyAgent, directory)
    return agent
