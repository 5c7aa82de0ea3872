"""Run a tournament between agents and write win rates, VP and ratings (JSON and CSV).

``ffo eval`` plays every pairing (French agent vs German agent) for N games with
recorded seeds, in parallel worker processes, and writes to ``--out``:

* ``results.json``: the configuration (command line, seeds, options) and, per
  pairing, win rates per side with 95 % Wilson intervals, VP mean/median/stdev and
  the mean VP breakdown, game length (turns, decisions), mean seconds per game,
  and the OpenSkill rating of every agent-side;
* ``pairings.csv``: the same per pairing, one row each;
* ``games.csv``: one row per game (seed, winner, VP, breakdown, turns, decisions);
* ``ratings.csv``: one row per agent-side (``name@french`` / ``name@german``);
* ``records/``: game records of the first ``--save-records`` games of each pairing;
* ``tournament.json`` (what is being played) and ``games.jsonl`` (one line per finished game, written as
  games finish): a killed tournament keeps every finished game, and ``ffo eval --resume DIR`` plays only
  the games still missing. Without ``--out``, each tournament gets a new folder ``runs/eval-<timestamp>``;
  an ``--out`` that already holds a tournament is refused unless ``--resume`` or ``--force``.

``--game springtime`` plays Springtime for Hitler instead of France Fights On (the default, ``--game ffo``)
through the suite's game interface (:mod:`ffo_env.games`) and its bots (``make_agent(..., game=...)``): a
game's row then has its result and final French Morale in place of the VP columns, ``--setup`` and
``--data`` are France Fights On's only (refused with another game), ``--html`` writes the game's own replay
viewer (:meth:`ffo_env.games.GameInfo.write_viewer`), and the tournament folder records its game
(``tournament.json`` and ``results.json`` name it; resuming it with another ``--game`` is refused).

Game ``i`` of every pairing uses seed ``--seed + i`` (the agents get
``2*seed+1`` and ``2*seed+2``), so results do not depend on the number of
workers. ``--record-seed S`` replays the single game with seed S of the first
pairing to a record and exits.

The Python API, :func:`run_tournament`, accepts agent names or factories
``factory(side, seed) -> agent`` (for trained policies).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import multiprocessing as mp
import os
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Any

from agents.paired import score_for, wilson_interval
from agents.registry import agent_names, agent_sides, is_agent_name
from ffo_env.atomic import new_unique_dir
from ffo_env.ffo.core.game import ENGINE_VERSION, SETUP_MODES
from ffo_env.ffo.core.sides import SIDE_NAMES, Side
from ffo_env.ffo.env import make_game
from ffo_env.games import DEFAULT_GAME, GAME_NAMES, GAMES, add_game_option, game_info, refuse_game_options

AgentSpec = str | Callable[..., Any]

VP_KINDS = ("evacuation", "german_losses", "cities", "naval", "refugees", "british_51")


# ------------------------------------------------------------------ games


@dataclass(frozen=True)
class GameSpec:
    pairing: int
    index: int
    seed: int
    french: AgentSpec
    german: AgentSpec
    french_name: str
    german_name: str
    setup: str
    record_dir: str | None
    html: bool = False  # also write the HTML replay viewer beside the record
    game: str = DEFAULT_GAME  # the game of the suite (ffo_env.games)


def _make(spec: AgentSpec, side: str, seed: int, game: str = DEFAULT_GAME) -> Any:
    if isinstance(spec, str):
        from agents.registry import make_agent

        return make_agent(spec, side, seed=seed, game=game)
    return spec(side, seed)


def game_agent_names(game: str) -> tuple[str, ...]:
    """The agent names of ``game`` (its package's, :func:`agents.registry.agent_names`)."""
    return agent_names(game)


def is_game_agent_name(name: object, game: str = DEFAULT_GAME) -> bool:
    """A name an agent of ``game`` has, or ``policy:PATH`` (whether PATH loads is checked when it is made)."""
    return is_agent_name(name, game)


def unknown_agent(name: str, game: str) -> ValueError:
    """The error for an agent name ``game`` does not have."""
    where = "" if game == DEFAULT_GAME else f" of {game}"
    return ValueError(
        f"unknown agent{where} {name!r}; known agents: {', '.join(game_agent_names(game))}, policy:PATH"
    )


def game_versions(game: str, setup: str = "random") -> tuple[str, str]:
    """``(engine, data version)`` of the games a tournament of ``game`` plays (R37: a resumed tournament plays
    the same data)."""
    if game == DEFAULT_GAME:
        return ENGINE_VERSION, make_game(setup).scenario.version
    info = game_info(game)
    rec = info.recorder(info.new_state(0)).record()  # a record names the engine and data it was played with
    return str(rec["engine"]), str(rec["data"])


def agent_seed(game_seed: int, side: str) -> int:
    """The seed of ``side``'s agent in the game with seed ``game_seed``: ``2*seed+1`` French, ``2*seed+2``
    German, so that every tool that plays a seed (eval, ladder, play, bot tuning) plays the same game."""
    return 2 * game_seed + 1 + int(Side.of(side))


def play_game(g: GameSpec) -> dict[str, Any]:
    """Play one game of ``g.game`` through the game interface (:mod:`ffo_env.games`); return its result row
    (and write its record, and the game's replay viewer with ``g.html``, if asked)."""
    info = game_info(g.game)
    state: Any = (
        make_game(g.setup).new_initial_state(g.seed) if g.game == DEFAULT_GAME else info.new_state(g.seed)
    )
    agents = {side: _make(spec, side, agent_seed(g.seed, side), g.game) for side, spec in _sides(g)}
    for a in agents.values():
        if hasattr(a, "reset"):
            a.reset(None)
    rec = info.recorder(state) if g.record_dir else None
    dt = play_out(state, agents, rec)
    history = state.history
    row: dict[str, Any] = {
        "pairing": g.pairing,
        "game": g.index,
        "seed": g.seed,
        "french": g.french_name,
        "german": g.german_name,
        "winner": SIDE_NAMES[state.winner],
        **_score_columns(g.game, state),
        "turn": state.turn,
        "decisions": len(history),
        "agent_decisions": sum(1 for _s, _a, auto in history if not auto),
        "seconds": round(dt, 4),
    }
    if rec is not None and g.record_dir:
        path = (
            Path(g.record_dir)
            / f"p{g.pairing:02d}_{_safe(g.french_name)}_vs_{_safe(g.german_name)}_seed{g.seed}.json"
        )
        record = rec.record()
        if (
            g.game == DEFAULT_GAME
        ):  # a Springtime record's keys are fixed (it verifies): its agents are in its name
            record["agents"] = {"french": g.french_name, "german": g.german_name}
        info.save_record(record, path)
        row["record"] = str(path)
        if g.html:
            info.write_viewer(
                record, path.with_suffix(".html")
            )  # the game's viewer verifies the record first
            row["viewer"] = str(path.with_suffix(".html"))
    return row


def play_out(state: Any, agents: Mapping[str, Any], recorder: Any = None) -> float:
    """Play ``state`` (of any game of the suite) to its end, each decision by the agent of the side to move,
    through ``recorder`` when given (it writes each decision and its text); returns the seconds it took."""
    t0 = time.perf_counter()
    while not state.is_terminal():
        a = agents[SIDE_NAMES[state.current_player]].act_state(state)
        if recorder is not None:
            recorder.apply(a)
        else:
            state.apply_action(a)
    return time.perf_counter() - t0


def _score_columns(game: str, state: Any) -> dict[str, Any]:
    """A game row's own columns, the game's to say (:meth:`ffo_env.games.GameInfo.score_columns`): France
    Fights On's VP and their breakdown, Springtime for Hitler's result and final French Morale, France 1940's
    result, each side's VP and the margin of its 3:1 victory ratio."""
    return game_info(game).score_columns(state)


def _sides(g: GameSpec) -> tuple[tuple[str, AgentSpec], tuple[str, AgentSpec]]:
    return (("french", g.french), ("german", g.german))


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


# ------------------------------------------------------------------ summaries


def _wins(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The agents, game count and each side's wins with Wilson intervals: the part every game shares."""
    n = len(rows)
    fw = sum(1 for r in rows if r["winner"] == "french")
    lo_f, hi_f = wilson_interval(fw, n)
    lo_g, hi_g = wilson_interval(n - fw, n)
    return {
        "french": rows[0]["french"],
        "german": rows[0]["german"],
        "games": n,
        "french_wins": fw,
        "german_wins": n - fw,
        "french_win_rate": fw / n,
        "french_win_ci95": [lo_f, hi_f],
        "german_win_rate": (n - fw) / n,
        "german_win_ci95": [lo_g, hi_g],
    }


def _lengths(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "turn_mean": statistics.fmean(r["turn"] for r in rows),
        "decisions_mean": statistics.fmean(r["decisions"] for r in rows),
        "agent_decisions_mean": statistics.fmean(r["agent_decisions"] for r in rows),
        "seconds_per_game": statistics.fmean(r["seconds"] for r in rows),
        "seeds": [r["seed"] for r in rows],
    }


def _spread(prefix: str, values: list[float]) -> dict[str, float]:
    return {
        f"{prefix}_mean": statistics.fmean(values),
        f"{prefix}_median": statistics.median(values),
        f"{prefix}_stdev": statistics.stdev(values) if len(values) > 1 else 0.0,
    }


def summarize_pairing(rows: list[dict[str, Any]]) -> dict[str, Any]:
    if "vp" not in rows[0]:  # another game of the suite: results and Morale instead of VP
        return _summarize_suite_pairing(rows)
    vps = [r["vp"] for r in rows]
    return {
        **_wins(rows),
        **_spread("vp", vps),
        "vp_min": min(vps),
        "vp_max": max(vps),
        "vp_breakdown_mean": {k: statistics.fmean(r[f"vp_{k}"] for r in rows) for k in VP_KINDS},
        **_lengths(rows),
    }


def _row_figure(row: Mapping[str, Any]) -> str:
    """The figure a game row of another game of the suite is measured by (its game's
    :attr:`~ffo_env.games.GameInfo.figure`, the first registered one among the row's columns)."""
    for info in GAMES.values():
        if info.figure and info.figure in row:
            return info.figure
    raise ValueError(f"a game row with none of the suite's figures: {sorted(row)}")


def _summarize_suite_pairing(rows: list[dict[str, Any]]) -> dict[str, Any]:
    results: dict[str, int] = {}
    for r in rows:
        results[r["result"]] = results.get(r["result"], 0) + 1
    fig = _row_figure(rows[0])
    return {
        **_wins(rows),
        "results": dict(sorted(results.items())),
        **(
            _spread(fig, [float(r[fig]) for r in rows])
            if rows[0][fig] is not None
            else dict.fromkeys((f"{fig}_mean", f"{fig}_median", f"{fig}_stdev"))  # a game with no figure
        ),
        **_lengths(rows),
    }


def rate(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """OpenSkill (Plackett-Luce) ratings of every agent-side, games taken in seed order per pairing."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:  # pragma: no cover - openskill is an 'eval' extra
        return {}
    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    ordered = sorted(rows, key=lambda r: (r["game"], r["pairing"]))
    for r in ordered:
        f, g = f"{r['french']}@french", f"{r['german']}@german"
        for k in (f, g):
            if k not in ratings:
                ratings[k] = model.rating(name=k)
        ranks: list[float] = [1.0, 2.0] if r["winner"] == "french" else [2.0, 1.0]
        (rf,), (rg,) = model.rate([[ratings[f]], [ratings[g]]], ranks=ranks)
        ratings[f], ratings[g] = rf, rg
    return {k: {"mu": v.mu, "sigma": v.sigma, "ordinal": v.ordinal()} for k, v in sorted(ratings.items())}


# ------------------------------------------------------------------ tournament


def _name_of(spec: AgentSpec) -> str:
    if isinstance(spec, str):
        return spec
    return getattr(spec, "agent_name", None) or getattr(spec, "__name__", None) or type(spec).__name__


def round_robin(agents: Sequence[AgentSpec], game: str = DEFAULT_GAME) -> list[tuple[AgentSpec, AgentSpec]]:
    """Every agent as French against every agent as German (including itself), each on the sides it can play
    in ``game``: a policy file or a one-side bot such as ``french_expert`` (France 1940's ``expert-attack``)
    plays only its own side."""

    def plays(spec: AgentSpec, side: str) -> bool:
        return not isinstance(spec, str) or side in agent_sides(spec, game)

    # each agent's sides asked once per side (a policy file's are read from its metadata), not once per pairing
    french = [a for a in agents if plays(a, "french")]
    german = [a for a in agents if plays(a, "german")]
    return list(product(french, german))


def check_both_sides_played(names: Sequence[str], option: str, game: str = DEFAULT_GAME) -> None:
    """Refuse a round robin of ``names`` in which no agent can play one of the sides of ``game`` (it has no
    games)."""
    for side in SIDE_NAMES:
        if not any(side in agent_sides(n, game) for n in names):
            raise ValueError(f"{option}: no agent plays the {side} side")


def tournament_plan(
    labels: Sequence[tuple[str, str]],
    games: int,
    seed: int,
    setup: str,
    game: str = DEFAULT_GAME,
    save_records: int = 0,
    html: bool = False,
    data_version: str | None = None,
) -> dict[str, Any]:
    """The ``tournament.json`` of a tournament: what a resume must match (``data_version``: the game's, looked
    up when not given)."""
    if data_version is None:
        data_version = game_versions(game, setup)[1]
    return {
        "format": "ffo-tournament",
        "version": 1,
        "pairings": [list(lab) for lab in labels],
        "games": games,
        "seed": seed,
        "setup": setup,
        "save_records": save_records,
        "html": html,
        "data_version": data_version,  # R37: a resumed tournament plays the same data
        "game": game,
    }


def start_tournament(
    out_dir: Path, plan: dict[str, Any], rows: Sequence[dict[str, Any]], overwrite: bool = False
) -> None:
    """Start a new tournament in ``out_dir`` as :func:`run_tournament` would (an existing one is refused unless
    ``overwrite``), holding ``rows`` already: games of its pairings played elsewhere, e.g. a baseline's games
    reused by ``ffo compare --a-games``; resume it to play the rest. A kill before the log is written leaves a
    tournament with no games, which a resume plays whole."""
    from ffo_env.atomic import atomic_write_text

    _open_tournament(out_dir, plan, resume=False, overwrite=overwrite)
    log = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows)
    atomic_write_text(out_dir / GAMES_LOG, log)


def run_tournament(
    pairings: Sequence[tuple[AgentSpec, AgentSpec]],
    games: int = 100,
    seed: int = 0,
    workers: int = 2,
    setup: str = "random",
    out: str | Path | None = None,
    save_records: int = 0,
    progress: bool = True,
    html: bool = False,
    cli_args: dict[str, Any] | None = None,
    resume: bool = False,
    overwrite: bool = False,
    game: str = DEFAULT_GAME,
) -> dict[str, Any]:
    """Play ``games`` games of every ``(french, german)`` pairing of ``game`` (``ffo`` or ``springtime``) and
    summarise them.

    Agents are registry names or factories ``factory(side, seed) -> agent`` (give a
    factory an ``agent_name`` attribute to name it in the tables; factories must be
    picklable for ``workers > 1``, e.g. module-level functions or ``functools.partial``).
    Returns the summary dict that ``results.json`` holds; writes the files if ``out``. With ``out``, every
    finished game is appended to ``games.jsonl`` at once; ``resume=True`` keeps the finished games of the same
    tournament in ``out`` and plays the rest. An ``out`` holding another tournament raises
    :class:`TournamentExists` unless ``overwrite=True``.
    """
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    loaded: set[tuple[str, str]] = set()
    for pair in pairings:
        for spec, side in zip(pair, SIDE_NAMES, strict=True):
            # before anything is written: a one-side bot in the other seat is refused with nothing on disk
            if isinstance(spec, str) and side not in (sides := agent_sides(spec, game)):
                raise ValueError(
                    f"agent {spec!r} of {game} plays only the {' and '.join(sides)} side, not the {side}"
                )
            # a policy file that is missing or does not load is refused here too, not in the first game
            if isinstance(spec, str) and (spec.startswith("policy:") or spec == "pretrained"):
                if (spec, side) not in loaded:
                    _make(spec, side, 0, game)
                    loaded.add((spec, side))
    engine, data_version = game_versions(game, setup)
    out_dir = Path(out) if out is not None else None
    labels = [(_name_of(f), _name_of(g)) for f, g in pairings]
    plan = tournament_plan(labels, games, seed, setup, game, save_records, html, data_version)
    done: list[dict[str, Any]] = []
    rec_dir = None
    if out_dir is not None:
        done = _open_tournament(out_dir, plan, resume, overwrite)
        if save_records > 0:
            rec_dir = out_dir / "records"
            rec_dir.mkdir(exist_ok=True)
    finished = {(r["pairing"], r["game"]) for r in done}
    specs = []
    # seed-major: every pairing advances together, so a tournament stopped early (or a comparison read
    # before it ends) holds the same seeds for each pairing, paired and comparable
    for i in range(games):
        for p, (f, g) in enumerate(pairings):
            fn, gn = labels[p]
            if (p, i) not in finished:
                specs.append(
                    GameSpec(
                        p,
                        i,
                        seed + i,
                        f,
                        g,
                        fn,
                        gn,
                        setup,
                        str(rec_dir) if rec_dir is not None and i < save_records else None,
                        html,
                        game,
                    )
                )
    t0 = time.perf_counter()
    log = _GameLog(out_dir / GAMES_LOG) if out_dir is not None else None
    try:
        rows = _run_all(
            specs, workers, progress, on_row=log.append if log is not None else None, already=len(done)
        )
    finally:
        if log is not None:
            log.close()
    wall = time.perf_counter() - t0  # this session's games only, when resumed
    rows = done + rows
    rows.sort(key=lambda r: (r["pairing"], r["game"]))
    summary = {
        "config": {
            "game": game,
            "games_per_pairing": games,
            "first_seed": seed,
            "seeds": f"{seed}..{seed + games - 1}",
            "agent_seeds": "french 2*seed+1, german 2*seed+2",
            "setup": setup,
            "workers": workers,
            "pairings": [{"french": f, "german": g} for f, g in labels],
            "cli_args": cli_args,
            "resumed_games": len(done),
            "engine": engine,
            "data_version": data_version,
        },
        "pairings": [summarize_pairing([r for r in rows if r["pairing"] == p]) for p in range(len(pairings))],
        "ratings": rate(rows),
        "wall_seconds": round(wall, 2),  # of this invocation (a resumed tournament: only the games it played)
        "game_seconds_total": round(sum(float(r.get("seconds", 0.0)) for r in rows), 2),
    }
    if out_dir is not None:
        write_outputs(out_dir, summary, rows)
    return summary


TOURNAMENT_FILE = "tournament.json"
GAMES_LOG = "games.jsonl"


class TournamentExists(ValueError):
    """``--out`` already holds a tournament: resume it, overwrite it, or choose another folder."""


def _open_tournament(
    out_dir: Path, plan: dict[str, Any], resume: bool, overwrite: bool
) -> list[dict[str, Any]]:
    """Prepare ``out_dir``; return the rows of the games a resumed tournament already finished."""
    from ffo_env.atomic import atomic_write_text

    out_dir.mkdir(parents=True, exist_ok=True)
    plan_path, log_path = out_dir / TOURNAMENT_FILE, out_dir / GAMES_LOG
    existing = [p for p in (plan_path, log_path, out_dir / "results.json") if p.exists()]
    if resume:
        if not plan_path.exists():
            raise TournamentExists(
                f"{out_dir}: nothing to resume (no {TOURNAMENT_FILE}); start the tournament without --resume"
            )
        old = _read_plan(plan_path)
        for key in sorted(set(plan) | set(old)):
            if old.get(key) != plan.get(key):
                # a game whose data versions are chosen by --data (its own option in the registry)
                data_hint = (
                    key == "data_version"
                    and old.get(key)
                    and any(o.name == "data" for o in game_info(old["game"]).options)
                )
                hint = f" (add --data {old.get(key)})" if data_hint else ""
                if key == "game":
                    hint = f" (add --game {old.get(key)})"
                raise TournamentExists(
                    f"{plan_path}: {key} is {old.get(key)!r}, this tournament's is "
                    f"{plan.get(key)!r}; resume with the same settings{hint} or use another --out"
                )
        return _read_log(log_path, plan)
    if existing and not overwrite:
        raise TournamentExists(
            f"{out_dir}: already holds a tournament ({existing[0].name}); continue it with "
            "--resume, replace it with --force, or choose another --out"
        )
    for p in (log_path, out_dir / "results.json"):
        p.unlink(missing_ok=True)
    atomic_write_text(plan_path, json.dumps(plan, indent=1) + "\n")
    return []


def _read_plan(path: Path) -> dict[str, Any]:
    try:
        plan = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise TournamentExists(f"{path}: cannot read ({e})") from e
    if not isinstance(plan, dict) or plan.get("format") != "ffo-tournament":
        raise TournamentExists(f"{path}: not an ffo-tournament file")
    pairs = plan.get("pairings")
    if not (
        isinstance(pairs, list)
        and pairs
        and all(isinstance(p, list) and len(p) == 2 and all(isinstance(n, str) for n in p) for p in pairs)
    ):
        raise TournamentExists(f"{path}: pairings: expected a list of [french, german] agent names")
    checks: dict[str, tuple[str, Callable[[Any], bool]]] = {
        "games": ("an integer >= 1", lambda v: _is_int(v) and v >= 1),
        "seed": ("an integer", _is_int),
        "setup": ("'random', 'fixed' or 'decide'", lambda v: v in SETUP_MODES),
        "save_records": ("an integer >= 0", lambda v: _is_int(v) and v >= 0),
        "html": ("true or false", lambda v: isinstance(v, bool)),
        "game": (" or ".join(repr(n) for n in GAME_NAMES), lambda v: v in GAME_NAMES),
    }
    plan.setdefault("game", DEFAULT_GAME)  # a tournament started before the suite had games played ffo
    for key, (expected, ok) in checks.items():
        if key not in plan or not ok(plan[key]):
            raise TournamentExists(f"{path}: {key}: expected {expected}, got {plan.get(key)!r}")
    return plan


def read_games(out_dir: str | Path) -> list[dict[str, Any]]:
    """The finished games of the tournament in ``out_dir`` (its ``games.jsonl``), each with its pairing number,
    in pairing and game order: what a command built on a tournament (``ffo compare``) reads its rows from."""
    out_dir = Path(out_dir)
    plan = _read_plan(out_dir / TOURNAMENT_FILE)
    return _read_log(out_dir / GAMES_LOG, plan)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _read_log(path: Path, plan: dict[str, Any]) -> list[dict[str, Any]]:
    """The finished games; a last line torn by a kill is dropped (that game is played again)."""
    if not path.exists():
        return []
    # a game is its two agents and its seed: a row's pairing number is looked up by its agents' names, so the
    # rows stay right when a ladder gains agents and its pairings are renumbered (extend_tournament)
    index = {(f, g): p for p, (f, g) in enumerate(plan["pairings"])}
    rows: dict[tuple[int, int], dict[str, Any]] = {}
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    for n, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
            key = (index[(row["french"], row["german"])], int(row["game"]))
            ok = 0 <= key[1] < plan["games"] and row["seed"] == plan["seed"] + key[1]
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            ok = False
        if not ok:
            if n == len(lines):
                break
            raise TournamentExists(f"{path}:{n}: not a game row of this tournament; the log is damaged")
        row["pairing"] = key[0]
        rows[key] = row
    return [rows[k] for k in sorted(rows)]


def extend_tournament(out_dir: Path, pairings: Sequence[tuple[AgentSpec, AgentSpec]]) -> None:
    """Make the tournament in ``out_dir`` play ``pairings``, which must hold all of its own: its finished games
    are kept (renumbered to the new pairings' order) and a resume plays the new pairings' games.

    Crash-safe at any point: the plan is replaced first, then the log, each atomically, and the log's rows
    are matched to pairings by their agents' names, not their numbers."""
    from ffo_env.atomic import atomic_write_text

    plan_path, log_path = out_dir / TOURNAMENT_FILE, out_dir / GAMES_LOG
    if not plan_path.exists():
        raise TournamentExists(f"{out_dir}: no {TOURNAMENT_FILE}; is it a folder written by 'ffo ladder'?")
    plan = _read_plan(plan_path)
    new = [[_name_of(f), _name_of(g)] for f, g in pairings]
    missing = [p for p in plan["pairings"] if p not in new]
    if missing:
        raise TournamentExists(
            f"{plan_path}: the new pairings leave out {missing[0][0]} vs {missing[0][1]}, which this "
            "tournament plays"
        )
    rows = _read_log(log_path, plan)
    plan["pairings"] = new
    atomic_write_text(plan_path, json.dumps(plan, indent=1) + "\n")
    index = {(f, g): p for p, (f, g) in enumerate(new)}
    for row in rows:
        row["pairing"] = index[(row["french"], row["german"])]
    rows.sort(key=lambda r: (r["pairing"], r["game"]))
    atomic_write_text(log_path, "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))


class _GameLog:
    """``games.jsonl``: one JSON line per finished game, flushed and fsynced before the next game counts."""

    def __init__(self, path: Path) -> None:
        self.f = open(path, "a", encoding="utf-8")  # noqa: SIM115 - held open for the whole tournament

    def append(self, row: dict[str, Any]) -> None:
        self.f.write(json.dumps(row, separators=(",", ":")) + "\n")
        self.f.flush()
        os.fsync(self.f.fileno())

    def close(self) -> None:
        self.f.close()


def _run_all(
    specs: list[GameSpec],
    workers: int,
    progress: bool,
    on_row: Callable[[dict[str, Any]], None] | None = None,
    already: int = 0,
) -> list[dict[str, Any]]:
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(
                total=len(specs) + already, initial=already, desc="games", unit="game", file=sys.stderr
            )
        except ImportError:  # pragma: no cover
            bar = None
    rows = []
    if workers == 1 or len(specs) == 1:
        for s in specs:
            rows.append(play_game(s))
            if on_row is not None:
                on_row(rows[-1])
            if bar is not None:
                bar.update(1)
    else:
        # spawn, not fork: a parent that has run torch (training's final evaluation) must not fork
        # its OpenMP state; each worker plays with one torch thread so that workers don't thrash
        ctx = mp.get_context("spawn")
        with ctx.Pool(workers, initializer=_init_worker) as pool:
            for r in pool.imap_unordered(
                play_game, specs, chunksize=max(1, min(8, len(specs) // (workers * 8) or 1))
            ):
                rows.append(r)
                if on_row is not None:
                    on_row(r)
                if bar is not None:
                    bar.update(1)
    if bar is not None:
        bar.close()
    return rows


def _init_worker() -> None:
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ["MKL_NUM_THREADS"] = "1"
    if "torch" in sys.modules:  # pragma: no cover - only when a parent's modules were inherited
        sys.modules["torch"].set_num_threads(1)


PAIRING_COLUMNS = (
    "french",
    "german",
    "games",
    "french_wins",
    "french_win_rate",
    "french_win_lo95",
    "french_win_hi95",
    "german_wins",
    "german_win_rate",
    "german_win_lo95",
    "german_win_hi95",
    "vp_mean",
    "vp_median",
    "vp_stdev",
    "vp_min",
    "vp_max",
    *(f"vp_{k}_mean" for k in VP_KINDS),
    "turn_mean",
    "decisions_mean",
    "agent_decisions_mean",
    "seconds_per_game",
)


def suite_pairing_columns(figure: str) -> tuple[str, ...]:
    """The ``pairings.csv`` columns of another game of the suite than the default: its results and the spread
    of its figure (:attr:`~ffo_env.games.GameInfo.figure`: Springtime's final French Morale, France 1940's
    Allied VP margin) in place of the VP columns."""
    return (
        *PAIRING_COLUMNS[:11],
        "results",
        f"{figure}_mean",
        f"{figure}_median",
        f"{figure}_stdev",
        "turn_mean",
        "decisions_mean",
        "agent_decisions_mean",
        "seconds_per_game",
    )


# games.csv: the columns of every game of the suite around each game's own (_score_columns)
GAME_COLUMNS_FIRST = ("pairing", "game", "seed", "french", "german", "winner")
GAME_COLUMNS_LAST = ("turn", "decisions", "agent_decisions", "seconds")


def games_csv_columns(game: str) -> list[str]:
    """The columns of a tournament's ``games.csv`` for ``game``: every game's around the game's own
    (:attr:`~ffo_env.games.GameInfo.score_keys`, the keys of :func:`_score_columns`; a row's column missing
    here would be dropped from the file)."""
    return [*GAME_COLUMNS_FIRST, *game_info(game).score_keys, *GAME_COLUMNS_LAST]


def _pairing_figure(p: Mapping[str, Any]) -> str:
    """The figure of a pairing summary of another game of the suite (the one whose ``<figure>_mean`` it has)."""
    for info in GAMES.values():
        if info.figure and f"{info.figure}_mean" in p:
            return info.figure
    raise ValueError(f"a pairing summary with none of the suite's figures: {sorted(p)}")


def _is_suite(summary: dict[str, Any]) -> bool:
    return summary["config"].get("game", DEFAULT_GAME) != DEFAULT_GAME


def suite_pairing_row(p: dict[str, Any]) -> dict[str, Any]:
    cols = suite_pairing_columns(_pairing_figure(p))
    row = {k: p[k] for k in cols if k in p}
    row["french_win_lo95"], row["french_win_hi95"] = p["french_win_ci95"]
    row["german_win_lo95"], row["german_win_hi95"] = p["german_win_ci95"]
    row["results"] = " ".join(f"{k}:{v}" for k, v in p["results"].items())
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in ((c, row[c]) for c in cols)}


def pairing_row(p: dict[str, Any]) -> dict[str, Any]:
    row = {k: p[k] for k in PAIRING_COLUMNS if k in p}
    row["french_win_lo95"], row["french_win_hi95"] = p["french_win_ci95"]
    row["german_win_lo95"], row["german_win_hi95"] = p["german_win_ci95"]
    for k in VP_KINDS:
        row[f"vp_{k}_mean"] = p["vp_breakdown_mean"][k]
    return {
        k: (round(v, 4) if isinstance(v, float) else v) for k, v in ((c, row[c]) for c in PAIRING_COLUMNS)
    }


def write_outputs(out: Path, summary: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    from ffo_env.atomic import atomic_write_text

    def csv_text(write: Callable[[Any], None]) -> str:
        buf = io.StringIO(newline="")
        write(buf)
        return buf.getvalue()

    suite = _is_suite(summary)

    def pairings_csv(f: Any) -> None:
        figure = game_info(summary["config"]["game"]).figure if suite else ""
        w = csv.DictWriter(f, fieldnames=suite_pairing_columns(figure) if suite else PAIRING_COLUMNS)
        w.writeheader()
        for p in summary["pairings"]:
            w.writerow(suite_pairing_row(p) if suite else pairing_row(p))

    game_cols = games_csv_columns(summary["config"].get("game", DEFAULT_GAME))

    def games_csv(f: Any) -> None:
        w = csv.DictWriter(f, fieldnames=game_cols, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)

    def ratings_csv(f: Any) -> None:
        w = csv.writer(f)
        w.writerow(["agent_side", "mu", "sigma", "ordinal"])
        for k, v in summary["ratings"].items():
            w.writerow([k, round(v["mu"], 3), round(v["sigma"], 3), round(v["ordinal"], 3)])

    atomic_write_text(out / "pairings.csv", csv_text(pairings_csv))
    atomic_write_text(out / "games.csv", csv_text(games_csv))
    atomic_write_text(out / "ratings.csv", csv_text(ratings_csv))
    atomic_write_text(out / "results.json", json.dumps(summary, indent=1) + "\n")  # last: the run is complete


def format_table(summary: dict[str, Any]) -> str:
    if _is_suite(summary):
        return _format_suite_table(summary)
    lines = [
        f"{'french':<28} {'german':<28} {'n':>4} {'French win':>10} {'95% CI':>15} {'VP mean':>8} {'median':>6}"
        f" {'evac':>5} {'Gloss':>5} {'city':>5} {'naval':>5} {'turns':>5}"
    ]
    for p in summary["pairings"]:
        lo, hi = p["french_win_ci95"]
        b = p["vp_breakdown_mean"]
        lines.append(
            f"{p['french']:<28} {p['german']:<28} {p['games']:>4} {p['french_win_rate']:>10.3f}"
            f" {f'[{lo:.3f},{hi:.3f}]':>15} {p['vp_mean']:>8.2f} {p['vp_median']:>6.1f}"
            f" {b['evacuation']:>5.1f} {b['german_losses']:>5.1f} {b['cities']:>5.1f} {b['naval']:>5.1f}"
            f" {p['turn_mean']:>5.1f}"
        )
    return "\n".join(lines + _rating_lines(summary))


def _rating_lines(summary: dict[str, Any]) -> list[str]:
    """The ratings under a tournament's table (none when the summary has none)."""
    if not summary.get("ratings"):
        return []
    return ["ratings (OpenSkill Plackett-Luce; ordinal = mu - 3 sigma):"] + [
        f"  {k:<40} mu {v['mu']:6.2f}  sigma {v['sigma']:5.2f}  ordinal {v['ordinal']:6.2f}"
        for k, v in summary["ratings"].items()
    ]


def _cell(morale: float | None) -> str:
    return f"{morale:>6.1f}" if morale is not None else f"{'-':>6}"  # '-': a game with no Morale


def _format_suite_table(summary: dict[str, Any]) -> str:
    info = game_info(summary["config"]["game"])
    lines = [
        f"{info.title}",
        f"{'french':<20} {'german':<20} {'n':>4} {'French win':>10} {'95% CI':>15}"
        f" {score_for(info.figure).column:>6} {'turns':>5}  results",
    ]
    for p in summary["pairings"]:
        lo, hi = p["french_win_ci95"]
        res = " ".join(f"{k}:{v}" for k, v in p["results"].items())
        lines.append(
            f"{p['french']:<20} {p['german']:<20} {p['games']:>4} {p['french_win_rate']:>10.3f}"
            f" {f'[{lo:.3f},{hi:.3f}]':>15} {_cell(p.get(f'{info.figure}_mean'))}"
            f" {p['turn_mean']:>5.1f}  {res}"
        )
    return "\n".join(lines + _rating_lines(summary))


# ------------------------------------------------------------------ CLI


def add_run_arguments(
    p: argparse.ArgumentParser, *, what: str, games: int, seed_help: str, out_help: str, resume_help: str
) -> None:
    """The options every tournament command shares (``ffo eval`` and ``ffo ladder``): how many games, from
    which seed, on how many workers, with which setup, and where the results go or are resumed from."""
    p.add_argument("--games", "-n", type=int, default=games, help=f"games per pairing (default {games})")
    p.add_argument("--seed", type=int, default=0, help=f"{seed_help} (default 0)")
    p.add_argument("--workers", type=int, default=2, help="parallel worker processes (default 2)")
    p.add_argument(
        "--setup",
        default="random",
        choices=SETUP_MODES,
        help="setup mode for every game (R2; default random; France Fights On only)",
    )
    p.add_argument("--out", default=None, metavar="DIR", help=out_help)
    p.add_argument("--resume", metavar="DIR", help=resume_help)
    p.add_argument("--force", action="store_true", help=f"replace a {what} already in --out")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_game_option(p, "; a resumed tournament must be given its own game")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--agents",
        default="random,heuristic",
        help="comma-separated agent names for a round robin: every agent as French against every agent"
        " as German (default: random,heuristic)",
    )
    p.add_argument(
        "--pairings",
        metavar="F:G,...",
        help="explicit pairings french_agent:german_agent, comma-separated (overrides --agents)",
    )
    add_run_arguments(
        p,
        what="tournament",
        games=100,
        seed_help="seed of the first game; game i uses seed+i",
        out_help="output folder for results.json, pairings.csv, games.csv, ratings.csv (default: a new folder "
        "runs/eval-<timestamp>); an existing tournament there is refused unless --resume or --force",
        resume_help="continue the killed tournament in DIR: its pairings, games, seed and setup come from "
        "DIR/tournament.json; finished games are kept",
    )
    p.add_argument(
        "--save-records",
        type=int,
        default=0,
        metavar="K",
        help="save the game records of the first K games of each pairing under DIR/records",
    )
    p.add_argument(
        "--html",
        action="store_true",
        help="with --save-records or --record-seed: also write an HTML replay viewer beside each record",
    )
    p.add_argument(
        "--record-seed",
        type=int,
        metavar="S",
        help="only replay the game with seed S of the first pairing and save its record under DIR/records",
    )
    p.add_argument("--quiet", action="store_true", help="do not print the results table")


def parse_pairings(args: argparse.Namespace) -> list[tuple[str, str]]:
    game = getattr(args, "game", DEFAULT_GAME)
    if args.pairings:
        out = []
        for item in args.pairings.split(","):
            item = item.strip()
            if not item:
                continue
            if ":" not in item:
                raise ValueError(f"pairing {item!r} is not french_agent:german_agent")
            f, g = _split_pair(item, game)
            out.append((f, g))
    else:
        names = [a.strip() for a in args.agents.split(",") if a.strip()]
        if not names:
            raise ValueError(f"--agents {args.agents!r} names no agent; give e.g. --agents random,heuristic")
        check_both_sides_played(names, f"--agents {args.agents!r}", game)
        out = round_robin(names, game)  # type: ignore[assignment]
    if not out:
        raise ValueError(
            f"--pairings {args.pairings!r} names no pairing; give e.g. --pairings heuristic:random"
        )
    for f, g in out:
        for n in (f, g):
            if not is_game_agent_name(n, game):
                raise unknown_agent(n, game)
    return out


def _split_pair(item: str, game: str = DEFAULT_GAME) -> tuple[str, str]:
    """``a:b`` -> (a, b), where names may themselves contain ``heuristic:<level>`` or ``policy:PATH``."""
    for i, c in enumerate(item):
        if c == ":" and is_game_agent_name(item[:i], game) and is_game_agent_name(item[i + 1 :], game):
            return item[:i], item[i + 1 :]
    i = item.index(":")
    return item[:i], item[i + 1 :]


def _resume_args(args: argparse.Namespace) -> None:
    """Fill ``args`` from the tournament in ``args.resume`` (what was being played; --workers stays the user's)."""
    d = Path(args.resume)
    if not (d / TOURNAMENT_FILE).exists():
        raise ValueError(f"{d}: no {TOURNAMENT_FILE}; is it a folder written by 'ffo eval'?")
    plan = _read_plan(d / TOURNAMENT_FILE)
    game = getattr(args, "game", DEFAULT_GAME)
    if plan["game"] != game:  # the folder records its game; another --game is a mistake, not a new game
        raise ValueError(
            f"{d / TOURNAMENT_FILE}: this tournament plays {plan['game']}, not {game}; resume it with "
            f"--game {plan['game']}"
        )
    args.pairings, args.agents = None, ""
    args.pairing_list = [(f, g) for f, g in plan["pairings"]]
    for key in ("games", "seed", "setup", "save_records", "html"):
        setattr(args, key, plan[key])
    args.out = str(d)


def run(args: argparse.Namespace) -> int:
    if args.resume:
        if args.force or args.record_seed is not None:
            raise ValueError("--resume continues a tournament as it was started: no --force or --record-seed")
        if args.out is not None and Path(args.out) != Path(args.resume):
            raise ValueError("--resume DIR continues the tournament in DIR; drop --out")
        _resume_args(args)
        refuse_game_options(args)  # the plan's options are the game's own; a --data given now is not
        pairings = args.pairing_list
        for f, g in pairings:
            for n in (f, g):
                if not is_game_agent_name(n, args.game):
                    raise ValueError(f"{args.resume}/{TOURNAMENT_FILE}: unknown agent {n!r}")
    else:
        refuse_game_options(args)
        if args.html and not args.save_records and args.record_seed is None:
            # a viewer is written beside a saved record; without one --html would do nothing and say nothing
            raise ValueError(
                "--html writes a viewer beside each saved record: add --save-records K or --record-seed S"
            )
        pairings = parse_pairings(args)
    if args.games < 1:
        raise ValueError(f"--games must be >= 1, got {args.games}")
    if args.workers < 1:
        raise ValueError(f"--workers must be >= 1, got {args.workers}")
    out = (
        Path(args.out)
        if args.out is not None
        else new_unique_dir("runs", f"eval-{time.strftime('%Y%m%d-%H%M%S')}")
    )
    if args.record_seed is not None:
        f, g = pairings[0]
        rec_dir = out / "records"
        rec_dir.mkdir(parents=True, exist_ok=True)
        spec = GameSpec(0, 0, args.record_seed, f, g, f, g, args.setup, str(rec_dir), args.html, args.game)
        row = play_game(spec)
        if args.game != DEFAULT_GAME:
            fig = game_info(args.game).figure  # Springtime's final French Morale, France 1940's VP margin
            print(
                f"seed {row['seed']}: {row['winner']} victory ({row['result']}), {score_for(fig).label} "
                f"{row[fig]} after turn {row['turn']}; record written to {row['record']}"
                + (f", viewer to {row['viewer']}" if "viewer" in row else "")
            )
            return 0
        print(
            f"seed {row['seed']}: {row['winner']} victory, French VP {row['vp']} after GT{row['turn']};"
            f" record written to {row['record']}"
        )
        return 0
    summary = run_tournament(
        pairings,
        games=args.games,
        seed=args.seed,
        workers=args.workers,
        setup=args.setup,
        out=out,
        save_records=args.save_records,
        progress=not args.no_progress,
        html=args.html,
        cli_args={k: v for k, v in vars(args).items() if k not in ("func", "pairing_list")},
        resume=bool(args.resume),
        overwrite=args.force,
        game=args.game,
    )
    if not args.quiet:
        print(format_table(summary))
        print(
            f"written to {out}/ (results.json, pairings.csv, games.csv, ratings.csv) in {summary['wall_seconds']} s"
        )
    return 0
