"""Trained *France, 1940* policies: the policy file pair, its checked loader and the agent.

A policy is ``<name>.pt`` (the ``state_dict`` of an sb3-contrib ``MaskableActorCriticPolicy`` over the compact
observation, :func:`ffo_env.france1940.encoding.encode_compact`: the globals, the changing unit columns and the
changing planes at the playable hexes, 9,638 floats on the shipped map; written with ``torch.save`` and read
back with ``torch.load(weights_only=True)``: no pickle) beside ``<name>.json`` (metadata: ``game:
france1940``, side, env, engine and data versions, the observation layout's hash and size, the action count,
the network, and free-form ``extra``).

:func:`load_policy` refuses, with one message saying what differs, a file of another game, or one whose
engine, data, observation layout or network does not fit this installation. The agent plays from its side's
view only (the encoder reads :func:`ffo_env.france1940.core.visibility.view`: never the seed or the dice).

The file pair, the loader and the agent are the shared vector-MLP policy's (:mod:`agents.vector_policy`, the
same for Springtime for Hitler); this module is the game's descriptor of it (:data:`KIND`) and its names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents import policy_io
from agents import vector_policy as vp
from agents.vector_policy import MAX_LAYERS, MAX_WIDTH

__all__ = [
    "FORMAT",
    "GAME",
    "KIND",
    "MAX_LAYERS",
    "MAX_WIDTH",
    "PRETRAINED_DIR",
    "France1940PolicyAgent",
    "PolicyLoadError",
    "build_policy",
    "export_policy",
    "is_france1940_policy",
    "load_policy",
    "load_pretrained",
    "network_meta",
    "obs_size",
]

FORMAT = "france1940-policy"
VERSION = 1
GAME = "france1940"
ENV_NAME = "france1940_v0"
OBSERVATION = "compact"  # the env's observation_format the network reads
MAX_POLICY_BYTES = 128 * 1024 * 1024
NETWORK_VERSION = 1  # the version of the network code (agents.vector_policy.build_policy)
PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained_policies"


class PolicyLoadError(policy_io.PolicyLoadError):
    """A France 1940 policy file that cannot be used with this installation (the message names the file)."""


def obs_size() -> int:
    """The length of the compact observation on the default game's map (every army and option of a data
    version plays the same map, so the same length)."""
    from ffo_env.france1940.core.game import Game
    from ffo_env.france1940.core.options import RulesOptions
    from ffo_env.france1940.encoding import compact_size

    return compact_size(Game(RulesOptions()))


def _n_actions() -> int:
    from ffo_env.france1940.core.actions import N_ACTIONS

    return N_ACTIONS


def _encode(state: Any, side: int, legal: list[int]) -> np.ndarray:
    from ffo_env.france1940.encoding import encode_compact

    return encode_compact(state, side, legal)


def _versions() -> dict[str, tuple[Any, str]]:
    """What a policy file must have been trained on: ``key: (this installation's value, what it is)``."""
    from ffo_env.france1940.core.data import DATA_VERSION
    from ffo_env.france1940.core.game import ENGINE_VERSION
    from ffo_env.france1940.encoding import spec_hash

    return {
        "engine": (ENGINE_VERSION, "rules engine"),
        "data_version": (DATA_VERSION, "game data"),
        "obs_size": (obs_size(), "observation size"),
        "n_actions": (_n_actions(), "action count"),
        "observation_spec_hash": (spec_hash(), "observation spec"),
    }


KIND = vp.VectorPolicyKind(
    game=GAME,
    title="France 1940",
    format=FORMAT,
    env_name=ENV_NAME,
    module="agents/france1940/policy.py",
    pretrained_dir=PRETRAINED_DIR,
    versions=_versions,
    obs_size=obs_size,
    n_actions=_n_actions,
    encode=_encode,
    train_hint="ffo train --game france1940",
    version=VERSION,
    network_version=NETWORK_VERSION,
    max_bytes=MAX_POLICY_BYTES,
    observation=OBSERVATION,
    error=PolicyLoadError,
)
RETRAIN = KIND.retrain


class France1940PolicyAgent(vp.VectorPolicyAgent):
    """A frozen policy playing one side: ``act_state(state)`` encodes the side's view (compact) and picks a
    legal action (argmax by default; sampled with ``deterministic=False`` from the agent's own seeded
    generator). ``act(observation, mask)`` is the same for an env's observation."""

    kind = KIND


def is_france1940_policy(path: str | Path) -> bool:
    """Does the metadata beside ``path`` say it is a France 1940 policy (without loading anything)?"""
    return vp.is_policy_of(KIND, path)


def network_meta(net_arch: list[int], activation: str) -> dict[str, Any]:
    """The network of a policy file (and of a training checkpoint): the layer widths and activation."""
    return vp.network_meta(KIND, net_arch, activation)


def build_policy(net_arch: list[int], activation: str) -> Any:
    """A fresh ``MaskableActorCriticPolicy`` for the compact observation (weights to be loaded): the same
    network :meth:`agents.france1940.network_spec.France1940Network.policy_spec` gives ``MaskablePPO``."""
    return vp.build_policy(KIND, net_arch, activation)


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


def load_policy(path: str | Path, deterministic: bool = True) -> France1940PolicyAgent:
    """The France 1940 policy at ``path`` (either file or their stem) as an agent; one clear
    :class:`PolicyLoadError` otherwise."""
    agent: France1940PolicyAgent = vp.load_policy(KIND, path, France1940PolicyAgent, deterministic)
    return agent


def load_pretrained(side: str, directory: Path | None = None) -> France1940PolicyAgent:
    """The shipped France 1940 policy of ``side`` (``agents/france1940/pretrained_policies/<side>.pt`` +
    ``.json``, model card ``MODEL_CARD.md`` beside them): the agent ``pretrained`` with ``--game france1940``."""
    agent: France1940PolicyAgent = vp.load_pretrained(KIND, side, France1940PolicyAgent, directory)
    return agent
