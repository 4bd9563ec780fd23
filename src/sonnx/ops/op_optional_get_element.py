"""OptionalGetElement: the value an optional holds (an empty optional is an error).

Version 15 takes optionals only; from 18 a plain tensor or sequence is
accepted and returned as it is. An optional holding a value is represented by
that value, so both read the same; version 28 admits more element types.
"""

from __future__ import annotations

from typing import Any

from .base import Kernel
from .values import EmptyOptional


def optional_get_element(value: Any, **_attrs: Any) -> Any:
    """Versions 15, 18 and 28."""
    if isinstance(value, EmptyOptional):
        raise ValueError("OptionalGetElement of an empty optional")
    return value


KERNELS = (Kernel("OptionalGetElement", (15, 18, 28), optional_get_element),)
