"""GridSample: sample X at the normalised positions of a grid, by nearest, linear or cubic interpolation.

X is ``N x C x D1 x ... x Dr`` and the grid ``N x O1 x ... x Or x r``; the
output is ``N x C x O1 x ... x Or``. ``grid[n, o]`` lists the position's
coordinates innermost axis first (``(x, y)`` for an image). A normalised
coordinate ``g`` on an axis of length ``d`` is the pixel coordinate
``(g + 1)(d - 1) / 2`` with ``align_corners`` (-1 and 1 are the centres of the
corner pixels) and ``((g + 1) d - 1) / 2`` without (the outer edges).

Padding, for positions outside the input: ``zeros`` (absent samples are 0),
``border`` (coordinates clamped to ``[0, d - 1]``), ``reflection``
(coordinates mirrored at the borders, ``0`` and ``d - 1`` with
``align_corners``, ``-0.5`` and ``d - 0.5`` without, until inside, then
clamped). ``nearest`` rounds the coordinate half to even; ``linear`` weighs the
``2**r`` surrounding samples; ``cubic`` the ``4**r`` ones around it with Keys'
kernel (``a = -0.75``), its coordinate left unpadded and each of its samples
clamped or mirrored instead. [Non-normative: this is
``torch.nn.functional.grid_sample``, which the operator refers to.]

Integer inputs are interpolated in float64 and cast back (truncated, saturated).

Versions: 16 (4-D X only; modes ``bilinear``, ``nearest``, ``bicubic``), 20
(any rank; modes renamed ``linear``, ``nearest``, ``cubic``), 22 (bfloat16).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._resample import cast_back, compute_dtype, cubic_taps, linear_taps, reflect, sample_points, text
from .base import Kernel

_PADDINGS = ("zeros", "border", "reflection")


def _bounds(size: int, align_corners: bool) -> tuple[float, float]:
    return (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)


def _padded(c: np.ndarray, size: int, padding: str, align_corners: bool) -> np.ndarray:
    """A coordinate moved inside the input as ``border``/``reflection`` padding says (``zeros`` leaves it)."""
    if padding == "border":
        return np.clip(c, 0, size - 1)
    if padding == "reflection":
        return np.clip(reflect(c, *_bounds(size, align_corners)), 0, size - 1)
    return c


def grid_sample_nd(x: np.ndarray, grid: np.ndarray, mode: str, padding_mode: str, align_corners: bool) -> np.ndarray:
    """GridSample of any rank (``mode`` is nearest, linear or cubic)."""
    if padding_mode not in _PADDINGS:
        raise ValueError(f"padding_mode must be one of {_PADDINGS}, not {padding_mode!r}")
    if x.ndim < 3:
        raise ValueError(f"X must be N x C x D1 x ..., not rank {x.ndim}")
    r = x.ndim - 2
    if grid.ndim != r + 2 or grid.shape[-1] != r or grid.shape[0] != x.shape[0]:
        raise ValueError(f"grid {list(grid.shape)} must be N x O1 x ... x O{r} x {r} for X {list(x.shape)}")
    n, c = x.shape[:2]
    sizes = x.shape[2:]
    out_shape = (n, c, *grid.shape[1:-1])
    if 0 in out_shape:
        return np.zeros(out_shape, dtype=x.dtype)
    if 0 in sizes:
        if padding_mode != "zeros":
            raise ValueError(f"padding_mode={padding_mode} needs a non-empty input")
        return np.zeros(out_shape, dtype=x.dtype)
    g = grid.astype(np.float64)
    taps: list[tuple[np.ndarray, np.ndarray]] = []
    valid: list[np.ndarray] = []
    for axis, size in enumerate(sizes):
        norm = g[..., r - 1 - axis]
        pix = (norm + 1) / 2 * (size - 1) if align_corners else ((norm + 1) * size - 1) / 2
        if mode == "cubic":
            idx, w = cubic_taps(pix, -0.75)
            if padding_mode != "zeros":
                idx = np.rint(_padded(idx.astype(np.float64), size, padding_mode, align_corners)).astype(np.int64)
        else:
            src = _padded(pix, size, padding_mode, align_corners)
            if mode == "nearest":
                idx, w = np.rint(src).astype(np.int64)[..., None], np.ones((*src.shape, 1))
            else:
                idx, w = linear_taps(src)
        valid.append((idx >= 0) & (idx < size))
        taps.append((np.clip(idx, 0, size - 1), w))
    if mode == "nearest":
        index = tuple(t[0][..., 0] for t in taps)
        bidx = np.arange(n).reshape((n,) + (1,) * (grid.ndim - 2))
        key: tuple[Any, ...] = (bidx, slice(None), *index)
        values = x[key]  # N x O1 x ... x C
        inside = np.logical_and.reduce([v[..., 0] for v in valid])
        values = np.where(inside[..., None], values, np.zeros((), dtype=x.dtype))
        return np.moveaxis(values, -1, 1)
    data = x.astype(compute_dtype(x.dtype, f"{mode} GridSample"), copy=False)
    return cast_back(sample_points(data, taps, valid), x.dtype, integers="trunc")


def grid_sample_16(x: np.ndarray, grid: np.ndarray, *, mode: str = "bilinear", padding_mode: str = "zeros",
                   align_corners: int = 0, **_attrs: Any) -> np.ndarray:
    """GridSample-16: 4-D, modes bilinear / nearest / bicubic."""
    names = {"bilinear": "linear", "nearest": "nearest", "bicubic": "cubic"}
    m = text(mode)
    if m not in names:
        raise ValueError(f"mode must be one of {tuple(names)}, not {m!r}")
    if x.ndim != 4:
        raise ValueError(f"GridSample-16 takes a 4-D X, not rank {x.ndim}")
    return grid_sample_nd(x, grid, names[m], text(padding_mode), bool(align_corners))


def grid_sample_20(x: np.ndarray, grid: np.ndarray, *, mode: str = "linear", padding_mode: str = "zeros",
                   align_corners: int = 0, **_attrs: Any) -> np.ndarray:
    """GridSample-20 and -22: any rank, modes linear / nearest / cubic."""
    m = text(mode)
    if m not in ("linear", "nearest", "cubic"):
        raise ValueError(f"mode must be one of ('linear', 'nearest', 'cubic'), not {m!r}")
    return grid_sample_nd(x, grid, m, text(padding_mode), bool(align_corners))


KERNELS = (
    Kernel("GridSample", (16,), grid_sample_16),
    Kernel("GridSample", (20, 22), grid_sample_20),
)
