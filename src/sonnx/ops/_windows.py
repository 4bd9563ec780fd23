"""Shared geometry of sliding-window operators (Conv, ConvTranspose, DeformConv, the pools, MaxUnpool).

The operators place a window of ``kernel_shape`` elements, spread by
``dilations``, at every ``strides`` step of the padded input. This module
resolves the attributes into one :class:`WindowGeometry` (padding before and
after each spatial axis, output extent) following the ONNX operator text:

* explicit padding (``auto_pad`` NOTSET): ``out = floor((in + pad_begin +
  pad_end - extent) / stride) + 1``, or ``ceil`` when ``ceil_mode`` is set, in
  which case a window that would start in the end padding is dropped;
* ``VALID``: no padding, ``out = floor((in - extent) / stride) + 1``;
* ``SAME_UPPER`` / ``SAME_LOWER``: ``out = ceil(in / stride)``, the total
  padding ``(out - 1) * stride + extent - in`` (at least 0) split evenly, the
  odd element at the end (UPPER) or the beginning (LOWER);

with ``extent = (kernel - 1) * dilation + 1``. In ceil mode the last window can
reach past the padded input: ``overhang`` counts those elements, which belong
neither to the input nor to the padding.

:func:`window_geometry` reads the window attributes (``auto_pad``,
``ceil_mode``, ``dilations``, ``pads``, ``strides``) from a kernel's keyword
arguments with their schema defaults, so that an operator declares only its
own; the checks every convolution and pool starts with are here too.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")
_FLOAT32 = np.dtype(np.float32)


@dataclass(frozen=True)
class WindowGeometry:
    """Where the windows of one operation lie, per spatial axis."""

    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pad_begin: tuple[int, ...]
    pad_end: tuple[int, ...]
    overhang: tuple[int, ...]
    out: tuple[int, ...]

    def offsets(self) -> Iterator[tuple[int, ...]]:
        """Every kernel offset, in row-major order."""
        return itertools.product(*(range(k) for k in self.kernel))

    def window_slices(self, offset: Sequence[int]) -> tuple[slice, ...]:
        """Slices of the padded spatial axes picking, for every output position, the element at ``offset``."""
        return tuple(
            slice(o * d, o * d + (n - 1) * s + 1, s)
            for o, d, s, n in zip(offset, self.dilations, self.strides, self.out, strict=True)
        )


@functools.lru_cache(maxsize=1024)
def window_indexes(geo: WindowGeometry) -> tuple[tuple[slice, ...], ...]:
    """For every kernel offset in row-major order, the index of an (N, C, *padded) array picking its elements.

    That is ``(:, :) + geo.window_slices(offset)``, built once per geometry: an operation meets the same one on
    every run, and building the slices costs more than a small tensor's copy.
    """
    lead = (slice(None), slice(None))
    return tuple(lead + geo.window_slices(offset) for offset in geo.offsets())


def strided_view(base: np.ndarray, shape: tuple[int, ...], strides: tuple[int, ...], offset: int = 0) -> np.ndarray:
    """A read-only view of ``base``'s elements with the given shape and byte strides, from byte ``offset``.

    For a C-contiguous ``base`` the view is made directly on its buffer (cheaper
    than ``as_strided``, which matters for small tensors);
    other bases go through ``as_strided`` and take no offset. The caller
    guarantees that every element the view reaches lies inside ``base``.
    """
    if base.flags.c_contiguous:
        view = np.ndarray(shape, base.dtype, buffer=base, offset=offset, strides=strides)
        view.flags.writeable = False
        return view
    if offset:
        raise ValueError("an offset needs a C-contiguous base")
    return np.lib.stride_tricks.as_strided(base, shape=shape, strides=strides, writeable=False)


def window_view(xp: np.ndarray, geo: WindowGeometry) -> np.ndarray:
    """The padded ``xp`` (N x C x *padded) as a read-only (N, C, *kernel, *out) view of its window elements.

    Entry ``[n, c, k_1, ..., k_d, o_1, ..., o_d]`` is ``xp[n, c, o_1 * s_1 + k_1 * d_1, ...]``: for each kernel
    offset, the elements ``xp[(:, :) + geo.window_slices(offset)]`` holds. Copying it is the gather of every
    offset done in one NumPy call.
    """
    lead = xp.strides[:2]
    spatial = xp.strides[2:]
    strides = (*lead, *(t * d for t, d in zip(spatial, geo.dilations, strict=True)),
               *(t * s for t, s in zip(spatial, geo.strides, strict=True)))
    return strided_view(xp, (*xp.shape[:2], *geo.kernel, *geo.out), strides)


def per_axis(name: str, value: Sequence[int] | None, rank: int, default: int) -> tuple[int, ...]:
    """A per-axis attribute as ``rank`` integers: ``default`` on every axis when absent or empty."""
    if value is None or len(value) == 0:
        return (default,) * rank
    out = tuple(int(v) for v in value)
    if len(out) != rank:
        raise ValueError(f"{name} has {len(out)} values for {rank} spatial axes")
    return out


def auto_pad_mode(auto_pad: str | bytes) -> str:
    """The ``auto_pad`` attribute as text, checked to be one of :data:`AUTO_PADS`."""
    if isinstance(auto_pad, bytes):
        auto_pad = auto_pad.decode("utf-8")
    if auto_pad not in AUTO_PADS:
        raise ValueError(f"auto_pad must be one of {AUTO_PADS}, not {auto_pad!r}")
    return auto_pad


def resolve_geometry(
    spatial: Sequence[int],
    kernel_shape: Sequence[int],
    strides: Sequence[int] | None,
    dilations: Sequence[int] | None,
    pads: Sequence[int] | None,
    auto_pad: str | bytes,
    ceil_mode: bool = False,
) -> WindowGeometry:
    """The window geometry for an input of spatial shape ``spatial`` (see the module text)."""
    rank = len(spatial)
    kernel = per_axis("kernel_shape", kernel_shape, rank, 1)
    stride = per_axis("strides", strides, rank, 1)
    dilation = per_axis("dilations", dilations, rank, 1)
    if any(k < 1 for k in kernel) or any(s < 1 for s in stride) or any(d < 1 for d in dilation):
        raise ValueError("kernel_shape, strides and dilations must be positive")
    auto_pad = auto_pad_mode(auto_pad)
    explicit = (0,) * (2 * rank) if pads is None or len(pads) == 0 else tuple(int(p) for p in pads)
    if len(explicit) != 2 * rank:
        raise ValueError(f"pads has {len(explicit)} values for {rank} spatial axes (want {2 * rank})")
    if any(p < 0 for p in explicit):
        raise ValueError("pads must not be negative")
    if auto_pad != "NOTSET" and any(explicit):
        raise ValueError(f"pads cannot be used together with auto_pad={auto_pad}")
    extent = tuple((k - 1) * d + 1 for k, d in zip(kernel, dilation, strict=True))
    begin: list[int] = []
    end: list[int] = []
    out: list[int] = []
    overhang: list[int] = []
    for i, n in enumerate(spatial):
        s, e = stride[i], extent[i]
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            o = -(-n // s)
            total = max((o - 1) * s + e - n, 0)
            small, large = total // 2, total - total // 2
            b, a = (small, large) if auto_pad == "SAME_UPPER" else (large, small)
        else:
            b, a = (0, 0) if auto_pad == "VALID" else (explicit[i], explicit[rank + i])
            span = n + b + a - e
            if span < 0:
                raise ValueError(f"the window (extent {e}) is larger than the padded axis {i} ({n + b + a})")
            if ceil_mode and auto_pad == "NOTSET":
                o = -(-span // s) + 1
                if (o - 1) * s >= n + b:
                    o -= 1  # a window starting in the end padding is ignored
            else:
                o = span // s + 1
        begin.append(b)
        end.append(a)
        out.append(o)
        overhang.append(max((o - 1) * s + e - (n + b + a), 0))
    return WindowGeometry(kernel, stride, dilation, tuple(begin), tuple(end), tuple(overhang), tuple(out))


def window_geometry(
    spatial: Sequence[int],
    kernel_shape: Sequence[int],
    ceil_mode: int = 0,
    /,
    *,
    auto_pad: str | bytes = "NOTSET",
    dilations: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
    **_attrs: Any,
) -> WindowGeometry:
    """:func:`resolve_geometry` from an operator's window attributes, with their schema defaults.

    An attribute a version lacks (``dilations`` before AveragePool-19, say) has
    the default that reproduces that version; the operator's other attributes
    are left. ``ceil_mode`` is the pools' alone: they pass it by position, and a
    keyword argument of that name is not read.
    """
    return _resolved(
        tuple(spatial), _frozen(kernel_shape), _frozen(strides), _frozen(dilations), _frozen(pads), auto_pad,
        bool(ceil_mode),
    )


def _frozen(value: Sequence[int] | None) -> tuple[int, ...] | None:
    return None if value is None else tuple(value)


@functools.lru_cache(maxsize=4096)
def _resolved(
    spatial: tuple[int, ...],
    kernel_shape: tuple[int, ...] | None,
    strides: tuple[int, ...] | None,
    dilations: tuple[int, ...] | None,
    pads: tuple[int, ...] | None,
    auto_pad: str | bytes,
    ceil_mode: bool,
) -> WindowGeometry:
    """:func:`resolve_geometry`, remembered: an operation meets the same shapes and attributes on every run.

    (A geometry is immutable; an error is raised again each time, never remembered.)
    """
    return resolve_geometry(spatial, kernel_shape, strides, dilations, pads, auto_pad, ceil_mode)  # type: ignore[arg-type]


def window_counts(geo: WindowGeometry, spatial: Sequence[int], include_pad: bool) -> np.ndarray:
    """How many counted elements each window covers, shaped like the output's spatial axes.

    The counted region is a box, so the count is the product of one 1-D count per axis.
    """
    total = np.ones((1,) * len(spatial), dtype=np.int64)
    for i, n in enumerate(spatial):
        starts = np.arange(geo.out[i], dtype=np.int64) * geo.strides[i]
        pos = starts[:, None] + np.arange(geo.kernel[i], dtype=np.int64)[None, :] * geo.dilations[i]
        lo, hi = (
            (0, n + geo.pad_begin[i] + geo.pad_end[i])
            if include_pad
            else (
                geo.pad_begin[i],
                geo.pad_begin[i] + n,
            )
        )
        per_axis = ((pos >= lo) & (pos < hi)).sum(axis=1)
        shape = [1] * len(spatial)
        shape[i] = geo.out[i]
        total = total * per_axis.reshape(shape)
    return total


def pad_spatial(x: np.ndarray, before: Sequence[int], after: Sequence[int], value: object) -> np.ndarray:
    """``x`` with its trailing ``len(before)`` axes padded by ``value`` (no copy when nothing is added)."""
    lead = x.ndim - len(before)
    if not any(before) and not any(after):
        return x
    shape = x.shape[:lead] + tuple(n + b + a for n, b, a in zip(x.shape[lead:], before, after, strict=True))
    out = np.zeros(shape, dtype=x.dtype) if type(value) is int and value == 0 else np.full(shape, value, dtype=x.dtype)
    inner = (slice(None),) * lead + tuple(slice(b, b + n) for b, n in zip(before, x.shape[lead:], strict=True))
    out[inner] = x
    return out


def padded_for_windows(x: np.ndarray, geo: WindowGeometry, value: object) -> np.ndarray:
    """``x`` padded by ``value`` as the windows need: the padding, and after it the ceil-mode overhang."""
    after = tuple(a + o for a, o in zip(geo.pad_end, geo.overhang, strict=True))
    return pad_spatial(x, geo.pad_begin, after, value)


def accumulation_dtype(dtype: np.dtype) -> np.dtype:
    """The type sums are carried in: float32 for narrower floats, the type itself otherwise."""
    kind = dtype.kind
    if kind == "V" or (kind == "f" and dtype.itemsize < 4):  # ml_dtypes' types (bfloat16, float8...) are "V"
        return _FLOAT32
    return dtype


def check_spatial_input(x: np.ndarray, name: str = "X") -> int:
    """The number of spatial axes of an N x C x D1 x ... input; at least one."""
    if x.ndim < 3:
        raise ValueError(f"{name} must have shape N x C x D1 x ... (rank >= 3), not rank {x.ndim}")
    return x.ndim - 2


def pooled_axes(x: np.ndarray, kernel_shape: Sequence[int] | None) -> int:
    """The number of spatial axes of a pool's input, which ``kernel_shape`` must give one size each."""
    nsp = check_spatial_input(x)
    if kernel_shape is None or len(kernel_shape) != nsp:
        raise ValueError(f"kernel_shape must give {nsp} sizes")
    return nsp


def convolved_axes(x: np.ndarray, w: np.ndarray) -> int:
    """The number of spatial axes of a convolution's input, whose weights W must have X's rank."""
    nsp = check_spatial_input(x)
    if w.ndim != x.ndim:
        raise ValueError(f"W has rank {w.ndim}, X has rank {x.ndim}")
    return nsp


def check_kernel_shape(kernel_shape: Sequence[int] | None, kernel: Sequence[int]) -> None:
    """A convolution's ``kernel_shape`` attribute, when given, must be W's spatial shape ``kernel``."""
    if kernel_shape is not None and len(kernel_shape) and tuple(kernel_shape) != tuple(kernel):
        raise ValueError(f"kernel_shape {list(kernel_shape)} differs from W's spatial shape {list(kernel)}")
