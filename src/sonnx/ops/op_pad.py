"""Pad: add (or, from version 2, remove when negative) elements at both ends of axes.

``pads`` lists the begin counts of the padded axes then their end counts.
Versions: 1 (``paddings`` attribute, counts >= 0, float ``value``), 2
(``pads`` attribute, negative counts remove elements, float ``value``), 11
and 13 (``pads`` and optional ``constant_value`` inputs), 18 (optional
``axes`` input), 19 and later (mode ``wrap``; 21, 23, 24 and 25 add element
types only).

Modes: ``constant`` (``value``/``constant_value``, default 0, empty string or
False), ``reflect`` (mirror on the first and last elements without repeating
them, repeated as numpy.pad does when the pad exceeds the axis, as the
operator's example shows), ``edge`` (repeat the end elements), ``wrap`` (the
axis taken as periodic). Negative counts crop first, then the positive ones
pad the cropped tensor. Reflecting an axis of fewer than 2 elements, or
edge/wrap padding an empty axis, is undefined and refused.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .base import Kernel

_MODES_BEFORE_19 = ("constant", "reflect", "edge")
_MODES_FROM_19 = (*_MODES_BEFORE_19, "wrap")


def _mode_name(mode: Any) -> str:
    return mode.decode("utf-8") if isinstance(mode, bytes) else str(mode)


def _default_fill(dtype: np.dtype) -> Any:
    if dtype.kind == "O" or dtype.kind in "SU":
        return ""
    if dtype.kind == "b":
        return False
    return 0


def _pad_axes(
    data: np.ndarray, axes: Sequence[int], pads: Sequence[int], mode: str, fill: Any, modes: Sequence[str]
) -> np.ndarray:
    if mode not in modes:
        raise ValueError(f"mode must be one of {tuple(modes)}, not {mode!r}")
    count = len(axes)
    if len(pads) != 2 * count:
        raise ValueError(f"pads has {len(pads)} values for {count} axes (want {2 * count})")
    begin = [0] * data.ndim
    end = [0] * data.ndim
    for i, axis in enumerate(axes):
        begin[axis] = int(pads[i])
        end[axis] = int(pads[count + i])
    crop = []
    for axis, n in enumerate(data.shape):
        lo, hi = max(-begin[axis], 0), max(-end[axis], 0)
        if lo + hi > n:
            raise ValueError(f"pads remove {lo + hi} elements from axis {axis} of size {n}")
        crop.append(slice(lo, n - hi))
    cropped = data[tuple(crop)]
    widths = [(max(b, 0), max(e, 0)) for b, e in zip(begin, end, strict=True)]
    if not any(b or e for b, e in widths):
        return cropped.copy()
    if mode == "constant":
        out = np.full(
            tuple(n + b + e for n, (b, e) in zip(cropped.shape, widths, strict=True)),
            fill,
            dtype=data.dtype,
        )
        out[tuple(slice(b, b + n) for n, (b, _) in zip(cropped.shape, widths, strict=True))] = cropped
        return out
    for axis, (b, e) in enumerate(widths):
        if not (b or e):
            continue
        smallest = 2 if mode == "reflect" else 1
        if cropped.shape[axis] < smallest:
            raise ValueError(f"{mode} padding of axis {axis} with {cropped.shape[axis]} elements is undefined")
    numpy_mode: Any = mode
    return np.pad(cropped, widths, mode=numpy_mode)


def _fill_from_value(value: Any, dtype: np.dtype) -> Any:
    return np.asarray(value).astype(dtype).item() if dtype.kind != "O" else value


def pad_v1(
    data: np.ndarray, *, paddings: Sequence[int], mode: Any = "constant", value: float = 0.0, **_attrs: object
) -> np.ndarray:
    """Pad-1: ``paddings`` attribute, non-negative counts."""
    if any(int(p) < 0 for p in paddings):
        raise ValueError("Pad-1 paddings must not be negative")
    return _pad_axes(
        data, range(data.ndim), paddings, _mode_name(mode), _fill_from_value(value, data.dtype), _MODES_BEFORE_19
    )


def pad_v2(
    data: np.ndarray, *, pads: Sequence[int], mode: Any = "constant", value: float = 0.0, **_attrs: object
) -> np.ndarray:
    """Pad-2: ``pads`` attribute, negative counts crop."""
    return _pad_axes(
        data, range(data.ndim), pads, _mode_name(mode), _fill_from_value(value, data.dtype), _MODES_BEFORE_19
    )


def _fill_from_input(constant_value: np.ndarray | None, data: np.ndarray) -> Any:
    if constant_value is None or constant_value.size == 0:
        return _default_fill(data.dtype)
    if constant_value.size != 1:
        raise ValueError(f"constant_value must be a scalar, not shape {constant_value.shape}")
    return constant_value.reshape(()).astype(data.dtype, copy=False)[()]


def _axes_from_input(axes: np.ndarray | None, rank: int) -> list[int]:
    if axes is None:
        return list(range(rank))
    out = []
    for a in np.asarray(axes).reshape(-1).tolist():
        if not -rank <= int(a) < rank:
            raise ValueError(f"axis {a} is out of range for rank {rank}")
        out.append(int(a) % rank)
    if len(set(out)) != len(out):
        raise ValueError(f"axes {out} repeat an axis")
    return out


def _pads_from_input(pads: np.ndarray) -> list[int]:
    return [int(p) for p in np.asarray(pads).reshape(-1).tolist()]


def pad_v11(
    data: np.ndarray,
    pads: np.ndarray,
    constant_value: np.ndarray | None = None,
    *,
    mode: Any = "constant",
    **_attrs: object,
) -> np.ndarray:
    """Pad-11 and -13: ``pads`` and ``constant_value`` inputs."""
    return _pad_axes(
        data,
        range(data.ndim),
        _pads_from_input(pads),
        _mode_name(mode),
        _fill_from_input(constant_value, data),
        _MODES_BEFORE_19,
    )


def _pad_with_axes(modes: Any, doc: str) -> Callable[..., np.ndarray]:
    """The kernel of the Pad versions with the ``axes`` input (18 on), for the modes they define."""

    def kernel(
        data: np.ndarray,
        pads: np.ndarray,
        constant_value: np.ndarray | None = None,
        axes: np.ndarray | None = None,
        *,
        mode: Any = "constant",
        **_attrs: object,
    ) -> np.ndarray:
        return _pad_axes(
            data,
            _axes_from_input(axes, data.ndim),
            _pads_from_input(pads),
            _mode_name(mode),
            _fill_from_input(constant_value, data),
            modes,
        )

    kernel.__doc__ = doc
    return kernel


pad_v18 = _pad_with_axes(_MODES_BEFORE_19, "Pad-18: adds the ``axes`` input.")
pad_v19 = _pad_with_axes(_MODES_FROM_19, "Pad-19 on: adds mode ``wrap``.")


KERNELS = (
    Kernel("Pad", (1,), pad_v1),
    Kernel("Pad", (2,), pad_v2),
    Kernel("Pad", (11, 13), pad_v11),
    Kernel("Pad", (18,), pad_v18),
    Kernel("Pad", (19, 21, 23, 24, 25), pad_v19),
)
