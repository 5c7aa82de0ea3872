"""Encoding of core states as tensors: observations (with fog of war) and action masks.

Pure numpy over :mod:`ffo_env.ffo.core`; never imports gymnasium or pettingzoo.
"""

from ffo_env.ffo.encoding.observation import (
    GLOBAL_GROUPS,
    GRID_SHAPE,
    PLANE_GROUPS,
    UNIT_CLASSES,
    UNIT_GROUPS,
    ObservationEncoder,
    encode,
    encoder_for,
    legal_mask,
)

__all__ = [
    "GLOBAL_GROUPS",
    "GRID_SHAPE",
    "PLANE_GROUPS",
    "UNIT_CLASSES",
    "UNIT_GROUPS",
    "ObservationEncoder",
    "encode",
    "encoder_for",
    "legal_mask",
]
