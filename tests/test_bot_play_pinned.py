"""Pin the play of the scripted bots: seeded bot-vs-bot games must replay decision for decision.

Speed work on the bots (``agents/``) or on the core queries they ask must not change a decision. This test
plays seeded full games of France Fights On between the ``random``, ``heuristic`` and ``expert`` bots and
compares a hash of every decision and the final VP against ``tests/fixtures/bot_games.json``.

The fixture is written only on request, from trusted bots::

    python tests/test_bot_play_pinned.py --write

A failure means a bot now plays differently; a deliberate change of a bot rewrites the fixture in the same
commit and says so.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agents import make_agent
from agents.harness import agent_seed
from ffo_env.ffo.core.game import Game

FIXTURE = Path(__file__).parent / "fixtures" / "bot_games.json"
FORMAT = "ffo-bot-games-1"
# (French bot, German bot, game seed): each bot on each side, against itself, a stronger and a random bot
GAMES = [
    ("expert", "expert", 0),
    ("heuristic", "heuristic", 1),
    ("expert", "heuristic", 2),
    ("heuristic", "expert", 3),
    ("random", "expert", 4),
    ("expert", "random", 5),
]


def play(french: str, german: str, seed: int) -> dict[str, Any]:
    """One seeded game: its decision count, the hash of its decisions and its final VP."""
    s = Game().new_initial_state(seed)
    agents = {
        "french": make_agent(french, "french", seed=agent_seed(seed, "french")),
        "german": make_agent(german, "german", seed=agent_seed(seed, "german")),
    }
    h = hashlib.sha256()
    n = 0
    while not s.is_terminal():
        a = int(agents[s.current_agent].act_state(s))
        h.update(a.to_bytes(4, "little"))
        s.apply_action(a)
        n += 1
    return {"decisions": n, "sha256": h.hexdigest(), "vp": int(s.vp)}


def _key(french: str, german: str, seed: int) -> str:
    return f"{french}-vs-{german}-{seed}"


@pytest.mark.parametrize(("french", "german", "seed"), GAMES)
def test_a_seeded_bot_game_replays_decision_for_decision(french: str, german: str, seed: int) -> None:
    pinned = json.loads(FIXTURE.read_text())
    assert pinned["format"] == FORMAT
    assert play(french, german, seed) == pinned["games"][_key(french, german, seed)]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_bot_play_pinned.py --write")
    games = {_key(*g): play(*g) for g in GAMES}
    FIXTURE.write_text(json.dumps({"format": FORMAT, "games": games}, indent=1) + "\n")
    print(f"wrote {FIXTURE}")
