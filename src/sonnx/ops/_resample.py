"""Shared pieces of the resampling operators (Resize, Upsample, GridSample, RoiAlign, DeformConv).

Interpolation is a weighted sum of input samples ("taps"). Along one axis a
resampling is described by two ``(out, K)`` arrays: the input index of every
tap of every output position, and its weight. :func:`apply_axis` applies such
a description to a whole tensor with one gather and one contraction, so an
N-D resize is N of these passes (the interpolation kernels are separable).

Point sampling (GridSample, DeformConv) is not separable, since every output
point has its own coordinate on every axis; :func:`sample_points` combines the
per-axis taps of each point, one gather per combination of tap offsets (2**r
for linear, 4**r for cubic interpolation).

The cubic kernel is Keys' convolution kernel with parameter ``a``:
``k(d) = (a+2)|d|^3 - (a+3)|d|^2 + 1`` for ``|d| <= 1``,
``a|d|^3 - 5a|d|^2 + 8a|d| - 4a`` for ``1 < |d| < 2`` and 0 beyond.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np


def text(value: Any) -> str:
    """A string attribute as ``str`` (attributes may arrive as bytes)."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def keys_cubic(d: np.ndarray, a: float) -> np.ndarray:
    """Keys' cubic convolution kernel evaluated at the distances ``d`` (float64)."""
    t = np.abs(np.asarray(d, dtype=np.float64))
    t2 = t * t
    t3 = t2 * t
    near = (a + 2) * t3 - (a + 3) * t2 + 1
    far = a * t3 - 5 * a * t2 + 8 * a * t - 4 * a
    return np.where(t <= 1, near, np.where(t < 2, far, 0.0))


def triangle(d: np.ndarray) -> np.ndarray:
    """The linear-interpolation (tent) kernel ``max(0, 1 - |d|)``."""
    return np.clip(1.0 - np.abs(np.asarray(d, dtype=np.float64)), 0.0, 1.0)


def cubic_taps(x: np.ndarray, a: float) -> tuple[np.ndarray, np.ndarray]:
    """The four taps ``floor(x) - 1 .. floor(x) + 2`` around each coordinate and their cubic weights."""
    base = np.floor(x)
    offsets = np.arange(-1, 3, dtype=np.float64)
    idx = base[..., None] + offsets
    w = keys_cubic(idx - x[..., None], a)
    return idx.astype(np.int64), w


def linear_taps(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two taps ``floor(x)`` and ``floor(x) + 1`` around each coordinate and their linear weights."""
    base = np.floor(x)
    frac = x - base
    idx = np.stack([base, base + 1], axis=-1).astype(np.int64)
    w = np.stack([1.0 - frac, frac], axis=-1)
    return idx, w


def compute_dtype(dtype: np.dtype, what: str) -> np.dtype:
    """The type weighted sums are computed in: complex128 for complex inputs, float64 otherwise."""
    if dtype.kind in ("U", "S", "O", "b"):
        raise ValueError(f"{what} is not defined for {dtype} tensors (only nearest sampling is)")
    return np.dtype(np.complex128) if dtype.kind == "c" else np.dtype(np.float64)


def cast_back(y: np.ndarray, dtype: np.dtype, integers: str = "round") -> np.ndarray:
    """``y`` (computed in float64/complex128) as ``dtype``.

    Integer types are saturated to their range, after rounding to the nearest
    integer (ties to even) with ``integers="round"`` or truncation towards zero
    with ``integers="trunc"``.
    """
    if dtype.kind in ("i", "u"):
        info = np.iinfo(dtype)
        r = np.rint(y) if integers == "round" else np.trunc(y)
        return np.clip(r, info.min, info.max).astype(dtype)
    return y.astype(dtype)


def apply_axis(x: np.ndarray, axis: int, idx: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """Resample ``x`` along ``axis``: output position ``o`` is ``sum_k w[o, k] * x[..., idx[o, k], ...]``.

    ``idx`` must lie in range. Without weights, ``idx`` has one tap per output
    and the result is a plain gather (any element type, no arithmetic).
    """
    # np.moveaxis(x, axis, -1) and back, as the two transpositions (the same views, without its argument checks)
    order = [a for a in range(x.ndim) if a != axis]
    order.append(axis)
    back = [*range(axis), x.ndim - 1, *range(axis, x.ndim - 1)]
    moved = x.transpose(order)
    if w is None:
        return moved[..., idx[:, 0]].transpose(back)
    gathered = moved[..., idx]  # (..., out, K)
    y = np.einsum("...ok,ok->...o", gathered, w.astype(gathered.dtype, copy=False))
    return y.transpose(back)


def reflect(x: np.ndarray, low: float, high: float) -> np.ndarray:
    """Coordinates mirrored at ``low`` and ``high`` until they fall in ``[low, high]``."""
    span = high - low
    if span <= 0:
        return np.zeros_like(x)
    dist = np.abs(x - low)
    flips = np.floor(dist / span)
    extra = dist - flips * span
    return np.where(np.mod(flips, 2) == 0, low + extra, high - extra)


def sample_points(
    data: np.ndarray,
    taps: Sequence[tuple[np.ndarray, np.ndarray]],
    valid: Sequence[np.ndarray] | None = None,
) -> np.ndarray:
    """Interpolate ``data`` (``B x C x D1 x ... x Dr``) at scattered points.

    ``taps[i]`` is ``(idx, w)`` for spatial axis ``i``, each of shape
    ``(B, *P, K)``: the tap indices along that axis of every point and their
    weights (indices must be in range). ``valid[i]`` (same shape, optional)
    marks taps whose sample exists; the others contribute zero. Returns
    ``B x C x *P`` in the type of ``data``'s arithmetic.
    """
    b = data.shape[0]
    point_shape = taps[0][0].shape[1:-1]
    bidx = np.arange(b).reshape((b,) + (1,) * len(point_shape))
    out: np.ndarray | None = None
    # One gather per combination of tap offsets: 2**r (linear) or 4**r (cubic), a small fixed number.
    for combo in itertools.product(*(range(t[0].shape[-1]) for t in taps)):
        weight = np.ones((), dtype=np.float64)
        index: list[np.ndarray] = [bidx]
        for axis, k in enumerate(combo):
            idx, w = taps[axis]
            wk = w[..., k]
            if valid is not None:
                wk = np.where(valid[axis][..., k], wk, 0.0)
            weight = weight * wk
            index.append(idx[..., k])
        # data[b, :, i1, ..., ir] with advanced indices around a slice: the gathered axis C comes last
        key: tuple[Any, ...] = (index[0], slice(None), *index[1:])
        values = data[key]
        term = values * weight[..., None].astype(values.dtype, copy=False)
        out = term if out is None else out + term
    assert out is not None
    return np.moveaxis(out, -1, 1)
