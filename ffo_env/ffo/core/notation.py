"""Compact position notation: build a :class:`State` from a few lines of text (for tests and debugging).

Example::

    >>> from ffo_env.ffo.core.notation import position
    >>> s = position('''
    ...     turn 3 phase GERMAN_COMBAT
    ...     french: fr-I@4512 fr-GC@4513(r) br-51@4512
    ...     german: de-III@4612 de-XXXIX@4611
    ...     refugees: 4410 4411*
    ... ''')
    >>> s.turn, s.phase.name, s.decision.name
    (3, 'GERMAN_COMBAT', 'ATTACK_TARGET')

The state is put at the *start* of the named phase and the engine then enters
that phase exactly as in play (dice rolled on entry, automatic decisions taken
when ``skip_forced`` is on), so the position is what an agent would see.

Lines (``#`` starts a comment; blank lines are ignored):

=========================  ===================================================================
``turn N phase NAME``      game turn and :class:`~ffo_env.ffo.core.state.Phase` name (any order on
                           the line; also ``seed N``, ``vp N``, ``order move_first|fight_first``,
                           and bare flags ``stuka_used``, ``scare_ever``)
``french: id@hex ...``     French units on the map, bottom of each stack first (R3);
                           ``(r)`` after a unit = reduced
``german: id@hex ...``     German units on the map
``refugees: h h* ...``     refugee markers; ``*`` = flipped this phase (rule 10.4)
``german_control: h ...``  hexes under German control (placing a unit also takes its hex)
``french_control: h ...``  hexes under French control
``ever_german: h ...``     hexes a German unit has occupied (rules 7.8, 11.7, R20)
``dead: id ...``           eliminated units (``garrisons`` = the four naval garrisons)
``evacuated: id ...``      evacuated units
``reserve: id ...``        units off map not yet entered
``naval_used: french british``  naval markers already fired this game turn (R32)
``scare: id``              the panzer-scared unit (rule 7.9)
``replacement: id``        the unit under the replacement marker (rule 8.2)
``moved|attacked|no_attack|immobile|must_leave|left_green|entered_map|entry_ready: id ...``
                           per-unit flags of the engine
``rolls: d d d``           the next dice rolled will be these (see :func:`dice_with`)
=========================  ===================================================================

Units not named anywhere: naval garrisons stand in their ports (rule 3.3); other
French units and the German main force are dead; German reinforcements are in
reserve (rule 9.1). Derived flags: an 18th Army unit in the green/red rows must
leave them (rule 9.2, R7), elsewhere it has left them; a west-group unit off the
yellow row has entered the map (rule 9.5).

:func:`custom_game` makes a :class:`Game` on a copy of the real map with a few hexes
or hexsides changed, so a terrain test does not depend on where the real map
happens to have a river. :func:`to_notation` writes a state back in this form.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

import numpy as np

from ffo_env.core.dice import Dice
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.datasets import data_dir
from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.mapdata import ColoredRow, MapData, Terrain
from ffo_env.ffo.core.scenario import Side, scenario_for
from ffo_env.ffo.core.state import DEAD, EVACUATED, ON_MAP, RESERVE, Decision, Phase, State
from ffo_env.ffo.core.state_check import UNIT_FLAGS

__all__ = ["custom_game", "default_game", "dice_with", "position", "to_notation"]


def default_game(setup: str = "decide", skip_forced: bool = True, data: str | None = None) -> Game:
    """A cached :class:`Game` on the real scenario of ``data`` (a data version or folder; None: the one this
    process plays, ``$FFO_DATA`` or the default), loading it once per process."""
    return _cached_game(setup, skip_forced, str(data_dir(data).resolve()))


@lru_cache(maxsize=8)
def _cached_game(setup: str, skip_forced: bool, folder: str) -> Game:
    return Game(scenario=scenario_for(folder), options=RulesOptions(setup=setup, skip_forced=skip_forced))


def dice_with(rolls: Sequence[int], start: int = 0) -> Dice:
    """A :class:`Dice` whose next ``roll()`` calls return ``rolls`` (found by searching PCG32 states).

    Fast for up to about five rolls (6**5 states are tried on average).
    """
    want = [int(r) for r in rolls]
    if any(not 1 <= r <= 6 for r in want):
        raise ValueError(f"dice rolls must be 1..6, got {want}")
    k = start
    while True:
        # seeded generators, not raw states: a small raw state always yields a first roll of 1
        d = Dice(seed=k)
        if all(d.roll() == r for r in want):
            return Dice(seed=k)
        k += 1


def _hex(tok: str, where: str) -> int:
    try:
        return hg.hex_index(tok)
    except ValueError as e:
        raise ValueError(f"notation {where}: {e}") from None


def position(text: str, game: Game | None = None, *, seed: int = 0, run: bool = True) -> State:
    """Build a :class:`State` from the notation in ``text`` (see the module docstring).

    ``game`` defaults to :func:`default_game` (decide setup, ``skip_forced`` on). With
    ``run=False`` the state is left *before* entering the phase (``decision`` ENTER).
    """
    game = game or default_game()
    sc = game.scenario
    s = State(game, seed, _start=False)
    ids = {u.id: u.index for u in sc.units}
    n = len(sc.units)
    placed: list[tuple[int, int]] = []
    reduced: set[int] = set()
    explicit: dict[str, list[int]] = {}
    status_of: dict[int, int] = {}
    refugees: dict[int, bool] = {}
    controls: list[tuple[int, int]] = []
    ever: list[int] = []
    rolls: list[int] | None = None
    phase_name = None
    order = "move_first"
    scalars: dict[str, int] = {}
    flags: set[str] = set()

    def unit(tok: str, where: str) -> int:
        if tok not in ids:
            raise ValueError(f"notation {where}: no unit {tok!r} (ids are those of units.yaml)")
        return ids[tok]

    def units(toks: Iterable[str], where: str) -> list[int]:
        out: list[int] = []
        for t in toks:
            if t == "garrisons":
                out.extend(u.index for u in sc.units if u.port)
            else:
                out.append(unit(t, where))
        return out

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"line {lineno}"
        if ":" in line:
            key, _, rest = line.partition(":")
            key = key.strip().lower()
            toks = rest.split()
            if key in ("french", "german"):
                side = Side.FRENCH if key == "french" else Side.GERMAN
                for t in toks:
                    uid, at, h = t.partition("@")
                    if not at:
                        raise ValueError(f"notation {where}: {t!r} is not unit@hex")
                    red = h.endswith("(r)")
                    u = unit(uid, where)
                    if sc.units[u].side != side:
                        raise ValueError(f"notation {where}: {uid} is not {key}")
                    placed.append((u, _hex(h[:-3] if red else h, where)))
                    if red:
                        reduced.add(u)
            elif key == "refugees":
                for t in toks:
                    refugees[_hex(t.rstrip("*"), where)] = t.endswith("*")
            elif key in ("german_control", "french_control"):
                side = Side.GERMAN if key == "german_control" else Side.FRENCH
                controls.extend((_hex(t, where), side) for t in toks)
            elif key == "ever_german":
                ever.extend(_hex(t, where) for t in toks)
            elif key in ("dead", "evacuated", "reserve"):
                st = {"dead": DEAD, "evacuated": EVACUATED, "reserve": RESERVE}[key]
                for u in units(toks, where):
                    status_of[u] = st
            elif key == "naval_used":
                for t in toks:
                    if t not in ("french", "british"):
                        raise ValueError(f"notation {where}: naval marker {t!r} is not french/british")
                    s.naval_used[0 if t == "french" else 1] = True
            elif key in ("scare", "replacement"):
                (u,) = units(toks, where)
                scalars[key] = u
            elif key in UNIT_FLAGS:
                explicit[key] = units(toks, where)
            elif key == "rolls":
                rolls = [int(t) for t in toks]
            else:
                raise ValueError(f"notation {where}: unknown key {key!r}")
            continue
        toks = line.split()
        i = 0
        while i < len(toks):
            k = toks[i].lower()
            if k in ("stuka_used", "scare_ever"):
                flags.add(k)
                i += 1
                continue
            if i + 1 >= len(toks):
                raise ValueError(f"notation {where}: {k!r} needs a value")
            v = toks[i + 1]
            if k == "phase":
                phase_name = v.upper()
            elif k in ("turn", "seed", "vp"):
                scalars[k] = int(v)
            elif k == "order":
                if v not in ("move_first", "fight_first"):
                    raise ValueError(f"notation {where}: order must be move_first or fight_first")
                order = v
            else:
                raise ValueError(f"notation {where}: unknown word {k!r}")
            i += 2
    if phase_name is None:
        raise ValueError("notation: a 'phase NAME' is required")
    try:
        phase = Phase[phase_name]
    except KeyError:
        raise ValueError(f"notation: no phase {phase_name!r}; phases: {[p.name for p in Phase]}") from None

    # everything off the map first, then place (state built by State(..., _start=False))
    s.stacks = {}
    s.loc = [-1] * n
    for spec in sc.units:
        if spec.side == Side.GERMAN and spec.setup == "reinforcement":
            s.status[spec.index] = RESERVE
        else:
            s.status[spec.index] = DEAD
    seen: set[int] = set()
    for placed_unit, placed_hex in placed:
        if placed_unit in seen:
            raise ValueError(f"notation: {sc.units[placed_unit].id} placed twice")
        seen.add(placed_unit)
        if not game.tables.land[placed_hex]:
            raise ValueError(f"notation: {hg.hex_name(placed_hex)} is not a land hex")
        other = s.side_at(placed_hex)
        if other >= 0 and other != sc.units[placed_unit].side:
            raise ValueError(f"notation: opposing units in {hg.hex_name(placed_hex)} (rule 6.6)")
        s._place(placed_unit, placed_hex)
    for spec in sc.units:
        if spec.port and spec.index not in seen and spec.index not in status_of:
            s._place(spec.index, sc.map.hex_of_city(spec.port))  # rule 3.3
    for u, st in status_of.items():
        if u in seen:
            raise ValueError(f"notation: {sc.units[u].id} is both on the map and {st}")
        if s.status[u] == ON_MAP:
            s._lift(u)
        s.status[u] = st
    for u in reduced:
        if sc.units[u].steps < 2:
            raise ValueError(f"notation: {sc.units[u].id} is a one-step unit and cannot be reduced")
        s.steps[u] = 1
    mt = game.tables
    for u in s.on_map_units(Side.GERMAN):
        spec = sc.units[u]
        row = mt.row[s.loc[u]]
        if spec.group == "18":
            out = row not in (ColoredRow.GREEN, ColoredRow.RED)
            s.must_leave[u] = not out  # rule 9.2, R7
            s.left_green[u] = out
        if spec.west:
            s.entered_map[u] = row != ColoredRow.YELLOW  # rule 9.5
    for key, us in explicit.items():
        arr = getattr(s, key)
        for u in us:
            arr[u] = True
    for hc, controller in controls:
        s.control[hc] = controller
        if controller == Side.GERMAN:
            s.ever_german[hc] = 1
    for he in ever:
        s.ever_german[he] = 1
    s.refugees = dict(sorted(refugees.items()))
    s.turn = scalars.get("turn", 1)
    s.vp = scalars.get("vp", 0)
    if s.vp:
        s.vp_log.append(
            {
                "turn": s.turn,
                "phase": phase.name,
                "kind": "notation",
                "vp": s.vp,
                "detail": "VP at the start of the position",
            }
        )
    s.scare_unit = scalars.get("scare", -1)
    s.replacement_unit = scalars.get("replacement", -1)
    s.stuka_used = "stuka_used" in flags
    s.scare_ever = "scare_ever" in flags or s.scare_unit >= 0
    s.german_move_first = order == "move_first"
    if "seed" in scalars:
        s.seed = scalars["seed"]
        s.dice = Dice(s.seed)
    if rolls is not None:
        s.dice = dice_with(rolls)
    s.phase = phase
    s.decision = Decision.ENTER
    s.player = (
        Side.GERMAN
        if phase.name.startswith(("GERMAN", "SETUP_GERMAN"))
        or phase
        in (
            Phase.REPLACEMENT,
            Phase.LUFTWAFFE,
            Phase.REPLACEMENT_COMPLETION,
            Phase.REINFORCEMENT,
            Phase.REFUGEE_PLACEMENT,
            Phase.SCARE_REMOVAL,
        )
        else Side.FRENCH
    )
    s._cache = {}
    s._legal = None
    if run:
        s._run_automatic_steps()
    return s


def to_notation(state: State) -> str:
    """The notation of ``state``'s position (units, refugees, control, flags), phase and turn.

    Decision context (a battle under way, a unit being moved) is not written: the
    text describes the position at the start of ``state.phase``.
    """
    sc = state.game.scenario
    mt = state.game.tables
    lines = [
        f"turn {state.turn} phase {state.phase.name} vp {state.vp}"
        + (" order fight_first" if not state.german_move_first else "")
        + (" stuka_used" if state.stuka_used else "")
        + (" scare_ever" if state.scare_ever else "")
    ]
    for side, name in ((Side.FRENCH, "french"), (Side.GERMAN, "german")):
        toks = []
        for h in sorted(state.stacks):
            for u in state.stacks[h]:
                if sc.units[u].side == side:
                    toks.append(f"{sc.units[u].id}@{hg.hex_name(h)}{'' if state.is_full(u) else '(r)'}")
        if toks:
            lines.append(f"{name}: " + " ".join(toks))
    if state.refugees:
        lines.append(
            "refugees: "
            + " ".join(hg.hex_name(h) + ("*" if f else "") for h, f in sorted(state.refugees.items()))
        )
    for st, key in ((DEAD, "dead"), (EVACUATED, "evacuated"), (RESERVE, "reserve")):
        us = [sc.units[u].id for u in range(len(sc.units)) if state.status[u] == st]
        if us:
            lines.append(f"{key}: " + " ".join(us))
    occupied = set(state.stacks)
    gc = [
        h
        for h in range(hg.N_HEX)
        if state.control[h] == Side.GERMAN
        and mt.row[h] in (ColoredRow.NONE, ColoredRow.RED)
        and h not in occupied
    ]
    fc = [
        h
        for h in range(hg.N_HEX)
        if state.control[h] == Side.FRENCH and state.ever_german[h] and h not in occupied
    ]
    if gc:
        lines.append("german_control: " + " ".join(hg.hex_name(h) for h in gc))
    if fc:
        lines.append("french_control: " + " ".join(hg.hex_name(h) for h in fc))
    eg = [h for h in range(hg.N_HEX) if state.ever_german[h] and state.control[h] == Side.FRENCH]
    if eg:
        lines.append("ever_german: " + " ".join(hg.hex_name(h) for h in eg))
    used = [n for n, f in zip(("french", "british"), state.naval_used, strict=True) if f]
    if used:
        lines.append("naval_used: " + " ".join(used))
    if state.scare_unit >= 0:
        lines.append(f"scare: {sc.units[state.scare_unit].id}")
    if state.replacement_unit >= 0:
        lines.append(f"replacement: {sc.units[state.replacement_unit].id}")
    for key in UNIT_FLAGS:
        arr = getattr(state, key)
        us = [sc.units[u].id for u in range(len(sc.units)) if arr[u] and state.status[u] == ON_MAP]
        if us:
            lines.append(f"{key}: " + " ".join(us))
    return "\n".join(lines)


def custom_game(
    *,
    plain: bool = False,
    terrain: Mapping[str, str] | None = None,
    rivers: Iterable[tuple[str, str]] = (),
    no_rivers: Iterable[tuple[str, str]] = (),
    blocked: Iterable[tuple[str, str]] = (),
    cities: Mapping[str, str] | None = None,
    options: RulesOptions | None = None,
    base: Game | None = None,
) -> Game:
    """A :class:`Game` on a copy of the real map with some hexes / hexsides changed.

    - ``plain``: every land hex outside cities becomes clear and every river is removed;
    - ``terrain``: ``{"4512": "mountain", ...}`` (clear, rough, marsh, mountain, sea, neutral);
    - ``rivers`` / ``no_rivers`` / ``blocked``: hexsides given as pairs of adjacent hexes;
    - ``cities``: ``{"4512": "Testville"}`` adds a city, ``{"4219": ""}`` removes one.

    >>> g = custom_game(plain=True, rivers=[("4512", "4513")])
    >>> g.tables.river_side[hg.hex_index("4512")][hg.direction_to(hg.hex_index("4512"), hg.hex_index("4513"))]
    True
    """
    base = base or default_game()
    m = base.scenario.map
    ter = np.array(m.terrain, copy=True)
    river = np.array(m.river, copy=True)
    blk = np.array(m.blocked, copy=True)
    city = list(m.city)
    if plain:
        land = (ter != Terrain.SEA) & (ter != Terrain.NEUTRAL)
        ter[land] = Terrain.CLEAR
        river[:] = False
    for h, name in (terrain or {}).items():
        ter[hg.hex_index(h)] = Terrain[name.upper()]

    def side(a: str, b: str) -> tuple[int, int, int, int]:
        i, j = hg.hex_index(a), hg.hex_index(b)
        d = hg.direction_to(i, j)
        if d < 0:
            raise ValueError(f"{a} and {b} are not adjacent")
        return i, d, j, (d + 3) % 6

    for a, b in rivers:
        i, d, j, e = side(a, b)
        river[i, d] = river[j, e] = True
    for a, b in no_rivers:
        i, d, j, e = side(a, b)
        river[i, d] = river[j, e] = False
    for a, b in blocked:
        i, d, j, e = side(a, b)
        blk[i, d] = blk[j, e] = True
    for h, name in (cities or {}).items():
        city[hg.hex_index(h)] = name
    newmap = MapData(
        terrain=ter,
        city=tuple(city),
        port=m.port,
        row=m.row,
        river=river,
        blocked=blk,
        source=f"{m.source} (modified for a test)",
    )
    scen = dataclasses.replace(base.scenario, map=newmap)
    return Game(scenario=scen, options=options or base.options)
