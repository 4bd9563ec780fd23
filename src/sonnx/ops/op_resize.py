"""Resize: resample a tensor to a new shape by nearest, (multi-)linear or (multi-)cubic interpolation.

Every resized axis is handled on its own (the interpolation is separable):
output index ``y`` maps to a source coordinate ``x`` by the coordinate
transformation, and the output value is a weighted sum of input elements
around ``x`` along that axis. With ``scale = out / in`` (or the given scale):

* ``half_pixel``: ``x = (y + 0.5) / scale - 0.5``; ``pytorch_half_pixel`` the
  same, but ``x = 0`` for an output of length 1; ``asymmetric``: ``x = y / scale``;
  ``tf_half_pixel_for_nn`` (version 11 only): ``x = (y + 0.5) / scale``;
* ``align_corners``: ``x = y (in - 1) / (L - 1)`` (0 when ``L = 1``);
* ``tf_crop_and_resize``: ``x = s (in - 1) + y (e - s)(in - 1) / (L - 1)``
  (``(s + e)(in - 1) / 2`` when ``L = 1``) for the axis' roi ``[s, e]``; an
  output whose ``x`` leaves ``[0, in - 1]`` on any axis is ``extrapolation_value``;
* ``half_pixel_symmetric`` (version 19): ``x = c (1 - out / L) + (y + 0.5) / scale - 0.5``
  with ``c = in / 2``.

``L`` is the resized length before rounding down: ``in * scale`` when
``scales`` is given (times ``e - s`` for ``tf_crop_and_resize``), the target
size when ``sizes`` is. The output length is ``floor(L)``.

Weights: ``nearest`` takes the one element ``x`` rounds to (``nearest_mode``);
``linear`` the two around ``x`` (``1 - f``, ``f`` for ``f = x - floor(x)``);
``cubic`` the four ``floor(x) - 1 .. floor(x) + 2`` weighted by Keys' kernel
with ``a = cubic_coeff_a``. Indices beyond the input repeat its edge element,
unless ``exclude_outside`` sets their weights to 0 and rescales the others to
sum 1. With ``antialias`` (version 18) a downscaling linear or cubic kernel is
stretched by ``1 / scale`` (more inputs per output) and normalised to sum 1.

Versions: 10 (``scales`` only, ``asymmetric`` coordinates; nearest takes
``ceil(x)`` when downscaling and ``floor(x)`` otherwise, as runtimes of that
version did), 11 (roi, sizes, coordinate and nearest modes, cubic), 13 (roi
and scales optional; ``tf_half_pixel_for_nn`` removed), 18 (``axes``,
``antialias``, ``keep_aspect_ratio_policy``: ``not_larger``/``not_smaller`` use
one scale, the min/max of ``sizes / in`` over the axes, and
``out = round_half_up(scale * in)``), 19 (``half_pixel_symmetric``).

Integer tensors are interpolated in float64 and rounded back (saturating);
nearest sampling is a pure gather and works for every element type.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._resample import apply_axis, cast_back, compute_dtype, keys_cubic, text, triangle
from .base import Kernel

_MODES = ("nearest", "linear", "cubic")
_NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
_COORDS_11 = ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
              "tf_crop_and_resize")
_COORDS_13 = tuple(m for m in _COORDS_11 if m != "tf_half_pixel_for_nn")
_COORDS_19 = (*_COORDS_13, "half_pixel_symmetric")
_POLICIES = ("stretch", "not_larger", "not_smaller")


@dataclass(frozen=True)
class AxisPlan:
    """How one axis is resized: lengths, scale, resized length before rounding, roi."""

    n_in: int
    n_out: int
    scale: float
    length: float
    roi: tuple[float, float] = (0.0, 1.0)

    def is_identity(self, coordinate_mode: str) -> bool:
        if self.n_in != self.n_out or self.scale != 1.0:
            return False
        return coordinate_mode != "tf_crop_and_resize" or self.roi == (0.0, 1.0)


def source_coordinates(mode: str, plan: AxisPlan) -> np.ndarray:
    """The source coordinate of every output index along one axis (float64)."""
    y = np.arange(plan.n_out, dtype=np.float64)
    n_in, scale, length = plan.n_in, plan.scale, plan.length
    if mode == "half_pixel":
        return (y + 0.5) / scale - 0.5
    if mode == "half_pixel_symmetric":
        offset = (n_in / 2) * (1 - plan.n_out / length)
        return offset + (y + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (y + 0.5) / scale - 0.5 if length > 1 else np.zeros_like(y)
    if mode == "asymmetric":
        return y / scale
    if mode == "tf_half_pixel_for_nn":
        return (y + 0.5) / scale
    if mode == "align_corners":
        return y * (n_in - 1) / (length - 1) if length != 1 else np.zeros_like(y)
    if mode == "tf_crop_and_resize":
        start, end = plan.roi
        if length > 1:
            return start * (n_in - 1) + y * (end - start) * (n_in - 1) / (length - 1)
        return np.full_like(y, 0.5 * (start + end) * (n_in - 1))
    raise ValueError(f"unknown coordinate_transformation_mode {mode!r}")


def nearest_index(x: np.ndarray, nearest_mode: str, scale: float) -> np.ndarray:
    """The input index each coordinate rounds to (before clamping); ``simple`` is version 10's rule."""
    low = np.floor(x)
    frac = x - low
    if nearest_mode == "round_prefer_floor":
        r = np.where(frac <= 0.5, low, low + 1)
    elif nearest_mode == "round_prefer_ceil":
        r = np.where(frac < 0.5, low, low + 1)
    elif nearest_mode == "floor":
        r = low
    elif nearest_mode == "ceil":
        r = np.ceil(x)
    elif nearest_mode == "simple":
        r = np.ceil(x) if scale < 1 else low
    else:
        raise ValueError(f"unknown nearest_mode {nearest_mode!r}")
    return r.astype(np.int64)


def interpolation_taps(
    x: np.ndarray, plan: AxisPlan, mode: str, cubic_a: float, exclude_outside: bool, antialias: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Tap indices (clamped into the input) and weights, ``(n_out, K)`` each, for linear or cubic mode."""
    base = np.floor(x)
    kernel: Callable[[np.ndarray], np.ndarray]
    if mode == "linear":
        kernel, reach = triangle, 1.0
    else:
        kernel, reach = (lambda d: keys_cubic(d, cubic_a)), 2.0
    stretch = plan.scale if antialias and plan.scale < 1 else 1.0
    # Enough taps around floor(x) to cover the kernel's support (reach / stretch); the extra ones weigh 0.
    half = math.ceil(reach / stretch)
    lo = -half + 1 if stretch == 1.0 else -half
    offsets = np.arange(lo, half + 1, dtype=np.float64)
    idx = base[:, None] + offsets
    w = kernel((idx - x[:, None]) * stretch)
    normalise = stretch != 1.0
    if exclude_outside:
        w = np.where((idx >= 0) & (idx <= plan.n_in - 1), w, 0.0)
        normalise = True
    if normalise:
        total = w.sum(axis=1, keepdims=True)
        w = w / np.where(total == 0, 1.0, total)
    return np.clip(idx, 0, plan.n_in - 1).astype(np.int64), w


@functools.lru_cache(maxsize=256)
def _axis_taps(
    plan: AxisPlan,
    coordinate_mode: str,
    mode: str,
    nearest_mode: str,
    cubic_a: float,
    exclude_outside: bool,
    antialias: bool,
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray | None]:
    """One axis's outputs that fall outside the input (``tf_crop_and_resize``; None when none do), tap indices
    (``(n_out, K)``) and weights (None for ``nearest``: one tap each).

    They depend on the axis's plan and the attributes only, so they are computed once for an operation that meets
    the same ones on every run; the arrays are read-only.
    """
    src = source_coordinates(coordinate_mode, plan)
    off: np.ndarray | None = None
    if coordinate_mode == "tf_crop_and_resize":
        off = (src < 0) | (src > plan.n_in - 1)
        if not off.any():
            off = None
    w: np.ndarray | None = None
    if mode == "nearest":
        idx = np.clip(nearest_index(src, nearest_mode, plan.scale), 0, plan.n_in - 1)[:, None]
    else:
        idx, w = interpolation_taps(src, plan, mode, cubic_a, exclude_outside, antialias)
    for array in (off, idx, w):
        if array is not None:
            array.flags.writeable = False
    return off, idx, w


def resize_nd(
    x: np.ndarray,
    plans: Sequence[AxisPlan],
    *,
    mode: str,
    coordinate_mode: str,
    nearest_mode: str = "round_prefer_floor",
    cubic_a: float = -0.75,
    exclude_outside: bool = False,
    antialias: bool = False,
    extrapolation_value: float = 0.0,
) -> np.ndarray:
    """Resample every axis of ``x`` as its plan says (see the module text)."""
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {_MODES}, not {mode!r}")
    out_shape = tuple(p.n_out for p in plans)
    for axis, p in enumerate(plans):
        if p.n_in == 0 and p.n_out > 0:
            raise ValueError(f"axis {axis} is empty and cannot be resized to {p.n_out}")
        if p.n_out > 0 and not (p.scale > 0 and math.isfinite(p.scale)):
            raise ValueError(f"the scale of axis {axis} must be a positive number, not {p.scale}")
    if 0 in out_shape or x.size == 0:
        return np.zeros(out_shape, dtype=x.dtype)
    nearest = mode == "nearest"
    y = x if nearest else x.astype(compute_dtype(x.dtype, f"{mode} Resize"), copy=False)
    outside: np.ndarray | None = None
    for axis, plan in enumerate(plans):
        if plan.is_identity(coordinate_mode):
            continue
        off, idx, w = _axis_taps(plan, coordinate_mode, mode, nearest_mode, cubic_a, exclude_outside, antialias)
        if off is not None:
            shape = [1] * x.ndim
            shape[axis] = plan.n_out
            off_b = off.reshape(shape)
            outside = off_b if outside is None else (outside | off_b)
        y = apply_axis(y, axis, idx, w)
    if outside is not None:
        fill = np.asarray(extrapolation_value, dtype=np.float64)
        fill_value = fill.astype(y.dtype) if y.dtype.kind in "fc" else cast_back(fill, y.dtype)
        y = np.where(outside, fill_value, y)
    return y if nearest else cast_back(y, x.dtype)


# ------------------------------------------------------------------------------------------- front end


def _given(t: np.ndarray | None) -> bool:
    return t is not None and t.size > 0


def _normalise_axes(axes: Sequence[int] | None, rank: int) -> list[int]:
    if axes is None or len(axes) == 0:
        return list(range(rank))
    out = []
    for a in axes:
        a = int(a)
        if not -rank <= a < rank:
            raise ValueError(f"axis {a} is out of range for a tensor of rank {rank}")
        out.append(a % rank)
    if len(set(out)) != len(out):
        raise ValueError(f"axes {list(axes)} repeat an axis")
    return out


def plan_axes(
    shape: Sequence[int],
    axes: Sequence[int],
    roi: np.ndarray | None,
    scales: np.ndarray | None,
    sizes: np.ndarray | None,
    coordinate_mode: str,
    policy: str = "stretch",
) -> list[AxisPlan]:
    """One plan per axis of ``shape`` from the Resize inputs (``axes`` already normalised)."""
    rank = len(shape)
    k = len(axes)
    if _given(scales) == _given(sizes):
        raise ValueError("exactly one of 'scales' and 'sizes' must be given (a non-empty tensor)")
    rois = [(0.0, 1.0)] * rank
    if coordinate_mode == "tf_crop_and_resize" and _given(roi):
        assert roi is not None
        r = roi.astype(np.float64).reshape(-1)
        if r.size != 2 * k:
            raise ValueError(f"roi has {r.size} values, want {2 * k} (start and end of {k} axes)")
        for i, a in enumerate(axes):
            rois[a] = (float(r[i]), float(r[k + i]))
    plans = [AxisPlan(n, n, 1.0, float(n), rois[a]) for a, n in enumerate(shape)]
    if _given(scales):
        assert scales is not None
        s = scales.astype(np.float64).reshape(-1)
        if s.size != k:
            raise ValueError(f"scales has {s.size} values for {k} axes")
        if not (s > 0).all():
            raise ValueError(f"scales must be positive, got {s.tolist()}")
        for i, a in enumerate(axes):
            extent = rois[a][1] - rois[a][0] if coordinate_mode == "tf_crop_and_resize" else 1.0
            length = shape[a] * extent * float(s[i])
            plans[a] = AxisPlan(shape[a], max(math.floor(length), 0), float(s[i]), length, rois[a])
        return plans
    assert sizes is not None
    z = sizes.astype(np.int64).reshape(-1)
    if z.size != k:
        raise ValueError(f"sizes has {z.size} values for {k} axes")
    if (z < 0).any():
        raise ValueError(f"sizes must not be negative, got {z.tolist()}")
    if policy == "stretch":
        for i, a in enumerate(axes):
            n = shape[a]
            scale = float(z[i]) / n if n else 1.0
            plans[a] = AxisPlan(n, int(z[i]), scale, float(z[i]), rois[a])
        return plans
    if policy not in _POLICIES:
        raise ValueError(f"keep_aspect_ratio_policy must be one of {_POLICIES}, not {policy!r}")
    if any(shape[a] == 0 for a in axes):
        raise ValueError(f"keep_aspect_ratio_policy={policy} needs non-empty axes")
    ratios = [float(z[i]) / shape[a] for i, a in enumerate(axes)]
    scale = min(ratios) if policy == "not_larger" else max(ratios)
    for a in axes:
        length = scale * shape[a]
        plans[a] = AxisPlan(shape[a], math.floor(length + 0.5), scale, length, rois[a])
    return plans


def _checked(value: Any, allowed: Sequence[str], name: str) -> str:
    s = text(value)
    if s not in allowed:
        raise ValueError(f"{name} must be one of {tuple(allowed)}, not {s!r}")
    return s


def resize_10(x: np.ndarray, scales: np.ndarray, *, mode: str = "nearest", **_attrs: Any) -> np.ndarray:
    """Resize-10: ``scales`` for every axis, asymmetric coordinates."""
    mode = _checked(mode, ("nearest", "linear"), "mode")
    plans = plan_axes(x.shape, list(range(x.ndim)), None, scales, None, "asymmetric")
    return resize_nd(x, plans, mode=mode, coordinate_mode="asymmetric", nearest_mode="simple")


def _resize_factory(version: int) -> Callable[..., np.ndarray]:
    coords = _COORDS_11 if version == 11 else _COORDS_19 if version >= 19 else _COORDS_13

    def resize(
        x: np.ndarray,
        roi: np.ndarray | None = None,
        scales: np.ndarray | None = None,
        sizes: np.ndarray | None = None,
        *,
        mode: str = "nearest",
        coordinate_transformation_mode: str = "half_pixel",
        nearest_mode: str = "round_prefer_floor",
        cubic_coeff_a: float = -0.75,
        exclude_outside: int = 0,
        extrapolation_value: float = 0.0,
        antialias: int = 0,
        axes: Sequence[int] | None = None,
        keep_aspect_ratio_policy: str = "stretch",
        **_attrs: Any,
    ) -> np.ndarray:
        m = _checked(mode, _MODES, "mode")
        cmode = _checked(coordinate_transformation_mode, coords, "coordinate_transformation_mode")
        nmode = _checked(nearest_mode, _NEAREST_MODES, "nearest_mode")
        policy = _checked(keep_aspect_ratio_policy, _POLICIES, "keep_aspect_ratio_policy")
        ax = _normalise_axes(axes if version >= 18 else None, x.ndim)
        plans = plan_axes(x.shape, ax, roi, scales, sizes, cmode, policy if version >= 18 else "stretch")
        return resize_nd(
            x,
            plans,
            mode=m,
            coordinate_mode=cmode,
            nearest_mode=nmode,
            cubic_a=float(cubic_coeff_a),
            exclude_outside=bool(exclude_outside),
            antialias=bool(antialias) and version >= 18,
            extrapolation_value=float(extrapolation_value),
        )

    resize.__name__ = f"resize_{version}"
    resize.__doc__ = f"Resize-{version}."
    return resize


KERNELS = (
    Kernel("Resize", (10,), resize_10),
    Kernel("Resize", (11,), _resize_factory(11)),
    Kernel("Resize", (13,), _resize_factory(13)),
    Kernel("Resize", (18,), _resize_factory(18)),
    Kernel("Resize", (19,), _resize_factory(19)),
)
