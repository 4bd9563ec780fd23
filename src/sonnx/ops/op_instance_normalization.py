"""InstanceNormalization: ``y = scale * (x - mean) / sqrt(variance + epsilon) + B`` per instance and channel.

The mean and (population) variance are taken over the spatial axes of each
``(n, c)``; ``scale`` and ``B`` hold one value per channel. Computed in at
least float32. Versions: 1 (a 4-D ``N x C x H x W`` input; the legacy
``consumed_inputs`` attribute is ignored), 6 (any ``N x C x D1 x ...``), 22
(bfloat16).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._normalize import standardize
from ._windows import accumulation_dtype, check_spatial_input
from .base import Kernel


def instance_normalization(
    x: np.ndarray, scale: np.ndarray, b: np.ndarray, *, epsilon: float = 1e-5, **_attrs: Any
) -> np.ndarray:
    """InstanceNormalization-6 and -22."""
    nsp = check_spatial_input(x, "input")
    c = x.shape[1]
    for p, name in ((scale, "scale"), (b, "B")):
        if p.shape != (c,):
            raise ValueError(f"{name} has shape {p.shape}, want ({c},)")
    acc = np.promote_types(accumulation_dtype(x.dtype), np.float32)
    normalized = standardize(x, tuple(range(2, 2 + nsp)), epsilon, acc, divide=True)[0]
    channel = (1, c) + (1,) * nsp
    y = scale.astype(acc).reshape(channel) * normalized + b.astype(acc).reshape(channel)
    return y.astype(x.dtype)


def instance_normalization_v1(
    x: np.ndarray, scale: np.ndarray, b: np.ndarray, *, epsilon: float = 1e-5, **_attrs: Any
) -> np.ndarray:
    """InstanceNormalization-1: the input is 4-D (NCHW)."""
    if x.ndim != 4:
        raise ValueError(f"InstanceNormalization-1 takes a 4-D (N x C x H x W) input, not rank {x.ndim}")
    return instance_normalization(x, scale, b, epsilon=epsilon)


KERNELS = (
    Kernel("InstanceNormalization", (1,), instance_normalization_v1),
    Kernel("InstanceNormalization", (6, 22), instance_normalization),
)
