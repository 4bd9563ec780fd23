"""SequenceErase: the sequence without the tensor at ``position`` (in [-n, n-1]; the last one by default)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._sequence import as_sequence, position
from .base import Kernel


def sequence_erase(seq: Any, pos: np.ndarray | None = None, **_attrs: Any) -> list[Any]:
    """One version."""
    items = as_sequence(seq, "SequenceErase's input")
    if pos is None:
        if not items:
            raise ValueError("cannot erase from an empty sequence")
        return items[:-1]
    k = position(pos, len(items), len(items) - 1)
    return items[:k] + items[k + 1 :]


KERNELS = (Kernel("SequenceErase", (11,), sequence_erase),)
