"""Conv: N-D convolution (cross-correlation) with groups, strides, dilations and padding.

``Y[n, m, o] = B[m] + sum_{c, k} X_pad[n, g*Cg + c, o*stride + k*dilation] * W[m, c, k]``
where ``g = m // (M / group)`` and ``Cg = C / group``. The three schema versions
(1, 11, 22) differ only in the element types they admit.

Computation: the padded input is gathered once per kernel offset into a column
tensor (im2col) and contracted with the weights by one batched matmul per
group. Depthwise convolution (one input channel per group) is instead a
multiply-accumulate per kernel offset over the whole tensor, summing the
offsets in row-major order from zero and then adding the bias.
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
    window_indexes,
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
        buf = np.empty((n, c, ksize, *geo.out), dtype=acc)
        for i, index in enumerate(window_indexes(geo)):
            buf[:, :, i] = xp[index]
        cols = buf.reshape(n, c * ksize, npos)
    if group == 1:
        y = np.matmul(wa.reshape(m, cg * ksize), cols)
    else:
        y = np.matmul(wa.reshape(group, mg, cg * ksize), cols.reshape(n, group, cg * ksize, npos))
    y = y.reshape(n, m, *geo.out)
    if b is not None:
        y += b.astype(acc, copy=False).reshape(m, *spatial_ones)
    return y.astype(x.dtype, copy=False)


def _depthwise(
    xa: np.ndarray, wa: np.ndarray, b: np.ndarray | None, geo: WindowGeometry, mg: int, acc: np.dtype
) -> np.ndarray:
    """One filter per input channel (times ``mg``): a multiply-accumulate per kernel offset.

    A per-channel matmul would be ``C`` tiny products; here each kernel offset
    is one broadcast multiply and one add over the whole tensor, in offset
    order from zero, then the bias. The offsets are read as one contiguous run
    per channel (``_window_taps``), so each call has long inner loops.
    """
    n = xa.shape[0]
    m = wa.shape[0]
    if mg > 1:
        xa = np.repeat(xa, mg, axis=1)
    windows = WindowTaps(xa, geo, 0)
    y = np.zeros((n, m, windows.length), dtype=acc)
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
