"""BlackmanWindow: ``w[n] = 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)``.

``N = size`` (periodic, the default) or ``size - 1``; the result has the type
``output_datatype`` (FLOAT by default). One version.
"""

from __future__ import annotations

from ._spectral import cosine_window_kernel
from .base import Kernel

blackman_window = cosine_window_kernel((0.42, 0.5, 0.08))

KERNELS = (Kernel("BlackmanWindow", (17,), blackman_window),)
