"""SequenceConstruct: the sequence of its inputs, in order (all of one element type)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def sequence_construct(*inputs: np.ndarray, **_attrs: Any) -> list[np.ndarray]:
    """One version; the tensors must share one element type."""
    dtypes = {np.asarray(x).dtype for x in inputs}
    if len(dtypes) > 1:
        raise ValueError(f"the tensors of a sequence must share one element type, got {sorted(map(str, dtypes))}")
    return list(inputs)


KERNELS = (Kernel("SequenceConstruct", (11,), sequence_construct),)
