"""Training run configuration: a typed dataclass loaded from YAML and validated, for every game.

A run file (``configs/ffo/train_quick.yaml``, ``configs/springtime/train_quick.yaml``) names only what differs from
the defaults below; the resolved config (every field) is written into the run folder. ``game`` (default: the
suite's first game, France Fights On) picks the game; what differs between the games, the ``policy:``
section and its checks, the env options, the policy files, comes from the game's training hook
(:func:`agents.network_spec.network_of`, ``agents.<package>.NETWORK``). A run file in the shape of a game's
earlier pipeline (Springtime for Hitler's ``training/springtime/config.py``) is read through that hook's
translation.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from agents.network_spec import NetworkSpec, NoNetworkError, network_of
from agents.registry import agent_names, is_agent_name
from ffo_env.games import DEFAULT_GAME, GAMES
from ffo_env.games import SIDES as SIDE_NAMES

# the run file of `ffo train` without --config (and without --game: the default game's)
CONFIGS = Path(__file__).resolve().parent.parent / "configs"
DEFAULT_CONFIG = CONFIGS / GAMES[DEFAULT_GAME].package_name / "train_quick.yaml"
VEC_ENVS = ("subproc", "dummy", "pipelined")
REWARDS = ("win", "shaped")
SNAPSHOTS_ALIASES = ("self",)  # other names of `snapshots` in `opponents` (Springtime's first pipeline's)

__all__ = ["TrainConfig", "default_config", "load_config", "spec_of", "validate"]


def default_config(game: str = DEFAULT_GAME) -> Path:
    """The run file of ``ffo train --game GAME`` without ``--config``: the shipped
    ``configs/<package>/train_quick.yaml`` (resolved by :func:`ffo_env.resources.config_file`, from a checkout
    or an installed wheel)."""
    from ffo_env.games import game_info
    from ffo_env.resources import config_file

    return config_file(f"configs/{game_info(game).package_name}/train_quick.yaml")


def one_of(values: tuple[str, ...]) -> str:
    """Accepted values as an error message words them: ``'a', 'b' or 'c'``."""
    quoted = [repr(v) for v in values]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


class ConfigError(ValueError):
    """A training config that cannot be used; the message names the file and key."""


@dataclass
class PPOConfig:
    """MaskablePPO hyperparameters (sb3-contrib names)."""

    learning_rate: float = 3e-4
    n_steps: int = 512  # per environment, per update
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.999  # a game is hundreds of decisions long and rewarded at the end
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    # sb3's: each minibatch's advantages scaled to mean 0 and std 1. False keeps their scale, so that an update
    # moves as far as the returns say: in a game rewarded only at its end, near-zero advantages otherwise become
    # unit-size noise (docs/experiments/2026-11-29-france1940-rl-campaign.md)
    normalize_advantage: bool = True
    # weight of KL(policy || the policy the PPO stage started from: the imitation result or init_policy)
    # in the loss; > 0 keeps a fine-tuned policy near its start unless the returns keep pushing it away
    anchor_kl: float = 0.0
    # rollouts at the start of a side's PPO stage in which only the critic (the value body and head over the
    # board summary) learns and the policy is left exactly as it is: a start policy's value head was fitted to
    # another reward or other games, and advantages from it would push the policy at random (issue 60)
    critic_warmup: int = 0
    # kickstarting (training/teacher_labels.py): teacher_coef x the cross-entropy of the policy on the move of
    # the scripted agent `teacher` (e.g. "expert") at every decision of the rollout, beside the PPO loss
    teacher: str = ""
    teacher_coef: float = 0.0
    # with vec_env pipelined: decoupled PPO (clip the ratio to the learner's weights at the update's start,
    # the proximal policy, and weight each sample by proximal / sampling probability) instead of clipping
    # to the sampling policy one update behind; costs one forward pass over the rollout
    proximal: bool = False


@dataclass
class EvalConfig:
    """The evaluation against scripted bots at the end of the run (through the harness)."""

    games: int = 40  # per opponent and side
    opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    workers: int = 2
    # also play the policy the RL stage started from (the imitation result or init_policy) on the same seeds,
    # so that the evaluation says what the RL stage added (eval/rl_stage.json, a paired comparison; issue 39)
    compare_start: bool = True


@dataclass
class CurveConfig:
    """A campaign's learning curve (issue 60; :mod:`training.campaign`): with ``every`` > 0, ``ffo train`` runs
    the schedule one round at a time, each round from the checkpoint of the last (so a killed run resumes to
    the same curve), and after every ``every`` rounds (and for the start policies) plays each side's snapshot
    against ``opponent`` of the other side on ``games`` fixed seeds from ``seed``."""

    every: int = 0  # rounds between evaluation points; 0: no curve, the plain schedule
    games: int = 200
    seed: int = 60_000
    opponent: str = "expert"
    workers: int = 1


@dataclass
class PretrainConfig:
    """Imitation warm start before PPO: DAgger from a scripted teacher (see training/imitation.py)."""

    teacher: str = ""  # agent name of the teacher, e.g. "heuristic"; "" turns pretraining off
    sides: list[str] = field(default_factory=lambda: list(SIDE_NAMES))  # which trained sides get it
    decisions: int = 20_000  # teacher-labelled learner decisions gathered per iteration
    iterations: int = 2  # DAgger iterations (1 = plain behaviour cloning)
    epochs: int = 3  # passes over everything gathered so far, after each iteration
    batch_size: int = 64  # small batches: 4x the steps of 256 for the same compute, much closer fit
    learning_rate: float = 1e-3
    value_coef: float = 0.5  # weight of the critic's return regression
    # each learner decision is kept with this probability: consecutive decisions of a game are
    # near-duplicates (a turn's moves see almost the same board), so keeping a fraction spreads the
    # same memory and fitting time over more games
    keep_fraction: float = 1.0
    side_scale: dict[str, float] = field(
        default_factory=lambda: {"french": 1.0, "german": 1.0}
    )  # x decisions
    side_epochs: dict[str, int] = field(default_factory=dict)  # a side's epochs instead of `epochs`
    opponents: dict[str, float] = field(default_factory=lambda: {"random": 0.5, "heuristic": 0.5})
    workers: int = 2  # collection processes
    # the probability that the teacher's move is played in iteration i >= 1 (0-based); 0: the halving schedule
    # 0.5 ** i (the student plays more and more); in (0, 1]: this value in every iteration after the first
    beta: float = 0.0

    def epochs_of(self, side: str) -> int:
        return self.side_epochs.get(side, self.epochs)


@dataclass
class TrainConfig:
    """One training run. Timesteps count the learner's own decisions."""

    game: str = DEFAULT_GAME  # the registry's name of the game (``ffo_env.games``)
    run_name: str = "run"
    seed: int = 0
    sides: list[str] = field(default_factory=lambda: list(SIDE_NAMES))  # which sides to train
    rounds: int = 2  # self-play rounds; each trains every side for steps_per_round (0: imitation only)
    steps_per_round: int = 20_000
    side_scale: dict[str, float] = field(
        default_factory=lambda: {"french": 1.0, "german": 1.0}
    )  # x steps_per_round
    n_envs: int = 2
    # "dummy": all in the learner process (the default: the rollout's policy call is one batch of n_envs, and
    # 4 subproc workers measured 1.6 ms a sample of rollout against 1.0 here on 2 cores); "subproc": one
    # process per env; "pipelined": all in one rollout worker that collects the next rollout while the
    # learner updates (training/pipeline.py)
    vec_env: str = "dummy"
    setup: str = "random"  # rules setup mode for training games (R2)
    reward: str = "win"  # "win" or "shaped" (see the env docs)
    max_steps: int = 5000  # truncation, in learner decisions per episode
    opponents: dict[str, float] = field(
        default_factory=lambda: {"random": 0.4, "heuristic": 0.3, "snapshots": 0.3}
    )
    snapshot_keep: int = 5  # most recent frozen snapshots of the other side kept in the pool
    checkpoint_every: int = 10_000  # learner timesteps between checkpoints
    device: str = "cpu"
    torch_threads: int = 1  # threads of the learner process while the env workers collect
    # threads of the gradient steps (PPO updates, imitation fitting); 0 = every core. 1 by default: on a
    # shared 2-core machine a 2-thread fit ran 2.5-4x slower than a 1-thread one (OpenMP threads waiting
    # on cores other processes hold); on an idle machine 0 may be faster
    learner_threads: int = 1
    ppo: PPOConfig = field(default_factory=PPOConfig)
    # the network's section: the game's dataclass (NetworkSpec.policy_section; France Fights On's PolicyConfig)
    policy: Any = field(default_factory=lambda: network_of(DEFAULT_GAME).policy_section())
    eval: EvalConfig = field(default_factory=EvalConfig)
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)
    curve: CurveConfig = field(default_factory=CurveConfig)
    # side -> the policy its PPO stage starts from instead of a new network or the imitation stage:
    # "pretrained" (the shipped policy of that side) or the path of a policy .pt written by 'ffo train'
    init_policy: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Every field; ``game`` and ``pretrain.beta`` only when they are not the default game and schedule, so
        that a France Fights On run writes the config.yaml it wrote before there was a choice (and the version
        a running campaign was started with can read it)."""
        d = asdict(self)
        if d["game"] == DEFAULT_GAME:
            del d["game"]
        if d["pretrain"]["beta"] == 0.0:  # likewise the keys added with the second game's configs
            del d["pretrain"]["beta"]
        return d

    def steps_for(self, side: str) -> int:
        """Learner decisions per round for ``side``."""
        return max(1, int(self.steps_per_round * self.side_scale.get(side, 1.0)))


def __getattr__(name: str) -> Any:
    if name == "PolicyConfig":  # the default game's policy section, the name of this module before issue 62
        return network_of(DEFAULT_GAME).policy_section
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def spec_of(cfg: TrainConfig) -> NetworkSpec:
    """The training hook of the config's game."""
    return network_of(cfg.game)


_NESTED: dict[str, type] = {
    "ppo": PPOConfig,
    "eval": EvalConfig,
    "pretrain": PretrainConfig,
    "curve": CurveConfig,
}


def _build(cls: type, data: dict[str, Any], where: str, source: str, policy: type | None = None) -> Any:
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: {where or 'document'}: expected a mapping, got {data!r}")
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ConfigError(
            f"{source}: {where + '.' if where else ''}{unknown[0]}: unknown key; expected one of "
            f"{', '.join(sorted(known))}"
        )
    default = cls()
    kwargs: dict[str, Any] = {}
    for name, value in data.items():
        key = f"{where}.{name}" if where else name
        if name == "policy" and cls is TrainConfig and policy is not None:
            kwargs[name] = _build(policy, value, key, source)
            continue
        if name in _NESTED and cls is TrainConfig:
            kwargs[name] = _build(_NESTED[name], value, key, source)
            continue
        want = getattr(default, name)
        if isinstance(want, bool):
            ok = isinstance(value, bool)
        elif isinstance(want, int):
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif isinstance(want, float):
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            value = float(value) if ok else value
        elif isinstance(want, str):
            ok = isinstance(value, str)
        elif isinstance(want, list):
            ok = isinstance(value, list)
        elif name == "init_policy":
            ok = isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
        elif isinstance(want, dict):
            ok = isinstance(value, dict) and all(isinstance(v, (int, float)) for v in value.values())
        else:
            ok = True
        if not ok:
            raise ConfigError(f"{source}: {key}: expected {type(want).__name__} like {want!r}, got {value!r}")
        kwargs[name] = value
    return cls(**kwargs)


def validate(cfg: TrainConfig, source: str = "<config>") -> TrainConfig:
    def bad(key: str, expected: str, got: Any) -> ConfigError:
        return ConfigError(f"{source}: {key}: expected {expected}, got {got!r}")

    if cfg.game not in GAMES:
        raise bad("game", f"a game of the suite ({', '.join(GAMES)})", cfg.game)
    try:
        spec = network_of(cfg.game)
    except NoNetworkError as e:
        raise ConfigError(f"{source}: game: {e}") from None
    if not isinstance(cfg.policy, spec.policy_section):
        if cfg.policy != network_of(DEFAULT_GAME).policy_section():
            raise bad("policy", f"the keys of {cfg.game}'s network", cfg.policy)
        cfg.policy = spec.policy_section()  # no policy: section in the file: the game's defaults
    game = cfg.game
    if not cfg.sides or any(s not in SIDE_NAMES for s in cfg.sides):
        raise bad("sides", "a non-empty list of 'french'/'german'", cfg.sides)
    if cfg.rounds < 0:
        raise bad("rounds", "an integer >= 0 (0: the imitation warm start only)", cfg.rounds)
    if cfg.rounds == 0 and (not cfg.pretrain.teacher or set(cfg.sides) - set(cfg.pretrain.sides)):
        # nothing would train the side: its exported policy would be the untrained network
        raise bad("rounds", "an integer >= 1 unless pretrain.teacher trains every side in sides", cfg.rounds)
    for key in (
        "steps_per_round",
        "n_envs",
        "max_steps",
        "checkpoint_every",
        "snapshot_keep",
        "torch_threads",
    ):
        if getattr(cfg, key) < 1:
            raise bad(key, "an integer >= 1", getattr(cfg, key))
    if cfg.learner_threads < 0:
        raise bad("learner_threads", "an integer >= 0 (0: every core)", cfg.learner_threads)
    if set(cfg.side_scale) - set(SIDE_NAMES) or any(v <= 0 for v in cfg.side_scale.values()):
        raise bad("side_scale", "a mapping of 'french'/'german' -> positive multiplier", cfg.side_scale)
    if cfg.vec_env not in VEC_ENVS:
        raise bad("vec_env", one_of(VEC_ENVS), cfg.vec_env)
    if cfg.vec_env not in spec.vec_envs:
        raise bad("vec_env", f"{one_of(spec.vec_envs)} with game {game}", cfg.vec_env)
    if cfg.setup not in spec.setups:
        raise bad("setup", one_of(spec.setups), cfg.setup)
    if cfg.reward not in spec.rewards:
        raise bad("reward", one_of(spec.rewards), cfg.reward)
    if not cfg.opponents or any(w < 0 for w in cfg.opponents.values()) or sum(cfg.opponents.values()) <= 0:
        raise bad(
            "opponents",
            "a mapping of opponent name -> non-negative weight with a positive sum",
            cfg.opponents,
        )
    if not RUN_NAME.fullmatch(cfg.run_name):
        raise bad(
            "run_name",
            "letters, digits, '.', '_' or '-' (a folder name inside --out; no '/' or leading '.')",
            cfg.run_name,
        )
    if not 0 <= cfg.seed < 2**31:
        raise bad("seed", "an integer in [0, 2**31)", cfg.seed)
    if not DEVICE.fullmatch(cfg.device):
        raise bad("device", "'cpu', 'cuda', 'cuda:<n>', 'mps' or 'auto'", cfg.device)
    _check_ppo(cfg, bad)
    spec.check_policy(cfg.policy, bad)
    _check_curve(cfg, bad)
    ev = cfg.eval
    if ev.games < 1 or ev.workers < 1:
        raise bad(
            "eval.games" if ev.games < 1 else "eval.workers", "an integer >= 1", min(ev.games, ev.workers)
        )
    if not isinstance(ev.compare_start, bool):
        raise bad("eval.compare_start", "true or false", ev.compare_start)
    for name in ev.opponents:
        if not is_agent_name(name, game):
            raise bad("eval.opponents", "agent names (see 'ffo eval --help') or policy:PATH", name)
    for name in cfg.opponents:
        if name != "snapshots" and not is_agent_name(name, game):
            raise bad("opponents", "agent names, policy:PATH or 'snapshots'", name)
    pc = cfg.pretrain
    if pc.teacher:
        if any(s not in SIDE_NAMES for s in pc.sides):
            raise bad("pretrain.sides", "a list of 'french'/'german'", pc.sides)
        if not (math.isfinite(pc.learning_rate) and 0 < pc.learning_rate <= 1):
            raise bad("pretrain.learning_rate", "a number in (0, 1]", pc.learning_rate)
        if not (math.isfinite(pc.value_coef) and pc.value_coef >= 0):
            raise bad("pretrain.value_coef", "a finite number >= 0", pc.value_coef)
        for key in ("decisions", "iterations", "epochs", "batch_size", "workers"):
            if getattr(pc, key) < 1:
                raise bad(f"pretrain.{key}", "an integer >= 1", getattr(pc, key))
        if not 0.0 < pc.keep_fraction <= 1.0:
            raise bad("pretrain.keep_fraction", "a probability in (0, 1]", pc.keep_fraction)
        if set(pc.side_scale) - set(SIDE_NAMES) or any(v <= 0 for v in pc.side_scale.values()):
            raise bad(
                "pretrain.side_scale", "a mapping of 'french'/'german' -> positive multiplier", pc.side_scale
            )
        if set(pc.side_epochs) - set(SIDE_NAMES) or any(
            isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in pc.side_epochs.values()
        ):
            raise bad(
                "pretrain.side_epochs", "a mapping of 'french'/'german' -> integer >= 1", pc.side_epochs
            )
        if pc.decisions < pc.workers * 10:
            raise bad("pretrain.decisions", f"at least 10 per worker ({pc.workers * 10})", pc.decisions)
        if not pc.opponents or any(w < 0 for w in pc.opponents.values()) or sum(pc.opponents.values()) <= 0:
            raise bad(
                "pretrain.opponents",
                "a mapping of opponent name -> non-negative weight with a positive sum",
                pc.opponents,
            )
        if not (math.isfinite(pc.beta) and 0.0 <= pc.beta <= 1.0):
            raise bad("pretrain.beta", "a probability in [0, 1] (0: the halving schedule)", pc.beta)
        if not is_agent_name(pc.teacher, game):
            raise bad(
                "pretrain.teacher",
                f"an agent name ({', '.join(agent_names(game))}) or policy:PATH",
                pc.teacher,
            )
    for side, source in cfg.init_policy.items():
        if side not in SIDE_NAMES or not source.strip():
            raise bad(
                f"init_policy.{side}", "a side 'french'/'german' -> 'pretrained' or a policy .pt path", source
            )
        if pc.teacher and side in pc.sides:
            # both would set the starting weights of the side's PPO stage
            raise bad(
                f"init_policy.{side}",
                f"a side that pretrain does not train (remove {side} from pretrain.sides or from init_policy)",
                source,
            )
    if cfg.ppo.anchor_kl > 0:
        unanchored = [s for s in cfg.sides if s not in cfg.init_policy and not (pc.teacher and s in pc.sides)]
        if unanchored:
            raise bad(
                "ppo.anchor_kl",
                f"0 unless every trained side starts from a policy (pretrain or init_policy; not {unanchored[0]})",
                cfg.ppo.anchor_kl,
            )
        if not spec.legal_head(cfg.policy):
            raise bad("ppo.anchor_kl", f"0 with {NO_LEGAL_HEAD}", cfg.ppo.anchor_kl)
    if cfg.ppo.teacher_coef > 0:
        if not is_agent_name(cfg.ppo.teacher, game):
            raise bad(
                "ppo.teacher", "an agent name (e.g. 'expert') when ppo.teacher_coef > 0", cfg.ppo.teacher
            )
        if cfg.vec_env == "pipelined":
            raise bad("vec_env", "'dummy' or 'subproc' with ppo.teacher_coef > 0", cfg.vec_env)
        if not spec.legal_head(cfg.policy):
            raise bad("ppo.teacher_coef", f"0 with {NO_LEGAL_HEAD}", cfg.ppo.teacher_coef)
    if cfg.ppo.critic_warmup > 0 and not spec.critic_apart(cfg.policy):
        raise bad("ppo.critic_warmup", f"0 with {NO_CRITIC_APART}", cfg.ppo.critic_warmup)
    if cfg.ppo.proximal and cfg.vec_env != "pipelined":
        # without the lag the proximal policy is the sampling policy: the flag would only cost time
        raise bad("ppo.proximal", "false unless vec_env is pipelined", cfg.ppo.proximal)
    if cfg.ppo.batch_size > cfg.ppo.n_steps * cfg.n_envs:
        raise bad(
            "ppo.batch_size", f"at most n_steps * n_envs = {cfg.ppo.n_steps * cfg.n_envs}", cfg.ppo.batch_size
        )
    return cfg


# the networks whose head computes the legal actions' logits only (France Fights On's with policy.spatial > 0)
NO_LEGAL_HEAD = "this network (its head is not the legal-action head: policy.spatial 0, or the game's MLP)"
NO_CRITIC_APART = "this network (its critic shares weights with the policy: policy.spatial 0)"
RUN_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}")
DEVICE = re.compile(r"cpu|cuda|cuda:\d{1,2}|mps|auto")


def _check_ppo(cfg: TrainConfig, bad: Any) -> None:
    p = cfg.ppo
    ranges: list[tuple[str, float, float, bool, str]] = [
        # key, low, high, low inclusive, text
        ("learning_rate", 0.0, 1.0, False, "a number in (0, 1]"),
        ("gamma", 0.0, 1.0, False, "a discount in (0, 1]"),
        ("gae_lambda", 0.0, 1.0, True, "a number in [0, 1]"),
        ("clip_range", 0.0, 10.0, False, "a number in (0, 10]"),
        ("ent_coef", 0.0, 10.0, True, "a number in [0, 10]"),
        ("vf_coef", 0.0, 100.0, True, "a number in [0, 100]"),
        ("max_grad_norm", 0.0, 1e6, False, "a positive number"),
        ("anchor_kl", 0.0, 1e6, True, "a number in [0, 1e6]"),
        ("teacher_coef", 0.0, 1e6, True, "a number in [0, 1e6]"),
    ]
    for key, lo, hi, lo_ok, text in ranges:
        v = getattr(p, key)
        if not (math.isfinite(v) and (v >= lo if lo_ok else v > lo) and v <= hi):
            raise bad(f"ppo.{key}", text, v)
    if not 0 <= p.critic_warmup <= 100_000:
        raise bad("ppo.critic_warmup", "an integer in [0, 100000] (rollouts)", p.critic_warmup)
    if p.n_steps < 2 or p.n_steps > 1_000_000:
        raise bad("ppo.n_steps", "an integer in [2, 1000000]", p.n_steps)
    if p.batch_size < 2:  # SB3 normalises advantages over the minibatch: one sample gives NaN
        raise bad("ppo.batch_size", "an integer >= 2", p.batch_size)
    if not 1 <= p.n_epochs <= 100:
        raise bad("ppo.n_epochs", "an integer in [1, 100]", p.n_epochs)


def _check_curve(cfg: TrainConfig, bad: Any) -> None:
    c = cfg.curve
    if not 0 <= c.every <= 10_000:
        raise bad("curve.every", "an integer in [0, 10000] (rounds; 0: no curve)", c.every)
    if c.every == 0:
        return
    if not 1 <= c.games <= 100_000:
        raise bad("curve.games", "an integer in [1, 100000]", c.games)
    if not 0 <= c.seed < 2**31:
        raise bad("curve.seed", "an integer in [0, 2**31)", c.seed)
    if not 1 <= c.workers <= 64:
        raise bad("curve.workers", "an integer in [1, 64]", c.workers)
    if not is_agent_name(c.opponent, cfg.game):  # the curve plays the config's game
        raise bad("curve.opponent", f"an agent name of {cfg.game} (e.g. 'expert')", c.opponent)
    if cfg.rounds < 1:
        raise bad("rounds", "an integer >= 1 with a curve (curve.every > 0)", cfg.rounds)
    if cfg.vec_env == "pipelined":
        # the rollout worker keeps its own generators across rounds: a resumed round would not be the same round
        raise bad("vec_env", "'dummy' or 'subproc' with a curve (curve.every > 0)", cfg.vec_env)


def load_config(
    path: str | Path, overrides: dict[str, Any] | None = None, game: str | None = None
) -> TrainConfig:
    """Read a run config; ``overrides`` (dotted keys, e.g. ``{"ppo.n_steps": 64}``) win over the file.
    ``game`` (``ffo train --game``) is the game of a file that names none, and refused for a file of another
    game."""
    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    except OSError as e:
        raise ConfigError(f"{p}: cannot read: {e}") from e
    except yaml.YAMLError as e:  # one line: where, and what the parser found
        mark = getattr(e, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{p}:{where}: not valid YAML ({getattr(e, 'problem', None) or e})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: expected a mapping of config keys, got {type(data).__name__}")
    data = _game_and_shape(data, game, str(p))
    for key, value in (overrides or {}).items():
        node = data
        parts = key.split(".")
        for i, part in enumerate(parts[:-1]):
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(
                    f"{p}: {'.'.join(parts[: i + 1])}: expected a mapping (to set {key}), got {node!r}"
                )
        node[parts[-1]] = value
    return validate(_build(TrainConfig, data, "", str(p), spec_of_raw(data).policy_section), str(p))


def spec_of_raw(data: dict[str, Any]) -> NetworkSpec:
    name = data.get("game", DEFAULT_GAME)
    return network_of(name if isinstance(name, str) and name in GAMES else DEFAULT_GAME)


def _game_and_shape(data: dict[str, Any], game: str | None, source: str) -> dict[str, Any]:
    """The file's mapping with its game settled (its ``game`` key, else ``game``), in today's shape (a file of a
    game's earlier pipeline translated by the game's hook), ``opponents.self`` named ``snapshots``."""
    named = data.get("game")
    if named is not None and (not isinstance(named, str) or named not in GAMES):
        raise ConfigError(f"{source}: game: expected a game of the suite ({', '.join(GAMES)}), got {named!r}")
    if named is not None and game is not None and named != game:
        raise ConfigError(f"{source}: game: the file trains {named}, not {game} (--game); drop one of them")
    name = named or game or DEFAULT_GAME
    try:
        spec = network_of(name)
    except NoNetworkError as e:
        raise ConfigError(f"{source}: game: {e}") from None
    translated = spec.legacy_config(data)
    data = dict(translated if translated is not None else data)
    if name != DEFAULT_GAME or "game" in data:
        data["game"] = name
    opponents = data.get("opponents")
    if isinstance(opponents, dict):
        for alias in SNAPSHOTS_ALIASES:
            if alias in opponents:
                if "snapshots" in opponents:
                    raise ConfigError(
                        f"{source}: opponents.{alias}: another name of opponents.snapshots; give one of them"
                    )
                data["opponents"] = {("snapshots" if k == alias else k): v for k, v in opponents.items()}
    return data


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity where the OS has one, else every core."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no affinity API (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def learner_threads(cfg: TrainConfig) -> int:
    """Torch threads of the gradient steps: ``cfg.learner_threads``, or every core the process may use if 0."""
    return cfg.learner_threads or usable_cores()
