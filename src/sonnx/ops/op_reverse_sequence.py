"""ReverseSequence: for each batch entry b, reverse the first ``sequence_lens[b]`` steps along the time axis.

Steps past ``sequence_lens[b]`` are copied unchanged. ``batch_axis`` and
``time_axis`` are 0 and 1 in either order; each length must lie in [0, the
time dimension]. Versions 10 and 28 differ only in the element types they
admit (28 adds bfloat16).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def reverse_sequence(
    x: np.ndarray, sequence_lens: np.ndarray, batch_axis: int = 1, time_axis: int = 0, **_attrs: Any
) -> np.ndarray:
    """Versions 10 and 28."""
    if {batch_axis, time_axis} != {0, 1}:
        raise ValueError(f"ReverseSequence: batch_axis {batch_axis} and time_axis {time_axis} must be 0 and 1")
    if x.ndim < 2:
        raise ValueError(f"ReverseSequence: the input must have rank 2 or more, got rank {x.ndim}")
    batch, steps = x.shape[batch_axis], x.shape[time_axis]
    lens = sequence_lens.astype(np.int64).reshape(-1)
    if lens.shape[0] != batch:
        raise ValueError(f"ReverseSequence: {lens.shape[0]} sequence lengths for a batch of {batch}")
    if np.any((lens < 0) | (lens > steps)):
        raise ValueError(f"ReverseSequence: sequence lengths must lie in [0, {steps}], got {lens.tolist()}")
    t = np.arange(steps)[None, :]
    source = np.where(t < lens[:, None], lens[:, None] - 1 - t, t)  # [batch, steps]: the step each output reads
    if time_axis == 0:
        source = source.T
    source = source.reshape(source.shape + (1,) * (x.ndim - 2))
    return np.take_along_axis(x, np.broadcast_to(source, x.shape), axis=time_axis)


KERNELS = (Kernel("ReverseSequence", (10, 28), reverse_sequence),)
