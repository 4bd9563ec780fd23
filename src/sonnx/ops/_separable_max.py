"""Window maxima one spatial axis at a time, when the order the elements are compared in cannot change a bit.

MaxPool's window maximum (spec/operators.rst, MaxPool) is computed by
:func:`sonnx.ops._window_taps.window_maxima` as a fold of ``np.maximum`` over
the kernel offsets in row-major order. A window of ``k1 x k2`` elements costs
``k1 * k2`` passes that way; reduced along one axis and then the next it costs
``k1 + k2``, each pass reading longer runs.

That reordering is exact only when the fold's result does not depend on the
order of its operands. ``np.maximum`` returns one of its two operands, and:

* on two numbers that are not NaN and not equal, the larger one, whatever the
  order or the code path (scalar loop or SIMD);
* on two equal numbers other than zeros, numbers with the same bits, so which
  operand it returns does not matter;
* on ``+0`` and ``-0`` (equal, different bits), the scalar loop returns its
  first operand and the x86 SIMD loop its second: the current fold's choice
  depends on the order *and* on where the element falls in NumPy's loop;
* on a NaN, a NaN whose payload depends on which operand held one.

So when the input holds no NaN and no ``-0``, every window's maximum is the
largest value of the window (padding is the type's lowest value, as in the
fold), a value with exactly one bit pattern among the window's elements: any
order of folding gives the same bits. Integer types have one bit pattern per
value: the reordering is always exact. Otherwise :func:`separable_maxima`
declines and the caller keeps the row-major fold.

The check costs two reductions of the input (``max``, which is NaN when any
element is, and ``min`` of the bits read as signed integers, which is the
type's smallest integer exactly when some element is ``-0``: that bit pattern
is the sign bit alone). It assumes IEEE comparisons, which NumPy's loops make
(subnormal numbers are compared as themselves, not flushed to zero).
"""

from __future__ import annotations

import numpy as np

from ._windows import WindowGeometry, padded_for_windows


def order_free(values: np.ndarray) -> bool:
    """Whether the maximum of any set of elements of ``values`` has the same bits in every order of ``np.maximum``.

    True for integer and boolean types; for floating types, when no element
    is NaN or ``-0`` (see the module text).
    """
    kind = values.dtype.kind
    if kind in "iub":
        return True
    if kind != "f" or values.size == 0:
        return kind == "f"
    if np.isnan(values.max()):
        return False
    signed = values.view(np.dtype(f"i{values.dtype.itemsize}"))
    return bool(signed.min() != np.iinfo(signed.dtype).min)


def _tap(a: np.ndarray, axis: int, offset: int, dilation: int, stride: int, count: int) -> np.ndarray:
    """The view of ``a`` picking, along spatial axis ``axis``, the element at ``offset`` of ``count`` windows."""
    where = [slice(None)] * a.ndim
    start = offset * dilation
    where[2 + axis] = slice(start, start + (count - 1) * stride + 1, stride)
    return a[tuple(where)]


def _last_axis_strided(a: np.ndarray, k: int, dilation: int, stride: int, count: int) -> np.ndarray:
    """Along the last axis of a C-contiguous ``a``, the window maxima at every position, then every ``stride``-th.

    Views with a stride along the last axis make NumPy run one short strided loop per row; instead every position
    of the flattened array is reduced with contiguous runs (positions near a row's end mix in the next row's
    elements, and are dropped), and the kept positions are picked afterwards, as a view. The windows kept are the
    same elements as :func:`_tap` picks; the order does not matter (:func:`order_free`).
    """
    flat = a.reshape(-1)
    length = flat.size - (k - 1) * dilation
    dense = np.empty_like(flat)
    np.maximum(flat[:length], flat[dilation : dilation + length], out=dense[:length])
    for offset in range(2, k):
        np.maximum(dense[:length], flat[offset * dilation : offset * dilation + length], out=dense[:length])
    dense[length:] = flat[length:]  # positions no kept window starts at: defined values, dropped below
    return dense.reshape(a.shape)[..., 0 : (count - 1) * stride + 1 : stride]


def separable_maxima(values: np.ndarray, geo: WindowGeometry, lowest: object) -> np.ndarray | None:
    """The maximum of every window of ``values`` (N x C x D1 x ...), axis by axis; None when not :func:`order_free`.

    Padding and the ceil-mode overhang hold ``lowest``, as in the row-major
    fold. The spatial axes are reduced from the first to the last, so that all
    passes but the last read contiguous rows; a strided last axis is reduced at
    every position of the flattened array and subsampled
    (:func:`_last_axis_strided`). The result is a new C-contiguous
    array (never a view of ``values``).
    """
    if not order_free(values):
        return None
    padded = any(geo.pad_begin) or any(geo.pad_end) or any(geo.overhang)
    current = padded_for_windows(values, geo, lowest) if padded else values
    last = len(geo.kernel) - 1
    for axis, (k, d, s, n) in enumerate(zip(geo.kernel, geo.dilations, geo.strides, geo.out, strict=True)):
        if k == 1 and s == 1 and current.shape[2 + axis] == n:
            continue
        if axis == last and s > 1 and k > 1 and current.flags.c_contiguous:
            current = _last_axis_strided(current, k, d, s, n)
            continue
        first = _tap(current, axis, 0, d, s, n)
        best = np.maximum(first, _tap(current, axis, 1, d, s, n)) if k > 1 else first.copy()
        for offset in range(2, k):
            np.maximum(best, _tap(current, axis, offset, d, s, n), out=best)
        current = best
    if current is values:
        return values.copy()
    return np.ascontiguousarray(current)
