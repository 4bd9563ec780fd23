"""SequenceInsert: the sequence with ``tensor`` inserted before ``position`` (in [-n, n]; at the end by default).

A negative position counts from the back: -1 inserts before the last tensor.
The tensor must have the element type of the sequence's tensors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._sequence import as_sequence, position
from .base import Kernel


def sequence_insert(seq: Any, tensor: np.ndarray, pos: np.ndarray | None = None, **_attrs: Any) -> list[Any]:
    """One version."""
    items = as_sequence(seq, "SequenceInsert's input")
    if items and np.asarray(items[0]).dtype != np.asarray(tensor).dtype:
        raise ValueError(f"cannot insert a {np.asarray(tensor).dtype} tensor into a sequence of {items[0].dtype}")
    k = len(items) if pos is None else position(pos, len(items), len(items))
    return [*items[:k], tensor, *items[k:]]


KERNELS = (Kernel("SequenceInsert", (11,), sequence_insert),)
