"""The padded input of a sliding-window operator laid out so that each kernel offset is one long run per channel.

A window operator (depthwise convolution, the pools) combines, for every
kernel offset in row-major order, the element at that offset of every window
with what it has accumulated so far. Done with strided views of the padded
input (``WindowGeometry.window_slices``), each NumPy call walks the output one
row at a time: for a 14 x 14 output, fourteen-element inner loops, where the
call overhead outweighs the arithmetic.

:class:`WindowTaps` lays the padded input out once so that every offset is a
single contiguous run of ``length`` elements per (batch, channel) pair:

* the padded input is cut into *phase planes*, one per combination of
  ``offset * dilation mod stride`` over the axes: plane ``p`` holds the padded
  elements at ``p + stride * r`` (for stride 1, the padded input itself), so
  that within a plane the windows advance by one element along every axis;
* each plane is stored flat, row-major over its extents ``Q``. The output
  position ``o`` of the offset ``k`` reads the plane element ``o + k * dilation
  // stride``, i.e. flat index ``o . strides_Q + shift(k)``. Computed over the
  flat grid of the first output axis times the whole plane rows of the others,
  the positions of one offset form one run starting at ``shift(k)``;
* the grid has ``Q_j - out_j`` extra positions on every axis after the first:
  :meth:`WindowTaps.crop` drops them. They read elements of the same planes
  (or the fill value past their end) and are computed and discarded.

Each kept output element is computed from exactly the elements, and in exactly
the order, that the strided views give it: only where the elements are read
from changes, never an operation or its rounding.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator

import numpy as np

from ._windows import WindowGeometry, strided_view


def _plane_rows(phase: int, stride: int, before: int, size: int) -> tuple[int, int, int]:
    """For one axis of a plane: its first row holding an input element, that element's index, and how many."""
    first = max(0, -(-(before - phase) // stride))
    start = phase + first * stride - before
    count = max(0, -(-(size - start) // stride))
    return first, start, count


class _Layout:
    """Where everything lies for one input spatial shape and geometry (computed once, see :func:`_layout`).

    ``extents`` of the planes, ``grid`` their elements, ``size`` their stored
    length (the grid and the reach of the last run past it), ``length`` of each
    run, ``shifts`` the (phase, start) of each offset's run in row-major offset
    order, ``fills`` for each phase the plane region that receives input
    elements and the slices of the input they come from (None: no element).
    """

    __slots__ = ("extents", "fills", "grid", "grids", "length", "shifts", "size")

    def __init__(self, spatial: tuple[int, ...], geo: WindowGeometry) -> None:
        padded = [n + b + a + o for n, b, a, o in zip(spatial, geo.pad_begin, geo.pad_end, geo.overhang, strict=True)]
        self.extents = tuple(-(-p // s) for p, s in zip(padded, geo.strides, strict=True))
        rows = [math.prod(self.extents[j + 1 :]) for j in range(len(spatial))]
        self.length = geo.out[0] * rows[0]
        self.shifts: list[tuple[tuple[int, ...], int]] = []
        for offset in geo.offsets():
            reach = [k * d for k, d in zip(offset, geo.dilations, strict=True)]
            phase = tuple(r % s for r, s in zip(reach, geo.strides, strict=True))
            shift = sum((r // s) * w for r, s, w in zip(reach, geo.strides, rows, strict=True))
            self.shifts.append((phase, shift))
        self.grid = math.prod(self.extents)
        self.size = max(self.grid, max((shift for _, shift in self.shifts), default=0) + self.length)
        self.fills: dict[tuple[int, ...], tuple[tuple[slice, ...], tuple[slice, ...]] | tuple[None, None]] = {}
        for phase in dict.fromkeys(p for p, _ in self.shifts):
            target: list[slice] = [slice(None), slice(None)]
            source: list[slice] = [slice(None), slice(None)]
            for j, n in enumerate(spatial):
                first, start, count = _plane_rows(phase[j], geo.strides[j], geo.pad_begin[j], n)
                target.append(slice(first, first + count))
                source.append(slice(start, start + max(count - 1, 0) * geo.strides[j] + 1, geo.strides[j]))
            filled = all(t.stop > t.start for t in target[2:])
            self.fills[phase] = (tuple(target), tuple(source)) if filled else (None, None)
        self.grids = [_phase_grid(phase, geo, rows) for phase in self.fills]


_Grid = tuple[tuple[int, ...], tuple[slice, ...], tuple[int, ...], int, tuple[int, ...]]


def _phase_grid(phase: tuple[int, ...], geo: WindowGeometry, rows: list[int]) -> _Grid:
    """The offsets whose runs lie in the plane of ``phase``, as a grid: (phase, kernel index, counts, shift, steps).

    On axis ``j`` the offsets ``k`` with ``k * dilation mod stride == phase``
    are ``first + i * step`` with ``step = stride / gcd(dilation, stride)``;
    ``step * dilation`` is a multiple of the stride, so their runs start
    ``(step * dilation // stride) * rows[j]`` plane elements apart. The
    offsets of a phase are thus the kernel positions picked by one slice per
    axis, and their runs the positions ``shift + sum_j i_j * steps[j]``.
    """
    index: list[slice] = []
    counts: list[int] = []
    shift = 0
    steps: list[int] = []
    for p, k, d, s, row in zip(phase, geo.kernel, geo.dilations, geo.strides, rows, strict=True):
        first = next(i for i in range(k) if (i * d) % s == p)
        step = s // math.gcd(d, s)
        counts.append(len(range(first, k, step)))
        index.append(slice(first, k, step))
        shift += (first * d // s) * row
        steps.append((step * d // s) * row)
    return phase, tuple(index), tuple(counts), shift, tuple(steps)


@functools.lru_cache(maxsize=1024)
def _layout(spatial: tuple[int, ...], geo: WindowGeometry) -> _Layout:
    """The layout for ``spatial`` and ``geo``, remembered: an operation meets the same ones on every run."""
    return _Layout(spatial, geo)


class WindowTaps:
    """The padded ``x`` (N x C x D1 x ...) as phase planes; :meth:`taps` gives one (N, C, length) view per offset.

    ``fill`` is the padding value (0 for sums, the lowest value for maxima);
    the ceil-mode overhang is filled with it too.
    """

    def __init__(self, x: np.ndarray, geo: WindowGeometry, fill: object) -> None:
        lead = x.shape[:2]
        self.geo = geo
        layout = _layout(x.shape[2:], geo)
        self.extents, self.length, self._shifts = layout.extents, layout.length, layout.shifts
        self._grids = layout.grids
        self._planes: dict[tuple[int, ...], np.ndarray] = {}
        for phase, (target, source) in layout.fills.items():
            flat = np.full((*lead, layout.size), fill, dtype=x.dtype)
            if target is not None:
                flat[:, :, : layout.grid].reshape(*lead, *self.extents)[target] = x[source]
            self._planes[phase] = flat

    def taps(self) -> Iterator[np.ndarray]:
        """For every kernel offset in row-major order, the (N, C, length) run of the elements it reads."""
        for phase, shift in self._shifts:
            yield self._planes[phase][:, :, shift : shift + self.length]

    def tap_grids(self) -> list[tuple[tuple[slice, ...], np.ndarray]]:
        """The taps grouped by phase plane: for each plane, the kernel positions it serves and their runs.

        Each item is ``(index, runs)``: ``index`` picks, one slice per kernel
        axis, the offsets whose runs lie in this plane, and ``runs`` is a
        read-only (N, C, *counts, length) strided view of the plane whose entry
        ``[:, :, i_1, ..., i_d]`` is the run :meth:`taps` gives for the
        ``(i_1, ..., i_d)``-th of those offsets. Every offset is in exactly one
        plane's grid; with a single plane, ``index`` picks the whole kernel.
        """
        grids = []
        for phase, index, counts, shift, steps in self._grids:
            plane = self._planes[phase]
            item = plane.itemsize
            strides = (*plane.strides[:2], *(step * item for step in steps), item)
            runs = strided_view(plane, (*plane.shape[:2], *counts, self.length), strides, shift * item)
            grids.append((index, runs))
        return grids

    @property
    def planes(self) -> int:
        """How many phase planes the offsets read (one for stride 1): the length of :meth:`tap_grids`."""
        return len(self._grids)

    def crop(self, flat: np.ndarray) -> np.ndarray:
        """A (N, C, length) result as (N, C, *out), the extra grid positions dropped (a view)."""
        out = self.geo.out
        grid = flat.reshape(*flat.shape[:2], out[0], *self.extents[1:])
        return grid[(slice(None), slice(None), slice(None), *(slice(0, o) for o in out[1:]))]



def window_sums(values: np.ndarray, geo: WindowGeometry) -> np.ndarray:
    """The sum of ``values`` (N x C x D1 x ...) over every window, in their type; padding and overhang add 0.

    Each window is summed from zero in row-major offset order.
    """
    windows = WindowTaps(values, geo, 0)
    total = np.zeros((*values.shape[:2], windows.length), dtype=values.dtype)
    for tap in windows.taps():
        np.add(total, tap, out=total)
    return np.ascontiguousarray(windows.crop(total))


def window_maxima(values: np.ndarray, geo: WindowGeometry, lowest: object) -> np.ndarray:
    """The largest element of every window, padding and overhang being ``lowest`` (a NaN wins, as in np.maximum).

    Each window's maximum is taken in row-major offset order, from the first offset.
    """
    windows = WindowTaps(values, geo, lowest)
    runs = windows.taps()
    best = next(runs).copy()
    for tap in runs:
        np.maximum(best, tap, out=best)
    return np.ascontiguousarray(windows.crop(best))
