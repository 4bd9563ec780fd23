"""MaxUnpool: put every element of X at the position its index in I names, zeros elsewhere.

``I`` holds flat (row-major) indices into the output tensor, as MaxPool's
``Indices`` output does into its input: ``(n * C + c) * prod(D) + s``. The
output shape is ``output_shape`` when that input is given (the whole shape,
N and C included), else ``N x C x D1 x ...`` with ``Di = (in_i - 1) *
stride_i + kernel_i - pad_begin_i - pad_end_i``. An index outside the output
is refused; when two elements name one position (overlapping MaxPool windows,
where they are equal) either may be kept.

Versions 9, 11 and 22 differ only in the types they admit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._windows import check_spatial_input, per_axis
from .base import Kernel


def max_unpool(
    x: np.ndarray,
    i: np.ndarray,
    output_shape: np.ndarray | None = None,
    *,
    kernel_shape: Sequence[int],
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
    **_attrs: object,
) -> np.ndarray:
    """MaxUnpool-9, -11, -22."""
    nsp = check_spatial_input(x)
    if i.shape != x.shape:
        raise ValueError(f"I has shape {i.shape}, X {x.shape}; they must be equal")
    kernel = per_axis("kernel_shape", kernel_shape, nsp, 0)
    if kernel_shape is None or any(k < 1 for k in kernel):
        raise ValueError(f"kernel_shape must give {nsp} positive sizes")
    stride = per_axis("strides", strides, nsp, 1)
    pad = per_axis("pads", pads, 2 * nsp, 0)
    if output_shape is not None:
        shape = tuple(int(v) for v in np.asarray(output_shape).reshape(-1))
        if len(shape) != x.ndim or shape[:2] != x.shape[:2] or any(v < 0 for v in shape):
            raise ValueError(f"output_shape {list(shape)} must be N x C x D1 x ... with X's N and C {x.shape[:2]}")
    else:
        spatial = [
            (n - 1) * s + k - pb - pe
            for n, s, k, pb, pe in zip(x.shape[2:], stride, kernel, pad[:nsp], pad[nsp:], strict=True)
        ]
        if any(v < 0 for v in spatial):
            raise ValueError(f"the unpooled shape {spatial} is negative (pads too large)")
        shape = x.shape[:2] + tuple(spatial)
    size = int(np.prod(shape))
    flat = i.astype(np.int64, copy=False).reshape(-1)
    if flat.size and (flat.min() < 0 or flat.max() >= size):
        raise ValueError(f"an index in I lies outside the output of shape {list(shape)} ({size} elements)")
    y = np.zeros(size, dtype=x.dtype)
    y[flat] = x.reshape(-1)
    return y.reshape(shape)


KERNELS = (Kernel("MaxUnpool", (9, 11, 22), max_unpool),)
