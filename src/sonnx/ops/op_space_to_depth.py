"""SpaceToDepth: move [blocksize, blocksize] pixel blocks into channels, [N, C, H*b, W*b] -> [N, C*b*b, H, W].

The inverse of DepthToSpace. Versions 1 and 13 use the DCR order (block
position slowest); version 28 adds ``mode`` (DCR by default, or CRD: channel
slowest), see :mod:`sonnx.ops._blocks`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _blocks
from .base import Kernel


def space_to_depth_1(x: np.ndarray, blocksize: int | None = None, **_attrs: Any) -> np.ndarray:
    """Versions 1 and 13: DCR order."""
    return _blocks.space_to_depth(x, _blocks.check(x, blocksize, "DCR", "SpaceToDepth"), "DCR")


def space_to_depth(x: np.ndarray, blocksize: int | None = None, mode: str = "DCR", **_attrs: Any) -> np.ndarray:
    """Version 28."""
    return _blocks.space_to_depth(x, _blocks.check(x, blocksize, mode, "SpaceToDepth"), mode)


KERNELS = (
    Kernel("SpaceToDepth", (1, 13), space_to_depth_1),
    Kernel("SpaceToDepth", (28,), space_to_depth),
)
