"""CategoryMapper (ai.onnx.ml): strings to integers or integers to strings through two parallel lists.

``cats_strings[i]`` and ``cats_int64s[i]`` are one pair. A string input maps
each element to the integer of its string (``default_int64`` when absent); an
int64 input maps each element to the string of its integer
(``default_string`` when absent). The shape is kept. A category listed twice
keeps its first pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._ml import lookup, texts
from .base import Kernel


def category_mapper(
    x: np.ndarray,
    *,
    cats_int64s: Sequence[int] | None = None,
    cats_strings: Sequence[str] | None = None,
    default_int64: int = -1,
    default_string: str = "_Unused",
    **_attrs: Any,
) -> np.ndarray:
    """Version 1 (the only one): the direction follows the input's element type."""
    ints = np.asarray(cats_int64s if cats_int64s is not None else [], dtype=np.int64)
    strings = texts(list(cats_strings) if cats_strings is not None else [])
    if len(ints) != len(strings):
        raise ValueError(f"cats_int64s has {len(ints)} entries but cats_strings has {len(strings)}")
    if x.dtype == object:
        return lookup(strings, ints, texts(x), np.int64(default_int64), last_wins=False)
    if x.dtype != np.int64:
        raise ValueError(f"the input must be a string or int64 tensor, not {x.dtype}")
    return lookup(ints, strings, x, default_string, last_wins=False)


KERNELS = (Kernel("CategoryMapper", (1,), category_mapper, domain="ai.onnx.ml"),)
