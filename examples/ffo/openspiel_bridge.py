"""France Fights On inside OpenSpiel: its random-simulation test, then its MCTS bot against random play.

    python examples/ffo/openspiel_bridge.py --games 2 --simulations 20 --side french

Importing :mod:`ffo_env.ffo.openspiel_game` registers ``python_france_fights_on`` with pyspiel
(``pip install open_spiel``); from there every OpenSpiel tool loads it by name. MCTS here uses random
rollouts to the end of the game, so each simulation costs a whole random game: keep the budget small.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import ffo_env.ffo.openspiel_game  # noqa: F401 - registers the game


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=2, help="games of MCTS against random")
    p.add_argument("--simulations", type=int, default=20, help="MCTS simulations per decision")
    p.add_argument("--side", choices=("french", "german"), default="french", help="the side MCTS plays")
    p.add_argument("--max-decisions", type=int, default=None, help="stop each game after this many decisions")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    game = pyspiel.load_game("python_france_fights_on", {"num_seeds": 1000})
    t0 = time.perf_counter()
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
    sim_s = time.perf_counter() - t0

    rng = np.random.RandomState(args.seed)
    bot = mcts.MCTSBot(
        game,
        uct_c=2.0,
        max_simulations=args.simulations,
        evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
        random_state=rng,
    )
    me = 0 if args.side == "french" else 1
    wins, decisions = 0, 0
    t0 = time.perf_counter()
    for _ in range(args.games):
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal() and (args.max_decisions is None or n < args.max_decisions):
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            elif state.current_player() == me:
                state.apply_action(bot.step(state))
                n += 1
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
                n += 1
        decisions += n
        wins += int(state.is_terminal() and state.returns()[me] > 0)
    print(
        json.dumps(
            {
                "random_sim_test_seconds": round(sim_s, 2),
                "side": args.side,
                "games": args.games,
                "simulations": args.simulations,
                "mcts_wins": wins,
                "decisions": decisions,
                "seconds": round(time.perf_counter() - t0, 1),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
