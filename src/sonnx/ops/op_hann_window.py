"""HannWindow: ``w[n] = 0.5 - 0.5 cos(2 pi n / N)``, ``N = size`` (periodic, the default) or ``size - 1``.

The result has the type ``output_datatype`` (FLOAT by default). One version.
"""

from __future__ import annotations

from ._spectral import cosine_window_kernel
from .base import Kernel

hann_window = cosine_window_kernel((0.5, 0.5))

KERNELS = (Kernel("HannWindow", (17,), hann_window),)
