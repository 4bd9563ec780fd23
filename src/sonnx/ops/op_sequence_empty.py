"""SequenceEmpty: a sequence with no element.

The ``dtype`` attribute (default FLOAT) types the sequence in the model; an
empty sequence value is ``[]`` whatever its element type.
"""

from __future__ import annotations

from typing import Any

from .base import Kernel


def sequence_empty(**_attrs: Any) -> list[Any]:
    """One version."""
    return []


KERNELS = (Kernel("SequenceEmpty", (11,), sequence_empty),)
