"""Compact position notation: build a :class:`State` at the start of a phase from a few lines of text.

Example::

    >>> from ffo_env.france1940.core.notation import position
    >>> s = position('''
    ...     turn 3 german combat
    ...     allied: FR-INF-01@538 FR-DLM-01@539
    ...     german: DE-INF-01@506 DE-PZ6-01@507(oos)
    ...     invaded: B L
    ... ''')
    >>> s.decision, s.current_agent
    ('attack', 'german')

Lines (``#`` starts a comment):

=================================  ==============================================================
``turn N german|allied PHASE``     game-turn, phasing side and the phase to start: ``reinforce``,
                                   ``initial``, ``combat``, ``mech``, ``missions``
``columns ALLIED GERMAN``          the Order of Battle columns (default Hist I; only recorded)
``allied: id@hex ...``             Allied units on the map; ``(oos)`` out of supply for the phase
``german: id@hex ...``             German units
``arrive: id@turn ...``            units that arrive as reinforcements on that game-turn
``pool: id ...``                   airborne units waiting off the map (optional airborne rule)
``air: id cap|int|sup@hex ...``    an Aircraft Element in the air (its GSE must be on the map)
``flown: id ...``                  Aircraft Elements that already took off this game-turn
``invaded: B N L``                 neutral countries already invaded (F6)
``forts_destroyed: hex ...``       destroyed fortified hexes; ``belgian_area: yes|no`` (F8)
``vp A G``                         victory points so far (Allied, German)
``rolls: d d ...``                 the next dice: the generator is searched for a seed whose next
                                   rolls are these (up to five; tests)
``seed N``                         the seed (when ``rolls`` is not given)
=================================  ==============================================================

Units not named are not in the game. The position starts at the beginning of the phase named, and the
engine runs exactly as in play (supply is judged at the start of a movement phase unless a unit is marked
``(oos)``, which then holds for that phase).
"""

from __future__ import annotations

from functools import lru_cache

from ffo_env.core.dice import Dice
from ffo_env.france1940.core import flow
from ffo_env.france1940.core.airborne import POOL
from ffo_env.france1940.core.data import ALLIED, GERMAN
from ffo_env.france1940.core.game import Game
from ffo_env.france1940.core.options import RulesOptions
from ffo_env.france1940.core.state import MAP, OUT, State

SIDES = {"allied": ALLIED, "german": GERMAN}
START_PHASES = ("reinforce", "intercept", "initial", "airsup", "fort_react", "combat", "mech", "missions")


class NotationError(ValueError):
    """A line of position notation that cannot be read."""


def seed_for_rolls(rolls: list[int], limit: int = 400000) -> int:
    """The first seed whose generator rolls ``rolls`` first (tests use it to fix the dice)."""
    return _seed_for(tuple(rolls), limit)


@lru_cache(maxsize=256)
def _seed_for(rolls: tuple[int, ...], limit: int) -> int:
    for seed in range(limit):
        d = Dice(seed)
        if all(d.roll() == r for r in rolls):
            return seed
    raise NotationError(f"no seed below {limit} rolls {list(rolls)}")


def _unit(g: Game, text: str, line: str) -> int:
    if text not in g.unit_ids:
        raise NotationError(f"unknown unit {text!r} in line {line!r}")
    return g.unit_ids.index(text)


def _int(text: str, line: str) -> int:
    if not text.lstrip("-").isdigit():
        raise NotationError(f"expected a number, found {text!r} in line {line!r}")
    return int(text)


def position(text: str, options: RulesOptions | None = None, game: Game | None = None) -> State:
    """The position described by ``text`` (see the module docstring), with its first decision asked."""
    g = game or Game(options or RulesOptions())
    s = State(g, 0)
    lines = [ln.split("#")[0].strip() for ln in text.strip().splitlines()]
    lines = [ln for ln in lines if ln]
    phase, seed = "initial", 0
    oos: list[int] = []
    flown: list[int] = []
    for ln in lines:
        head, sep, rest = ln.partition(":")
        words = rest.split()
        if not sep:
            w = ln.split()
            if w[0] == "turn" and len(w) == 4:
                s.turn = _int(w[1], ln)
                if w[2] not in SIDES or w[3] not in START_PHASES or not 1 <= s.turn <= g.last_turn:
                    raise NotationError(
                        f"expected 'turn N german|allied {'|'.join(START_PHASES)}', found {ln!r}"
                    )
                s.phasing, phase = SIDES[w[2]], w[3]
            elif w[0] == "columns" and len(w) == 3:
                s.columns = [w[1], w[2]]
            elif w[0] == "vp" and len(w) == 3:
                s.vp = [_int(w[1], ln), _int(w[2], ln)]
            elif w[0] == "seed" and len(w) == 2:
                seed = _int(w[1], ln)
            else:
                raise NotationError(f"unknown line {ln!r}")
            continue
        if head in SIDES:
            for tok in words:
                uid, at, where = tok.partition("@")
                u = _unit(g, uid, ln)
                if g.units[u].side != SIDES[head]:
                    raise NotationError(f"{uid} is not a {head} unit ({ln!r})")
                hx, _p, mods = where.partition("(")
                h = _int(hx, ln) if at else -1
                if not 1 <= h <= 1280 or not g.data.playable(h):
                    raise NotationError(f"{uid}: expected a playable hex, found {where!r} in {ln!r}")
                s.status[u], s.hex[u], s.arrive[u] = MAP, h, 0
                if mods.startswith("oos"):
                    oos.append(u)
        elif head == "arrive":
            for tok in words:
                uid, _a, t = tok.partition("@")
                u = _unit(g, uid, ln)
                s.status[u], s.arrive[u] = OUT, _int(t, ln)
        elif head == "pool":
            for tok in words:
                u = _unit(g, tok, ln)
                s.status[u], s.arrive[u] = OUT, POOL
        elif head == "air":
            for i in range(0, len(words) - 1, 2):
                u = _unit(g, words[i], ln)
                kind, _a, hx = words[i + 1].partition("@")
                if kind not in ("cap", "int", "sup") or not g.units[u].is_gse or s.status[u] != MAP:
                    raise NotationError(f"expected 'GSE-id cap|int|sup@hex' of a placed GSE in {ln!r}")
                s.ac_mission[u], s.ac_hex[u], s.ac_turn[u] = kind, _int(hx, ln), s.turn
        elif head == "flown":
            flown += [_unit(g, w, ln) for w in words]
        elif head == "invaded":
            if any(c not in ("B", "N", "L") for c in words):
                raise NotationError(f"invaded countries are B, N, L; found {ln!r}")
            s.invaded = list(words)
        elif head == "forts_destroyed":
            s.fort_destroyed = [_int(w, ln) for w in words]
            if any(h not in g.data.fortified for h in s.fort_destroyed):
                raise NotationError(f"not a fortified hex in {ln!r}")
        elif head == "belgian_area":
            s.belgian_area = words == ["yes"]
        elif head == "rolls":
            seed = seed_for_rolls([_int(w, ln) for w in words])
        else:
            raise NotationError(f"unknown line {ln!r}")
    for u in flown:
        s.ac_turn[u] = s.turn
    if s.turn > 1:
        s.belgian_area = s.belgian_area and g.options.optional_airborne
    s.seed = seed
    s.dice_state = Dice(seed).state
    s.touch()
    flow.enter(s, phase)
    for u in oos:
        s.supply[u] = False
    flow.advance(s)
    return s
