"""The flat observation (``observation_format="flat"``): one 1-D float32 vector per observation.

Stock tools (SuperSuit, CleanRL's single-file scripts, RLlib's default encoders, Tianshou's nets) consume
a flat ``Box``. The flat vector is the structured observation of :mod:`ffo_env.ffo.encoding.observation`
concatenated in a fixed order, each block in C order:

==========  =====================================  =========================================
offset      block                                  element ``i`` within the block
==========  =====================================  =========================================
0           ``planes`` ``(C, 60, 26)``             plane ``i // 1560``, column ``(i // 26) % 60 + 1``,
                                                   row ``i % 26``
C * 1560    ``globals`` ``(G,)``                   global ``i``
+ G         ``units`` ``(U, F)``                   unit ``i // F``, feature ``i % F``
==========  =====================================  =========================================

``C``, ``G``, ``U``, ``F`` are those of the encoder (71, 123, 62, 44 today). :func:`describe` names the
feature at any offset (``describe(layout, 5)`` -> ``"planes: land @ column 1 row 5"``) and
:meth:`FlatLayout.unflatten` gives the dict back. The bounds of the ``Box`` are the structured bounds,
flattened; the values are exactly the structured ones (``uint8`` planes as floats).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np
from gymnasium import spaces

from ffo_env.ffo.core.game import Game
from ffo_env.ffo.encoding.layout import block_at
from ffo_env.ffo.encoding.observation import GLOBAL_GROUPS, PLANE_GROUPS, UNIT_GROUPS, expand_names
from ffo_env.ffo.spaces import observation_dict_space

__all__ = ["BLOCKS", "FlatLayout", "describe", "flat_layout"]

BLOCKS = ("planes", "globals", "units")


@dataclass(frozen=True)
class FlatLayout:
    """Where each block of the structured observation sits in the flat vector."""

    shapes: dict[str, tuple[int, ...]]
    offsets: dict[str, int]
    size: int
    low: np.ndarray
    high: np.ndarray

    def flatten(self, obs: dict[str, np.ndarray], out: np.ndarray | None = None) -> np.ndarray:
        """The flat float32 vector of a structured observation (written into ``out`` if given)."""
        if out is None:
            out = np.empty(self.size, dtype=np.float32)
        for name in BLOCKS:
            o = self.offsets[name]
            a = obs[name]
            out[o : o + a.size] = a.reshape(-1)
        return out

    def unflatten(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """The structured observation of a flat vector (float32 arrays; the planes hold whole numbers)."""
        flat = np.asarray(flat)
        if flat.shape != (self.size,):
            raise ValueError(f"a flat observation has shape ({self.size},), got {flat.shape}")
        out = {}
        for name in BLOCKS:
            o = self.offsets[name]
            n = int(np.prod(self.shapes[name]))
            out[name] = flat[o : o + n].reshape(self.shapes[name])
        return out

    def space(self) -> spaces.Box:
        return spaces.Box(low=self.low, high=self.high, shape=(self.size,), dtype=np.float32)

    def block_of(self, offset: int) -> tuple[str, tuple[int, ...]]:
        """The block holding ``offset`` and the index within that block's shape."""
        return block_at(BLOCKS, self.offsets, self.shapes, self.size, offset)


_LAYOUTS: dict[int, FlatLayout] = {}


def flat_layout(game: Game) -> FlatLayout:
    """The flat layout of ``game``'s observations (cached per number of units: the only game-dependent size)."""
    n_units = len(game.scenario.units)
    hit = _LAYOUTS.get(n_units)
    if hit is not None:
        return hit
    d = observation_dict_space(game)
    shapes = {name: tuple(int(x) for x in (d[name].shape or ())) for name in BLOCKS}
    offsets, k = {}, 0
    for name in BLOCKS:
        offsets[name] = k
        k += int(np.prod(shapes[name]))
    boxes = [cast(spaces.Box, d[name]) for name in BLOCKS]
    low = np.concatenate([np.asarray(b.low, dtype=np.float32).reshape(-1) for b in boxes])
    high = np.concatenate([np.asarray(b.high, dtype=np.float32).reshape(-1) for b in boxes])
    layout = FlatLayout(shapes=shapes, offsets=offsets, size=k, low=low, high=high)
    _LAYOUTS[n_units] = layout
    return layout


_NAMES = {
    "planes": expand_names(PLANE_GROUPS),
    "globals": expand_names(GLOBAL_GROUPS),
    "units": expand_names(UNIT_GROUPS),
}


def describe(layout: FlatLayout, offset: int) -> str:
    """What the flat observation holds at ``offset``, in words (the names of the encoding's spec)."""
    block, idx = layout.block_of(offset)
    if block == "planes":
        c, col, row = idx
        return f"planes: {_NAMES['planes'][c]} @ column {col + 1} row {row}"
    if block == "globals":
        return f"globals: {_NAMES['globals'][idx[0]]}"
    u, f = idx
    return f"units: row {u}, {_NAMES['units'][f]}"
