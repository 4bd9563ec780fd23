"""ConcatFromSequence: the tensors of a sequence joined along ``axis``.

With ``new_axis`` = 0 they are concatenated along an existing axis (in
[-r, r-1]); with ``new_axis`` = 1 they are stacked along a new axis inserted
at ``axis`` (in [-r-1, r]). An empty sequence has no element type or shape to
give the result, and is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._sequence import as_sequence
from .base import Kernel


def concat_from_sequence(seq: Any, *, axis: int, new_axis: int = 0, **_attrs: Any) -> np.ndarray:
    """One version."""
    items = [np.asarray(x) for x in as_sequence(seq, "ConcatFromSequence's input")]
    if not items:
        raise ValueError("ConcatFromSequence of an empty sequence has no element type or shape")
    rank = items[0].ndim + (1 if new_axis else 0)
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is outside [{-rank}, {rank - 1}]")
    if new_axis:
        if len({x.shape for x in items}) > 1:
            raise ValueError(f"stacked tensors must have one shape, got {sorted({x.shape for x in items})}")
        return np.stack(items, axis=axis)
    if items[0].ndim == 0:
        raise ValueError("cannot concatenate scalars along an existing axis")
    return np.concatenate(items, axis=axis)


KERNELS = (Kernel("ConcatFromSequence", (11,), concat_from_sequence),)
