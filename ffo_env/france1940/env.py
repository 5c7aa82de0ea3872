"""*France, 1940* as a PettingZoo AEC environment (``france1940_v0``) and a one-side Gymnasium env.

A thin translation layer over the rules core (:mod:`ffo_env.france1940.core`): the core owns legality, dice,
hidden information and the sequence of play; :mod:`ffo_env.france1940.encoding` owns the tensors. The
PettingZoo and Gymnasium contracts are the suite's (:class:`~ffo_env.envs.suite_aec.SuiteAECEnv`,
:class:`~ffo_env.envs.suite_single_agent.SuiteSingleAgentEnv`); this module holds the game's adapter
(:class:`France1940Adapter`) and its options.

==================  ==========================================================
Import              ``from ffo_env import france1940_v0``; ``france1940_v0.env()``
                    (wrapped), ``raw_env()``, ``parallel_env()`` (turn-based)
Agents              ``["french", "german"]``: ``french`` commands the Allied
                    player (French, British, Belgian, Dutch units); the agent
                    to act is the core's ``State.current_agent`` (the defender
                    answers its own decisions: designation, CAP, retreats,
                    losses, counter-attack targets, the fortress reaction)
Action space        ``Discrete(1480)``: ``done``, ``yes``, ``exit``, ``cap``,
                    ``interdict``, a hex (1,280), a unit of the roster (192)
                    (:mod:`ffo_env.france1940.core.actions`)
Observation         ``{"observation": O, "action_mask": Box(0, 1, (1480,), int8)}``;
                    ``O`` by ``observation_format``: ``"dict"`` (default)
                    ``Dict(planes (59, 40, 32), units (192, 48), globals (103,))``,
                    ``"flat"`` ``Box((84839,))``, ``"compact"`` ``Box((9638,))``
                    (layouts: :mod:`ffo_env.france1940.encoding`), float32 in
                    [0, 1], computed from the core's view of the agent (fog:
                    the seed and the dice; with ``hidden_obac`` the other
                    side's Order of Battle and its arrival schedule)
Rewards             ``reward="win"`` (default): +1 / -1 at the end (zero-sum;
                    the core's victory conditions), else 0.
                    ``reward="shaped"``: besides, every step gives the French
                    ``shaping_scale`` x (P' - P) and the German minus that,
                    P = (Allied VP - German VP) / 25 (the German's minimum VP
                    for a win, C§12); zero-sum. Default ``shaping_scale`` 0.5
Illegal actions     ``illegal_action="penalty"`` (default, PettingZoo classic):
                    the offender gets -1, the other +1, the game ends, ``info``
                    names the action and the reason; the core state is not
                    changed. ``"raise"`` raises ``IllegalActionError``
Truncation          after ``max_steps`` decisions (default: none)
``info``            ``turn``, ``vp`` [Allied, German], ``result`` (``""`` until
                    the end, then ``allied``, ``german`` or ``german_<level>``
                    with variable victory), ``columns`` [Allied, German] unless
                    ``hidden_obac`` hides them (then only at the end); at the
                    end ``winner`` and ``steps``
Render              ``render_mode="ansi"``: the position as text (omniscient:
                    for spectators)
==================  ==========================================================

Options (the game's, beside the suite's ``reward``, ``shaping_scale``, ``max_steps``, ``illegal_action``,
``render_mode``):

- ``allied_obac`` / ``german_obac``: the armies, each side's Order of Battle Alternative column
  (``ffo_env.france1940.core.options.ALLIED_COLUMNS`` / ``GERMAN_COLUMNS``), ``"random"`` (the core draws it
  at setup with the game's own generator, a recorded die, P3), or a list of columns: each game then plays one
  pair drawn from the game seed (train on some pairs, evaluate on others). Default: the rules' (``Hist``,
  ``I``).
- ``bef_variant``: Pournelle's BEF variant (F46-F58), the same as ``rules={"bef_variant": True}``.
- ``data_version``: the game data (``ffo_env.france1940.core.data.DATA_VERSIONS``), the same as
  ``rules={"data_version": ...}``; default ``$FFO_F40_DATA`` or ``DEFAULT_DATA`` (``f40-reconstruction-v3``
  since session 48, P20: v2 with the CRT's columns 3-1 to 5-1 one die row deadlier; v2 and v1 selectable).
- ``rules``: a :class:`~ffo_env.france1940.core.options.RulesOptions` or a dict of its fields (the optional
  rules, ``hidden_obac``, the readings of F2, ...). An option given both here and by name must agree.
- ``observation_format``: ``"dict"``, ``"flat"``, ``"compact"``.

``reset(seed)`` seeds the env's generator, which draws the game seed; ``reset(options={"game_seed": n})``
uses ``n`` directly, ``{"state": s}`` starts from a copy of ``s`` (a core ``State`` of this env's rules, or
a saved-state dict, checked by the core).

The one-side env :class:`France1940SingleAgentEnv` is the suite's (:mod:`ffo_env.envs.suite_single_agent`):
``side``, ``opponent`` (None: uniform random from the env's seeded generator), ``opponent_sampler``,
``penalty``; its observation is ``O`` alone (the mask from ``action_masks()`` and ``info["action_mask"]``);
``info["episode_stats"]`` holds ``learner_steps``, ``opponent_steps``, ``turns``, ``vp``, ``result``,
``winner`` (and ``columns`` as in ``info``).

Version history: v0 -- first release (rules engine ``france1940-core-1``, data ``f40-reconstruction-v1``,
encoding version 1). v0, session 41 -- data versions: ``data_version`` selects ``f40-reconstruction-v1``
(the default, unchanged) or ``f40-reconstruction-v2`` (docs/france1940/bots.md); v1 games play as before.
v0, session 42 -- the default data is ``f40-reconstruction-v2`` (its Combat Results Table kills less in the
columns 2-1 to 5-1, components.md §6.2; between the expert bots the historical pair is inside 40-60 % German
wins on v2, not on v1): an env built without ``data_version`` plays v2. The spaces, the actions and the rules
engine are unchanged, so the ids stay ``-v0`` (as France Fights On's did when its default data changed);
``data_version="f40-reconstruction-v1"`` plays the first release's game byte for byte, and records and saved
states replay under the version they name (one without a version, written in session 40, under v1).
v0, session 48 -- the default data is ``f40-reconstruction-v3`` (P20: the loss results of the CRT's columns 3-1
to 5-1 one die row earlier than v2's) and the Allied ``expert`` bot is session 45's defence (the bot
``expert-defence`` of sessions 45-47; session 41's Allied expert is ``expert-s41``): between the two experts the
historical pair is inside 40-60 % German wins on v3 (docs/france1940/bots.md). Spaces, actions and engine are
unchanged, so the ids stay ``-v0``; ``data_version="f40-reconstruction-v2"`` plays sessions 42-47's game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ffo_env.envs.adapter import EnvOptions, GameAdapter, check_choice
from ffo_env.envs.suite_aec import SuiteAECEnv, parallel, wrapped
from ffo_env.envs.suite_single_agent import SuiteSingleAgentEnv
from ffo_env.france1940 import encoding as enc
from ffo_env.france1940.core.actions import N_ACTIONS, IllegalActionError
from ffo_env.france1940.core.data import AGENTS, ALLIED, GERMAN
from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.options import ALLIED_COLUMNS, GERMAN_COLUMNS, RANDOM, RulesOptions
from ffo_env.france1940.core.state import MAP, State
from ffo_env.france1940.core.state_io import state_from_dict

__all__ = [
    "AGENTS",
    "OBSERVATION_FORMATS",
    "France1940Adapter",
    "France1940SingleAgentEnv",
    "env",
    "make_adapter",
    "make_rules",
    "parallel_env",
    "raw_env",
    "render_text",
]

OBSERVATION_FORMATS = ("dict", "flat", "compact")
RENDER_MODES = ("ansi",)
SHAPING_SCALE = 0.5  # 25 net VP (the German's minimum for a win) are worth half a win
Armies = str | Sequence[str] | None


def _columns(name: str, value: Armies, known: tuple[str, ...]) -> tuple[str, ...] | None:
    """``value`` as a tuple of columns (None: the rules' own), each checked: one error naming it."""
    if value is None:
        return None
    cols = (value,) if isinstance(value, str) else tuple(value)
    if not cols:
        raise ValueError(f"{name}: give a column, 'random' or a non-empty list of columns")
    for c in cols:
        if c not in (*known, RANDOM) or not isinstance(c, str):
            raise ValueError(f"{name}: unknown Order of Battle Alternative {c!r}; known: {[*known, RANDOM]}")
    if len(cols) > 1 and RANDOM in cols:
        raise ValueError(f"{name}: 'random' already draws among every column; a list holds columns only")
    return cols


def make_rules(
    rules: RulesOptions | dict[str, Any] | None = None,
    allied_obac: Armies = None,
    german_obac: Armies = None,
    bef_variant: bool | None = None,
    data_version: str | None = None,
) -> tuple[RulesOptions, tuple[str, ...], tuple[str, ...]]:
    """The rules options of an env and the columns each side's games draw from (one each unless a list was
    given). An option given both in ``rules`` and by name must agree (one error naming it)."""
    base = rules.to_dict() if isinstance(rules, RulesOptions) else dict(rules or {})
    RulesOptions.from_dict(dict(base))  # unknown or bad fields: the core's error
    named: dict[str, Any] = {}
    allied = _columns("allied_obac", allied_obac, ALLIED_COLUMNS)
    german = _columns("german_obac", german_obac, GERMAN_COLUMNS)
    if allied is not None:
        named["allied_obac"] = allied[0]
    if german is not None:
        named["german_obac"] = german[0]
    if bef_variant is not None:
        if not isinstance(bef_variant, bool):
            raise TypeError(f"bef_variant must be true or false, found {bef_variant!r}")
        named["bef_variant"] = bef_variant
    if data_version is not None:
        named["data_version"] = data_version  # an unknown version: the core's error naming the known ones
    for key, value in named.items():
        if key in base and base[key] != value:
            raise ValueError(f"{key} is given twice: {value!r} and rules[{key!r}] = {base[key]!r}")
    options = RulesOptions.from_dict({**base, **named})
    return (
        options,
        allied if allied is not None else (options.allied_obac,),
        german if german is not None else (options.german_obac,),
    )


def render_text(state: State) -> str:
    """The position as text: the decision, VP, the armies and every unit on the map by hex (omniscient)."""
    lines = [f"{state.decision_string()}  VP allied {state.vp[ALLIED]} german {state.vp[GERMAN]}"]
    lines.append(f"columns {state.columns[ALLIED]} / {state.columns[GERMAN]}")
    by_hex: dict[int, list[str]] = {}
    for u, st in enumerate(state.status):
        if st == MAP:
            by_hex.setdefault(state.hex[u], []).append(state.uid(u))
    lines += [f"{h:4d}: {' '.join(us)}" for h, us in sorted(by_hex.items())]
    if state.result:
        lines.append(f"result {state.result}")
    return "\n".join(lines)


class _TextRenderer:
    """``render_mode="ansi"``: :func:`render_text` (omniscient: for spectators)."""

    def render(self, state: State, mode: str) -> str:
        return render_text(state)


class France1940Adapter(GameAdapter):
    """*France, 1940* with its options as the shared environments see it (:mod:`ffo_env.envs.adapter`).

    ``game`` is the core's ``Game`` of the first pair of columns; with lists of columns each new game
    builds (once) and plays the ``Game`` of the pair drawn from its seed."""

    illegal_error = IllegalActionError
    n_actions = N_ACTIONS

    def __init__(
        self,
        options: RulesOptions,
        allied: tuple[str, ...] = (),
        german: tuple[str, ...] = (),
        observation_format: str = "dict",
    ) -> None:
        check_choice("observation_format", observation_format, OBSERVATION_FORMATS)
        self.options = options
        self.allied = allied or (options.allied_obac,)
        self.german = german or (options.german_obac,)
        self.observation_format = observation_format
        self._games: dict[tuple[str, str], Game] = {}
        self.game = self._game(self.allied[0], self.german[0])
        self.observation_space: spaces.Space = observation_space(self.game, observation_format)

    def _game(self, allied: str, german: str) -> Game:
        key = (allied, german)
        if key not in self._games:
            opts = RulesOptions.from_dict(
                {**self.options.to_dict(), "allied_obac": allied, "german_obac": german}
            )
            self._games[key] = Game(opts)
        return self._games[key]

    def games(self) -> list[Game]:
        """Every ``Game`` this adapter may play (one per pair of columns)."""
        return [self._game(a, g) for a in self.allied for g in self.german]

    def new_state(self, seed: int) -> State:
        if len(self.allied) == 1 and len(self.german) == 1:
            return self.game.new_initial_state(seed)
        rng = np.random.default_rng(seed)  # the pair follows from the game seed: a seed replays its game
        a = self.allied[int(rng.integers(len(self.allied)))]
        g = self.german[int(rng.integers(len(self.german)))]
        return self._game(a, g).new_initial_state(seed)

    def start_state(self, start: object) -> State:
        if isinstance(start, dict):
            start = state_from_dict(start)
        if not isinstance(start, State):
            raise TypeError(
                f"options['state'] must be a France 1940 State or a saved-state dict, got {type(start).__name__}"
            )
        o = start.game.options
        ours = {k: v for k, v in self.options.to_dict().items() if not k.endswith("_obac")}
        theirs = {k: v for k, v in o.to_dict().items() if not k.endswith("_obac")}
        if ours != theirs or not (
            _column_ok(o.allied_obac, start.columns[ALLIED], self.allied)
            and _column_ok(o.german_obac, start.columns[GERMAN], self.german)
        ):
            raise ValueError(
                f"options['state'] belongs to another game (rules {o.to_dict()}); this env plays "
                f"{ours} with columns {list(self.allied)} / {list(self.german)}"
            )
        return start.clone()

    def encode(self, state: State, side: int, legal: list[int] | None) -> Any:
        return encode_as(state, side, legal, self.observation_format)

    def opponent_observation(self, state: State, side: int) -> Any:
        legal = state.legal_actions() if state.current_player == side else None
        return encode_as(
            state, side, legal, self.observation_format
        )  # the env's format: a policy of it plays

    def potential(self, state: State) -> float:
        vp = state.vp
        return (vp[ALLIED] - vp[GERMAN]) / float(state.game.data.tables["victory"]["german_min_vp"])

    def winner(self, state: State) -> str | None:
        return AGENTS[state.winner] if state.winner >= 0 else None

    def facts(self, state: State) -> dict[str, Any]:
        out: dict[str, Any] = {"turn": state.turn, "vp": list(state.vp), "result": state.result}
        if not state.game.options.hidden_obac or state.is_terminal():  # P3: both columns are open (F60)
            out["columns"] = list(state.columns)
        return out

    def episode_facts(self, state: State) -> dict[str, Any]:
        facts = self.facts(state)
        facts["turns"] = facts.pop("turn")
        return facts

    def make_renderer(self) -> _TextRenderer:
        return _TextRenderer()

    def for_game(self, game: Any) -> France1940Adapter:
        return self

    def __getstate__(self) -> dict[str, Any]:
        return {
            "options": self.options.to_dict(),
            "allied": list(self.allied),
            "german": list(self.german),
            "observation_format": self.observation_format,
        }

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__init__(  # type: ignore[misc]
            RulesOptions.from_dict(d["options"]),
            tuple(d["allied"]),
            tuple(d["german"]),
            d["observation_format"],
        )


def _column_ok(option: str, played: str, pool: tuple[str, ...]) -> bool:
    return option in pool or (RANDOM in pool and option == RANDOM) or played in pool


def observation_space(game: Game, observation_format: str) -> spaces.Space:
    """The space of one observation in ``observation_format``."""
    if observation_format == "flat":
        return spaces.Box(0.0, 1.0, (enc.FLAT_SIZE,), np.float32)
    if observation_format == "compact":
        return spaces.Box(0.0, 1.0, (enc.compact_size(game),), np.float32)
    return spaces.Dict({k: spaces.Box(0.0, 1.0, enc.SHAPES[k], np.float32) for k in enc.FLAT_BLOCKS})


def encode_as(state: State, side: int, legal: list[int] | None, observation_format: str) -> Any:
    obs = enc.encode(state, side, legal)
    if observation_format == "flat":
        return enc.flatten(obs)
    if observation_format == "compact":
        return enc.compact_from_dict(state.game, obs)
    return obs


def make_adapter(
    rules: RulesOptions | dict[str, Any] | None = None,
    allied_obac: Armies = None,
    german_obac: Armies = None,
    bef_variant: bool | None = None,
    observation_format: str = "dict",
    data_version: str | None = None,
) -> France1940Adapter:
    """The adapter of an env with these options (:meth:`ffo_env.games.GameInfo.env_adapter`)."""
    options, allied, german = make_rules(rules, allied_obac, german_obac, bef_variant, data_version)
    return France1940Adapter(options, allied, german, observation_format)


class raw_env(SuiteAECEnv):  # noqa: N801 - PettingZoo naming convention
    """The unwrapped AEC environment (see the module docstring)."""

    metadata = {"name": "france1940_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        allied_obac: Armies = None,
        german_obac: Armies = None,
        bef_variant: bool | None = None,
        rules: RulesOptions | dict[str, Any] | None = None,
        observation_format: str = "dict",
        illegal_action: str = "penalty",
        render_mode: str | None = None,
        max_steps: int | None = None,
        reward: str = "win",
        shaping_scale: float = SHAPING_SCALE,
        data_version: str | None = None,
    ) -> None:
        options = EnvOptions(reward, shaping_scale, max_steps, illegal_action, render_mode, RENDER_MODES)
        super().__init__(
            make_adapter(rules, allied_obac, german_obac, bef_variant, observation_format, data_version),
            options,
        )

    @property
    def game_state(self) -> State:
        """The core state (read or clone it; change it only through ``step``)."""
        state: State = super().game_state
        return state


def env(**kwargs: Any) -> AECEnv:
    """The AEC env in PettingZoo's ``OrderEnforcingWrapper``; the env handles illegal actions itself."""
    return wrapped(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> Any:
    """Turn-based parallel view (PettingZoo ``turn_based_aec_to_parallel``): every step takes a dict of
    actions of which only the acting agent's is used."""
    return parallel(raw_env(**kwargs))


class France1940SingleAgentEnv(SuiteSingleAgentEnv):
    """One side against an ``opponent`` (the contract: :mod:`ffo_env.envs.suite_single_agent`; None plays
    uniformly at random from the env's seeded generator). The observation is the learner's in
    ``observation_format`` (``"dict"``: ``Dict(planes, units, globals)``; ``"flat"``, ``"compact"``: a 1-D
    float32 ``Box``); :meth:`action_masks` gives the legal actions (sb3-contrib ``MaskablePPO``), as does
    ``info["action_mask"]``. Rewards as the AEC env's, with the learner's sign; ``reward="potential"`` is
    refused (the core has no projected final score). ``side`` is the learner's name (``learner`` its
    index)."""

    metadata = {"render_modes": ["ansi"]}
    mask_dtype = np.int8

    def __init__(
        self,
        side: str = "french",
        opponent: Any = None,
        observation_format: str = "dict",
        allied_obac: Armies = None,
        german_obac: Armies = None,
        bef_variant: bool | None = None,
        rules: RulesOptions | dict[str, Any] | None = None,
        illegal_action: str = "penalty",
        render_mode: str | None = None,
        max_steps: int | None = None,
        reward: str = "win",
        shaping_scale: float = SHAPING_SCALE,
        opponent_sampler: Callable[[np.random.Generator], Any] | None = None,
        penalty: float = -1.0,
        data_version: str | None = None,
    ) -> None:
        options = EnvOptions(reward, shaping_scale, max_steps, illegal_action, render_mode, RENDER_MODES)
        adapter = make_adapter(rules, allied_obac, german_obac, bef_variant, observation_format, data_version)
        super().__init__(adapter, options, side, opponent, opponent_sampler, penalty)
        self.observation_format = observation_format
        self.observation_space: spaces.Space = adapter.observation_space

    @property
    def game_state(self) -> State:
        state: State = self._game_state()
        return state

    @game_state.setter
    def game_state(self, value: State) -> None:
        self._state = value

    @property
    def num_steps(self) -> int:
        return self._stats.get("learner_steps", 0)

    def _obs(self) -> Any:
        s = self.game_state
        mine = s.current_player == self.learner and not s.is_terminal() and not self._over
        return self.adapter.encode(s, self.learner, s.legal_actions() if mine else None)
