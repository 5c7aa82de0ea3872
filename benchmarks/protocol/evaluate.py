"""Evaluation games at a fixed point of a run: the learner's policy against the task's opponents, from the
task's fixed starts (:func:`benchmarks.protocol.envs.eval_start`), so every algorithm and seed plays the
same games and results pair.

The score of a game is 1 for a win, 0.5 for a game stopped unfinished after ``MAX_DECISIONS`` (a draw), 0
for a loss; on a graded task (its game's part gives ``graded_score(task, state, side)`` a number, France 1940's
late-game task) it is that graded score in [0, 1], and the row keeps the win rate as ``win_rate``. One-side tasks play every game in the learner's seat (the seat is the task); the balance is
over the starts: game ``i`` uses game seed ``20000 + i`` (full game) or saved state ``i mod 32`` (endgame),
so the games split evenly over the saved states. The self-play task plays each side against each reference
agent of the frozen ladder, the same number of games in each seat.
"""

from __future__ import annotations

from typing import Any

from benchmarks.protocol.envs import eval_start
from benchmarks.protocol.games import bench_of
from benchmarks.protocol.ladder_ref import rate_one, reference_ladder
from benchmarks.protocol.task import Task
from ffo_env.games import DEFAULT_GAME, SIDES

MAX_DECISIONS = 20_000


def play(state: Any, agents: dict[str, Any], game: str = DEFAULT_GAME) -> tuple[str | None, int]:
    """Play ``state`` of ``game`` to the end (or ``MAX_DECISIONS``); the winner's side and the game's figure
    (its benchmark part's ``final_figure``: France Fights On's final French VP, Springtime's French Morale)."""
    part = bench_of(game)
    for _ in range(MAX_DECISIONS):
        if state.is_terminal():
            return part.winner(state), part.final_figure(state)
        state.apply_action(int(agents[SIDES[state.current_player]].act_state(state)))
    return None, part.final_figure(state)


def side_games(
    task: Task, side: str, learner: Any, opponent: str, games: int, run_seed: int = 0
) -> dict[str, Any]:
    """``games`` games of ``learner`` (an agent object) as ``side`` against the bot ``opponent``. The opponent's
    seed is fixed by the game; the learner's own randomness (if any) also depends on the run's seed."""
    from agents import make_agent
    from agents.harness import agent_seed

    other = SIDES[1 - SIDES.index(side)]
    # a game's part may grade its own tasks' games (France 1940's late-game task): then a game's score is its
    # graded score and the win rate is kept beside it
    graded = getattr(bench_of(task.game), "graded_score", None)
    score = 0.0
    wins = 0.0
    is_graded = False
    vp = 0
    per_game = []
    for i in range(games):
        state = eval_start(task, i)
        seed = int(state.seed) if task.state_path() is None else 20_000 + i
        if hasattr(learner, "reset"):
            learner.reset(agent_seed(seed, side) + 1_000_003 * run_seed)
        opp = make_agent(opponent, other, seed=agent_seed(seed, other), game=task.game)
        winner, final_vp = play(state, {side: learner, other: opp}, task.game)
        won = 0.5 if winner is None else float(winner == side)
        g = None if graded is None else graded(task, state, side)
        is_graded = is_graded or g is not None
        s = won if g is None else float(g)
        score += s
        wins += won
        vp += final_vp
        per_game.append(s)
    row = {
        "score": score / games,
        "wins": wins,
        "games": games,
        bench_of(task.game).FIGURE: vp / games,
        "per_game": per_game,
    }
    if is_graded:
        row["win_rate"] = wins / games
    return row


def evaluate(task: Task, learners: dict[str, Any], games: int, run_seed: int = 0) -> dict[str, Any]:
    """The evaluation row of one point: ``score`` (win rate against the task's opponent, or the self-play
    task's mean Elo against its game's frozen ladder) and the details."""
    if task.kind != "selfplay":
        assert task.side is not None and task.opponent is not None
        row = side_games(task, task.side, learners[task.side], task.opponent, games, run_seed)
        out1: dict[str, Any] = {"score": row["score"], "opponents": {task.opponent: row}}
        if "win_rate" in row:  # a graded task: the score is not the win rate
            out1["win_rate"] = row["win_rate"]
        return out1
    out: dict[str, Any] = {"opponents": {}}
    elo = {}
    ladder = reference_ladder(task.game)  # the frozen ratings of the task's own game
    for side in ("french", "german"):
        rows = []
        for ref in task.references:
            r = side_games(task, side, learners[side], ref, games, run_seed)
            out["opponents"][f"{ref}@{'german' if side == 'french' else 'french'}"] = r
            ref_rating = ladder[ref][1 if side == "french" else 0]
            rows.append((ref_rating, r["wins"], games))
        elo[side] = rate_one(rows)
    out["elo"] = {side: {"elo": e[0], "lo": e[1], "hi": e[2]} for side, e in elo.items()}
    out["score"] = (elo["french"][0] + elo["german"][0]) / 2  # the ladder table's "mean"
    out["win_rate"] = sum(r["wins"] for r in out["opponents"].values()) / sum(
        r["games"] for r in out["opponents"].values()
    )
    return out
