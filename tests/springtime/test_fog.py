"""Fog of war in Springtime for Hitler (S13, S14, S59, S62, rule 18.2, P10), as ``tests/test_rules_fog.py``
is for France Fights On: positions that differ only in what one side may not see look the same to it.

What a side may not see: the identity of the other side's held Event marker, the container's contents (S13,
S59 a-c), the game's seed and its generator's state (they would give every future die and draw, S54), the
other side's private logs, and the other side's free setup until both are complete (rule 18.2, S59 e, S62).
For every such variation, the side's view (``visible_to``), its encoded observation, its action mask and the
decision of each of its bots are identical -- also after the other side has answered the decisions in
between (the Event windows, P10: being asked or not must not tell which marker is held).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from agents.springtime import make_agent
from ffo_env.core.dice import Dice
from ffo_env.springtime.core import Game, RulesOptions, State
from ffo_env.springtime.core.data import ALLIED, AXIS, SIDE_NAMES
from ffo_env.springtime.core.visibility import visible_fields, visible_to
from ffo_env.springtime.encoding import encode

AGENT_SIDES = ("french", "german")
# the bots of a side, fresh for every position (the same seed: their own randomness is not the game's)
BOTS = ("random", "pass", "heuristic", "expert", "pretrained")
EVENT_WINDOWS = ("event", "end_event")


@functools.cache
def _pretrained(side: int) -> object:
    return make_agent("pretrained", AGENT_SIDES[side], seed=7)  # argmax: one agent serves every position


def bot(name: str, side: int) -> object:
    if name == "pretrained":
        return _pretrained(side)
    agent = make_agent(name, AGENT_SIDES[side], seed=7)
    if name == "expert":
        agent.samples = 1  # type: ignore[attr-defined]  # one playout per candidate keeps the test short
    return agent


def decisions(s: State, side: int, names: tuple[str, ...] = BOTS) -> dict[str, int]:
    return {name: int(bot(name, side).act_state(s.clone())) for name in names}  # type: ignore[attr-defined]


def assert_same_to(side: int, a: State, b: State, bots: tuple[str, ...] = BOTS) -> None:
    """``a`` and ``b`` look the same to ``side``: view, observation, mask and its bots' decisions."""
    va, vb = visible_to(a, side), visible_to(b, side)
    diff = sorted(k for k in va if va[k] != vb[k])
    assert not diff, f"{SIDE_NAMES[side]}'s views differ in {diff} at {a.decision_string()}"
    assert np.array_equal(encode(a, side), encode(b, side))
    if a.current_player == side:
        assert b.current_player == side
        assert np.array_equal(a.legal_action_mask(), b.legal_action_mask())
        assert decisions(a, side, bots) == decisions(b, side, bots)


# ------------------------------------------------------------------ variations of the hidden part


def swapped_marker(s: State, side: int, marker: int) -> State:
    """``s`` with the other side's held marker exchanged for ``marker`` from the container."""
    v = s.clone()
    opp = 1 - side
    i = v.container.index(marker)
    v.container[i] = v.held[opp]
    v.container.sort()
    v.held[opp] = marker
    v.draw_log[opp] = [{"turn": v.turn, "drew": marker, "why": "political"}]
    return v


def hidden_variants(s: State, side: int) -> Iterator[tuple[str, State]]:
    """Copies of ``s`` that differ from it only in what ``side`` may not see."""
    v = s.clone()
    v.seed = s.seed + 7919
    yield "seed", v
    v = s.clone()
    v.dice_state = Dice(s.seed + 104729).state
    yield "dice_state", v
    v = s.clone()
    v.seed, v.dice_state = s.seed + 1, Dice(s.seed + 1).state
    yield "seed and generator", v
    v = s.clone()
    v.draw_log[1 - side] = []
    yield "the other side's draw log", v
    v = s.clone()
    v.dice_log = [
        {**e, "pick": 0} if "pick" in e and not str(e["for"]).startswith(SIDE_NAMES[side]) else e
        for e in v.dice_log
    ]
    yield "the other side's draw picks", v
    if s.held[1 - side]:
        for m in s.container:
            yield f"the other side holds {m}", swapped_marker(s, side, m)


def sample_positions(seed: int, every: int, options: RulesOptions | None = None) -> Iterator[State]:
    """Positions of a random game of ``seed`` (every ``every``-th decision)."""
    g = Game(options=options or RulesOptions())
    s = g.new_initial_state(seed)
    rng = random.Random(seed)
    n = 0
    while not s.is_terminal():
        if n % every == 0:
            yield s
        legal = s.legal_actions()
        s.apply_action(legal[rng.randrange(len(legal))])
        n += 1


# ------------------------------------------------------------------ one position


@pytest.mark.parametrize("seed", [0, 1])
def test_s59_a_side_cannot_tell_positions_apart_that_differ_only_in_what_it_may_not_see(seed: int) -> None:
    """S13, S54, S59 (a)-(c): the seed, the generator, the other side's marker, the container's contents and
    the other side's private logs change nothing a side sees, and no decision of its bots."""
    checked = 0
    for s in sample_positions(seed, every=37):
        side = s.current_player
        bots = BOTS if checked < 3 else ("random", "pass", "heuristic", "pretrained")
        for _name, v in hidden_variants(s, side):
            assert_same_to(side, s, v, bots)
        checked += 1
    assert checked >= 5


def test_s59_the_view_holds_no_seed_and_no_generator() -> None:
    s = Game().new_initial_state(5)
    for side in (ALLIED, AXIS):
        view = visible_to(s, side)
        assert "seed" not in view and "dice_state" not in view
        for key in ("seed", "dice_state"):
            with pytest.raises(KeyError):
                visible_fields(s, side, [key])


# ------------------------------------------------------------------ the other side's decisions in between

Policy = Callable[[State], int]


def declining(side: int, seed: int) -> Policy:
    """The heuristic bot of ``side``, except that it never plays an Event (the marker stays hidden)."""
    agent = make_agent("heuristic", AGENT_SIDES[side], seed=seed)

    def act(s: State) -> int:
        if s.decision in EVENT_WINDOWS:
            return 0  # NO: always legal at an Event window
        return int(agent.act_state(s))

    return act


def to_next_decision(s: State, side: int, other: Policy) -> bool:
    """Let the other side answer (with ``other``) until ``side`` decides again; False if the other side had
    no decision, the game ended or a marker was drawn meanwhile (a draw from containers of different contents
    may differ, as chance)."""
    picks, n = sum(1 for e in s.dice_log if "pick" in e), len(s.history)
    while not s.is_terminal() and s.current_player != side:
        s.apply_action(other(s))
    answered = any(h[0] != side for h in s.history[n:])
    return answered and not s.is_terminal() and sum(1 for e in s.dice_log if "pick" in e) == picks


@pytest.mark.parametrize("side", [ALLIED, AXIS])
def test_p10_being_asked_at_an_event_window_tells_nothing_of_the_held_marker(side: int) -> None:
    """S13, S16, S59 (a), P10: whether the other side holds a marker it may play now or one it may not, the
    side sees the same decisions of the other side in between, and then the same position."""
    opp = 1 - side
    compared: set[tuple[str, int]] = set()
    n = 0
    for seed in range(3):
        s = Game().new_initial_state(seed)
        mine = declining(side, 11)
        steps = 0
        while not s.is_terminal() and steps < 400 and n < 40:
            steps += 1
            if s.current_player != side:
                s.apply_action(declining(opp, 13)(s))
                continue
            if s.held[opp] and steps % 3 == 0:
                a = mine(s)
                for m in s.container:
                    x, y = s.clone(), swapped_marker(s, side, m)
                    x.apply_action(a)
                    y.apply_action(a)
                    if to_next_decision(x, side, declining(opp, 13)) and to_next_decision(
                        y, side, declining(opp, 13)
                    ):
                        assert_same_to(side, x, y, bots=("heuristic", "pretrained"))
                        compared.add((s.phase, m))
                        n += 1
            s.apply_action(mine(s))
    assert len(compared) >= 4, compared


# ------------------------------------------------------------------ the free setup (rule 18.2)

FREE = RulesOptions(free_setup=True)


def placed_by(seed_allied: int, seed_axis: int, until: Callable[[State], bool]) -> State:
    """A free-setup game placed by random bots of the given seeds until ``until`` holds."""
    s = Game(options=FREE).new_initial_state(3)
    rngs = {ALLIED: random.Random(seed_allied), AXIS: random.Random(seed_axis)}
    while not until(s):
        legal = s.legal_actions()
        s.apply_action(legal[rngs[s.player].randrange(len(legal))])
    return s


def test_18_2_the_axis_sees_nothing_of_the_allied_setup_until_both_are_complete() -> None:
    """rule 18.2, S59 (e), S62: the Axis places without seeing where the Allies placed (not in the units'
    locations, not in the history of actions); his bots place the same."""
    a = placed_by(1, 5, lambda s: s.player == AXIS)
    b = placed_by(2, 5, lambda s: s.player == AXIS)
    assert a.phase == b.phase == "setup" and a.loc != b.loc  # two different Allied setups
    bots = ("random", "heuristic", "expert", "pretrained")
    agents = {x: {n: bot(n, AXIS) for n in bots} for x in ("a", "b")}
    while a.phase == "setup":
        assert_same_to(AXIS, a, b, bots)
        acts = {x: {n: int(ag.act_state(s)) for n, ag in agents[x].items()} for x, s in (("a", a), ("b", b))}
        assert acts["a"] == acts["b"]
        a.apply_action(acts["a"]["heuristic"])
        b.apply_action(acts["b"]["heuristic"])
    # once both are complete, every placement is public (S59 (e)): the views now differ
    assert visible_to(a, AXIS)["loc"] != visible_to(b, AXIS)["loc"]
    assert visible_to(a, AXIS)["history"] == a.history


def test_18_2_the_allies_see_nothing_of_the_axis_setup_while_he_places() -> None:
    """rule 18.2, S62: while the Axis places, the Allied view is the same whatever he placed so far."""

    def placing(k: int) -> Callable[[State], bool]:
        return lambda s: s.player == AXIS and sum(1 for h in s.history if h[0] == AXIS) >= k

    for k in (1, 5, 9):
        a = placed_by(1, 5, placing(k))
        b = next(b for seed in range(6, 30) if (b := placed_by(1, seed, placing(k))).loc != a.loc)
        assert a.phase == b.phase == "setup"
        assert_same_to(ALLIED, a, b)


# ------------------------------------------------------------------ the Event windows themselves (P10)


def _at(text: str, run: bool = True) -> State:
    from ffo_env.springtime.core.notation import position

    return position(text, RulesOptions(), run=run)


def _texts(s: State) -> list[str]:
    return [s.action_to_string(a) for a in s.legal_actions()]


@pytest.mark.parametrize("held, legal", [(5, ["no", "yes"]), (8, ["no"]), (1, ["no"])])
def test_p10_the_impulse_window_opens_whenever_a_marker_is_held(held: int, legal: list[str]) -> None:
    """S16, P10: at the start of his impulse a side holding a marker is asked, even when the marker is the
    other side's (8 Plan Red) or cannot be played now (1 De Gaulle while the 4th DCR is on the map); the
    engine does not answer a lone NO by itself (it would be marked automatic, which the opponent sees)."""
    s = _at(f"turn 2 box 1 advantage none\nallied: FR-4DCR@20\naxis: DE-1A@2\nheld: allied {held}")
    assert (s.decision, s.current_agent, _texts(s)) == ("event", "french", legal)
    s.apply_action(s.legal_actions()[0])
    assert s.history[-1] == [ALLIED, s.history[-1][1], 0] and s.decision == "declare"
    none = _at("turn 2 box 1 advantage none\nallied: FR-8A@20\naxis: DE-1A@2")
    assert none.decision == "declare"  # no marker, no window: that is public (S13)


def test_p10_an_event_that_may_not_be_played_is_refused_and_changes_nothing() -> None:
    from ffo_env.springtime.core.actions import YES, IllegalActionError
    from ffo_env.springtime.core.state_io import state_to_dict

    s = _at("turn 2 box 1 advantage none\nallied: FR-8A@20\naxis: DE-1A@2\nheld: allied 8")
    before = state_to_dict(s)
    with pytest.raises(IllegalActionError, match="not legal"):
        s.apply_action(YES)
    assert state_to_dict(s) == before


def test_15_1_p10_the_turn_1_window_of_the_allies_opens_whenever_they_hold_a_marker() -> None:
    """rule 15.1, S16, P10: at each Axis impulse of Turn 1 the Allies are asked if they hold a marker."""
    s = _at("turn 1 box 2 advantage none\nallied: FR-8A@20\naxis: DE-1A@2\nheld: allied 7 axis 6")
    assert (s.decision, s.current_agent, _texts(s), s.imp["window"]) == ("event", "french", ["no"], "T1")
    s.apply_action(s.legal_actions()[0])
    assert (s.decision, s.current_agent, _texts(s), s.imp["window"]) == (
        "event",
        "german",
        ["no", "yes"],
        "I",
    )


@pytest.mark.parametrize("held, legal", [(4, ["no", "yes"]), (9, ["no"])])
def test_6_4_4_p10_the_end_phase_window_opens_whenever_a_marker_is_held(held: int, legal: list[str]) -> None:
    """rule 6.4.4, S51, P10: in the End Phase each side holding a marker is asked (9 Refugees: no E window)."""
    s = _at(f"turn 2 box 10 advantage none\nallied: FR-8A@20\naxis: DE-1A@2\nheld: allied {held}", run=False)
    s.phase, s.cont, s.decision = "end", "end_event0", "none"
    s._run()
    assert (s.decision, s.current_agent, _texts(s)) == ("end_event", "french", legal)


# ------------------------------------------------------------------ the bots' sources (both games)


def test_s54_no_bot_reads_the_seed_or_the_generator_of_the_game() -> None:
    """S54, S59 (and France Fights On's R37): a bot is handed the whole state, so its code must not read the
    game's seed or generator, from which every future die follows. (France Fights On's heuristic bots keyed
    a cache on ``state.seed`` until issue 61.)"""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "agents"
    # a read (an assignment, as a search copy giving its dice a generator of its own, is not one)
    pattern = re.compile(r"\b(?:state|s|st|world|sim)\.(?:seed|dice_state|dice)\b(?!\s*=[^=])")
    found = [
        f"{path.relative_to(root.parent)}:{n}"
        for path in sorted(root.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line.split("#")[0])
    ]
    assert not found, found
