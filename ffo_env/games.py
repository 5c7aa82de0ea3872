"""The games of the suite behind one small interface (issue 41): what every command, wrapper and tool
asks of a game, so that none of them imports a game's modules by name.

A game is picked by name (``--game ffo`` / ``--game springtime`` on the command line, ``game=`` in code)
and described by a :class:`GameInfo`. Its states all offer the :class:`GameState` protocol, the same in
both games: ``legal_actions()``, ``legal_action_mask()``, ``check_action(a)``, ``apply_action(a)``,
``current_player`` (0 = ``french``, 1 = ``german`` in every game of the suite), ``is_terminal()``,
``returns()``, ``clone()``, ``to_dict()``, ``action_to_string(a)``, ``decision_string()``, ``seed``.

What differs between games lives in the game's own package and is reached through the functions of
:class:`GameInfo`, which import it only when called (``import ffo_env.games`` imports no game):

- ``new_state(seed, scenario=None, options=None)``: a fresh game (``options`` a mapping of the game's
  ``RulesOptions`` fields; ``scenario`` the game's scenario name, or None for its default);
- ``state_from_dict(d)`` / ``state_to_dict(s)``: saved states, checked on load;
- ``recorder(state)``: a ``Recorder`` that plays the state forward (``.apply(a)``, ``.state``) and writes
  each decision with its text, ``.record()`` the game record; ``replay(record)`` (verifies every decision, die and field a viewer shows and
  raises ``ValueError`` naming the first divergence), ``load_record(path)`` / ``save_record(rec, path)``;
- ``aec_env(**kw)`` / ``parallel_env(**kw)``: the PettingZoo environments; ``single_agent_env(**kw)`` the
  one-side Gymnasium env (``side``, ``opponent``, ...); ``gym_ids[side]`` the Gymnasium ids (structured,
  ``-flat`` and ``-compact``), ``gym_defaults[id]`` an id's own keyword defaults;
- ``env_adapter(**kw)``: what the suite's shared environments (:mod:`ffo_env.envs.suite_aec`,
  :mod:`ffo_env.envs.suite_single_agent`) ask of the game, with the game's env options
  (:class:`ffo_env.envs.adapter.GameAdapter`: a new state, a start state, the observation, the shaping
  potential, the winner, the ``info`` facts, the renderer).

The agents of a game are named in the layer above (:func:`agents.registry.make_agent` with ``game=``).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

SIDES = ("french", "german")  # the agents of every game of the suite (issue 41)
DEFAULT_GAME = "ffo"


@runtime_checkable
class GameState(Protocol):
    """What the shared machinery (harness, wrappers, viewer, tools) may ask of a state of any game."""

    seed: int

    @property
    def current_player(self) -> int: ...

    def legal_actions(self) -> list[int]: ...

    def legal_action_mask(self) -> Any: ...

    def check_action(self, action: object) -> int: ...

    def apply_action(self, action: int) -> None: ...

    def is_terminal(self) -> bool: ...

    def returns(self) -> list[float]: ...

    def clone(self) -> Any: ...

    def to_dict(self) -> dict[str, Any]: ...

    def action_to_string(self, a: int) -> str: ...

    def decision_string(self) -> str: ...


def _attr(path: str) -> Any:
    """``"pkg.module:name"`` -> the object, imported on first use."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class GameOption:
    """A command-line option of one game's own (an argparse ``dest``), refused with any other game."""

    name: str  # the option's dest on the parsed arguments (``--name`` on the command line)
    default: Any  # its value when not given (None or this: not given)
    refusal: str  # the error's text after ``--name VALUE: ``, with ``{title}`` the title of the game played


@dataclass(frozen=True)
class GameInfo:
    """One game of the suite: its name, title and where its parts live (imported lazily)."""

    name: str
    title: str
    rulebook: str  # the shared seed file the rules core implements
    n_actions: int
    scenarios: tuple[str, ...]
    record_format: str  # the ``format`` field of the game's records
    _new_state: str
    _state_from_dict: str
    _recorder: str
    _replay: str
    _load_record: str
    _save_record: str
    _aec_env: str
    _parallel_env: str
    _single_agent_env: str
    _env_adapter: str
    gym_ids: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    _write_viewer: str = ""  # the game's HTML replay viewer: write_viewer(record, path) -> size
    # the convention root of the game's places in every layer: ffo_env.<package>, agents.<package>,
    # webplay.<package>, benchmarks.<package>, configs/<package>/ ("" = the game's name)
    package: str = ""
    options: tuple[GameOption, ...] = ()  # the game's own command-line options (refused with another game)
    _score: str = ""  # score_columns(state) -> a finished game's own columns in a result row
    figure: str = ""  # the figure a game's result is measured by beside its winner ("vp", "morale")
    score_keys: tuple[str, ...] = ()  # the keys of score_columns(state), in order (a tournament's games.csv)
    vector_observation: str = ""  # the env's observation_format of one flat float vector ("compact", "flat")
    _versions: str = ""  # versions(setup) -> {"engine", "data", "observation_spec"} of a result or tournament
    # keyword defaults of some Gymnasium ids beyond side, observation format and opponent (id -> kwargs)
    gym_defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def package_name(self) -> str:
        """The game's package name in every layer (``package``, or the game's name)."""
        return self.package or self.name

    def new_state(
        self, seed: int = 0, scenario: str | None = None, options: Mapping[str, Any] | None = None
    ) -> GameState:
        state: GameState = _attr(self._new_state)(seed, scenario, dict(options or {}))
        return state

    def state_from_dict(self, d: object) -> GameState:
        state: GameState = _attr(self._state_from_dict)(d)
        return state

    def state_to_dict(self, state: GameState) -> dict[str, Any]:
        return state.to_dict()

    def recorder(self, state: GameState) -> Any:
        """The game's ``Recorder`` over ``state``: ``.apply(a)``, ``.state``, ``.record()``."""
        return _attr(self._recorder)(state)

    def replay(self, record: object) -> GameState:
        state: GameState = _attr(self._replay)(record)
        return state

    def load_record(self, path: str | Path) -> dict[str, Any]:
        rec: dict[str, Any] = _attr(self._load_record)(path)
        return rec

    def save_record(self, record: dict[str, Any], path: str | Path) -> None:
        _attr(self._save_record)(record, path)

    def aec_env(self, **kwargs: Any) -> Any:
        return _attr(self._aec_env)(**kwargs)

    def parallel_env(self, **kwargs: Any) -> Any:
        return _attr(self._parallel_env)(**kwargs)

    def single_agent_env(self, **kwargs: Any) -> Any:
        """The one-side Gymnasium env (``side``, ``opponent``: an agent object or None for random, ...)."""
        return _attr(self._single_agent_env)(**kwargs)

    def env_adapter(self, **kwargs: Any) -> Any:
        """The game's :class:`~ffo_env.envs.adapter.GameAdapter` with these env options (FFO: ``setup``,
        ``rules``, ``data``, ``observation_format``, ``view``; Springtime: ``scenario``, ``rules``)."""
        return _attr(self._env_adapter)(**kwargs)

    def write_viewer(self, record: dict[str, Any], path: str | Path) -> int:
        """Write the game's HTML replay viewer of ``record`` to ``path`` (the record is verified first: nothing
        is written for one that does not replay); returns its size in bytes."""
        return int(_attr(self._write_viewer)(record, path))

    def score_columns(self, state: GameState) -> dict[str, Any]:
        """A finished game's own columns in a result row (France Fights On: VP and their breakdown;
        Springtime for Hitler: result and final French Morale)."""
        cols: dict[str, Any] = _attr(self._score)(state)
        return cols

    def versions(self, setup: str = "random") -> dict[str, str]:
        """The engine, game data and observation spec hash a result or tournament of the game records
        (``setup``: France Fights On's setup mode, whose games may play other data, R37)."""
        out: dict[str, str] = _attr(self._versions)(setup)
        return out

    def random_playout(self, seed: int, max_decisions: int = 100_000) -> GameState:
        """A game of uniform random legal play from ``seed`` (the same generator for every game)."""
        rng = np.random.default_rng(seed)
        state = self.new_state(seed)
        for _ in range(max_decisions):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
        return state


GAMES: dict[str, GameInfo] = {
    "ffo": GameInfo(
        name="ffo",
        title="France Fights On",
        rulebook="000 (World at War #39)",
        n_actions=0,  # depends on the scenario's unit count: Game().num_distinct_actions
        scenarios=("v3",),
        record_format="ffo-game-record",
        _new_state="ffo_env.ffo.interface:new_state",
        _state_from_dict="ffo_env.ffo.interface:state_from_dict",
        _recorder="ffo_env.ffo.core.record:Recorder",
        _replay="ffo_env.ffo.interface:replay",
        _load_record="ffo_env.ffo.core.record:load_record",
        _save_record="ffo_env.ffo.core.record:save_record",
        _aec_env="ffo_env.ffo.env:env",
        _parallel_env="ffo_env.ffo.env:parallel_env",
        _single_agent_env="ffo_env.ffo.interface:single_agent_env",
        _env_adapter="ffo_env.ffo.adapter:make_adapter",
        gym_ids={
            "french": ("ffo_env/French-v0", "ffo_env/French-flat-v0", "ffo_env/French-compact-v0"),
            "german": ("ffo_env/German-v0", "ffo_env/German-flat-v0", "ffo_env/German-compact-v0"),
        },
        # issue 60: candidate slots and the VP potential, from which a stock MLP learns (the environment card)
        gym_defaults={"ffo_env/German-compact-v0": {"action_layout": "slots", "reward": "potential"}},
        _write_viewer="ffo_env.ffo.render.html_viewer:write_viewer",
        package="ffo",
        options=(
            GameOption("setup", "random", "setup modes are France Fights On's (R2), not {title}'s"),
            GameOption(
                "data", None, "game data versions are France Fights On's; {title} plays its one data set"
            ),
            GameOption("view", "player", "the observation's view is France Fights On's, not {title}'s"),
        ),
        _score="ffo_env.ffo.interface:score_columns",
        figure="vp",
        score_keys=(
            "vp",
            *(
                f"vp_{k}"
                for k in ("evacuation", "german_losses", "cities", "naval", "refugees", "british_51")
            ),
        ),
        vector_observation="compact",
        _versions="ffo_env.ffo.interface:versions",
    ),
    "springtime": GameInfo(
        name="springtime",
        title="Springtime for Hitler",
        rulebook="002 (M. Rinella, 2016)",
        n_actions=294,
        scenarios=("campaign", "plan_red"),
        record_format="springtime-game-record",
        _new_state="ffo_env.springtime.interface:new_state",
        _state_from_dict="ffo_env.springtime.core.state_io:state_from_dict",
        _recorder="ffo_env.springtime.core.record:Recorder",
        _replay="ffo_env.springtime.core.record:replay",
        _load_record="ffo_env.springtime.core.record:read_record",
        _save_record="ffo_env.springtime.interface:save_record",
        _aec_env="ffo_env.springtime.env:env",
        _parallel_env="ffo_env.springtime.env:parallel_env",
        _single_agent_env="ffo_env.springtime.env:SpringtimeSingleAgentEnv",
        _env_adapter="ffo_env.springtime.env:make_adapter",
        gym_ids={
            "french": ("ffo_env/Springtime-French-v0", "ffo_env/Springtime-French-flat-v0"),
            "german": ("ffo_env/Springtime-German-v0", "ffo_env/Springtime-German-flat-v0"),
        },
        _write_viewer="ffo_env.springtime.render.viewer:write_viewer",
        package="springtime",
        options=(GameOption("scenario", "campaign", "scenarios are Springtime for Hitler's, not {title}'s"),),
        _score="ffo_env.springtime.interface:score_columns",
        figure="morale",
        score_keys=("result", "morale"),
        vector_observation="flat",
        _versions="ffo_env.springtime.interface:versions",
    ),
    # issue 63: its hooks live in its own package (ffo_env/france1940/interface.py)
    "france1940": GameInfo(
        name="france1940",
        title="France, 1940",
        rulebook="001 (J. F. Dunnigan, Avalon Hill 1972) with 004 (BEF variant)",
        n_actions=1480,
        scenarios=("standard",),
        record_format="france1940-game-record",
        _new_state="ffo_env.france1940.interface:new_state",
        _state_from_dict="ffo_env.france1940.interface:state_from_dict",
        _recorder="ffo_env.france1940.interface:recorder",
        _replay="ffo_env.france1940.interface:replay",
        _load_record="ffo_env.france1940.interface:load_record",
        _save_record="ffo_env.france1940.interface:save_record",
        _aec_env="ffo_env.france1940.interface:aec_env",
        _parallel_env="ffo_env.france1940.interface:parallel_env",
        _single_agent_env="ffo_env.france1940.interface:single_agent_env",
        _env_adapter="ffo_env.france1940.interface:env_adapter",
        gym_ids={
            "french": (
                "ffo_env/France1940-French-v0",
                "ffo_env/France1940-French-flat-v0",
                "ffo_env/France1940-French-compact-v0",
            ),
            "german": (
                "ffo_env/France1940-German-v0",
                "ffo_env/France1940-German-flat-v0",
                "ffo_env/France1940-German-compact-v0",
            ),
        },
        _write_viewer="ffo_env.france1940.interface:write_viewer",
        package="france1940",
        # its data versions (ffo_env.france1940.core.data.DATA_VERSIONS), chosen by --data like FFO's
        options=(
            GameOption(
                "data", None, "game data versions are France Fights On's and France 1940's, not {title}'s"
            ),
        ),
        _score="ffo_env.france1940.interface:score_columns",
        figure="vp_margin",
        score_keys=("result", "vp_allied", "vp_german", "vp_margin"),
        vector_observation="compact",
        _versions="ffo_env.france1940.interface:versions",
    ),
}
GAME_NAMES = tuple(GAMES)


def game_info(name: str) -> GameInfo:
    """The game called ``name`` (``ffo`` or ``springtime``); any other name is one clear error."""
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; the games of the suite: {', '.join(GAME_NAMES)}") from None


def game_of_record(path: str | Path) -> str | None:
    """The game whose record ``path`` holds, by its ``format`` field (None: unreadable, or no game's format;
    the game's own loader then says what is wrong)."""
    import json

    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    fmt = doc.get("format") if isinstance(doc, dict) else None
    return next((g.name for g in GAMES.values() if g.record_format == fmt), None)


def refuse_game_options(args: Any, game: str | None = None) -> None:
    """Another game's own options (:attr:`GameInfo.options`) given with ``game`` (or ``args.game``) are one
    error naming the option, not silently ignored: e.g. France Fights On's ``--setup`` (setup modes, R2)
    and ``--data`` (game data versions) with Springtime for Hitler. An option counts as given when the
    parsed arguments hold it with a value other than None and its default."""
    name = str(game or getattr(args, "game", DEFAULT_GAME))
    played = game_info(name)
    own = {o.name for o in played.options}
    for other in GAMES.values():
        if other.name == played.name:
            continue
        for opt in other.options:
            value = getattr(args, opt.name, None)
            if opt.name in own or value is None or value == opt.default:
                continue
            raise ValueError(f"--{opt.name} {value}: " + opt.refusal.format(title=played.title))


refuse_ffo_options = refuse_game_options  # the name before issue 62 (one release)


def add_game_option(parser: Any, help_suffix: str = "") -> None:
    """``--game NAME`` on a command, one of the games of the suite (default ``ffo``, France Fights On)."""
    parser.add_argument(
        "--game",
        choices=GAME_NAMES,
        default=DEFAULT_GAME,
        help="which game of the suite: "
        + ", ".join(
            f"{g.name} ({g.title}{', the default' if g.name == DEFAULT_GAME else ''})" for g in GAMES.values()
        )
        + help_suffix,
    )
