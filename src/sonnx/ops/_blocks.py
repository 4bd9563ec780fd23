"""What DepthToSpace and SpaceToDepth share: the block permutation between channels and [blocksize]^2 pixels.

For an [N, C * b * b, H, W] tensor and an [N, C, H * b, W * b] one, channel
c' of the first and pixel (h * b + i, w * b + j) of channel c of the second
correspond when ``c' = (i * b + j) * C + c`` (DCR: depth, column, row; the
block position varies slowest) or ``c' = c * b * b + i * b + j`` (CRD: column,
row, depth; the channel varies slowest). SpaceToDepth is the inverse of
DepthToSpace with the same mode.
"""

from __future__ import annotations

import numpy as np

MODES = ("DCR", "CRD")


def check(x: np.ndarray, blocksize: int | None, mode: str, operator: str) -> int:
    """The block size, after checking rank 4, a positive block size and a known mode."""
    if x.ndim != 4:
        raise ValueError(f"{operator}: the input must have rank 4, got rank {x.ndim}")
    if blocksize is None or blocksize < 1:
        raise ValueError(f"{operator}: blocksize must be a positive integer, got {blocksize}")
    if mode not in MODES:
        raise ValueError(f"{operator}: mode must be DCR or CRD, got {mode!r}")
    return int(blocksize)


def depth_to_space(x: np.ndarray, b: int, mode: str) -> np.ndarray:
    """[N, C * b * b, H, W] to [N, C, H * b, W * b]."""
    n, c, h, w = x.shape
    if c % (b * b):
        raise ValueError(f"DepthToSpace: {c} channels are not a multiple of blocksize^2 = {b * b}")
    depth = c // (b * b)
    if mode == "DCR":
        t = x.reshape(n, b, b, depth, h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        t = x.reshape(n, depth, b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return t.reshape(n, depth, h * b, w * b)


def space_to_depth(x: np.ndarray, b: int, mode: str) -> np.ndarray:
    """[N, C, H * b, W * b] to [N, C * b * b, H, W]."""
    n, c, h, w = x.shape
    if h % b or w % b:
        raise ValueError(f"SpaceToDepth: height {h} and width {w} must be multiples of blocksize {b}")
    t = x.reshape(n, c, h // b, b, w // b, b)
    if mode == "DCR":
        t = t.transpose(0, 3, 5, 1, 2, 4)
    else:
        t = t.transpose(0, 1, 3, 5, 2, 4)
    return t.reshape(n, c * b * b, h // b, w // b)
