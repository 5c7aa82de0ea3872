"""Policy files of an MLP over a vector observation, for any game that trains one (issue 62, D1/D2).

Springtime for Hitler (the flat 1,351-float observation) and France 1940 (the compact observation) train the
same network: sb3-contrib's ``MaskableActorCriticPolicy`` with an MLP actor and critic. Its policy file pair,
the checked loader, the agent that plays it and the game's training hook are written once here; a game gives a
:class:`VectorPolicyKind` (its format name, versions, observation size, encoder, action count) and keeps a thin
module of its own (``agents/<game>/policy.py`` and ``network_spec.py``) with its public names.

A policy is ``<name>.pt`` (the ``state_dict`` of the policy, written with ``torch.save`` and read back with
``torch.load(weights_only=True)``: no pickle) beside ``<name>.json`` (metadata: ``format``, ``version``, ``game``,
``env``, side, the versions the game lists (engine, data, observation size and spec hash, action count), the
network, and free-form ``extra``). :func:`load_policy` refuses, with one message saying what differs, a file
of another game, or one whose versions or network do not fit this installation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from agents import policy_io
from agents.network_spec import NetworkSpec
from agents.policy_files import peek_metadata
from agents.torch_threads import check_threads, torch_threads

__all__ = [
    "ACTIVATIONS",
    "MAX_LAYERS",
    "MAX_WIDTH",
    "VectorMlpNetwork",
    "VectorPolicyAgent",
    "VectorPolicyKind",
    "build_policy",
    "check_meta",
    "export_policy",
    "is_policy_of",
    "load_policy",
    "load_pretrained",
    "mlp_policy_spec",
    "network_meta",
]

ACTIVATIONS = ("tanh", "relu")
MAX_WIDTH = 4096
MAX_LAYERS = 8


@dataclass(frozen=True)
class VectorPolicyKind:
    """What differs between the games' vector-MLP policy files (every callable is imported lazily by the game:
    building a kind imports no rules core)."""

    game: str  # the registry's name, written as ``game``
    title: str  # the game's name in messages ("Springtime", "France 1940")
    format: str  # the metadata's ``format`` ("springtime-policy")
    env_name: str  # the metadata's ``env`` ("springtime_v0")
    module: str  # the game's policy module, named when a file's network version is not this one's
    pretrained_dir: Path  # the shipped pair (``<side>.pt`` + ``.json``, ``MODEL_CARD.md``)
    versions: Callable[[], dict[str, tuple[Any, str]]]  # key: (this installation's value, what it is)
    obs_size: Callable[[], int]  # the observation vector's length
    n_actions: Callable[[], int]  # the action count
    encode: Callable[[Any, int, list[int]], np.ndarray]  # (state, side index, legal actions) -> observation
    train_hint: str  # how to get a policy ("ffo train --game springtime")
    version: int = 1  # of the file format
    network_version: int = 1  # of the network code (build_policy); files without one were version 1
    max_bytes: int = 64 * 1024 * 1024  # the largest weights file read
    observation: str | None = None  # the env's observation_format, recorded in the network when given
    compatible_engines: tuple[
        str, ...
    ] = ()  # earlier engines whose policies still play (see the game's module)
    error: type[policy_io.PolicyLoadError] = policy_io.PolicyLoadError  # the game's error class

    @property
    def retrain(self) -> str:
        return f"retrain it with '{self.train_hint}'"


def is_policy_of(kind: VectorPolicyKind, path: str | Path) -> bool:
    """Does the metadata beside ``path`` say it is a policy of ``kind``'s game (without loading anything)?"""
    meta = peek_metadata(path)
    return meta is not None and policy_io.policy_game(meta) == kind.game


def network_meta(kind: VectorPolicyKind, net_arch: list[int], activation: str) -> dict[str, Any]:
    """The network of a policy file (and of a training checkpoint): the layer widths and activation (and the
    observation format where the game records it)."""
    meta: dict[str, Any] = {"version": kind.network_version, "policy": "MaskableActorCriticPolicy"}
    if kind.observation is not None:
        meta["observation"] = kind.observation
    return {**meta, "net_arch": list(net_arch), "activation": activation}


class _NoOptimizer:
    """A loaded policy plays; it does not learn (training builds its own model and copies weights in)."""

    def __init__(self, params: Any, **_kwargs: Any) -> None:
        del params

    def state_dict(self) -> dict[str, Any]:
        return {}


def mlp_policy_spec(net_arch: list[int], activation: str) -> tuple[str, dict[str, Any]]:
    """The policy name and ``policy_kwargs`` of ``MaskablePPO`` for an MLP actor and critic of ``net_arch``
    widths each: the network :func:`build_policy` rebuilds from a policy file."""
    import torch

    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation]
    return "MlpPolicy", {"net_arch": {"pi": list(net_arch), "vf": list(net_arch)}, "activation_fn": act}


def build_policy(
    kind: VectorPolicyKind, net_arch: list[int], activation: str, optimizer_class: Any = None
) -> Any:
    """A fresh ``MaskableActorCriticPolicy`` for ``kind``'s observation (weights to be loaded): the network
    :func:`mlp_policy_spec` gives ``MaskablePPO``."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    _name, kwargs = mlp_policy_spec(net_arch, activation)
    return MaskableActorCriticPolicy(
        spaces.Box(0.0, 1.0, (kind.obs_size(),), np.float32),
        spaces.Discrete(kind.n_actions()),
        lr_schedule=lambda _: 0.0,
        net_arch=kwargs["net_arch"],
        activation_fn=kwargs["activation_fn"],
        ortho_init=False,
        optimizer_class=optimizer_class or _NoOptimizer,  # type: ignore[arg-type]
    )


def export_policy(
    kind: VectorPolicyKind,
    policy: Any,
    path: str | Path,
    side: str,
    net_arch: list[int],
    activation: str,
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write ``policy``'s weights and metadata side by side (atomically); returns the ``.pt`` path."""
    meta = {
        "format": kind.format,
        "version": kind.version,
        "game": kind.game,
        "env": kind.env_name,
        "side": side,
        **{key: mine for key, (mine, _what) in kind.versions().items()},
        "network": network_meta(kind, net_arch, activation),
        "extra": extra or {},
    }
    return policy_io.write_policy(path, policy.state_dict(), meta)


def check_meta(kind: VectorPolicyKind, meta: dict[str, Any], meta_path: Path) -> tuple[list[int], str]:
    """The network (widths, activation) of a policy file's metadata, after checking that it fits this
    installation; ``kind.error`` with one message otherwise."""
    want = kind.versions()
    if meta.get("engine") in kind.compatible_engines:
        want["engine"] = (meta["engine"], want["engine"][1])
    policy_io.check_versions(meta, meta_path, want, kind.retrain, kind.error)
    policy_io.check_side(meta, meta_path, kind.error)
    net = meta.get("network")
    policy_io.check_network_version(
        net, meta_path, kind.network_version, kind.module, kind.retrain, kind.error
    )
    arch = net.get("net_arch") if isinstance(net, dict) else None
    act = net.get("activation") if isinstance(net, dict) else None
    ok = (
        isinstance(arch, list)
        and 1 <= len(arch) <= MAX_LAYERS
        and all(isinstance(w, int) and not isinstance(w, bool) and 1 <= w <= MAX_WIDTH for w in arch)
    )
    if not ok or act not in ACTIVATIONS or not isinstance(arch, list):
        raise kind.error(
            f"{meta_path}: network: expected net_arch (1..{MAX_LAYERS} widths in 1..{MAX_WIDTH}) and activation "
            f"one of {ACTIVATIONS}, got {net!r}"
        )
    policy_io.check_extra(meta, meta_path, kind.error)
    return list(arch), str(act)


class VectorPolicyAgent:
    """A frozen policy playing one side: ``act_state(state)`` encodes the side's view with the game's encoder and
    picks a legal action (argmax by default; sampled with ``deterministic=False`` from the agent's own seeded
    generator). ``act(observation, mask)`` is the same for an env's observation. A game's subclass sets
    :attr:`kind`."""

    kind: ClassVar[VectorPolicyKind]

    def __init__(
        self,
        policy: Any,
        side: str,
        meta: dict[str, Any],
        deterministic: bool = True,
        threads: int | None = 1,
    ) -> None:
        self.policy = policy
        self.side = side
        self.meta = meta
        self.deterministic = deterministic
        # torch threads of the forward pass (None: the process's setting); one by default, see
        # agents.torch_threads for what two cost
        self.threads = check_threads(threads)
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

        with torch_threads(self.threads), torch.inference_mode():
            x = torch.as_tensor(np.asarray(observation, dtype=np.float32)).reshape(1, -1)
            logits = self.policy.action_net(self.policy.mlp_extractor.forward_actor(x))[0].numpy()
        mask = np.asarray(action_mask, dtype=bool).reshape(-1)
        z = np.where(mask, logits.astype(np.float64), -np.inf)
        z -= z.max()
        p = np.exp(z)
        return np.asarray(p / p.sum())

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        obs = observation["observation"] if isinstance(observation, dict) else observation
        probs = self.probabilities(obs, np.asarray(action_mask, dtype=bool))
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self.rng.choice(len(probs), p=probs))

    def act_state(self, state: Any) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:  # one legal action: no need to ask the network
            return int(legal[0])
        mask = np.zeros(self.kind.n_actions(), dtype=bool)
        mask[legal] = True
        return self.act(self.kind.encode(state, 0 if self.side == "french" else 1, legal), mask)


def load_policy(
    kind: VectorPolicyKind, path: str | Path, agent: type[VectorPolicyAgent], deterministic: bool = True
) -> Any:
    """The policy of ``kind`` at ``path`` (either file or their stem) as an ``agent``; one clear
    ``kind.error`` otherwise."""
    import torch

    pt, meta_path, meta = policy_io.read_metadata(path, kind.game, kind.error, version=kind.version)
    arch, act = check_meta(kind, meta, meta_path)
    state_dict = policy_io.read_weights(pt, kind.max_bytes, kind.error)
    with torch.random.fork_rng(devices=[]):  # loading leaves torch's random stream as it was
        policy = build_policy(kind, arch, act)
    policy_io.load_weights_into(policy, state_dict, pt, meta_path, kind.error)
    policy.set_training_mode(False)
    return agent(policy, meta["side"], meta, deterministic=deterministic)


def load_pretrained(
    kind: VectorPolicyKind, side: str, agent: type[VectorPolicyAgent], directory: Path | None = None
) -> Any:
    """The shipped policy of ``side`` (``<pretrained_dir>/<side>.pt`` + ``.json``, model card ``MODEL_CARD.md``
    beside them): the agent name ``pretrained`` of the game."""
    if side not in ("french", "german"):
        raise ValueError(f"side must be 'french' or 'german', got {side!r}")
    pt = (directory or kind.pretrained_dir) / f"{side}.pt"
    if not pt.exists() or not pt.with_suffix(".json").exists():
        raise kind.error(
            f"no pretrained {kind.title} {side} policy in {pt.parent} (the package data is missing); reinstall "
            f"ffo_env, or train one with '{kind.train_hint}'"
        )
    loaded = load_policy(kind, pt, agent)
    if loaded.side != side:
        raise kind.error(f"{pt}: the pretrained {side} policy file holds a {loaded.side} policy")
    loaded.name = "pretrained"
    return loaded


@dataclass
class MlpPolicyConfig:
    """A run config's ``policy:`` section: an MLP actor and critic over the vector observation (a game's
    subclass gives its own defaults)."""

    net_arch: list[int] = field(default_factory=lambda: [128, 128])  # hidden widths of each of pi and vf
    activation: str = "tanh"  # "tanh" or "relu"


class VectorMlpNetwork(NetworkSpec):
    """The training hook (:class:`agents.network_spec.NetworkSpec`) of a game whose network is a vector-MLP
    policy of :attr:`kind`, played by :attr:`agent`; a game's subclass sets those two, ``game``,
    ``policy_section`` and its checkpoint kind."""

    kind: VectorPolicyKind
    agent: type[VectorPolicyAgent] = VectorPolicyAgent
    observation = "flat"  # a Box
    monitor_keys = ()
    vec_envs = ("dummy", "subproc")
    rewards = ("win", "shaped")
    setups = ("random",)

    def check_policy(self, section: Any, bad: Callable[[str, str, Any], Exception]) -> None:
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
        return mlp_policy_spec(section.net_arch, section.activation)

    def critic_apart(self, section: Any) -> bool:
        return True  # sb3's MlpPolicy: a critic body of its own over a features extractor without weights

    def env_kwargs(self, setup: str, reward: str, max_steps: int) -> dict[str, Any]:
        return {
            "observation_format": self.kind.observation or "flat",
            "reward": reward,
            "max_steps": max_steps,
        }

    def export(
        self, model: Any, path: str | Path, side: str, section: Any, extra: dict[str, Any] | None = None
    ) -> Path:
        return export_policy(
            self.kind, model.policy, path, side, list(section.net_arch), section.activation, extra
        )

    def load_policy(self, path: str | Path, deterministic: bool = True) -> Any:
        return load_policy(self.kind, path, self.agent, deterministic=deterministic)

    def load_pretrained(self, side: str, deterministic: bool = True) -> Any:
        agent = load_pretrained(self.kind, side, self.agent)
        agent.deterministic = deterministic
        return agent

    @property
    def policy_load_error(self) -> type[Exception]:
        return self.kind.error

    @property
    def pretrained_dir(self) -> Path:
        return self.kind.pretrained_dir

    def checkpoint_checks(self, model: Any) -> dict[str, tuple[Any, str]]:
        arch = model.policy.net_arch
        widths = arch["pi"] if isinstance(arch, dict) else arch
        network = network_meta(self.kind, list(widths), model.policy.activation_fn.__name__.lower())
        return {
            "observation_spec_hash": (
                self.kind.versions()["observation_spec_hash"][0],
                "written for another observation layout: the run cannot be resumed on this version",
            ),
            "network": (network, "resume with the run's own config.yaml (without --set on policy.*)"),
        }
