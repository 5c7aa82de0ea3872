"""Where a unit may be set up (rules 3.3, 3.4, 6.2, R2), and the check of a fixed deployment against it.

The one definition of a legal setup hex: the engine's setup decisions (:mod:`ffo_env.ffo.core.setup_phase`)
and :func:`check_fixed_setup`, run when a scenario is loaded, both ask :func:`setup_hexes`. It needs only
the map's colored rows and a stack count, so loading a scenario does not need a game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ffo_env.core.errors import DataError
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.mapdata import ColoredRow
from ffo_env.ffo.core.sides import Side

if TYPE_CHECKING:
    from ffo_env.ffo.core.scenario import Scenario, UnitSpec

# units each side places at setup (rule 3.3: French red row and the two fortress hexes; rule 3.4: German
# green row); naval garrisons start in their ports and reinforcements enter later (rule 9)
SETUP_KINDS = {Side.FRENCH: ("red", "fortress"), Side.GERMAN: ("green",)}


def setup_candidates(spec: UnitSpec, red: Sequence[int], green: Sequence[int]) -> tuple[list[int], bool]:
    """The hexes of the setup rows unit ``spec`` may be placed in (rules 3.3, 3.4; ascending, as the rows are
    given) and whether the setup stacking limit restricts them there (rule 6.2; rule 6.3: not for free-stacking
    units; of the units set up in the two fortress hexes, only for the fortress corps themselves)."""
    if spec.side == Side.FRENCH:
        east = list(red[-2:])  # rule 3.3: 5923 and 5924
        if spec.setup == "fortress":
            return east, spec.type == "fortress"
        return [h for h in red if h not in east], not spec.free_stacking  # rules 6.2, 6.3
    return list(green), not spec.free_stacking  # rules 6.2, 6.3


def setup_hexes(
    spec: UnitSpec, red: Sequence[int], green: Sequence[int], limit: int, counted: Callable[[int], int]
) -> list[int]:
    """Hexes unit ``spec`` may be placed in, given the red and green rows (ascending), the setup stacking
    limit and ``counted(h)``, the units in ``h`` that count against it (rules 3.3, 3.4, 6.2, 6.3): the
    :func:`setup_candidates` below the limit where the limit applies."""
    hexes, limited = setup_candidates(spec, red, green)
    if limited:
        return [h for h in hexes if counted(h) < limit]
    return hexes


def check_fixed_setup(scenario: Scenario, source: Path | str) -> None:
    """Every fixed placement must be one the setup rules allow (rules 3.3, 3.4, 6.2, R2).

    The listed placements of each side are made one at a time, each time the first listed one that
    :func:`setup_hexes` allows in the position so far (the order changes which hexes are still free:
    stacking, fortress hexes); when none is, the first one still listed is at fault."""
    m = scenario.map
    red = m.row_hexes(ColoredRow.RED)
    green = m.row_hexes(ColoredRow.GREEN)
    limit = scenario.tables.setup_stack_limit
    units = {u.id: u for u in scenario.units}
    stack: dict[int, int] = {}
    for u in scenario.units:
        if u.port and not u.free_stacking:
            h = m.hex_of_city(u.port)
            stack[h] = stack.get(h, 0) + 1

    def counted(h: int) -> int:
        return stack.get(h, 0)

    for side in (Side.FRENCH, Side.GERMAN):
        todo = [(uid, h) for uid, h in scenario.fixed_setup.items() if units[uid].side == side]
        while todo:
            for i, (uid, h) in enumerate(todo):
                spec = units[uid]
                if h in setup_hexes(spec, red, green, limit, counted):
                    if not spec.free_stacking:
                        stack[h] = stack.get(h, 0) + 1
                    del todo[i]
                    break
            else:
                uid, h = todo[0]
                raise DataError(
                    f"{source}: placement.{uid}: hex {hg.hex_name(h)} is not a legal setup hex "
                    f"for {uid} (rules 3.3, 3.4, 6.2: own setup row, on land, within the "
                    f"stacking limit); expected one of the hexes the setup rules allow"
                )
