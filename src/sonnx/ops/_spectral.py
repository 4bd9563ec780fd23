"""What the spectral operators (DFT, STFT, the window generators, MelWeightMatrix) share.

Complex signals travel as real tensors whose last axis holds 1 (a real value)
or 2 (real and imaginary parts) numbers. :func:`to_complex` turns such a
tensor into a NumPy complex array and :func:`from_complex` back. The
transforms run in complex64 for float32 and narrower inputs (NumPy has no
narrower complex type) and in complex128 for float64; results are cast back to
the input type.

The generalized cosine windows (Hann, Hamming, Blackman) are
``w[n] = sum_k (-1)^k a_k cos(2 pi k n / N)`` for ``n = 0..size-1``, with
``N = size`` (periodic) or ``N = size - 1`` (symmetric); a symmetric window of
one point is ``[1]`` (the formula would divide by zero).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .values import numpy_dtype


def complex_dtype(dtype: np.dtype) -> np.dtype:
    """complex128 for float64, complex64 otherwise."""
    return np.dtype(np.complex128) if dtype == np.float64 else np.dtype(np.complex64)


def to_complex(x: np.ndarray, name: str) -> np.ndarray:
    """The complex values of an ``[..., 1]`` (real) or ``[..., 2]`` (complex) tensor, without the last axis."""
    if x.ndim < 1 or x.shape[-1] not in (1, 2):
        raise ValueError(f"{name} must end in a dimension of 1 (real) or 2 (complex), its shape is {list(x.shape)}")
    ctype = complex_dtype(x.dtype)
    rtype = np.float64 if ctype == np.complex128 else np.float32
    z = x[..., 0].astype(ctype)
    if x.shape[-1] == 2:
        z.imag = x[..., 1].astype(rtype)
    return z


def from_complex(z: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``[..., 2]`` real and imaginary parts of ``z`` in ``dtype``."""
    return np.stack((z.real, z.imag), axis=-1).astype(dtype)


def scalar_int(v: Any, name: str) -> int:
    """The integer held by a one-element tensor."""
    arr = np.asarray(v)
    if arr.size != 1:
        raise ValueError(f"{name} must be a scalar, it has {arr.size} elements")
    return int(arr.reshape(-1)[0])


def cosine_window_kernel(coefficients: Sequence[float]) -> Callable[..., np.ndarray]:
    """A window-generator kernel for the generalized cosine window with these coefficients ``a_0, a_1, ...``."""

    def window(size: Any, *, periodic: int = 1, output_datatype: int = 1, **_attrs: Any) -> np.ndarray:
        n = scalar_int(size, "size")
        if n < 0:
            raise ValueError(f"size must not be negative, got {n}")
        out_type = numpy_dtype(int(output_datatype))
        if n == 1 and not periodic:
            return np.ones(1, dtype=out_type)
        denominator = n if periodic else n - 1
        phase = 2 * np.pi * np.arange(n, dtype=np.float64) / max(denominator, 1)
        w = np.zeros(n, dtype=np.float64)
        for k, a in enumerate(coefficients):
            w += (-1) ** k * a * np.cos(k * phase)
        return w.astype(out_type)

    return window
