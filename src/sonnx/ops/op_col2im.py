"""Col2Im: fold column blocks back into an image, summing where blocks overlap (the inverse layout of im2col).

The input is ``N x (C * prod(block)) x L``; its column ``l`` holds the block at
the ``l``-th position (row-major) of the block grid over the padded image,
position ``p`` starting at ``p * strides`` with elements ``dilations`` apart.
``image[n, c, p * s + k * d - pad_begin] += input[n, c * prod(block) + k, l]``
for every block offset ``k``; elements falling into the padding are dropped.
The grid has ``(image + pads - ((block - 1) * d + 1)) // s + 1`` positions per
axis, whose product must be ``L``. One version (18).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._windows import accumulation_dtype, resolve_geometry
from .base import Kernel


def col2im(
    x: np.ndarray,
    image_shape: np.ndarray,
    block_shape: np.ndarray,
    *,
    dilations: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
    **_attrs: Any,
) -> np.ndarray:
    """Col2Im-18."""
    image = [int(v) for v in np.asarray(image_shape).reshape(-1)]
    block = [int(v) for v in np.asarray(block_shape).reshape(-1)]
    if len(image) != len(block):
        raise ValueError(f"image_shape has {len(image)} values and block_shape {len(block)}")
    if x.ndim != 3:
        raise ValueError(f"the input must be N x (C * prod(block_shape)) x L, not rank {x.ndim}")
    if any(v < 0 for v in image) or any(v < 1 for v in block):
        raise ValueError(f"image_shape {image} must not be negative and block_shape {block} must be positive")
    geo = resolve_geometry(image, block, strides, dilations, pads, "NOTSET")
    ksize = int(np.prod(block))
    n, ck, length = x.shape
    if ck % ksize:
        raise ValueError(f"the input has {ck} rows, not a multiple of prod(block_shape) = {ksize}")
    if int(np.prod(geo.out)) != length:
        raise ValueError(f"the input has {length} blocks; image, block, pads, strides and dilations give {geo.out}")
    c = ck // ksize
    if x.dtype.kind in ("U", "S", "O"):
        raise ValueError("Col2Im sums overlapping blocks, which is not defined for strings")
    acc = accumulation_dtype(x.dtype)
    cols = x.astype(acc, copy=False).reshape(n, c, ksize, *geo.out)
    padded = [i + b + e for i, b, e in zip(image, geo.pad_begin, geo.pad_end, strict=True)]
    buf = np.zeros((n, c, *padded), dtype=acc)
    lead = (slice(None), slice(None))
    # One strided accumulation per block offset: the blocks' elements at one offset never collide.
    for i, off in enumerate(geo.offsets()):
        buf[lead + geo.window_slices(off)] += cols[:, :, i]
    inner = tuple(slice(b, b + s) for b, s in zip(geo.pad_begin, image, strict=True))
    return buf[lead + inner].astype(x.dtype, copy=False)


KERNELS = (Kernel("Col2Im", (18,), col2im),)
