"""Trained Springtime for Hitler policies: the policy file pair, its checked loader and the agent.

A policy is ``<name>.pt`` (the ``state_dict`` of an sb3-contrib ``MaskableActorCriticPolicy`` over the flat
1351-float observation, written with ``torch.save`` and read back with ``torch.load(weights_only=True)``:
no pickle) beside ``<name>.json`` (metadata: ``game: springtime``, side, env, engine and data versions, the
observation layout and its hash, the action count, the network, and free-form ``extra``).

:func:`load_policy` refuses, with one message saying what differs, a file of the other game (France Fights
On's ``ffo-policy`` files say ``env: france_fights_on_v0`` and have no ``game`` key), or one whose engine,
data, observation layout or network does not fit this installation. The agent plays from
``State.visible_to`` only (through :func:`ffo_env.springtime.encoding.encode`, S59).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from agents import policy_io
from agents.policy_files import peek_metadata

__all__ = [
    "FORMAT",
    "GAME",
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
ACTIVATIONS = ("tanh", "relu")
MAX_WIDTH = 4096
MAX_LAYERS = 8
MAX_POLICY_BYTES = 64 * 1024 * 1024
# the version of the network code below (build_policy); files without one were written by version 1
NETWORK_VERSION = 1
RETRAIN = "retrain it with 'ffo train --game springtime'"


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


def is_springtime_policy(path: str | Path) -> bool:
    """Does the metadata beside ``path`` say it is a Springtime policy (without loading anything)?"""
    meta = peek_metadata(path)
    return meta is not None and policy_io.policy_game(meta) == GAME


def _versions() -> dict[str, tuple[Any, str]]:
    """What a policy file must have been trained on: ``key: (this installation's value, what it is)``."""
    from ffo_env.springtime.core.actions import N_ACTIONS
    from ffo_env.springtime.core.data import DATA_VERSION
    from ffo_env.springtime.core.game import ENGINE_VERSION
    from ffo_env.springtime.encoding import OBS_SIZE

    return {
        "engine": (ENGINE_VERSION, "rules engine"),
        "data_version": (DATA_VERSION, "game data"),
        "obs_size": (OBS_SIZE, "observation size"),
        "n_actions": (N_ACTIONS, "action count"),
        "observation_spec_hash": (spec_hash(), "observation spec"),
    }


def network_meta(net_arch: list[int], activation: str) -> dict[str, Any]:
    """The network of a policy file (and of a training checkpoint): the actor's layer widths and activation."""
    return {
        "version": NETWORK_VERSION,
        "policy": "MaskableActorCriticPolicy",
        "net_arch": list(net_arch),
        "activation": activation,
    }


class _NoOptimizer:
    """A loaded policy plays; it does not learn (training builds its own model and copies weights in)."""

    def __init__(self, params: Any, **_kwargs: Any) -> None:
        del params

    def state_dict(self) -> dict[str, Any]:
        return {}


def build_policy(net_arch: list[int], activation: str, optimizer_class: Any = None) -> Any:
    """A fresh ``MaskableActorCriticPolicy`` for the flat Springtime observation (weights to be loaded)."""
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from ffo_env.springtime.core.actions import N_ACTIONS
    from ffo_env.springtime.encoding import OBS_SIZE

    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation]
    return MaskableActorCriticPolicy(
        spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
        spaces.Discrete(N_ACTIONS),
        lr_schedule=lambda _: 0.0,
        net_arch={"pi": list(net_arch), "vf": list(net_arch)},
        activation_fn=act,
        ortho_init=False,
        optimizer_class=optimizer_class or _NoOptimizer,  # type: ignore[arg-type]
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


# earlier rules engines whose policies still play here: their observation and actions are this
# installation's (the observation spec hash, its size and the action count are checked apart) and their rules
# differ only where a policy needs no retraining. springtime-core-1 -> 2: an Event window is also opened when
# the held marker cannot be played now, with NO its one legal action (P10; the agent answers a single legal
# action without the network), and a BEF eliminated in combat is rebuilt in any Allied Area (rule 12.3.2, S64)
COMPATIBLE_ENGINES = ("springtime-core-1",)


def _check_meta(meta: dict[str, Any], meta_path: Path) -> tuple[list[int], str]:
    want = _versions()
    if meta.get("engine") in COMPATIBLE_ENGINES:
        want["engine"] = (meta["engine"], want["engine"][1])
    policy_io.check_versions(meta, meta_path, want, RETRAIN, PolicyLoadError)
    policy_io.check_side(meta, meta_path, PolicyLoadError)
    policy_io.check_network_version(
        meta.get("network"),
        meta_path,
        NETWORK_VERSION,
        "agents/springtime/policy.py",
        RETRAIN,
        PolicyLoadError,
    )
    net = meta.get("network")
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


def load_policy(path: str | Path, deterministic: bool = True) -> SpringtimePolicyAgent:
    """The Springtime policy at ``path`` (either file or their stem) as an agent; one clear
    :class:`PolicyLoadError` otherwise."""
    import torch

    pt, meta_path, meta = policy_io.read_metadata(path, GAME, PolicyLoadError, version=VERSION)
    arch, act = _check_meta(meta, meta_path)
    state_dict = policy_io.read_weights(pt, MAX_POLICY_BYTES, PolicyLoadError)
    with torch.random.fork_rng(devices=[]):  # loading leaves torch's random stream as it was
        policy = build_policy(arch, act)
    policy_io.load_weights_into(policy, state_dict, pt, meta_path, PolicyLoadError)
    policy.set_training_mode(False)
    return SpringtimePolicyAgent(policy, meta["side"], meta, deterministic=deterministic)


class SpringtimePolicyAgent:
    """A frozen policy playing one side: ``act_state(state)`` encodes the side's redacted view and picks a legal
    action (argmax by default; sampled with ``deterministic=False`` from the agent's own seeded generator)."""

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
        """The policy's distribution over the legal actions (masked softmax of the actor's logits; the same
        numbers as sb3-contrib's ``get_distribution``, without building torch distributions, which took
        two thirds of a decision's time)."""
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
        mask = np.asarray(action_mask, dtype=bool)
        probs = self.probabilities(obs, mask)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self.rng.choice(len(probs), p=probs))

    def act_state(self, state: Any) -> int:
        from ffo_env.springtime.core.actions import N_ACTIONS
        from ffo_env.springtime.encoding import encode

        legal = state.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        mask = np.zeros(N_ACTIONS, dtype=bool)
        mask[legal] = True
        return self.act(encode(state, 0 if self.side == "french" else 1), mask)


PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained_policies"


def load_pretrained(side: str, directory: Path | None = None) -> SpringtimePolicyAgent:
    """The shipped Springtime policy of ``side`` (``agents/springtime/pretrained_policies/<side>.pt`` + ``.json``,
    model card ``MODEL_CARD.md`` beside them): the agent name ``pretrained`` with ``--game springtime``."""
    if side not in ("french", "german"):
        raise ValueError(f"side must be 'french' or 'german', got {side!r}")
    pt = (directory or PRETRAINED_DIR) / f"{side}.pt"
    if not pt.exists() or not pt.with_suffix(".json").exists():
        raise PolicyLoadError(
            f"no pretrained Springtime {side} policy in {pt.parent} (the package data is missing); reinstall "
            "ffo_env, or train one with 'ffo train --game springtime --config configs/springtime/train.yaml'"
        )
    agent = load_policy(pt)
    if agent.side != side:
        raise PolicyLoadError(f"{pt}: the pretrained {side} policy file holds a {agent.side} policy")
    agent.name = "pretrained"
    return agent
