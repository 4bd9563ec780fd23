"""Identity: the output is the input (a tensor, or from 14 a sequence, from 16 an optional)."""

from __future__ import annotations

from typing import Any

from .base import Kernel


def identity(x: Any, **_attrs: Any) -> Any:
    """Versions differ only in the types they admit; the value passes through unchanged."""
    return x


KERNELS = (Kernel("Identity", (1, 13, 14, 16, 19, 21, 23, 24, 25), identity),)
