"""OptionalHasElement: a boolean scalar, true when the input holds a value.

Version 15 takes an optional; from 18 the input may also be a plain tensor or
sequence (always true) or be omitted (false). Version 28 admits more element
types.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel
from .values import EmptyOptional


def optional_has_element(value: Any = None, **_attrs: Any) -> np.ndarray:
    """Versions 15, 18 and 28 (an omitted input only arises from 18, where the input became optional)."""
    return np.array(value is not None and not isinstance(value, EmptyOptional))


KERNELS = (Kernel("OptionalHasElement", (15, 18, 28), optional_has_element),)
