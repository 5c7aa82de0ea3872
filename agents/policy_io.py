"""Policy files of every game of the suite: weights-only reading and writing, the metadata checks, and the
``policy:PATH`` agent, shared by France Fights On's loader (:mod:`agents.ffo.policy`), Springtime for
Hitler's (:mod:`agents.springtime.policy`) and France 1940's (:mod:`agents.france1940.policy`).

A policy is ``<name>.pt`` (a ``{parameter name: tensor}`` mapping, written with ``torch.save`` into memory and
then atomically, read with ``torch.load(weights_only=True)``: no pickle of code) beside ``<name>.json``
(metadata: ``format``, the side, the versions of what it was trained on, the network, ``extra``). Which game
a file belongs to is read from its metadata (:func:`policy_game`): a policy of the other game is refused with
one error that names the file and the ``--game`` to use. What differs between the games (the format name,
the versions compared, the network built from the metadata) is passed in by the game's loader.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agents.policy_files import policy_paths
from ffo_env.atomic import atomic_write_bytes, atomic_write_text
from ffo_env.games import DEFAULT_GAME, GAME_NAMES, SIDES, game_info

__all__ = [
    "POLICY_PREFIX",
    "PolicyLoadError",
    "check_extra",
    "check_network_version",
    "check_side",
    "check_versions",
    "is_policy_name",
    "load_weights_into",
    "make_policy_agent",
    "policy_game",
    "read_metadata",
    "read_weights",
    "with_article",
    "write_policy",
]

POLICY_PREFIX = "policy:"
# the format name of each game's policy files: '<game>-policy', by the suite's convention (a new game's loader
# writes its own name), so that a file tells its game; the default game's files (written before the suite had
# a second game) have no "game" key and name its env
FORMATS = {game: f"{game}-policy" for game in GAME_NAMES}
FFO_ENV_NAME = "france_fights_on_v0"


class PolicyLoadError(ValueError):
    """A policy file that cannot be used with this installation (the message names the file and the field)."""


def with_article(word: str) -> str:
    """``word`` after "a" or "an" ("an ffo-policy": FFO is said letter by letter)."""
    return f"{'an' if word[:1] in 'aeiou' or word.startswith('ffo') else 'a'} {word}"


def policy_game(meta: Mapping[str, Any]) -> str | None:
    """The game whose policy the metadata ``meta`` describes (None: no game's)."""
    game = meta.get("game")
    if isinstance(game, str) and game in FORMATS:
        return game
    for name, fmt in FORMATS.items():
        if meta.get("format") == fmt:
            return name
    return DEFAULT_GAME if meta.get("env") == FFO_ENV_NAME else None


def read_metadata(
    path: str | Path,
    game: str,
    error: type[ValueError] = PolicyLoadError,
    version: int | None = None,
    how_to_write: str = "",
) -> tuple[Path, Path, dict[str, Any]]:
    """The ``.pt`` and ``.json`` paths of the policy named by ``path`` and its metadata, checked to be a policy
    file of ``game`` (of format ``version`` when given). One ``error`` naming the file otherwise."""
    pt, meta_path = policy_paths(path)
    if not pt.exists() or not meta_path.exists():
        raise error(f"{pt}: a policy needs both {pt.name} and {meta_path.name}{how_to_write}")
    fmt = FORMATS[game]
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except OSError as e:
        raise error(f"{meta_path}: cannot read: {e}") from e
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise error(f"{meta_path}: not valid JSON: {e}") from e
    if not isinstance(meta, dict):
        raise error(f"{meta_path}: not {with_article(fmt)} metadata file (expected a JSON object)")
    other = policy_game(meta)
    if other is not None and other != game:
        title, other_title = game_info(game).title, game_info(other).title
        raise error(
            f"{meta_path}: {with_article(other_title)} policy, not {with_article(title)} one; use it with --game {other} (or train "
            f"{with_article(title)} policy with 'ffo train --game {game}')"
        )
    if meta.get("format") != fmt:
        raise error(f"{meta_path}: not {with_article(fmt)} metadata file")
    if version is not None and meta.get("version") != version:
        raise error(f"{meta_path}: format version {meta.get('version')!r}, this installation reads {version}")
    return pt, meta_path, meta


def check_versions(
    meta: Mapping[str, Any],
    meta_path: Path,
    want: Mapping[str, tuple[Any, str]],
    advice: str,
    error: type[ValueError] = PolicyLoadError,
) -> None:
    """Each field of ``want`` (``key: (this installation's value, what it is)``) must be the file's value."""
    for key, (mine, what) in want.items():
        if meta.get(key) != mine:
            raise error(
                f"{meta_path}: trained on {what} {meta.get(key)!r} ({key}), this installation has {mine!r} (the "
                f"game or its observation changed since the policy was trained); {advice}"
            )


def check_network_version(
    net: Any,
    meta_path: Path,
    current: int,
    source: str,
    advice: str,
    error: type[ValueError] = PolicyLoadError,
) -> None:
    """The network's ``version`` (1 when the file has none: written before networks had one) must be
    ``current``, the version of the network code in ``source``."""
    got = net.get("version", 1) if isinstance(net, dict) else None
    if got != current:
        raise error(
            f"{meta_path}: written for policy network version {got}, this installation's network is version "
            f"{current} ({source} changed); {advice}"
        )


def check_side(meta: Mapping[str, Any], meta_path: Path, error: type[ValueError] = PolicyLoadError) -> str:
    side = meta.get("side")
    if side not in SIDES:
        raise error(f"{meta_path}: side must be 'french' or 'german', got {side!r}")
    return str(side)


def check_extra(meta: Mapping[str, Any], meta_path: Path, error: type[ValueError] = PolicyLoadError) -> None:
    if not isinstance(meta.get("extra", {}), dict):
        raise error(f"{meta_path}: extra: expected a mapping, got {meta.get('extra')!r}")


def read_weights(
    pt: Path, max_bytes: int, error: type[ValueError] = PolicyLoadError, device: str = "cpu"
) -> dict[str, Any]:
    """The ``{name: tensor}`` mapping in ``pt``, read without unpickling code; a file of more than
    ``max_bytes``, a damaged one or one holding anything else is one ``error``."""
    import torch

    size = pt.stat().st_size
    if not 0 < size <= max_bytes:
        raise error(f"{pt}: {size} bytes; a policy file holds 1..{max_bytes} bytes")
    try:
        state_dict = torch.load(pt, map_location=device, weights_only=True)
    except Exception as e:  # torch raises several unrelated types for a damaged or crafted file
        raise error(f"{pt}: not a weights-only policy file ({type(e).__name__}: {e})") from e
    if not isinstance(state_dict, dict) or not all(isinstance(v, torch.Tensor) for v in state_dict.values()):
        raise error(f"{pt}: expected a mapping of parameter names to tensors")
    return state_dict


def load_weights_into(
    policy: Any,
    state_dict: Mapping[str, Any],
    pt: Path,
    meta_path: Path,
    error: type[ValueError] = PolicyLoadError,
) -> None:
    """Load ``state_dict`` (read from ``pt``) into ``policy`` (built from ``meta_path``): weights of another
    network are one ``error`` naming both files."""
    try:
        policy.load_state_dict(state_dict)
    except (RuntimeError, KeyError, TypeError) as e:
        raise error(f"{pt}: weights do not fit the network described in {meta_path.name}: {e}") from e


def write_policy(path: str | Path, state_dict: Mapping[str, Any], meta: Mapping[str, Any]) -> Path:
    """Write the weights, then the metadata, each atomically (a crash mid-write leaves no torn file); returns
    the ``.pt`` path."""
    import torch

    pt, meta_path = policy_paths(path)
    pt.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    torch.save({k: v.detach().cpu() for k, v in state_dict.items()}, buf)
    atomic_write_bytes(pt, buf.getvalue())
    atomic_write_text(meta_path, json.dumps(meta, indent=1) + "\n")
    return pt


def is_policy_name(name: object) -> bool:
    """``policy:PATH`` with a path (whether it loads is checked when the agent is made)."""
    return isinstance(name, str) and name.startswith(POLICY_PREFIX) and len(name) > len(POLICY_PREFIX)


def make_policy_agent(name: str, side: str, seed: int | None, load: Callable[[str], Any]) -> Any:
    """The agent of ``policy:PATH`` (``load(PATH)`` is the game's loader; for a name without the prefix, such
    as ``pretrained``, ``load(name)``) playing ``side``: a policy of the other side is one error, and the agent
    is reset with ``seed``."""
    agent = load(name.removeprefix(POLICY_PREFIX))
    if agent.side != side:
        raise ValueError(f"{name}: this policy plays the {agent.side} side, not {side}")
    agent.reset(seed)
    return agent
