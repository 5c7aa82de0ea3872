"""What the one training pipeline asks of a game (issue 62 step 6): its network, policy files and checkpoints.

Each game that can be trained gives ``NETWORK`` in its agents package (``agents/<package>/__init__.py``), an
object with the attributes and methods of :class:`NetworkSpec` (a subclass of it, or anything shaped like
it); :func:`network_of` finds it by the game's package name, as :mod:`agents.registry` finds the bots, so
``training/`` names no game. What the spec carries is what differs between the games' training:

- the ``policy:`` section of a run config (a dataclass whose fields are the section's keys) and its checks;
- the policy class and keyword arguments of sb3-contrib's ``MaskablePPO`` built from that section;
- the env options of a training game (``single_agent_env`` keywords) from a run config's generic keys;
- the policy files: writing one from a model, loading one, the shipped (``pretrained``) pair;
- the checkpoint kind and what a resumed run must find unchanged (observation spec hash, network);
- optional extras: whether the network has the legal-action head that ``ppo.anchor_kl``,
  ``ppo.teacher_coef`` and pipelined rollouts need, whether its critic has weights apart from the policy's
  (``ppo.critic_warmup``), the episode facts worth a
  TensorBoard curve, the kinds of actions the imitation stage reports its agreement by, and the translation of
  a run folder written by an earlier, game-specific pipeline.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["NetworkSpec", "NoNetworkError", "network_of"]


class NoNetworkError(ValueError):
    """A game that offers no network to train (its agents package has no ``NETWORK``)."""


class NetworkSpec:
    """The game hook of the training pipeline; a game subclasses it in ``agents/<package>/``."""

    game: str = ""  # the registry's name of the game
    policy_section: type = object  # the dataclass of a run config's ``policy:`` section
    observation: str = "dict"  # what the trained network reads: "dict" (a Dict space) or "flat" (a Box)
    monitor_keys: tuple[str, ...] = ()  # numeric facts of a finished episode logged as ``games/<key>``
    vec_envs: tuple[str, ...] = ("dummy", "subproc")  # the ``vec_env`` values the game's training supports
    rewards: tuple[str, ...] = ("win", "shaped")  # the ``reward`` values of its one-side env
    setups: tuple[str, ...] = (
        "random",
    )  # the ``setup`` values (the rules' setup modes where a game has them)
    action_kind_names: tuple[str, ...] = ()  # the kinds of :meth:`action_kinds`, if the game reports them

    def check_policy(self, section: Any, bad: Callable[[str, str, Any], Exception]) -> None:
        """Raise ``bad(key, expected, got)`` for a value of the ``policy:`` section the network cannot take."""

    def legal_head(self, section: Any) -> bool:
        """Does the network built from ``section`` have the legal-action head (``LegalCategorical``) that the
        anchor, kickstarting and pipelined rollouts are written against?"""
        return False

    def critic_apart(self, section: Any) -> bool:
        """Does the critic of the network built from ``section`` have weights of its own, apart from every
        weight the policy uses, so that ``ppo.critic_warmup`` can fit it alone (:mod:`training.critic_warmup`)?
        The legal-action head's critic reads the shared features without a gradient."""
        return self.legal_head(section)

    def policy_spec(self, section: Any) -> tuple[Any, dict[str, Any]]:
        """The policy (a class or an SB3 policy name) and its ``policy_kwargs`` for ``MaskablePPO``."""
        raise NotImplementedError

    def env_kwargs(self, setup: str, reward: str, max_steps: int) -> dict[str, Any]:
        """The keywords of ``game_info(game).single_agent_env(side=..., opponent_sampler=...)`` of a run."""
        return {"reward": reward, "max_steps": max_steps}

    def export(
        self, model: Any, path: str | Path, side: str, section: Any, extra: dict[str, Any] | None = None
    ) -> Path:
        """Write ``model.policy`` as a policy file pair of the game (atomically); returns the ``.pt`` path."""
        raise NotImplementedError

    def load_policy(self, path: str | Path, deterministic: bool = True) -> Any:
        """The policy file at ``path`` as an agent (``policy``, ``side``, ``meta``, ``act``, ``act_state``);
        raises :attr:`policy_load_error` with one clear message otherwise."""
        raise NotImplementedError

    def load_pretrained(self, side: str, deterministic: bool = True) -> Any:
        """The shipped policy of ``side`` as an agent."""
        raise NotImplementedError

    @property
    def policy_load_error(self) -> type[Exception]:
        from agents.policy_io import PolicyLoadError

        return PolicyLoadError

    @property
    def pretrained_dir(self) -> Path:
        """Where ``ffo release`` installs a run's policies (the game's ``pretrained_policies/``)."""
        raise NotImplementedError

    # checkpoints (training/checkpoint.py writes and reads them through training/checkpoint_io.py)
    def checkpoint_kind(self) -> Any:
        """The :class:`training.checkpoint_io.CheckpointKind`-shaped (format, version, unversioned_ok) triple."""
        raise NotImplementedError

    def checkpoint_checks(self, model: Any) -> dict[str, tuple[Any, str]]:
        """What a checkpoint of ``model`` records and a resume must find unchanged: ``key: (value, what to do
        when it differs)``."""
        raise NotImplementedError

    checkpoint_optional: tuple[str, ...] = ()  # checks an older checkpoint of the game may lack

    def action_kinds(self, policy: Any, actions: Any) -> Any:
        """The kind of each action (an index into :attr:`action_kind_names`), for the imitation report."""
        raise NotImplementedError

    # a run folder of an earlier, game-specific pipeline (None: the game had none)
    def legacy_config(self, raw: dict[str, Any]) -> dict[str, Any] | None:
        """``raw`` (a config mapping) in today's shape if it is in an older pipeline's shape, else None."""
        return None

    def legacy_progress(self, progress: dict[str, Any], config: Any) -> dict[str, Any] | None:
        """``progress.json`` of an older pipeline's run in today's keys (``config``: the run's
        :class:`training.config.TrainConfig`, translated), else None."""
        return None


def network_of(game: str) -> NetworkSpec:
    """The training hook of ``game`` (``agents.<package>.NETWORK``); :class:`NoNetworkError` if it has none."""
    from ffo_env.games import game_info

    info = game_info(game)
    package = importlib.import_module(f"agents.{info.package_name}")
    spec = getattr(package, "NETWORK", None)
    if spec is None:
        raise NoNetworkError(
            f"{info.title} ({game}) has no network to train yet: agents/{info.package_name}/__init__.py defines "
            "no NETWORK (see agents/network_spec.py)"
        )
    return spec
