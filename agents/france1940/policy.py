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
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents import policy_io
from agents.policy_files import peek_metadata

__all__ = [
    "FORMAT",
    "GAME",
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
ACTIVATIONS = ("tanh", "relu")
MAX_WIDTH = 4096
MAX_LAYERS = 8
MAX_POLICY_BYTES = 128 * 1024 * 1024
NETWORK_VERSION = 1  # the version of the network code below (build_policy)
RETRAIN = "retrain it with 'ffo train --game france1940'"
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


def is_france1940_policy(path: str | Path) -> bool:
    """Does the metadata beside ``path`` say it is a France 1940 policy (without loading anything)?"""
    meta = peek_metadata(path)
    return meta is not None and policy_io.policy_game(meta) == GAME


def _versions() -> dict[str, tuple[Any, str]]:
    """What a policy file must have been trained on: ``key: (this installation's value, what it is)``."""
    from ffo_env.france1940.core.actions import N_ACTIONS
    from ffo_env.france1940.core.data import DATA_VERSION
    from ffo_env.france1940.core.game import ENGINE_VERSION
    from ffo_env.france1940.encoding import spec_hash

    return {
        "engine": (ENGINE_VERSION, "rules engine"),
        "data_version": (DATA_VERSION, "game data"),
        "obs_size": (obs_size(), "observation size"),
        "n_actions": (N_ACTIONS, "action count"),
        "observation_spec_hash": (spec_hash(), "observation spec"),
    }


def network_meta(net_arch: list[int], activation: str) -> dict[str, Any]:
    """The network of a policy file (and of a training checkpoint): the layer widths and activation."""
    return {
        "version": NETWORK_VERSION,
        "policy": "MaskableActorCriticPolicy",
        "observation": OBSERVATION,
        "net_arch": list(net_arch),
        "activation": activation,
    }


class _NoOptimizer:
    """A loaded policy plays; it does not learn (training builds its own model and copies weights in)."""

    def __init__(self, params: Any, **_kwargs: Any) -> None:
        del params

    def state_dict(self) -> dict[str, Any]:
        return {}


def build_policy(net_arch: list[int], activation: str) -> Any:
    """A fresh ``MaskableActorCriticPolicy`` for the compact observation (weights to be loaded): the same
    network :meth:`agents.france1940.network_spec.France1940Network.policy_spec` gives ``MaskablePPO``."""
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from ffo_env.france1940.core.actions import N_ACTIONS

    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation]
    return MaskableActorCriticPolicy(
        spaces.Box(0.0, 1.0, (obs_size(),), np.float32),
        spaces.Discrete(N_ACTIONS),
        lr_schedule=lambda _: 0.0,
        net_arch={"pi": list(net_arch), "vf": list(net_arch)},
        activation_fn=act,
        ortho_init=False,
        optimizer_class=_NoOptimizer,  # type: ignore[arg-type]
    )


def export_policy(
    policy: Any,
    path: str | Path,
    side: str,
    net_arch: list[int],
    activation: str,
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write ``policy``'s weights and metadata side by side (atomically); returns the ``.pt`` path."""
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "game": GAME,
        "env": ENV_NAME,
        "side": side,
        **{key: mine for key, (mine, _what) in _versions().items()},
        "network": network_meta(net_arch, activation),
        "extra": extra or {},
    }
    return policy_io.write_policy(path, policy.state_dict(), meta)


def _check_meta(meta: dict[str, Any], meta_path: Path) -> tuple[list[int], str]:
    policy_io.check_versions(meta, meta_path, _versions(), RETRAIN, PolicyLoadError)
    policy_io.check_side(meta, meta_path, PolicyLoadError)
    net = meta.get("network")
    policy_io.check_network_version(
        net, meta_path, NETWORK_VERSION, "agents/france1940/policy.py", RETRAIN, PolicyLoadError
    )
    arch = net.get("net_arch") if isinstance(net, dict) else None
    act = net.get("activation") if isinstance(net, dict) else None
    ok = (
        isinstance(arch, list)
        and 1 <= len(arch) <= MAX_LAYERS
        and all(isinstance(w, int) and not isinstance(w, bool) and 1 <= w <= MAX_WIDTH for w in arch)
    )
    if not ok or act not in ACTIVATIONS or not isinstance(arch, list):
        raise PolicyLoadError(
            f"{meta_path}: network: expected net_arch (1..{MAX_LAYERS} widths in 1..{MAX_WIDTH}) and activation "
            f"one of {ACTIVATIONS}, got {net!r}"
        )
    policy_io.check_extra(meta, meta_path, PolicyLoadError)
    return list(arch), str(act)


def load_policy(path: str | Path, deterministic: bool = True) -> France1940PolicyAgent:
    """The France 1940 policy at ``path`` (either file or their stem) as an agent; one clear
    :class:`PolicyLoadError` otherwise."""
    import torch

    pt, meta_path, meta = policy_io.read_metadata(path, GAME, PolicyLoadError, version=VERSION)
    arch, act = _check_meta(meta, meta_path)
    state_dict = policy_io.read_weights(pt, MAX_POLICY_BYTES, PolicyLoadError)
    with torch.random.fork_rng(devices=[]):  # loading leaves torch's random stream as it was
        policy = build_policy(arch, act)
    policy_io.load_weights_into(policy, state_dict, pt, meta_path, PolicyLoadError)
    policy.set_training_mode(False)
    return France1940PolicyAgent(policy, meta["side"], meta, deterministic=deterministic)


class France1940PolicyAgent:
    """A frozen policy playing one side: ``act_state(state)`` encodes the side's view (compact) and picks a
    legal action (argmax by default; sampled with ``deterministic=False`` from the agent's own seeded
    generator). ``act(observation, mask)`` is the same for an env's observation."""

    def __init__(self, policy: Any, side: str, meta: dict[str, Any], deterministic: bool = True) -> None:
        self.policy = policy
        self.side = side
        self.meta = meta
        self.deterministic = deterministic
        self.name = f"policy:{meta.get('extra', {}).get('run', side)}"
        self.rng = np.random.default_rng()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The policy's distribution over the legal actions (masked softmax of the actor's logits: the numbers
        of sb3-contrib's ``get_distribution`` without building torch distributions)."""
        import torch

        with torch.inference_mode():
            x = torch.as_tensor(np.asarray(observation, dtype=np.float32)).reshape(1, -1)
            logits = self.policy.action_net(self.policy.mlp_extractor.forward_actor(x))[0].numpy()
        mask = np.asarray(action_mask, dtype=bool).reshape(-1)
        z = np.where(mask, logits.astype(np.float64), -np.inf)
        z -= z.max()
        p = np.exp(z)
        return p / p.sum()

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        obs = observation["observation"] if isinstance(observation, dict) else observation
        probs = self.probabilities(obs, np.asarray(action_mask, dtype=bool))
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self.rng.choice(len(probs), p=probs))

    def act_state(self, state: Any) -> int:
        from ffo_env.france1940.core.actions import N_ACTIONS
        from ffo_env.france1940.encoding import encode_compact

        legal = state.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        mask = np.zeros(N_ACTIONS, dtype=bool)
        mask[legal] = True
        side = 0 if self.side == "french" else 1
        return self.act(encode_compact(state, side, legal), mask)


def load_pretrained(side: str, directory: Path | None = None) -> France1940PolicyAgent:
    """The shipped France 1940 policy of ``side`` (``agents/france1940/pretrained_policies/<side>.pt`` +
    ``.json``, model card ``MODEL_CARD.md`` beside them): the agent ``pretrained`` with ``--game france1940``."""
    if side not in ("french", "german"):
        raise ValueError(f"side must be 'french' or 'german', got {side!r}")
    pt = (directory or PRETRAINED_DIR) / f"{side}.pt"
    if not pt.exists() or not pt.with_suffix(".json").exists():
        raise PolicyLoadError(
            f"no pretrained France 1940 {side} policy in {pt.parent} (the package data is missing); reinstall "
            "ffo_env, or train one with 'ffo train --game france1940'"
        )
    agent = load_policy(pt)
    if agent.side != side:
        raise PolicyLoadError(f"{pt}: the pretrained {side} policy file holds a {agent.side} policy")
    agent.name = "pretrained"
    return agent
