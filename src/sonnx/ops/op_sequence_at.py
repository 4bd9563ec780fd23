"""SequenceAt: the tensor at ``position`` in a sequence of n (position in [-n, n-1], negative from the back)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._sequence import as_sequence, position
from .base import Kernel


def sequence_at(seq: Any, pos: np.ndarray, **_attrs: Any) -> np.ndarray:
    """One version."""
    items = as_sequence(seq, "SequenceAt's input")
    value: np.ndarray = items[position(pos, len(items), len(items) - 1)]
    return value


KERNELS = (Kernel("SequenceAt", (11,), sequence_at),)
