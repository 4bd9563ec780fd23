"""STFT: the short-time Fourier transform of a batch of signals.

Frame ``f`` covers samples ``f * frame_step .. f * frame_step + frame_length - 1``
of each signal ``[batch, length, 1 or 2]``; there are
``(length - frame_length) // frame_step + 1`` frames. Each frame is multiplied
by ``window`` (all ones when omitted) and transformed by a DFT of
``frame_length`` points. ``frame_length`` defaults to the window's length, or
to the signal length when both are omitted. With ``onesided`` (the default)
only bins ``0..frame_length/2`` are kept, which needs a real signal. Output
``[batch, frames, bins, 2]``. One version.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._spectral import from_complex, scalar_int, to_complex
from .base import Kernel


def stft(
    signal: np.ndarray,
    frame_step: Any,
    window: np.ndarray | None = None,
    frame_length: Any = None,
    *,
    onesided: int = 1,
    **_attrs: Any,
) -> np.ndarray:
    if signal.ndim != 3:
        raise ValueError(f"signal must have rank 3 [batch, length, 1 or 2], not shape {list(signal.shape)}")
    z = to_complex(signal, "signal")
    length = z.shape[1]
    step = scalar_int(frame_step, "frame_step")
    if step < 1:
        raise ValueError(f"frame_step must be positive, got {step}")
    if window is not None and window.ndim != 1:
        raise ValueError(f"window must be 1-D, its shape is {list(window.shape)}")
    if frame_length is not None:
        n = scalar_int(frame_length, "frame_length")
        if window is not None and window.shape[0] != n:
            raise ValueError(f"the window has {window.shape[0]} points but frame_length is {n}")
    else:
        n = window.shape[0] if window is not None else length
    if n < 1 or n > length:
        raise ValueError(f"frame_length {n} must lie in [1, {length}] (the signal length)")
    if onesided and signal.shape[-1] == 2:
        raise ValueError("a one-sided STFT needs a real signal (last dimension 1)")
    frames = (length - n) // step + 1
    index = np.arange(frames)[:, None] * step + np.arange(n)[None, :]
    pieces = z[:, index]
    if window is not None:
        pieces = pieces * window.astype(pieces.real.dtype)
    spectrum = np.fft.fft(pieces, axis=-1)
    if onesided:
        spectrum = spectrum[..., : n // 2 + 1]
    return from_complex(spectrum, signal.dtype)


KERNELS = (Kernel("STFT", (17,), stft),)
