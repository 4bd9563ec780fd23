"""The image and geometry kernels (resampling, region pooling, box suppression, sampling grids, folding)."""

from __future__ import annotations

from .base import operator_modules

NAMES = (
    "op_resize",
)

MODULES = operator_modules(__package__, NAMES)
