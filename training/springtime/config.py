"""The run config of ``ffo train --game springtime``: typed dataclasses loaded from YAML and checked.

A run file (``configs/springtime/train_quick.yaml``) names only what differs from the defaults below; the
resolved config (every field) is written into the run folder. Any problem is one :class:`ConfigError` whose
message names the file and the key.
"""

from __future__ import annotations

import math
import typing
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any

import yaml

from training.config import ConfigError

SIDES = ("french", "german")
OPPONENTS = ("random", "heuristic", "expert", "pass", "self")  # "self": the other side's latest policy
TEACHERS = ("", "heuristic", "expert")
ACTIVATIONS = ("tanh", "relu")
METHOD = "springtime"


@dataclass
class PolicySection:
    """The network: an MLP actor and critic over the flat 1351-float observation."""

    net_arch: list[int] = field(default_factory=lambda: [128, 128])  # hidden widths of each of pi and vf
    activation: str = "tanh"  # "tanh" or "relu"


@dataclass
class ImitationSection:
    """DAgger from a scripted teacher before PPO (``teacher: ""`` turns it off)."""

    teacher: str = "heuristic"
    decisions: int = 20_000  # teacher-labelled learner decisions gathered per iteration and side
    iterations: int = 2  # DAgger iterations (1 = plain behaviour cloning of the teacher's games)
    beta: float = (
        0.5  # from the 2nd iteration: probability that the teacher's label is played, else the student's
    )
    epochs: int = 4  # passes over everything gathered so far, after each iteration
    batch_size: int = 256
    learning_rate: float = 1e-3
    value_coef: float = 0.5  # weight of the critic's regression on the game's result
    opponents: dict[str, float] = field(default_factory=lambda: {"random": 0.5, "heuristic": 0.5})


@dataclass
class PPOSection:
    """MaskablePPO (sb3-contrib names) in rounds: each round trains every side for ``steps_per_round`` of its
    own decisions against the opponent mix, then freezes a snapshot that the other side meets as ``self``."""

    rounds: int = 2  # 0: imitation only
    steps_per_round: int = 20_000
    checkpoint_every: int = 5_000  # learner decisions between checkpoints (what a killed run loses at most)
    n_envs: int = 2
    learning_rate: float = 1e-4
    n_steps: int = 512  # per env, per update
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.999  # a game is 100-250 of a side's decisions, rewarded at the end
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.005
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    opponents: dict[str, float] = field(
        default_factory=lambda: {"random": 0.3, "heuristic": 0.4, "self": 0.3}
    )


@dataclass
class EvalSection:
    """The final evaluation: each policy against each opponent on fixed core seeds (Wilson 95 % intervals)."""

    games: int = 40  # per opponent and side
    opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    first_seed: int = 1_000_000  # core seed of the first game (training games draw other seeds)
    compare_imitation: bool = True  # also evaluate the imitation stage's policies on the same seeds


@dataclass
class SpringtimeTrainConfig:
    """One training run of both sides of Springtime for Hitler. Timesteps count the learner's own decisions."""

    game: str = "springtime"
    run_name: str = "springtime"
    seed: int = 0
    sides: list[str] = field(default_factory=lambda: list(SIDES))
    torch_threads: int = 1  # one thread: the machine's cores are better spent on the envs and other jobs
    policy: PolicySection = field(default_factory=PolicySection)
    imitation: ImitationSection = field(default_factory=ImitationSection)
    ppo: PPOSection = field(default_factory=PPOSection)
    eval: EvalSection = field(default_factory=EvalSection)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _type_ok(value: Any, tp: Any) -> bool:
    origin = typing.get_origin(tp)
    if tp is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if tp is str:
        return isinstance(value, str)
    if tp is bool:
        return isinstance(value, bool)
    if origin is list:
        (item,) = typing.get_args(tp)
        return isinstance(value, list) and all(_type_ok(v, item) for v in value)
    if origin is dict:
        k, v = typing.get_args(tp)
        return isinstance(value, dict) and all(_type_ok(a, k) and _type_ok(b, v) for a, b in value.items())
    return False


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def _build(cls: type, raw: Any, where: str, source: str) -> Any:
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: {where or 'the file'}: expected a mapping, got {type(raw).__name__}")
    hints = typing.get_type_hints(cls)
    known = {f.name for f in fields(cls)}
    for key in raw:
        if key not in known:
            raise ConfigError(
                f"{source}: {where}{key}: unknown key; the keys here are {', '.join(sorted(known))}"
            )
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in raw:
            continue
        tp = hints[f.name]
        value = raw[f.name]
        if isinstance(tp, type) and is_dataclass(tp):
            kwargs[f.name] = _build(tp, value, f"{where}{f.name}.", source)
        elif tp is float and _type_ok(value, float):
            kwargs[f.name] = float(value)
        elif _type_ok(value, tp):
            kwargs[f.name] = value
        else:
            raise ConfigError(f"{source}: {where}{f.name}: expected {_type_name(tp)}, got {value!r}")
    return cls(**kwargs)


def _positive(source: str, key: str, value: float) -> None:
    if value <= 0:
        raise ConfigError(f"{source}: {key}: expected a positive number, got {value!r}")


def _mix(source: str, key: str, mix: dict[str, float], names: tuple[str, ...]) -> None:
    for name, w in mix.items():
        if name not in names:
            raise ConfigError(f"{source}: {key}.{name}: unknown opponent; expected one of {', '.join(names)}")
        if w < 0:
            raise ConfigError(f"{source}: {key}.{name}: expected a weight >= 0, got {w!r}")
    if not mix or sum(mix.values()) <= 0:
        raise ConfigError(f"{source}: {key}: expected at least one opponent with a positive weight")


def check(cfg: SpringtimeTrainConfig, source: str) -> SpringtimeTrainConfig:
    """The checks of the values (the types were checked on load)."""
    if cfg.game != METHOD:
        raise ConfigError(f"{source}: game: expected 'springtime', got {cfg.game!r}")
    if not cfg.run_name or "/" in cfg.run_name or cfg.run_name.startswith("."):
        raise ConfigError(f"{source}: run_name: expected a plain folder name, got {cfg.run_name!r}")
    if not cfg.sides or any(s not in SIDES for s in cfg.sides) or len(set(cfg.sides)) != len(cfg.sides):
        raise ConfigError(
            f"{source}: sides: expected a non-empty list of 'french' and/or 'german', got {cfg.sides!r}"
        )
    if cfg.seed < 0:
        raise ConfigError(f"{source}: seed: expected an integer >= 0, got {cfg.seed}")
    _positive(source, "torch_threads", cfg.torch_threads)
    p = cfg.policy
    if not 1 <= len(p.net_arch) <= 8 or any(not 1 <= w <= 4096 for w in p.net_arch):
        raise ConfigError(f"{source}: policy.net_arch: expected 1..8 widths in 1..4096, got {p.net_arch!r}")
    if p.activation not in ACTIVATIONS:
        raise ConfigError(f"{source}: policy.activation: expected one of {ACTIVATIONS}, got {p.activation!r}")
    im = cfg.imitation
    if im.teacher not in TEACHERS:
        raise ConfigError(f"{source}: imitation.teacher: expected one of {TEACHERS}, got {im.teacher!r}")
    for key in ("decisions", "iterations", "epochs", "batch_size", "learning_rate"):
        _positive(source, f"imitation.{key}", getattr(im, key))
    if not 0.0 <= im.beta <= 1.0:
        raise ConfigError(f"{source}: imitation.beta: expected a probability in [0, 1], got {im.beta!r}")
    if im.value_coef < 0:
        raise ConfigError(f"{source}: imitation.value_coef: expected >= 0, got {im.value_coef!r}")
    _mix(source, "imitation.opponents", im.opponents, tuple(o for o in OPPONENTS if o != "self"))
    ppo = cfg.ppo
    if ppo.rounds < 0:
        raise ConfigError(f"{source}: ppo.rounds: expected an integer >= 0, got {ppo.rounds}")
    for key in (
        "steps_per_round",
        "checkpoint_every",
        "n_envs",
        "learning_rate",
        "n_steps",
        "batch_size",
        "n_epochs",
    ):
        _positive(source, f"ppo.{key}", getattr(ppo, key))
    for key in ("gamma", "gae_lambda"):
        if not 0.0 < getattr(ppo, key) <= 1.0:
            raise ConfigError(f"{source}: ppo.{key}: expected a number in (0, 1], got {getattr(ppo, key)!r}")
    for key in ("clip_range", "ent_coef", "vf_coef", "max_grad_norm"):
        if getattr(ppo, key) < 0:
            raise ConfigError(f"{source}: ppo.{key}: expected >= 0, got {getattr(ppo, key)!r}")
    _mix(source, "ppo.opponents", ppo.opponents, OPPONENTS)
    ev = cfg.eval
    if ev.games < 0:
        raise ConfigError(f"{source}: eval.games: expected an integer >= 0, got {ev.games}")
    for name in ev.opponents:
        if name not in ("random", "heuristic", "expert", "pass"):
            raise ConfigError(f"{source}: eval.opponents: unknown bot {name!r}")
    if ev.first_seed < 0:
        raise ConfigError(f"{source}: eval.first_seed: expected an integer >= 0, got {ev.first_seed}")
    if ppo.rounds == 0 and not im.teacher:
        raise ConfigError(f"{source}: nothing to train: ppo.rounds is 0 and imitation.teacher is empty")
    return cfg


def _set(doc: dict[str, Any], dotted: str, value: Any, source: str) -> None:
    parts = dotted.split(".")
    node = doc
    for part in parts[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(f"{source}: --set {dotted}: {part} is not a section")
        node = child
    node[parts[-1]] = value


def from_mapping(raw: Any, source: str, overrides: dict[str, Any] | None = None) -> SpringtimeTrainConfig:
    doc = dict(raw) if isinstance(raw, dict) else raw
    if isinstance(doc, dict):
        doc = {k: (dict(v) if isinstance(v, dict) else v) for k, v in doc.items()}
        for key, value in (overrides or {}).items():
            _set(doc, key, value, source)
    cfg = _build(SpringtimeTrainConfig, doc, "", source)
    return check(cfg, source)


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> SpringtimeTrainConfig:
    """The config in ``path`` (a YAML mapping) with ``--set`` overrides, checked; :class:`ConfigError` otherwise."""
    source = str(path)
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{source}: no such config file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{source}: cannot read ({e})") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{source}:{where}: not valid YAML ({getattr(e, 'problem', e)})") from None
    if isinstance(raw, dict) and "game" not in raw:  # most likely a France Fights On config
        raise ConfigError(
            f"{source}: game: missing; a Springtime for Hitler config says 'game: springtime' (France Fights On's "
            "configs train without --game springtime)"
        )
    return from_mapping(raw, source, overrides)


def is_springtime_config(path: str | Path) -> bool:
    """Does the YAML file at ``path`` say ``game: springtime`` (a quick look; the loader checks it properly)?"""
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    return isinstance(raw, dict) and raw.get("game") == METHOD
