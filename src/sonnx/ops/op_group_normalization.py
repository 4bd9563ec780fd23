"""GroupNormalization: standardise each group of channels of each instance, then scale and shift.

X (``N x C x D1 x ...``) is split into ``num_groups`` groups of ``C /
num_groups`` consecutive channels; over each group of each instance (its
channels and spatial positions), ``Normalized = (X - mean) / sqrt(var +
epsilon)`` with the population variance; then ``Y = scale * Normalized + bias``.

Versions: 18 (``scale`` and ``bias`` hold one value per group, shape
``num_groups``), 21 (one value per channel, shape ``C``, and ``stash_type``:
the precision of the standardisation, float32 by default; its result is cast
to X's type before scaling). Version 18 names no precision; sonnx
standardises in at least float32 there too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._normalize import standardize, stash_dtype
from ._windows import accumulation_dtype
from .base import Kernel


def _grouped(x: np.ndarray, num_groups: int | None) -> tuple[int, np.ndarray]:
    if x.ndim < 2:
        raise ValueError(f"X must have shape N x C x ..., not rank {x.ndim}")
    if num_groups is None:
        raise ValueError("num_groups is required")
    g = int(num_groups)
    c = x.shape[1]
    if g < 1 or c % g:
        raise ValueError(f"num_groups={g} must divide the number of channels {c}")
    return g, x.reshape(x.shape[0], g, -1)


def _check(p: np.ndarray, want: int, name: str, what: str) -> None:
    if p.shape != (want,):
        raise ValueError(f"{name} has shape {p.shape}, want ({want},) ({what})")


def group_normalization_v18(
    x: np.ndarray,
    scale: np.ndarray,
    bias: np.ndarray,
    *,
    epsilon: float = 1e-5,
    num_groups: int | None = None,
    **_attrs: Any,
) -> np.ndarray:
    """GroupNormalization-18: scale and bias per group."""
    g, grouped = _grouped(x, num_groups)
    _check(scale, g, "scale", "one per group")
    _check(bias, g, "bias", "one per group")
    acc = np.promote_types(accumulation_dtype(x.dtype), np.float32)
    normalized = standardize(grouped, (2,), epsilon, acc, divide=True)[0]
    y = normalized * scale.astype(acc).reshape(1, g, 1) + bias.astype(acc).reshape(1, g, 1)
    return y.reshape(x.shape).astype(x.dtype)


def group_normalization(
    x: np.ndarray,
    scale: np.ndarray,
    bias: np.ndarray,
    *,
    epsilon: float = 1e-5,
    num_groups: int | None = None,
    stash_type: int = 1,
    **_attrs: Any,
) -> np.ndarray:
    """GroupNormalization-21: scale and bias per channel, standardisation in the stash type."""
    grouped = _grouped(x, num_groups)[1]
    c = x.shape[1]
    _check(scale, c, "scale", "one per channel")
    _check(bias, c, "bias", "one per channel")
    normalized = standardize(grouped, (2,), epsilon, stash_dtype(stash_type), divide=True)[0]
    t = normalized.astype(x.dtype).reshape(x.shape[0], c, -1)
    y = scale.astype(x.dtype).reshape(1, c, 1) * t + bias.astype(x.dtype).reshape(1, c, 1)
    return np.asarray(y).reshape(x.shape).astype(x.dtype, copy=False)


KERNELS = (
    Kernel("GroupNormalization", (18,), group_normalization_v18),
    Kernel("GroupNormalization", (21,), group_normalization),
)
