"""The one integer action space shared by the core, the masks and the bots.

Every decision of the game is one atomic choice encoded as an integer in
``[0, n_actions)``:

=====================  ==========================================================
range                  meaning
=====================  ==========================================================
``[0, N_HEX)``         a hex, by internal index (destination, target, retreat,
                       placement, ...); see :mod:`ffo_env.ffo.core.hexgrid`
``[unit_base, +U)``    a unit, by its index in the scenario's unit list
``special_base + k``   a special choice, :class:`Special` ``k``
=====================  ==========================================================

Which of them are legal, and what a hex or unit means, depends on the current
:class:`~ffo_env.ffo.core.state.Decision`; ``State.legal_actions()`` is the single
source of truth and ``State.action_to_string(a)`` says what an action does.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from ffo_env.ffo.core import hexgrid as hg


class Special(IntEnum):
    PASS = 0  # end the phase / done adding / decline / stay
    MOVE_FIRST = 1  # rule 5.6
    FIGHT_FIRST = 2  # rule 5.6
    STUKA = 3  # rule 12.1: commit the 8th Fliegerkorps
    NAVAL_FRENCH = 4  # rule 12.8: commit the French naval gun support marker
    NAVAL_BRITISH = 5  # rule 12.8: commit the British naval gun support marker
    LOWER_0 = 6  # rule 13.19: lower the differential by k columns = LOWER_0 + k


N_FIXED_SPECIALS = int(Special.LOWER_0)


class IllegalActionError(ValueError):
    """An action that is not legal in the current state; the state is left unchanged."""


@dataclass(frozen=True)
class ActionLayout:
    n_hex: int
    n_units: int
    n_lower: int  # number of CRT columns: lowering by 0..n_lower-1

    @property
    def unit_base(self) -> int:
        return self.n_hex

    @property
    def special_base(self) -> int:
        return self.n_hex + self.n_units

    @property
    def n_actions(self) -> int:
        return self.special_base + N_FIXED_SPECIALS + self.n_lower

    def hex_action(self, hex_index: int) -> int:
        return hex_index

    def unit_action(self, unit_index: int) -> int:
        return self.n_hex + unit_index

    def special(self, s: Special | int) -> int:
        return self.special_base + int(s)

    def lower(self, k: int) -> int:
        return self.special_base + int(Special.LOWER_0) + k

    def kind(self, a: int) -> str:
        if 0 <= a < self.n_hex:
            return "hex"
        if a < self.special_base:
            return "unit"
        if a < self.n_actions:
            return "special"
        raise IllegalActionError(f"action {a} is outside the action space [0, {self.n_actions})")

    def describe(self, a: int, unit_ids: tuple[str, ...] = ()) -> str:
        k = self.kind(a)
        if k == "hex":
            return hg.hex_name(a)
        if k == "unit":
            i = a - self.unit_base
            return unit_ids[i] if i < len(unit_ids) else f"unit#{i}"
        s = a - self.special_base
        if s >= int(Special.LOWER_0):
            return f"lower by {s - int(Special.LOWER_0)}"
        return Special(s).name.lower()
