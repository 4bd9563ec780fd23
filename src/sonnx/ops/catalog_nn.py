"""The neural-network operator kernels (convolution, pooling, normalisation, padding)."""

from __future__ import annotations

from . import (
    average_pool,
    batch_normalization,
    conv,
    global_average_pool,
    global_max_pool,
    lrn,
    max_pool,
    pad,
)

MODULES = (
    average_pool,
    batch_normalization,
    conv,
    global_average_pool,
    global_max_pool,
    lrn,
    max_pool,
    pad,
)
