"""Policies over the flat observation (an MLP with a masked action head), as agents.

Written by ``ffo train --backend rllib`` (:mod:`training.rllib_train`): a pair of files like every policy
of the project,

- ``<name>.pt``: a plain ``{name: tensor}`` dict (``hidden.<i>.weight/bias``, ``pi.weight/bias``), read with
  ``torch.load(weights_only=True)``: no code is unpickled;
- ``<name>.json``: metadata with ``"network": "flat-mlp"``, the side, the layer sizes, the activation, the
  observation it reads, its size, the engine and data versions and the training command.

The observation (``"observation"`` in the metadata) is ``"flat"`` (the default: files written before it
existed) or ``"slots"``: the candidate-slot layout of the compact ids (:mod:`ffo_env.ffo.encoding.slots`,
``"slot_count"`` slots in ``"slot_order"``), the policy of stock ``MaskablePPO("MlpPolicy")`` trained on
``ffo_env/German-compact-v0`` (issue 60). A slot policy plays a core decision as the env does: it picks a slot,
and a slot holding a group narrows the decision to the group's members until one core action is chosen.
:func:`sb3_mlp_weights` takes such a policy's actor out of an SB3 state dict.

:func:`load_flat_policy` checks the metadata (types, sizes, versions) and every tensor's shape against it
before building the network, and refuses a mismatch with a message saying what to do.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy_files import peek_metadata, policy_paths
from ffo_env.ffo.core.sides import SIDE_NAMES, Side

NETWORK = "flat-mlp"
ACTIVATIONS = ("relu", "tanh")
OBSERVATIONS = ("flat", "slots")
# the slot orders an agent can replay: "shuffled" draws from the env's game-seeded generator, which an agent
# acting on a state does not have
SLOT_ORDERS_PLAYABLE = ("core", "board", "overstack_last")
MAX_PARAMETERS = 50_000_000  # checked before anything is allocated: a crafted file cannot ask for 20 GB

__all__ = [
    "NETWORK",
    "FlatPolicyAgent",
    "is_flat_policy",
    "load_flat_policy",
    "save_flat_policy",
    "sb3_mlp_weights",
]


class FlatPolicyError(ValueError):
    """A flat policy file that cannot be used with this installation."""


def is_flat_policy(path: str | Path) -> bool:
    """Does the metadata beside ``path`` name this network (so :func:`load_flat_policy` should load it)?"""
    meta = peek_metadata(path)
    return meta is not None and meta.get("network") == NETWORK


def _versions(observation: str = "flat", slot_count: int | None = None) -> dict[str, Any]:
    from ffo_env.ffo.core.game import ENGINE_VERSION, Game

    game = Game()
    out: dict[str, Any] = {"engine": ENGINE_VERSION, "data_version": game.scenario.version}
    if observation == "slots":
        from ffo_env.ffo.encoding.slots import slot_encoder_for

        enc = slot_encoder_for(game, int(slot_count or 0))
        return out | {"obs_size": enc.size, "n_actions": enc.n_actions}
    from ffo_env.ffo.encoding.flat import flat_layout

    return out | {"obs_size": flat_layout(game).size, "n_actions": game.num_distinct_actions}


def sb3_mlp_weights(state_dict: dict[str, Any]) -> tuple[dict[str, Any], list[int]]:
    """The actor of an SB3 ``ActorCriticPolicy`` with an MLP extractor (``MlpPolicy``: Linear layers with an
    activation between them) as this module's tensors, and its hidden sizes. The critic is left out: a policy
    file plays, it does not train."""
    weights: dict[str, Any] = {}
    hidden: list[int] = []
    layers = sorted(
        int(k.split(".")[2])
        for k in state_dict
        if k.startswith("mlp_extractor.policy_net.") and k.endswith(".weight")
    )
    for i, j in enumerate(layers):
        w = state_dict[f"mlp_extractor.policy_net.{j}.weight"]
        weights[f"hidden.{i}.weight"] = w
        weights[f"hidden.{i}.bias"] = state_dict[f"mlp_extractor.policy_net.{j}.bias"]
        hidden.append(int(w.shape[0]))
    weights["pi.weight"] = state_dict["action_net.weight"]
    weights["pi.bias"] = state_dict["action_net.bias"]
    return weights, hidden


def save_flat_policy(
    weights: dict[str, Any],
    path: str | Path,
    side: str,
    hidden: list[int],
    activation: str,
    extra: dict[str, Any] | None = None,
    slot_count: int | None = None,
    slot_order: str = "core",
) -> Path:
    """Write ``weights`` (tensors named as in the module docstring) and the metadata, each atomically.
    ``slot_count``: a policy over the slot layout of that many slots in ``slot_order`` (else the flat
    observation)."""
    import torch

    from ffo_env.atomic import atomic_write_bytes, atomic_write_text

    pt, meta_path = policy_paths(path)
    pt.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "format": "ffo-policy",
        "network": NETWORK,
        "side": side,
        "hidden": list(hidden),
        "activation": activation,
        **(
            {"observation": "slots", "slot_count": slot_count, "slot_order": slot_order}
            if slot_count is not None
            else {"observation": "flat"}
        ),
        **_versions("flat" if slot_count is None else "slots", slot_count),
        "extra": extra or {},
    }
    import io

    buf = io.BytesIO()
    torch.save({k: v.detach().cpu().contiguous() for k, v in weights.items()}, buf)
    atomic_write_bytes(pt, buf.getvalue())
    atomic_write_text(meta_path, json.dumps(meta, indent=1) + "\n")
    return pt


def _check_meta(meta: Any, where: Path) -> dict[str, Any]:
    if not isinstance(meta, dict):
        raise FlatPolicyError(f"{where}: the metadata is not a JSON object")
    if meta.get("network") != NETWORK:
        raise FlatPolicyError(f"{where}: network {meta.get('network')!r} is not {NETWORK!r}")
    observation = meta.get("observation", "flat")
    if observation not in OBSERVATIONS:
        raise FlatPolicyError(f"{where}: observation must be one of {OBSERVATIONS}, got {observation!r}")
    if observation == "slots":
        from ffo_env.ffo.encoding.slots import check_slot_count

        try:
            check_slot_count(meta.get("slot_count"))
        except ValueError as e:
            raise FlatPolicyError(f"{where}: {e}") from e
        if meta.get("slot_order") not in SLOT_ORDERS_PLAYABLE:
            raise FlatPolicyError(
                f"{where}: slot_order must be one of {SLOT_ORDERS_PLAYABLE}, got {meta.get('slot_order')!r}"
            )
    want = _versions(observation, meta.get("slot_count"))
    if meta.get("side") not in SIDE_NAMES:
        raise FlatPolicyError(f"{where}: side must be 'french' or 'german', got {meta.get('side')!r}")
    hidden = meta.get("hidden")
    if (
        not isinstance(hidden, list)
        or not hidden
        or len(hidden) > 8
        or not all(isinstance(h, int) and not isinstance(h, bool) and 1 <= h <= 4096 for h in hidden)
    ):
        raise FlatPolicyError(f"{where}: hidden must be a list of 1-8 layer sizes in 1..4096, got {hidden!r}")
    if meta.get("activation") not in ACTIVATIONS:
        raise FlatPolicyError(
            f"{where}: activation must be one of {ACTIVATIONS}, got {meta.get('activation')!r}"
        )
    for key in ("engine", "data_version", "obs_size", "n_actions"):
        if meta.get(key) != want[key]:
            raise FlatPolicyError(
                f"{where}: made for {key} {meta.get(key)!r}, this installation has {want[key]!r}; "
                "retrain it with this version or install the version that made it"
            )
    sizes = [want["obs_size"], *hidden, want["n_actions"]]
    n_params = sum(a * b + b for a, b in zip(sizes, sizes[1:], strict=False))
    if n_params > MAX_PARAMETERS:
        raise FlatPolicyError(f"{where}: {n_params:,} parameters is more than the {MAX_PARAMETERS:,} allowed")
    return meta


class FlatPolicyAgent:
    """An MLP policy over the flat or the slot observation: ``act_state(state)`` plays a core action;
    ``act(observation, action_mask)`` one action of the observation's own action space."""

    def __init__(
        self,
        layers: list[Any],
        pi: Any,
        side: str,
        activation: str,
        meta: dict[str, Any],
        deterministic: bool = True,
    ) -> None:
        from ffo_env.ffo.core.game import Game
        from ffo_env.ffo.encoding.flat import flat_layout
        from ffo_env.ffo.encoding.observation import encoder_for
        from ffo_env.ffo.encoding.slots import SlotEncoder, slot_encoder_for

        self.layers, self.pi, self.side, self.meta = layers, pi, side, meta
        self.activation = activation
        self.deterministic = deterministic
        self.name = f"flat-policy:{side}"
        self._game = Game()
        self._encoder = encoder_for(self._game)
        self._flat = flat_layout(self._game)
        self._slots: SlotEncoder | None = None
        if meta.get("observation", "flat") == "slots":
            self._slots = slot_encoder_for(self._game, int(meta["slot_count"]))
            self.slot_order = str(meta["slot_order"])
        self._rng = np.random.default_rng()

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def logits(self, obs: np.ndarray) -> np.ndarray:
        import torch

        with torch.inference_mode():
            x = torch.as_tensor(np.asarray(obs, dtype=np.float32)).reshape(1, -1)
            for layer in self.layers:
                x = layer(x)
                x = torch.relu(x) if self.activation == "relu" else torch.tanh(x)
            return self.pi(x)[0].numpy()

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        if isinstance(observation, np.ndarray) or self._slots is not None:
            obs = observation
        else:
            obs = self._flat.flatten(observation)
        legal = np.flatnonzero(np.asarray(action_mask))
        if legal.size == 0:
            raise ValueError("act() called with an all-zero action mask")
        z = self.logits(obs)[legal].astype(np.float64)
        if self.deterministic:
            return int(legal[int(np.argmax(z))])
        p = np.exp(z - z.max())
        return int(self._rng.choice(legal, p=p / p.sum()))

    def act_state(self, state: Any) -> int:
        side = int(Side.of(self.side))
        if self._slots is None:
            mask = np.zeros(self._game.num_distinct_actions, dtype=np.int8)
            mask[state.legal_actions()] = 1
            return self.act(self._flat.flatten(self._encoder.encode(state, side, False)), mask)
        # the slot layout: choose a slot; a group narrows the decision to its members, as the env does
        narrowed: np.ndarray | None = None
        for depth in range(self._slots.max_depth + 1):
            cands = self._slots.candidates(state, narrowed, self.slot_order)
            obs = self._slots.encode(state, side, cands, depth, False)
            core, narrowed = self._slots.resolve(cands, self.act(obs, self._slots.action_mask(cands)))
            if core is not None:
                return core
        raise RuntimeError(f"a decision narrowed more than {self._slots.max_depth} times")  # pragma: no cover


def load_flat_policy(path: str | Path, deterministic: bool = True) -> FlatPolicyAgent:
    """Load a flat-MLP policy, checking the metadata and every tensor's shape before building anything."""
    import torch

    pt, meta_path = policy_paths(path)
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except OSError as e:
        raise FlatPolicyError(f"{meta_path}: cannot read the policy metadata: {e.strerror or e}") from e
    except ValueError as e:
        raise FlatPolicyError(f"{meta_path}: not valid JSON: {e}") from e
    meta = _check_meta(meta, meta_path)
    hidden: list[int] = meta["hidden"]
    sizes = [meta["obs_size"], *hidden, meta["n_actions"]]
    want: dict[str, tuple[int, ...]] = {
        f"hidden.{i}.weight": (sizes[i + 1], sizes[i]) for i in range(len(hidden))
    }
    want |= {f"hidden.{i}.bias": (sizes[i + 1],) for i in range(len(hidden))}
    want |= {"pi.weight": (sizes[-1], sizes[-2]), "pi.bias": (sizes[-1],)}
    limit = 4 * sum(int(np.prod(s)) for s in want.values()) + 1_000_000
    try:
        if pt.stat().st_size > limit:
            raise FlatPolicyError(
                f"{pt}: {pt.stat().st_size:,} bytes, more than the metadata's network needs"
            )
        sd = torch.load(pt, map_location="cpu", weights_only=True)
    except FlatPolicyError:
        raise
    except Exception as e:  # torch raises many kinds on damaged files; all mean the same to a user
        raise FlatPolicyError(f"{pt}: not a readable weights file ({type(e).__name__}: {e})") from e
    if not isinstance(sd, dict) or set(sd) != set(want):
        got = sorted(sd) if isinstance(sd, dict) else type(sd).__name__
        raise FlatPolicyError(f"{pt}: tensors {got} do not match the metadata's {sorted(want)}")
    for k, shape in want.items():
        if not isinstance(sd[k], torch.Tensor) or tuple(sd[k].shape) != shape:
            raise FlatPolicyError(
                f"{pt}: {k} has shape {tuple(getattr(sd[k], 'shape', ()))}, expected {shape}"
            )
    layers = []
    for i in range(len(hidden)):
        lin = torch.nn.Linear(sizes[i], sizes[i + 1])
        lin.load_state_dict({"weight": sd[f"hidden.{i}.weight"], "bias": sd[f"hidden.{i}.bias"]})
        layers.append(lin.eval())
    pi = torch.nn.Linear(sizes[-2], sizes[-1])
    pi.load_state_dict({"weight": sd["pi.weight"], "bias": sd["pi.bias"]})
    return FlatPolicyAgent(layers, pi.eval(), meta["side"], meta["activation"], meta, deterministic)
