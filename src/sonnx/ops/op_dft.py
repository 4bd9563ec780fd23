"""DFT: the discrete Fourier transform along one signal axis.

``y[k] = sum_n x[n] exp(-2 pi i k n / L)`` over a signal of ``L = dft_length``
points (the axis is cut or zero-padded to that length), and with ``inverse``
``x[n] = 1/L sum_k y[k] exp(2 pi i k n / L)``. The input's last axis holds 1
(real) or 2 (real, imaginary) numbers; the output's holds 2, except for the
inverse one-sided transform. With ``onesided``: the forward transform takes
a real signal and keeps bins ``0..L/2`` (RFFT); the inverse takes those bins
of a Hermitian spectrum and returns the real signal of ``L`` points (IRFFT;
``L`` defaults to ``2 (bins - 1)``).

DFT-17 reads the axis from the ``axis`` attribute (default 1); DFT-20 from the
optional ``axis`` input (default -2). Either may count from the back, and the
last axis (the complex parts) is never a signal axis.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._spectral import from_complex, scalar_int, to_complex
from .base import Kernel


def _dft(x: np.ndarray, dft_length: Any, axis: int, inverse: int, onesided: int) -> np.ndarray:
    r = x.ndim
    if r < 2:
        raise ValueError(f"the input needs a signal axis and the complex axis, its rank is {r}")
    if not (-r <= axis <= -2 or 0 <= axis <= r - 2):
        raise ValueError(f"axis {axis} is outside [-{r}, -2] and [0, {r - 2}] for an input of rank {r}")
    ax = axis + r if axis < 0 else axis
    z = to_complex(x, "input")
    length = None if dft_length is None else scalar_int(dft_length, "dft_length")
    if length is not None and length < 1:
        raise ValueError(f"dft_length must be positive, got {length}")
    if onesided and not inverse:
        if x.shape[-1] != 1:
            raise ValueError("a one-sided forward DFT (RFFT) needs a real input (last dimension 1)")
        out = np.fft.rfft(z.real, n=length, axis=ax)
    elif onesided:
        if x.shape[-1] != 2:
            raise ValueError("a one-sided inverse DFT (IRFFT) needs a complex input (last dimension 2)")
        if length is None:
            length = 2 * (z.shape[ax] - 1)
            if length < 1:
                raise ValueError(f"the IRFFT length 2 * ({z.shape[ax]} - 1) is not positive")
        real = np.fft.irfft(z, n=length, axis=ax)
        return real[..., None].astype(x.dtype)
    elif inverse:
        out = np.fft.ifft(z, n=length, axis=ax)
    else:
        out = np.fft.fft(z, n=length, axis=ax)
    return from_complex(out, x.dtype)


def dft_17(x: np.ndarray, dft_length: Any = None, *, axis: int = 1, inverse: int = 0, onesided: int = 0,
           **_attrs: Any) -> np.ndarray:
    """DFT-17: the axis is an attribute (default 1)."""
    return _dft(x, dft_length, int(axis), int(inverse), int(onesided))


def dft(x: np.ndarray, dft_length: Any = None, axis: Any = None, *, inverse: int = 0, onesided: int = 0,
        **_attrs: Any) -> np.ndarray:
    """DFT-20: the axis is an optional scalar input (default -2)."""
    ax = -2 if axis is None else scalar_int(axis, "axis")
    return _dft(x, dft_length, ax, int(inverse), int(onesided))


KERNELS = (
    Kernel("DFT", (17,), dft_17),
    Kernel("DFT", (20,), dft),
)
