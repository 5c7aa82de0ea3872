"""France Fights On as the shared environments see it: :class:`FFOAdapter` (see
:mod:`ffo_env.envs.adapter`), and :func:`make_game`, the cache of games by options.

The observation formats (``"dict"``: ``Dict(planes, globals, units)``, ``"flat"``: :mod:`ffo_env.ffo.encoding.flat`,
``"compact"``: :mod:`ffo_env.ffo.encoding.compact`), the view (``"player"``: fog of war, rule 3.6;
``"omniscient"``) and the game data belong to this game; the potential of ``reward="shaped"`` is
:func:`shaped_vp`, the projected score of ``reward="potential"`` :func:`projected_vp`.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from typing import Any

from gymnasium import spaces

from ffo_env.envs.adapter import GameAdapter, check_choice
from ffo_env.ffo.core.actions import IllegalActionError
from ffo_env.ffo.core.datasets import DATA_VERSIONS, data_dir
from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.scenario import scenario_for
from ffo_env.ffo.core.sides import SIDE_NAMES
from ffo_env.ffo.core.state import State
from ffo_env.ffo.encoding.compact import CompactEncoder, compact_encoder_for
from ffo_env.ffo.encoding.flat import flat_layout
from ffo_env.ffo.encoding.observation import encoder_for
from ffo_env.ffo.render.env_frames import Renderer
from ffo_env.ffo.spaces import compact_space, observation_dict_space

__all__ = ["FFOAdapter", "make_adapter", "make_game", "projected_vp", "shaped_vp"]

VIEWS = ("player", "omniscient")
OBSERVATION_FORMATS = ("dict", "flat", "compact")

_GAMES: OrderedDict[tuple[RulesOptions, str], Game] = OrderedDict()


def make_game(
    setup: str = "random", rules: dict[str, Any] | None = None, data: str | os.PathLike[str] | None = None
) -> Game:
    """The :class:`Game` with ``setup``, the other rules options of ``rules`` and the game data ``data``
    (a shipped data version such as ``"reconstruction-v1"``, a data folder, or None: ``$FFO_DATA`` or the
    default version).

    Games are immutable, so envs with the same options share one (and its encoder and tables): creating
    and closing many envs then costs no memory that outlives them."""
    opts = dict(rules or {})
    if "setup" in opts and opts["setup"] != setup:
        raise ValueError(f"setup given twice: setup={setup!r} and rules['setup']={opts['setup']!r}")
    opts["setup"] = setup
    options = RulesOptions.from_dict(opts)
    key = (options, str(data_dir(data).resolve()))
    game = _GAMES.get(key)
    if game is None:
        game = _GAMES[key] = Game(scenario=scenario_for(data), options=options)
        while len(_GAMES) > 8:
            _GAMES.popitem(last=False)
    else:
        _GAMES.move_to_end(key)
    return game


def shaped_vp(state: State) -> int:
    """The French VP that ``reward="shaped"`` follows: the score plus the VP pending in over-stacked
    German hexes (:meth:`~ffo_env.ffo.core.state.State.pending_overstack_vp`). The pending part is a
    potential (Ng, Harada & Russell 1999): it charges an over-stack to the move that makes it instead
    of to the removal at the end of the phase, many decisions later, and it is back to 0 when the
    phase ends, so it changes no game's total reward."""
    return state.vp + state.pending_overstack_vp()


def projected_vp(state: State) -> int:
    """The French VP this position would end the game with, the potential of the single-agent env's
    ``reward="potential"``: the score, the VP pending in over-stacked German hexes (rule 6.5, R9) and the
    city VP the French would add if the game ended now (rule 4.3, R21), all from the core. At the end it
    is the final score. A German learner's shaping follows it from the first turn: an over-stack, a lost
    attack and a city taken all move it at the decision that causes them, where the win reward says
    nothing until the game's last decision."""
    return state.vp + state.pending_overstack_vp() + state.city_vp_if_ended()


class FFOAdapter(GameAdapter):
    """France Fights On with ``game`` (from :func:`make_game`), an observation format and a view."""

    illegal_error = IllegalActionError

    def __init__(
        self,
        game: Game,
        observation_format: str = "dict",
        view: str = "player",
        render_scale: float = 0.35,
        data: str | None = None,
    ) -> None:
        self.game = game
        self.n_actions = game.num_distinct_actions
        self.observation_format = observation_format
        self.view = view
        self.omniscient = view == "omniscient"
        self.render_scale = render_scale
        self.data = data  # as the env was given it (pickling names a user's folder by its path)
        self.encoder = encoder_for(game)
        self.flat = flat_layout(game)
        self.compact: CompactEncoder | None = (
            compact_encoder_for(game) if observation_format == "compact" else None
        )
        self.observation_space: spaces.Space = (
            self.flat.space()
            if observation_format == "flat"
            else compact_space(game)
            if self.compact is not None
            else observation_dict_space(game)
        )

    def new_state(self, seed: int) -> State:
        return self.game.new_initial_state(seed)

    def start_state(self, start: object) -> State:
        """A core State of this game (copied), or a saved-state dict (``State.to_dict``), which the core checks
        (one ``StateError`` naming the key if it is damaged)."""
        game = self.game
        if isinstance(start, State):
            if start.game.options != game.options or start.game.scenario.version != game.scenario.version:
                raise ValueError(
                    f"options['state'] belongs to another game (rules {start.game.options}, data "
                    f"{start.game.scenario.version}); this env plays rules {game.options}, data "
                    f"{game.scenario.version}"
                )
            return start.clone()
        if isinstance(start, dict):
            return State.from_dict(game, start)
        raise TypeError(
            f"options['state'] must be a core State or a saved-state dict, got {type(start).__name__}"
        )

    def encode(self, state: State, side: int, legal: list[int] | None) -> Any:
        if self.compact is not None:
            return self.compact.encode(state, side, self.omniscient, legal=legal)
        obs = self.encoder.encode(state, side, self.omniscient, legal=legal)
        if self.observation_format == "flat":
            return self.flat.flatten(obs)
        return obs

    def opponent_observation(self, state: State, side: int) -> Any:
        """The structured observation (``Dict(planes, globals, units)``), whatever the env's format."""
        return self.encoder.encode(state, side, self.omniscient)

    def potential(self, state: State) -> float:
        return shaped_vp(state)

    def projected_score(self, state: State) -> float:
        return projected_vp(state)

    def winner(self, state: State) -> str | None:
        return None if state.winner is None else SIDE_NAMES[int(state.winner)]

    def facts(self, state: State) -> dict[str, Any]:
        return {"vp": state.vp, "turn": state.turn}

    def episode_facts(self, state: State) -> dict[str, Any]:
        return {"vp": state.vp, "turns": state.turn}

    def make_renderer(self) -> Renderer:
        return Renderer(self.game, self.render_scale)

    def for_game(self, game: Any) -> FFOAdapter:
        if game is self.game:
            return self
        return FFOAdapter(game, self.observation_format, self.view, self.render_scale, self.data)

    def __getstate__(self) -> dict[str, Any]:
        # the game as its options and data (a user's folder by its path, else a shipped version by its name)
        version = self.game.scenario.version
        data = self.data if self.data is not None or version not in DATA_VERSIONS else version
        return {
            "options": self.game.options.to_dict(),
            "game_data": data,
            "args": (self.observation_format, self.view, self.render_scale, self.data),
        }

    def __setstate__(self, d: dict[str, Any]) -> None:
        opts = d["options"]
        self.__init__(make_game(opts["setup"], opts, d["game_data"]), *d["args"])  # type: ignore[misc]


def make_adapter(
    setup: str = "random",
    rules: dict[str, Any] | None = None,
    data: str | os.PathLike[str] | None = None,
    observation_format: str = "dict",
    view: str = "player",
    render_scale: float = 0.35,
    game: Game | None = None,
) -> FFOAdapter:
    """The adapter of an env with these options (:meth:`ffo_env.games.GameInfo.env_adapter`); ``game``, if
    given, instead of the one of ``setup``, ``rules`` and ``data``."""
    check_choice("view", view, VIEWS)
    check_choice("observation_format", observation_format, OBSERVATION_FORMATS)
    g = game if game is not None else make_game(setup, rules, data)
    return FFOAdapter(g, observation_format, view, render_scale, None if data is None else str(data))
