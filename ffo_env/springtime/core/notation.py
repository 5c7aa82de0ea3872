"""Compact position notation: build a :class:`State` at the start of an impulse from a few lines of text.

Example::

    >>> from ffo_env.springtime.core.notation import position
    >>> s = position('''
    ...     turn 2 box 2 advantage none
    ...     allied: FR-2A@17 FR-9A@12(r)
    ...     axis: DE-XIX@11 DE-XLI@11
    ... ''')
    >>> s.decision, s.current_agent
    ('declare', 'german')

Lines (``#`` starts a comment):

=============================  ================================================================
``turn N box N``               turn and Impulse box (odd Allied, even Axis); also ``morale N``,
                               ``rp A X``, ``advantage allied|axis|none``, ``seed N``,
                               ``scenario campaign|plan_red``
``allied: id@loc ...``         Allied units on the map; ``(r)`` reduced, ``(oos)`` Out of Supply
``axis: id@loc ...``           Axis units
``elim: id ...``               units in the eliminated pool (rebuildable)
``off: id ...``                units not yet in play (default: FR-4DCR, IT-W, DE-AIRLAND)
``axis_control: loc ...``      locations controlled by the Axis (besides the scenario's start
                               control and the locations its units hold alone)
``allied_control: loc ...``    locations controlled by the Allies
``held: allied N axis N``      held Event markers (0 none); ``played: n ...`` markers out of play
``kleist: id``                 Kleist's unit (the attachment step of S9 is skipped in positions)
``last_assault: allied|axis AG ...``  Army Groups of that side's previous Assault (S24)
``flags: ...``                 any of ``italy_at_war open_city cc_flag billotte german_air_full
                               allied_air_full refugees bef_evacuated``
``rolls: d d ...``             the next dice (for tests): the generator is searched for a seed
                               whose next rolls are these (up to four)
=============================  ================================================================

Units not named are permanently out of play (``gone``), except those listed under ``elim`` / ``off``.
The position is put at the start of the impulse, and the engine runs exactly as in play.
"""

from __future__ import annotations

from functools import lru_cache

from ffo_env.core.dice import Dice
from ffo_env.springtime.core.data import ALLIED, AXIS, SIDE_AGS, SIDE_NAMES
from ffo_env.springtime.core.game import Game, RulesOptions
from ffo_env.springtime.core.state import ELIM, GONE, MAP, OFF, State

DEFAULT_OFF = ("FR-4DCR", "IT-W", "DE-AIRLAND")
FLAGS = (
    "italy_at_war",
    "open_city",
    "cc_flag",
    "billotte",
    "german_air_full",
    "allied_air_full",
    "refugees",
    "bef_evacuated",  # rule 18.3, S64: the BEF in the eliminated pool left by Operation Dynamo
)


class NotationError(ValueError):
    """A line of position notation that cannot be read."""


def _loc(g: Game, text: str, line: str) -> int:
    if text not in g.loc_ids:
        raise NotationError(f"unknown location {text!r} in line {line!r}")
    return g.loc_ids.index(text)


def _unit(g: Game, text: str, line: str) -> int:
    if text not in g.unit_ids:
        raise NotationError(f"unknown unit {text!r} in line {line!r}")
    return g.unit_ids.index(text)


def seed_for_rolls(rolls: list[int], limit: int = 200000) -> int:
    """The first seed whose generator rolls ``rolls`` first (tests use it to fix the dice)."""
    return _seed_for(tuple(rolls), limit)


@lru_cache(maxsize=256)
def _seed_for(rolls: tuple[int, ...], limit: int) -> int:
    for seed in range(limit):
        d = Dice(seed)
        if all(d.roll() == r for r in rolls):
            return seed
    raise NotationError(f"no seed below {limit} rolls {rolls}")


def position(text: str, options: RulesOptions | None = None, run: bool = True) -> State:
    opts = options or RulesOptions()
    lines = [ln.split("#")[0].strip() for ln in text.strip().splitlines()]
    lines = [ln for ln in lines if ln]
    scenario = "campaign"
    for ln in lines:
        w = ln.split()
        if "scenario" in w and w.index("scenario") + 1 < len(w):
            scenario = w[w.index("scenario") + 1]
    g = Game(scenario=scenario, options=opts)
    s = State(g, 0)
    s.status = [GONE] * g.n_units
    s.loc = [-1] * g.n_units
    for uid in DEFAULT_OFF:
        s.status[g.unit_ids.index(uid)] = OFF
    s.container = list(range(1, 10))
    s.turn_track = []
    s.held = [0, 0]
    ctrl_extra: list[tuple[int, int]] = []
    seed = 0
    for ln in lines:
        head, sep, rest = ln.partition(":")
        words = rest.split()
        if not sep:
            w = ln.split()
            for i in range(0, len(w) - 1, 2):
                k, v = w[i], w[i + 1]
                if k == "turn":
                    s.turn = int(v)
                elif k == "box":
                    s.box = int(v)
                elif k == "morale":
                    s.morale = s.morale_at_political = int(v)
                elif k == "advantage":
                    s.advantage = -1 if v == "none" else SIDE_NAMES.index(v)
                elif k == "seed":
                    seed = int(v)
                elif k == "scenario":
                    pass
                elif k == "rp":
                    s.rp = [int(v), int(w[i + 2])]
                    break
                else:
                    raise NotationError(f"unknown key {k!r} in line {ln!r}")
            continue
        if head in ("allied", "axis"):
            for tok in words:
                uid, _, where = tok.partition("@")
                mods = where.split("(")
                u = _unit(g, uid, ln)
                if g.unit_side[u] != SIDE_NAMES.index(head):
                    raise NotationError(f"{uid} is not an {head} unit ({ln!r})")
                s.status[u] = MAP
                s.loc[u] = _loc(g, mods[0], ln)
                s.reduced[u] = "r)" in mods[1:]
                s.oos[u] = "oos)" in mods[1:]
        elif head in ("elim", "off"):
            for tok in words:
                s.status[_unit(g, tok, ln)] = ELIM if head == "elim" else OFF
        elif head in ("axis_control", "allied_control"):
            side = AXIS if head == "axis_control" else ALLIED
            ctrl_extra += [(_loc(g, tok, ln), side) for tok in words]
        elif head == "held":
            for i in range(0, len(words) - 1, 2):
                s.held[SIDE_NAMES.index(words[i])] = int(words[i + 1])
        elif head == "played":
            s.turn_track = [int(x) for x in words]
        elif head == "kleist":
            s.kleist_unit = _unit(g, words[0], ln)
            s.kleist_turn = s.turn
        elif head == "last_assault":
            side = SIDE_NAMES.index(words[0])
            bad = [x for x in words[1:] if x not in SIDE_AGS[side]]
            if bad:
                raise NotationError(f"unknown Army Groups {bad} in line {ln!r}")
            s.last_assault[side] = words[1:]
        elif head == "flags":
            for f in words:
                if f not in FLAGS:
                    raise NotationError(f"unknown flag {f!r}; known {FLAGS}")
                if f == "refugees":
                    s.refugees = "pending"
                else:
                    setattr(s, f, True)
        elif head == "rolls":
            seed = seed_for_rolls([int(x) for x in words])
        else:
            raise NotationError(f"unknown line {ln!r}")
    s.moved_units()
    s.seed = seed
    s.dice_state = Dice(seed).state
    s.container = [m for m in s.container if m not in s.held and m not in s.turn_track]
    for loc in range(g.n_locs):  # control without Morale changes: the position is given, not played
        a, x = s.has(loc, ALLIED), s.has(loc, AXIS)
        if a != x:
            s.control[loc] = ALLIED if a else AXIS
    for loc, side in ctrl_extra:
        s.control[loc] = side
    s.phase = "maneuver"
    s.cont = "impulse_start"
    s.kleist_turn = s.turn  # the attachment step is skipped: ``kleist:`` attaches
    if run:
        s._run()
    return s


def to_notation(s: State) -> str:
    """The position in the notation above (units, control, markers; the working data of an impulse is not
    written)."""
    g = s.game
    start = set(g.spec.axis_control)
    adv = "none" if s.advantage < 0 else SIDE_NAMES[s.advantage]
    lines = [f"turn {s.turn} box {s.box} morale {s.morale} advantage {adv} rp {s.rp[0]} {s.rp[1]}"]
    for side in (ALLIED, AXIS):
        toks = []
        for u in g.side_units[side]:
            if s.status[u] == MAP:
                mods = ("(r)" if s.reduced[u] else "") + ("(oos)" if s.oos[u] else "")
                toks.append(f"{g.unit_ids[u]}@{g.loc_ids[s.loc[u]]}{mods}")
        lines.append(f"{SIDE_NAMES[side]}: " + " ".join(toks))
    elim = [g.unit_ids[u] for u in range(g.n_units) if s.status[u] == ELIM]
    off = [g.unit_ids[u] for u in range(g.n_units) if s.status[u] == OFF]
    if elim:
        lines.append("elim: " + " ".join(elim))
    lines.append("off: " + " ".join(off))
    ax = [g.loc_ids[i] for i in range(g.n_locs) if s.control[i] == AXIS and i not in start]
    al = [g.loc_ids[i] for i in range(g.n_locs) if s.control[i] == ALLIED and i in start]
    if ax:
        lines.append("axis_control: " + " ".join(ax))
    if al:
        lines.append("allied_control: " + " ".join(al))
    lines.append(f"held: allied {s.held[0]} axis {s.held[1]}")
    if s.turn_track or s.impulse_track:
        lines.append("played: " + " ".join(str(m) for m in sorted(s.turn_track + s.impulse_track)))
    if s.kleist_unit >= 0:
        lines.append(f"kleist: {g.unit_ids[s.kleist_unit]}")
    flags = [f for f in FLAGS if f != "refugees" and getattr(s, f)]
    if flags:
        lines.append("flags: " + " ".join(flags))
    return "\n".join(lines)
