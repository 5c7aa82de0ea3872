"""Trained policies as agents: weights-only export and a checked loader.

A policy file is a pair:

- ``<name>.pt``: the ``state_dict`` of the MaskablePPO policy, written with ``torch.save``
  and read back with ``torch.load(weights_only=True)`` (no pickle of code);
- ``<name>.json``: metadata — side, environment name, rules engine and game data versions, observation spec and
  its hash, action count, network version and configuration, and free-form ``extra`` (timesteps…).

:func:`load_policy` refuses, with a message saying what differs, a policy whose
environment, engine or game data version, observation spec or network version (``agents.ffo.network.NETWORK_VERSION``)
does not match this installation. The loaded
:class:`PolicyAgent` works everywhere an agent does: ``act_state(state)`` (harness,
single-agent wrapper opponents, ``ffo play``) and ``act(observation, action_mask)``
(AEC loops).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy_io import (
    PolicyLoadError,
    check_extra,
    check_network_version,
    check_side,
    check_versions,
    load_weights_into,
    read_metadata,
    read_weights,
    write_policy,
)
from agents.torch_threads import check_threads, torch_threads
from ffo_env.ffo.core.sides import Side

GAME = "ffo"
FORMAT = "ffo-policy"
ENV_NAME = "france_fights_on_v0"
RETRAIN = "retrain the policy with 'ffo train' or use the ffo_env version it was trained with"
MAX_WIDTH = (
    4096  # any network width (config or policy file): far above useful sizes, bounds what a file can allocate
)
MAX_POLICY_BYTES = 256 * 1024 * 1024


def observation_spec() -> dict[str, Any]:
    """The observation layout the policy was trained on: group names, sizes and array shapes (the game
    interface's, :func:`ffo_env.ffo.interface.observation_spec`)."""
    from ffo_env.ffo.interface import observation_spec as spec

    return spec()


def spec_hash(spec: dict[str, Any] | None = None) -> str:
    from ffo_env.ffo.interface import observation_spec_hash

    return observation_spec_hash(spec)


def export_policy(model: Any, path: str | Path, side: str, extra: dict[str, Any] | None = None) -> Path:
    """Write ``model.policy``'s weights and metadata next to each other (atomically,
    :func:`agents.policy_io.write_policy`); returns the ``.pt`` path."""
    from agents.ffo.network import NETWORK_VERSION
    from ffo_env.ffo.core.game import ENGINE_VERSION, Game

    fe = model.policy.features_extractor
    spec = observation_spec()
    net_arch = model.policy.net_arch
    if not isinstance(net_arch, dict):
        net_arch = {"pi": list(net_arch), "vf": list(net_arch)}
    meta = {
        "format": FORMAT,
        "version": 1,
        "side": side,
        "env": ENV_NAME,
        "engine": ENGINE_VERSION,
        "data_version": Game().scenario.version,
        "observation_spec_hash": spec_hash(spec),
        "observation_spec": spec,
        "n_actions": int(model.action_space.n),
        "network": {
            "version": NETWORK_VERSION,
            "policy": type(model.policy).__name__,
            "features_extractor": type(fe).__name__,
            "cnn_dim": int(fe.cnn_dim),
            "channels": int(fe.channels),
            "spatial": int(fe.spatial),
            "net_arch": {"pi": list(net_arch["pi"]), "vf": list(net_arch["vf"])},
        },
        "extra": extra or {},
    }
    return write_policy(path, model.policy.state_dict(), meta)


# the network's sizes and their lowest values; the one range check of training configs and policy files
SIZE_LOWER = {"cnn_dim": 1, "channels": 1, "spatial": 0}
MAX_LAYERS = 8


def is_size(value: Any, lo: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and lo <= value <= MAX_WIDTH


def are_layer_widths(layers: Any, min_layers: int = 0) -> bool:
    return (
        isinstance(layers, list)
        and min_layers <= len(layers) <= MAX_LAYERS
        and all(is_size(w, 1) for w in layers)
    )


def _check_network(net: dict[str, Any], meta_path: Path) -> None:
    """Sizes within range and of the right types before anything is allocated from them."""
    for key, lo in SIZE_LOWER.items():
        v = net.get(key, 0 if key == "spatial" else None)
        if not is_size(v, lo):
            raise PolicyLoadError(
                f"{meta_path}: network.{key}: expected an integer in [{lo}, {MAX_WIDTH}], got {v!r}"
            )
    arch = net.get("net_arch")
    ok = isinstance(arch, dict) and set(arch) == {"pi", "vf"} and all(map(are_layer_widths, arch.values()))
    if not ok:
        raise PolicyLoadError(
            f"{meta_path}: network.net_arch: expected {{pi: [...], vf: [...]}} with up to 8 widths "
            f"in [1, {MAX_WIDTH}] each, got {arch!r}"
        )


class NoOptimizer:
    """The ``optimizer`` of a loaded policy: it plays, it does not learn (``ffo train`` builds its own model and
    copies the weights in; :func:`training.imitation.fit` makes its own optimizer)."""

    def __init__(self, params: Any, **_kwargs: Any) -> None:
        del params

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(
            f"a policy loaded by agents.ffo.policy.load_policy has no optimizer ({name!r}); build a model with "
            "training.model.build_model and load the policy's state_dict into it to train it"
        )


class _TooLarge(Exception):
    """Raised inside the network's construction when it asks for more than its budget of elements."""


def _build_within(build: Callable[[], Any], limit: int) -> Any:
    """``build()``, refused with :class:`_TooLarge` before any ``torch.empty`` (how ``nn.Linear`` and ``nn.Conv2d``
    allocate their weights) would take the elements it has asked for in all past ``limit``: a crafted metadata
    file cannot make the loader allocate gigabytes. One construction, on the real device (the earlier guard
    built the network a second time on torch's ``meta`` device, which also imported torch._dynamo and sympy:
    ~1.5 s of a policy's load)."""
    import torch
    from torch.overrides import TorchFunctionMode

    class Budget(TorchFunctionMode):
        used = 0

        def __torch_function__(
            self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
        ) -> Any:
            kwargs = kwargs or {}
            if func is torch.empty:
                size = kwargs.get(
                    "size", args[0] if len(args) == 1 and not isinstance(args[0], int) else args
                )
                self.used += math.prod(int(n) for n in size)
                if self.used > limit:
                    raise _TooLarge(self.used)
            return func(*args, **kwargs)

    with Budget():
        return build()


def legal_probabilities(policy: Any, obs: dict[str, Any], mask: np.ndarray, legal: list[int]) -> np.ndarray:
    """The masked policy's probabilities of ``legal`` (in that order) for one encoded observation ``obs`` and
    its action ``mask``: one forward pass. Every reader of a policy's distribution (the lookahead, the search
    teacher, self-imitation) asks this, so they read the same numbers."""
    import torch as th

    with th.inference_mode():
        t_obs = {k: th.as_tensor(np.asarray(v))[None] for k, v in obs.items()}
        probs = policy.get_distribution(t_obs, action_masks=mask[None]).distribution.probs[0].numpy()
    return np.asarray(probs[legal], dtype=np.float64)


class PolicyAgent:
    """A frozen policy playing one side; deterministic by default (argmax over legal actions).

    ``threads`` is the number of torch intra-op threads its forward pass runs on (set for the call and
    restored after, so the rest of the process keeps its own setting); ``None`` leaves torch's setting.
    One observation at a time is too little work to share between threads: with torch's default (one
    thread per core) two policy agents in processes side by side on 2 cores were several times slower
    each (``docs/results/training.md``, "Policies load as opponents")."""

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
        self.threads = check_threads(threads)
        self.name = f"policy:{meta.get('extra', {}).get('run', side)}"
        self._encoder: Any = None

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            import torch

            torch.manual_seed(seed)

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        obs = (
            observation["observation"]
            if isinstance(observation, dict) and "observation" in observation
            else observation
        )
        mask = np.asarray(action_mask, dtype=bool)
        import torch as th

        # what MaskableActorCriticPolicy.predict does for one observation, without its per-call
        # set_training_mode (a walk over every module) and array checks: ~4 % of a call (median of 5 rounds
        # of 300 German positions, 4.8 against 5.0 ms), the same actions; and under inference_mode rather
        # than predict's no_grad (no version counters or views tracked): 12 % of a call (5.4 against 6.1 ms,
        # the same 5 x 300 positions beside two training jobs, the same actions)
        policy = self.policy
        if policy.training:
            policy.set_training_mode(False)
        with torch_threads(self.threads), th.inference_mode():
            obs_tensor, _ = policy.obs_to_tensor(obs)
            action = policy.get_distribution(obs_tensor, mask).get_actions(deterministic=self.deterministic)
        return int(action.reshape(-1)[0])

    def probabilities(self, state: Any, legal: list[int]) -> np.ndarray:
        """The policy's probabilities of ``legal`` (in that order) at ``state``, as its side sees it."""
        from ffo_env.ffo.encoding.observation import encoder_for

        enc = encoder_for(state.game)
        obs = enc.encode(state, int(Side.of(self.side)), legal=legal)
        with torch_threads(self.threads):
            return legal_probabilities(self.policy, obs, enc.mask(state, legal), legal)

    def act_state(self, state: Any) -> int:
        from ffo_env.ffo.encoding.observation import encoder_for

        enc = encoder_for(state.game)
        viewer = int(Side.of(self.side))
        legal = state.legal_actions()
        obs = enc.encode(state, viewer, legal=legal)
        return self.act(obs, enc.mask(state, legal))


def load_policy(
    path: str | Path, deterministic: bool = True, device: str = "cpu", threads: int | None = 1
) -> PolicyAgent:
    """Load a policy written by :func:`export_policy` (or by ``ffo train``) as an agent (``threads``:
    :class:`PolicyAgent`)."""
    import gymnasium as gym
    import torch
    from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy

    from agents.ffo.network import NETWORK_VERSION, HexFeatures, HexPolicy
    from ffo_env.ffo.core.game import ENGINE_VERSION, Game
    from ffo_env.ffo.spaces import action_space, observation_dict_space

    pt, meta_path, meta = read_metadata(
        path,
        GAME,
        PolicyLoadError,
        how_to_write="; write them with agents.ffo.policy.export_policy or 'ffo train'",
    )
    game = Game()
    obs_space: gym.spaces.Dict = observation_dict_space(game)
    act_space = action_space(game)
    check_versions(
        meta,
        meta_path,
        {
            "env": (ENV_NAME, "environment"),
            "engine": (ENGINE_VERSION, "rules engine"),
            "data_version": (game.scenario.version, "game data"),
            "observation_spec_hash": (spec_hash(), "observation spec"),
            "n_actions": (act_space.n, "action count"),
        },
        RETRAIN,
    )
    check_side(meta, meta_path)
    net = meta.get("network", {})
    check_network_version(net, meta_path, NETWORK_VERSION, "agents/ffo/network.py", RETRAIN)
    _check_network(net, meta_path)
    check_extra(meta, meta_path)
    classes = {
        "HexPolicy": HexPolicy,
        "MaskableMultiInputActorCriticPolicy": MaskableMultiInputActorCriticPolicy,
    }
    cls = classes.get(net["policy"]) if isinstance(net.get("policy"), str) else None
    if cls is None:
        raise PolicyLoadError(f"{meta_path}: network {net.get('policy')!r} is not one of {sorted(classes)}")
    state_dict = read_weights(pt, MAX_POLICY_BYTES, device=device)

    # every weight comes from the file: no training initialisation (HexPolicy's inference_only) and no
    # optimizer (torch's first one imports torch._dynamo: ~1.5 s)
    fast: dict[str, Any] = {"inference_only": True} if cls is HexPolicy else {"ortho_init": False}
    fast["optimizer_class"] = NoOptimizer

    def build() -> Any:
        return cls(
            obs_space,
            act_space,
            lr_schedule=lambda _: 0.0,
            **fast,
            net_arch=net["net_arch"],
            features_extractor_class=HexFeatures,
            features_extractor_kwargs={
                "cnn_dim": net["cnn_dim"],
                "channels": net["channels"],
                "spatial": net.get("spatial", 0),
            },
        )

    in_file = sum(int(v.numel()) for v in state_dict.values())
    try:
        with torch.random.fork_rng(devices=[]):  # loading a policy leaves torch's random stream as it was
            policy = _build_within(build, 2 * in_file + 1_000_000)
    except _TooLarge as e:
        raise PolicyLoadError(
            f"{meta_path}: describes a network of more than {e.args[0]:,} parameters, but {pt.name} "
            f"holds {in_file:,} values; the two files do not belong together"
        ) from None
    load_weights_into(policy, state_dict, pt, meta_path)
    policy.to(device)
    policy.set_training_mode(False)
    return PolicyAgent(policy, meta["side"], meta, deterministic=deterministic, threads=threads)
