"""The precision kernels compute in: half-width floats are widened, the result is rounded back once.

float16, bfloat16 (and the other small ml_dtypes floats) are computed in
float32, float32 and float64 in themselves; integers and booleans stay as
they are (integer arithmetic wraps in the input's type, as ONNX's fixed-width
types do).
"""

from __future__ import annotations

import numpy as np

from ._convert import is_float


def working(x: np.ndarray) -> np.ndarray:
    """``x`` in the type to compute in (float32 for floats narrower than 32 bits, otherwise unchanged)."""
    if is_float(x.dtype) and x.dtype.itemsize < 4:
        return x.astype(np.float32)
    return x


def as_float(x: np.ndarray) -> np.ndarray:
    """``x`` as a float array for transcendental functions: :func:`working` for floats, float64 for the rest."""
    return working(x) if is_float(x.dtype) else x.astype(np.float64)
