"""Conv: N-D convolution (cross-correlation) with groups, strides, dilations and padding.

``Y[n, m, o] = B[m] + sum_{c, k} X_pad[n, g*Cg + c, o*stride + k*dilation] * W[m, c, k]``
where ``g = m // (M / group)`` and ``Cg = C / group``. The three schema versions
(1, 11, 22) differ only in the element types they admit.

Computation: the padded input is gathered, every kernel offset in one copy, into a
column tensor (im2col) and contracted with the weights by one batched matmul per
group. Depthwise convolution (one input channel per group) instead sums, for
each output element, the products of its kernel offsets in row-major order
from zero, and then adds the bias.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._window_taps import WindowTaps
from ._windows import (
    WindowGeometry,
    accumulation_dtype,
    check_kernel_shape,
    convolved_axes,
    pad_spatial,
    window_geometry,
    window_view,
)
from .base import Kernel


def conv(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None = None,
    *,
    group: int = 1,
    kernel_shape: Sequence[int] | None = None,
    **attrs: Any,
) -> np.ndarray:
    """Conv-1, -11, -22 (the window attributes as ``_windows.window_geometry`` reads them)."""
    nsp = convolved_axes(x, w)
    n, c = x.shape[:2]
    m, cg = w.shape[:2]
    group = int(group)
    if group < 1 or c % group or m % group:
        raise ValueError(f"group={group} must divide the input channels ({c}) and the feature maps ({m})")
    if cg * group != c:
        raise ValueError(f"W has {cg} channels per group; X has {c} channels in {group} groups")
    check_kernel_shape(kernel_shape, w.shape[2:])
    if b is not None and b.shape != (m,):
        raise ValueError(f"B has shape {b.shape}, want ({m},)")
    geo = window_geometry(x.shape[2:], w.shape[2:], **attrs)
    acc = accumulation_dtype(x.dtype)
    xa = x.astype(acc, copy=False)
    wa = w.astype(acc, copy=False)
    mg = m // group
    if group == c and cg == 1:
        return _depthwise(xa, wa, b, geo, mg, acc).astype(x.dtype, copy=False)
    xp = pad_spatial(xa, geo.pad_begin, geo.pad_end, 0)
    spatial_ones = (1,) * nsp
    ksize = math.prod(geo.kernel)
    npos = math.prod(geo.out)
    if ksize == 1 and xp.shape[2:] == geo.out:
        cols = xp.reshape(n, c, npos)
    else:
        buf = np.empty((n, c, *geo.kernel, *geo.out), dtype=acc)
        np.copyto(buf, window_view(xp, geo))
        cols = buf.reshape(n, c * ksize, npos)
    if group == 1:
        y = np.matmul(wa.reshape(m, cg * ksize), cols)
    else:
        y = np.matmul(wa.reshape(group, mg, cg * ksize), cols.reshape(n, group, cg * ksize, npos))
    y = y.reshape(n, m, *geo.out)
    if b is not None:
        y += b.astype(acc, copy=False).reshape(m, *spatial_ones)
    return y.astype(x.dtype, copy=False)


FUSED_LIMIT = 1 << 18
"""Most products (elements) the depthwise kernel holds at once: above it, a multiply and an add per offset."""


def _depthwise(
    xa: np.ndarray, wa: np.ndarray, b: np.ndarray | None, geo: WindowGeometry, mg: int, acc: np.dtype
) -> np.ndarray:
    """One filter per input channel (times ``mg``): per output element, ``0 + w_0 x_0 + w_1 x_1 + ...``.

    The sum runs over the kernel offsets in row-major order, from zero, each
    product rounded before it is added; then the bias. The offsets are read as
    one contiguous run per channel (``_window_taps``). Two forms compute it,
    chosen from the shapes alone:

    * when every offset reads the same phase plane (stride 1, say), the
      (N, C, length) grid of runs has at least two elements, and all the products fit in
      :data:`FUSED_LIMIT`: one multiply gives every product, in a
      (K, N, C, length) buffer, and one ``np.add.reduce`` over its first axis
      from an initial zero sums them. NumPy reduces an axis that is not the
      innermost one (here the (N, C, length) slices, of two elements or more,
      are innermost) slice by slice in index order (its pairwise summation
      applies only along the innermost axis), so every element gets the same
      additions in the same order as in the other form. Two NumPy calls
      instead of two per offset: for small tensors, where the calls cost more
      than the arithmetic;
    * otherwise a multiply and an add per offset, with one product buffer the
      size of the output, which stays in cache for large tensors.
    """
    n = xa.shape[0]
    m = wa.shape[0]
    if mg > 1:
        xa = np.repeat(xa, mg, axis=1)
    windows = WindowTaps(xa, geo, 0)
    length = windows.length
    ksize = math.prod(geo.kernel)
    if windows.planes == 1 and n * m * length >= 2 and ksize * n * m * length <= FUSED_LIMIT:
        runs = windows.tap_grids()[0][1]
        y = np.empty((n, m, length), dtype=acc)
        products = np.empty((*geo.kernel, n, m, length), dtype=acc)
        factors = np.moveaxis(wa.reshape(m, *geo.kernel), 0, -1)[..., None, :, None]
        np.multiply(factors, np.moveaxis(runs, (0, 1), (-3, -2)), out=products)
        np.add.reduce(products.reshape(ksize, n, m, length), axis=0, initial=0, out=y)
    else:
        y = np.zeros((n, m, length), dtype=acc)
        product = np.empty_like(y)
        weights = wa.reshape(m, -1)
        for i, tap in enumerate(windows.taps()):
            np.multiply(weights[:, i : i + 1], tap, out=product)
            np.add(y, product, out=y)
    out = windows.crop(y)
    if b is not None:
        return out + b.astype(acc, copy=False).reshape(m, *(1,) * len(geo.out))
    return np.ascontiguousarray(out)


KERNELS = (Kernel("Conv", (1, 11, 22), conv),)
