"""HammingWindow: ``w[n] = a0 - (1 - a0) cos(2 pi n / N)`` with ``a0 = 25/46``.

``N = size`` (periodic, the default) or ``size - 1``; the result has the type
``output_datatype`` (FLOAT by default). One version.
"""

from __future__ import annotations

from ._spectral import cosine_window_kernel
from .base import Kernel

hamming_window = cosine_window_kernel((25 / 46, 21 / 46))

KERNELS = (Kernel("HammingWindow", (17,), hamming_window),)
