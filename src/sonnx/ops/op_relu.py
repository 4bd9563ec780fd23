"""Relu: max(x, 0), element-wise.

``np.maximum(x, 0)`` with a 0-d zero runs NumPy's loop for a broadcast
operand, about three times slower than its loop for two contiguous operands.
A large contiguous X is therefore taken as rows of :data:`ROW` elements
against one row of zeros (each row a call of the fast loop), and the
remaining elements against the 0-d zero: every element is still
``maximum(x, 0)`` of the same two numbers, so the result is the same bit for bit
(signed zeros and NaNs included).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel

ROW = 4096
"""Elements per row of the row-wise form (small enough for the cache, large enough to amortise a row)."""

_ZERO_ROWS: dict[np.dtype[Any], np.ndarray] = {}


def _zero_row(dtype: np.dtype[Any]) -> np.ndarray:
    row = _ZERO_ROWS.get(dtype)
    if row is None:
        row = np.zeros(ROW, dtype=dtype)
        row.flags.writeable = False
        _ZERO_ROWS[dtype] = row
    return row


def relu(x: np.ndarray, **_attrs: object) -> np.ndarray:
    """Versions differ only in the types they admit (and Relu-1's ignored ``consumed_inputs``)."""
    zero = np.zeros((), dtype=x.dtype)
    if x.size < 2 * ROW or not x.flags.c_contiguous:
        return np.maximum(x, zero)
    return _maximum_rows(x, np.empty_like(x))


def relu_in_place(x: np.ndarray) -> np.ndarray:
    """Relu written over ``x`` itself, which is returned: every element is ``maximum(x, 0)`` of the same two
    numbers as in :func:`relu`, so the result is the same bit for bit.

    Only for an ``x`` that nothing else reads or shares memory with: the
    executor's plan decides when (``sonnx.execution.reuse``).
    """
    zero = np.zeros((), dtype=x.dtype)
    if x.size < 2 * ROW or not x.flags.c_contiguous:
        np.maximum(x, zero, out=x)
        return x
    return _maximum_rows(x, x)


def _maximum_rows(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``maximum(x, 0)`` into ``out`` (C-contiguous, ``x`` itself allowed): whole rows against the zero row."""
    flat = x.reshape(-1)
    dest = out.reshape(-1)
    whole = flat.size - flat.size % ROW
    np.maximum(flat[:whole].reshape(-1, ROW), _zero_row(x.dtype), out=dest[:whole].reshape(-1, ROW))
    np.maximum(flat[whole:], np.zeros((), dtype=x.dtype), out=dest[whole:])
    return out


KERNELS = (Kernel("Relu", (1, 6, 13, 14), relu),)
