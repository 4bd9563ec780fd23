"""DepthToSpace: move channel blocks into [blocksize, blocksize] pixel blocks, [N, C*b*b, H, W] -> [N, C, H*b, W*b].

The channel order within a block is ``mode`` (see :mod:`sonnx.ops._blocks`):
DCR (the default, and the only order of version 1) or CRD (from version 11).
Versions 13 and 28 differ from 11 only in the element types they admit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _blocks
from .base import Kernel


def depth_to_space_1(x: np.ndarray, blocksize: int | None = None, **_attrs: Any) -> np.ndarray:
    """Version 1: DCR order."""
    return _blocks.depth_to_space(x, _blocks.check(x, blocksize, "DCR", "DepthToSpace"), "DCR")


def depth_to_space(x: np.ndarray, blocksize: int | None = None, mode: str = "DCR", **_attrs: Any) -> np.ndarray:
    """Versions 11, 13 and 28."""
    return _blocks.depth_to_space(x, _blocks.check(x, blocksize, mode, "DepthToSpace"), mode)


KERNELS = (
    Kernel("DepthToSpace", (1,), depth_to_space_1),
    Kernel("DepthToSpace", (11, 13, 28), depth_to_space),
)
