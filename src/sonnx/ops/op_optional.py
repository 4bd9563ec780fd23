"""Optional: an optional holding the input, or an empty optional (of the type the ``type`` attribute names).

An optional that holds a value is that value itself, so with an input the
result is the input; without one it is ``values.EMPTY``. Version 28 admits
more element types, nothing else changes.
"""

from __future__ import annotations

from typing import Any

from .base import Kernel
from .values import EMPTY


def optional(value: Any = None, **_attrs: Any) -> Any:
    """Versions 15 and 28."""
    return EMPTY if value is None else value


KERNELS = (Kernel("Optional", (15, 28), optional),)
