"""The expert bots: the side's scripted bot with tuned parameters, plus rollout lookahead where it pays.

An expert level is a file ``configs/ffo/bots/expert/<side>_expert[_<level>].yaml`` whose ``params`` are the
fields of :class:`ExpertParams`. Its ``heuristic`` key names the scripted bot's parameter file (in the
same folder): ``<side>_tuned.yaml``, found by :mod:`agents.ffo.bot_tuning` (cross-entropy search against
the other side's default bot on common random numbers; the figures are in that file's description).
The best parameters depend on the game data, so a file of the same name in a subfolder named after a
shipped data version (``configs/ffo/bots/expert/reconstruction-v3/<side>_tuned.yaml``) holds the parameters
for that version (tuned on it or, for v3, v2's: the file's header says which). The expert plays them in
games of that data version (the version the game's files declare, ``state.game.scenario.version``) and
the folder's own file in any other game.

Lookahead (``search`` lists the decisions, empty = none): at a listed decision the expert takes the
heuristic's choice and up to ``max_candidates - 1`` alternatives (passing first, attack targets by
their exact expected value), and plays each of them on ``determinizations`` samples of what it cannot
see (:func:`ffo_env.ffo.core.determinize.determinize`, rule 3.6, R3, R37), both sides continuing with
their scripted bots for ``horizon_turns`` game turns (the opponent modelled by its default bot). It
switches from the heuristic's choice only for a mean gain (French VP-equivalents,
:func:`agents.ffo.expert_search.french_value`) of at least ``min_gain`` and ``min_z`` paired standard
errors. ``time_budget`` caps the seconds of search a decision may take (no determinization starts after
it; every candidate is still scored on the same samples). The shipped levels set none and bound their time
by the sizes above instead, so that a game replays exactly on any machine; with a budget the number of
samples, and so the play, depends on the machine's speed.

It reads only what its side may see: the real state only through the scripted bot (which reads
``seen_stack``) and through determinized copies, built from a canonical form of the position in which
the hidden units are sorted (two states that look the same to the expert give the same samples). It is
deterministic given its seed (without a ``time_budget``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.ffo.botconfig import CONFIG_DIR, BotConfigError, load_params, param
from agents.ffo.expert_search import SearchSettings, paired_gain, score_candidates
from agents.ffo.heuristic_base import HeuristicBot
from ffo_env.ffo.core.actions import Special
from ffo_env.ffo.core.datasets import DATA_VERSIONS
from ffo_env.ffo.core.phases import Decision
from ffo_env.ffo.core.sides import Side
from ffo_env.ffo.core.state import State

FRENCH, GERMAN = Side.FRENCH, Side.GERMAN
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
    heuristic: str = param(
        "", "the scripted bot's parameter file, in configs/ffo/bots/expert/ (without .yaml)"
    )
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
    time_budget: float = param(
        0.0,
        "seconds of search per decision after which no new determinization starts (at least one is "
        "always played); 0: none. With a budget the play depends on the machine's speed",
        min=0,
        max=3600,
    )

    def settings(self) -> SearchSettings:
        return SearchSettings(
            self.determinizations,
            self.horizon_turns,
            self.step_value,
            self.garrison_value,
            self.win_bonus,
            self.time_budget,
        )

    def searched(self) -> frozenset[str]:
        return frozenset(s.strip() for s in self.search.split(",") if s.strip())


def _scripted(side: int, params: Any, seed: int | None, name: str) -> HeuristicBot:
    if side == FRENCH:
        from agents.ffo.french_heuristic import FrenchHeuristic

        return FrenchHeuristic(params, seed=seed, name=name)
    from agents.ffo.german_heuristic import GermanHeuristic

    return GermanHeuristic(params, seed=seed, name=name)


def _default_scripted(side: int) -> HeuristicBot:
    if side == FRENCH:
        from agents.ffo.french_heuristic import make_french

        return make_french(seed=0)
    from agents.ffo.german_heuristic import make_german

    return make_german(seed=0)


def _params_cls(side: int) -> type:
    if side == FRENCH:
        from agents.ffo.french_heuristic import FrenchParams

        return FrenchParams
    from agents.ffo.german_heuristic import GermanParams

    return GermanParams


class ExpertBot:
    """The side's scripted bot with tuned parameters; rollout search at the decisions in ``params.search``.

    ``heuristic_params`` are the scripted bot's parameters in any game; ``by_data`` maps a data version to
    the parameters tuned on it, played instead in games of that version (module doc)."""

    def __init__(
        self,
        side: int,
        params: ExpertParams,
        heuristic_params: Any,
        seed: int | None = None,
        name: str = "expert",
        by_data: dict[str, Any] | None = None,
    ) -> None:
        self.side = side
        self.params = params
        self.name = name
        self.by_data = dict(by_data or {})
        keyed: dict[str | None, Any] = {None: heuristic_params}  # None: a game of any other data
        keyed.update(self.by_data)
        self._bases = {key: _scripted(side, hp, seed, name) for key, hp in keyed.items()}
        self.base = self._bases[None]
        self.searched_decisions = params.searched()
        # rollouts: own side plays its tuned bot, the opponent its default bot (the model of the opponent)
        opponent = _default_scripted(1 - side)
        self._rollout_bots = {
            key: {side: _scripted(side, hp, 0, name), 1 - side: opponent} for key, hp in keyed.items()
        }
        self.rollout_bots: dict[int, HeuristicBot] = self._rollout_bots[None]
        self.rng = random.Random(seed)
        self.searched = 0
        self.deviations: dict[str, int] = {}

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)
        for bot in self._bases.values():
            bot.reset(seed)
        self.searched = 0
        self.deviations = {}

    def act_state(self, state: State) -> int:
        key: str | None = state.game.scenario.version
        if key not in self._bases:
            key = None  # a game of data the expert has no parameters tuned on: the folder's own file
        self.base, self.rollout_bots = self._bases[key], self._rollout_bots[key]
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


def load_expert(path: str | Path, side: str) -> tuple[ExpertParams, Any, dict[str, Any]]:
    """The expert parameters of ``path``, the scripted bot's parameters its ``heuristic`` key names, and
    those tuned on a data version (``<version>/<heuristic>.yaml`` beside ``path``), by version."""
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
    cls = _params_cls(Side.of(side))
    per_version = {v: path.parent / v / hpath.name for v in DATA_VERSIONS}
    by_data: dict[str, Any] = {v: load_params(p, cls, side) for v, p in per_version.items() if p.is_file()}
    return params, load_params(hpath, cls, side), by_data


def make_expert(
    side: str, level: str | None = None, seed: int | None = None, config: str | Path | None = None, **_kw: Any
) -> ExpertBot:
    """The expert of ``side`` at ``level`` (``configs/ffo/bots/expert/<side>_expert[_<level>].yaml``, or ``config``)."""
    side_i = int(Side.of(side))
    if level is not None and level not in LEVELS:
        raise ValueError(f"unknown expert level {level!r}; levels: {', '.join(LEVELS)}")
    path = Path(config) if config is not None else expert_config_path(side, level)
    params, hparams, by_data = load_expert(path, side)
    name = f"{side}_expert" + (f"_{level}" if level else "")
    return ExpertBot(side_i, params, hparams, seed=seed, name=name, by_data=by_data)
