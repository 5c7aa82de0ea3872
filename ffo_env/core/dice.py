"""The game's own seeded die (R37).

A tiny PCG32 generator: its whole state is one integer, so a game state clones
and serialises its dice exactly, and the same seed gives the same rolls on any
platform and Python version (``random.Random`` makes no such promise across
versions for ``randrange``).
"""

from __future__ import annotations

_MASK64 = (1 << 64) - 1
_MULT = 6364136223846793005
_INC = 1442695040888963407
_2_32 = 1 << 32


class Dice:
    """PCG32 (XSH RR). ``roll()`` is an unbiased 1..6; ``below(n)`` an unbiased 0..n-1."""

    __slots__ = ("state",)

    def __init__(self, seed: int = 0, state: int | None = None) -> None:
        if state is not None:
            self.state = state & _MASK64
        else:
            self.state = 0
            self._next()
            self.state = (self.state + (seed & _MASK64)) & _MASK64
            self._next()

    def _next(self) -> int:
        old = self.state
        self.state = (old * _MULT + _INC) & _MASK64
        xorshifted = (((old >> 18) ^ old) >> 27) & 0xFFFFFFFF
        rot = old >> 59
        return ((xorshifted >> rot) | (xorshifted << ((-rot) & 31))) & 0xFFFFFFFF

    def below(self, n: int) -> int:
        if n <= 0:
            raise ValueError("below(n) needs n >= 1")
        # rejection sampling keeps every outcome equally likely; the generator step of _next is written out
        # here (the same arithmetic) because a new game's random setup draws about a hundred of these
        limit = _2_32 - (_2_32 % n)
        old = self.state
        while True:
            new = (old * _MULT + _INC) & _MASK64
            xorshifted = (((old >> 18) ^ old) >> 27) & 0xFFFFFFFF
            rot = old >> 59
            r = ((xorshifted >> rot) | (xorshifted << ((-rot) & 31))) & 0xFFFFFFFF
            old = new
            if r < limit:
                self.state = new
                return r % n

    def roll(self) -> int:
        return self.below(6) + 1

    def copy(self) -> Dice:
        return Dice(state=self.state)
