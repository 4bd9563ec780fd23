"""ConvInteger: ``y = Conv(x - x_zero_point, w - w_zero_point)`` in int32.

The zero points default to 0; ``x_zero_point`` is per tensor, ``w_zero_point``
per tensor or per output channel (``M`` values). Padding contributes nothing
to the sums (it stands for the zero point). Geometry, groups, strides and
dilations are Conv's; the sums are formed exactly and wrap to 32 bits (the
text allows overflow only of a 32-bit accumulation). One version (10).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._quantize import shifted
from .base import Kernel
from .op_conv import conv


def integer_conv(
    x: np.ndarray, x_zero_point: np.ndarray | None, w: np.ndarray, w_zero_point: np.ndarray | None, **attrs: Any
) -> np.ndarray:
    """The exact (int64) convolution of the zero-point-shifted data and weights."""
    if x_zero_point is not None and x_zero_point.size != 1:
        raise ValueError(f"x_zero_point must be a scalar (per tensor), not of shape {x_zero_point.shape}")
    xs = shifted(x, None if x_zero_point is None else x_zero_point.reshape(()))
    wzp = None
    if w_zero_point is not None:
        if w_zero_point.size == 1:
            wzp = w_zero_point.reshape(())
        elif w_zero_point.ndim == 1 and w.ndim >= 1 and w_zero_point.shape[0] == w.shape[0]:
            wzp = w_zero_point.reshape((-1,) + (1,) * (w.ndim - 1))
        else:
            raise ValueError(f"w_zero_point of shape {w_zero_point.shape} is neither a scalar nor one per output "
                             "channel")
    return conv(xs, shifted(w, wzp), None, **attrs)


def conv_integer(
    x: np.ndarray,
    w: np.ndarray,
    x_zero_point: np.ndarray | None = None,
    w_zero_point: np.ndarray | None = None,
    **attrs: Any,
) -> np.ndarray:
    """ConvInteger-10."""
    return integer_conv(x, x_zero_point, w, w_zero_point, **attrs).astype(np.int32)


KERNELS = (Kernel("ConvInteger", (10,), conv_integer),)
