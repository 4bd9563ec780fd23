"""DeformConv: convolution whose kernel taps sample the input at learned fractional offsets.

Like Conv (``group``, ``strides``, ``dilations``, ``pads``), except that tap
``k`` of output position ``o`` reads X at ``o * stride - pad_begin + k * dilation
+ offset[n, g, k, :, o]`` (per spatial axis) by N-linear interpolation, samples
outside the input being 0, and is multiplied by ``mask[n, g, k, o]`` (default
1) before the weighted sum:
``Y[n, m, o] = B[m] + sum_{c, k} W[m, c, k] * mask[n, g(c), k, o] * X~[n, c, p(n, g(c), k, o)]``.
The input channels form ``offset_group`` groups ``g`` with their own offsets;
the offset tensor is ``N x (offset_group * K * r) x O1 x ... x Or`` ordered
(group, kernel tap in row-major order, axis), the mask
``N x (offset_group * K) x O1 x ... x Or``.

Versions: 19 and 22 (bfloat16 added) compute the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._resample import linear_taps, sample_points
from ._windows import check_kernel_shape, convolved_axes, window_geometry
from .base import Kernel


def deform_conv(
    x: np.ndarray,
    w: np.ndarray,
    offset: np.ndarray,
    b: np.ndarray | None = None,
    mask: np.ndarray | None = None,
    *,
    group: int = 1,
    kernel_shape: Sequence[int] | None = None,
    offset_group: int = 1,
    **attrs: Any,
) -> np.ndarray:
    """DeformConv-19 and -22 (``dilations``, ``pads`` and ``strides`` as ``_windows.window_geometry`` reads them)."""
    r = convolved_axes(x, w)
    n, c = x.shape[:2]
    m, cg = w.shape[:2]
    group, offset_group = int(group), int(offset_group)
    if group < 1 or c % group or m % group or cg * group != c:
        raise ValueError(f"group={group}: X has {c} channels, W has {m} maps of {cg} channels")
    if offset_group < 1 or c % offset_group:
        raise ValueError(f"offset_group={offset_group} must divide the {c} input channels")
    kshape = tuple(w.shape[2:])
    check_kernel_shape(kernel_shape, kshape)
    geo = window_geometry(x.shape[2:], kshape, **{**attrs, "auto_pad": "NOTSET"})  # explicit pads only
    ksize = int(np.prod(kshape))
    out = geo.out
    want = (n, offset_group * ksize * r, *out)
    if offset.shape != want:
        raise ValueError(f"offset has shape {list(offset.shape)}, want {list(want)}")
    if mask is not None and mask.shape != (n, offset_group * ksize, *out):
        raise ValueError(f"mask has shape {list(mask.shape)}, want {[n, offset_group * ksize, *out]}")
    if b is not None and b.shape != (m,):
        raise ValueError(f"B has shape {list(b.shape)}, want [{m}]")
    off = offset.astype(np.float64).reshape(n * offset_group, ksize, r, *out)
    taps = []
    valid = []
    ones = (1,) * r
    for i in range(r):
        # position of tap k at output o along axis i, before the learned offset: (K, O1, ..., Or)
        k_pos = np.unravel_index(np.arange(ksize), kshape)[i] * geo.dilations[i]
        o_pos = np.arange(out[i]) * geo.strides[i] - geo.pad_begin[i]
        shape = [1] * r
        shape[i] = out[i]
        base = k_pos.reshape((ksize, *ones)) + o_pos.reshape(shape)
        idx, wt = linear_taps(base[None] + off[:, :, i])
        size = x.shape[2 + i]
        valid.append((idx >= 0) & (idx < size))
        taps.append((np.clip(idx, 0, max(size - 1, 0)), wt))
    data = x.astype(np.float64).reshape(n * offset_group, c // offset_group, *x.shape[2:])
    if data.size == 0:
        sampled = np.zeros((n * offset_group, c // offset_group, ksize, *out))
    else:
        sampled = sample_points(data, taps, valid)  # (N * G, C / G, K, O1, ..., Or)
    if mask is not None:
        sampled = sampled * mask.astype(np.float64).reshape(n * offset_group, 1, ksize, *out)
    npos = int(np.prod(out))
    cols = sampled.reshape(n, group, cg * ksize, npos)
    y = np.matmul(w.astype(np.float64).reshape(group, m // group, cg * ksize), cols).reshape(n, m, *out)
    if b is not None:
        y = y + b.astype(np.float64).reshape(m, *ones)
    return y.astype(x.dtype)


KERNELS = (Kernel("DeformConv", (19, 22), deform_conv),)
