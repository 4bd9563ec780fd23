"""SequenceLength: the number of tensors in a sequence, as an int64 scalar."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._sequence import as_sequence
from .base import Kernel


def sequence_length(seq: Any, **_attrs: Any) -> np.ndarray:
    """One version."""
    return np.array(len(as_sequence(seq, "SequenceLength's input")), dtype=np.int64)


KERNELS = (Kernel("SequenceLength", (11,), sequence_length),)
