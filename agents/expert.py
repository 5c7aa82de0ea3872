"""The expert bots: the side's scripted bot with tuned parameters, plus rollout lookahead where it pays.

An expert level is a file ``configs/bots/expert/<side>_expert[_<level>].yaml`` whose ``params`` are the
fields of :class:`ExpertParams`. Its ``heuristic`` key names the scripted bot's parameter file (in the
same folder): ``<side>_tuned.yaml``, found by :mod:`agents.bot_tuning` (cross-entropy search against
the other side's default bot on common random numbers; the figures are in that file's description).

Lookahead (``search`` lists the decisions, empty = none): at a listed decision the expert takes the
heuristic's choice and up to ``max_candidates - 1`` alternatives (passing first, attack targets by
their exact expected value), and plays each of them on ``determinizations`` samples of what it cannot
see (:func:`ffo_env.core.determinize.determinize`, rule 3.6, R3, R37), both sides continuing with
their scripted bots for ``horizon_turns`` game turns (the opponent modelled by its default bot). It
switches from the heuristic's choice only for a mean gain (French VP-equivalents,
:func:`agents.expert_search.french_value`) of at least ``min_gain`` and ``min_z`` paired standard
errors.

It reads only what its side may see: the real state only through the scripted bot (which reads
``seen_stack``) and through determinized copies, built from a canonical form of the position in which
the hidden units are sorted (two states that look the same to the expert give the same samples). It is
deterministic given its seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.botconfig import CONFIG_DIR, BotConfigError, load_params, param
from agents.expert_search import SearchSettings, paired_gain, score_candidates
from agents.heuristic_base import HeuristicBot
from ffo_env.core.actions import Special
from ffo_env.core.phases import Decision
from ffo_env.core.state import State

FRENCH, GERMAN = 0, 1
SIDES = ("french", "german")
EXPERT_CONFIG_DIR = CONFIG_DIR / "expert"
LEVELS = ("fast", "strong")
SEARCHABLE = frozenset(
    d.name.lower()
    for d in (
        Decision.GERMAN_ORDER,
        Decision.EVACUATE,
        Decision.RAIL_UNIT,
        Decision.ATTACK_TARGET,
        Decision.SUPPORT_ATTACK,
        Decision.SUPPORT_DEFENCE,
        Decision.AIR_TARGET,
        Decision.REPLACEMENT,
        Decision.ADVANCE_UNIT,
    )
)


@dataclass(frozen=True)
class ExpertParams:
    level: str = param(
        "default", "label of the level (documentation only)", choices=("fast", "default", "strong")
    )
    heuristic: str = param("", "the scripted bot's parameter file, in configs/bots/expert/ (without .yaml)")
    search: str = param(
        "",
        f"decisions searched by rollouts, comma-separated (any of {', '.join(sorted(SEARCHABLE))}); empty: none",
    )
    determinizations: int = param(
        4, "samples of the hidden state and future dice per searched decision", min=1, max=64
    )
    max_candidates: int = param(
        2, "most actions scored at one decision (the heuristic's choice first)", min=2, max=16
    )
    horizon_turns: int = param(
        2, "game turns each rollout looks ahead (it stops at the end of the game)", min=0, max=20
    )
    step_value: float = param(0.5, "French VP-equivalent of a French step still in play (future VP)", min=0)
    garrison_value: float = param(
        3.0, "French VP-equivalent of a naval garrison on the map (its port, R20)", min=0
    )
    win_bonus: float = param(
        5.0, "French VP-equivalent of the result, for rollouts that reach the end", min=0
    )
    min_gain: float = param(
        1.0, "smallest mean gain over the heuristic's choice that makes the expert deviate", min=0
    )
    min_z: float = param(1.0, "smallest gain in paired standard errors to deviate (0: no such test)", min=0)

    def settings(self) -> SearchSettings:
        return SearchSettings(
            self.determinizations,
            self.horizon_turns,
            self.step_value,
            self.garrison_value,
            self.win_bonus,
            0.0,
        )

    def searched(self) -> frozenset[str]:
        return frozenset(s.strip() for s in self.search.split(",") if s.strip())


def _scripted(side: int, params: Any, seed: int | None, name: str) -> HeuristicBot:
    if side == FRENCH:
        from agents.french_heuristic import FrenchHeuristic

        return FrenchHeuristic(params, seed=seed, name=name)
    from agents.german_heuristic import GermanHeuristic

    return GermanHeuristic(params, seed=seed, name=name)


def _default_scripted(side: int) -> HeuristicBot:
    if side == FRENCH:
        from agents.french_heuristic import make_french

        return make_french(seed=0)
    from agents.german_heuristic import make_german

    return make_german(seed=0)


def _params_cls(side: int) -> type:
    if side == FRENCH:
        from agents.french_heuristic import FrenchParams

        return FrenchParams
    from agents.german_heuristic import GermanParams

    return GermanParams


class ExpertBot:
    """The side's scripted bot with tuned parameters; rollout search at the decisions in ``params.search``."""

    def __init__(
        self,
        side: int,
        params: ExpertParams,
        heuristic_params: Any,
        seed: int | None = None,
        name: str = "expert",
    ) -> None:
        self.side = side
        self.params = params
        self.name = name
        self.base = _scripted(side, heuristic_params, seed, name)
        self.searched_decisions = params.searched()
        # rollouts: own side plays its tuned bot, the opponent its default bot (the model of the opponent)
        self.rollout_bots: dict[int, HeuristicBot] = {
            side: _scripted(side, heuristic_params, 0, name),
            1 - side: _default_scripted(1 - side),
        }
        self.rng = random.Random(seed)
        self.searched = 0
        self.deviations: dict[str, int] = {}

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)
        self.base.reset(seed)
        self.searched = 0
        self.deviations = {}

    def act_state(self, state: State) -> int:
        choice = self.base.act_state(state)
        if state.decision.name.lower() not in self.searched_decisions:
            return choice
        legal = state.legal_actions()
        if len(legal) < 2:
            return choice
        cands = self.candidates(state, legal, choice)
        # the samples' seed comes from the expert's own generator: deterministic, and blind to hidden units
        rng = random.Random(self.rng.getrandbits(64))
        values = score_candidates(state, self.side, cands, self.rollout_bots, self.params.settings(), rng)
        self.searched += 1
        gains = [paired_gain(values[0], v) for v in values]
        best = max(range(1, len(cands)), key=lambda i: (gains[i][0], -i))
        mean, se = gains[best]
        p = self.params
        if mean >= p.min_gain and (p.min_z == 0 or mean >= p.min_z * se):
            key = state.decision.name.lower()
            self.deviations[key] = self.deviations.get(key, 0) + 1
            return cands[best]
        return choice

    def candidates(self, state: State, legal: list[int], choice: int) -> list[int]:
        """The heuristic's choice, passing, then the other legal actions (attack targets by expected value)."""
        L = state.game.layout
        rest = [a for a in legal if a != choice]
        if state.decision == Decision.ATTACK_TARGET:
            ev = {a: self.base.best_attack(state, a)[0] for a in rest if a < L.unit_base}
            rest.sort(key=lambda a: (a != L.special(Special.PASS), -ev.get(a, 0.0), a))
        else:
            rest.sort(key=lambda a: (a != L.special(Special.PASS), legal.index(a)))
        return [choice, *rest][: self.params.max_candidates]


def expert_config_path(side: str, level: str | None = None) -> Path:
    return EXPERT_CONFIG_DIR / (f"{side}_expert" + (f"_{level}" if level else "") + ".yaml")


def load_expert(path: str | Path, side: str) -> tuple[ExpertParams, Any]:
    """The expert parameters of ``path`` and the scripted bot's parameters its ``heuristic`` key names."""
    path = Path(path)
    params = load_params(path, ExpertParams, side)
    bad = sorted(params.searched() - SEARCHABLE)
    if bad:
        raise BotConfigError(
            f"{path}: key 'params.search': unknown decision {bad[0]!r}; searchable: {', '.join(sorted(SEARCHABLE))}"
        )
    if not params.heuristic:
        raise BotConfigError(f"{path}: key 'params.heuristic' must name the scripted bot's parameter file")
    hpath = path.parent / f"{params.heuristic}.yaml"
    if not hpath.is_file():
        raise BotConfigError(f"{path}: key 'params.heuristic': no such file {hpath}")
    side_i = FRENCH if side == "french" else GERMAN
    return params, load_params(hpath, _params_cls(side_i), side)


def make_expert(
    side: str, level: str | None = None, seed: int | None = None, config: str | Path | None = None, **_kw: Any
) -> ExpertBot:
    """The expert of ``side`` at ``level`` (``configs/bots/expert/<side>_expert[_<level>].yaml``, or ``config``)."""
    if side not in SIDES:
        raise ValueError(f"side must be 'french' or 'german', got {side!r}")
    if level is not None and level not in LEVELS:
        raise ValueError(f"unknown expert level {level!r}; levels: {', '.join(LEVELS)}")
    path = Path(config) if config is not None else expert_config_path(side, level)
    params, hparams = load_expert(path, side)
    name = f"{side}_expert" + (f"_{level}" if level else "")
    return ExpertBot(FRENCH if side == "french" else GERMAN, params, hparams, seed=seed, name=name)
