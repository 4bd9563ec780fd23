"""ReduceProd: the product over the given axes (all of them by default).

An empty product is 1. Half-width floats are multiplied in float32 (rounded
back once); integers multiply in their own type (wrapping). Versions 1, 11 and
13 take ``axes`` as an attribute (version 1 without negative axes), 18 as an
input with ``noop_with_empty_axes``.
"""

from __future__ import annotations

import numpy as np

from ._precision import working
from ._reduce import reduction_kernels


def _prod(x: np.ndarray, axes: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    w = working(x)
    with np.errstate(over="ignore"):
        return np.prod(w, axis=axes, keepdims=keepdims, dtype=w.dtype).astype(x.dtype)


KERNELS = reduction_kernels("ReduceProd", _prod, (1, 11, 13), (18,))
