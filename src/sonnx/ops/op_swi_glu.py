"""SwiGLU: ``Y = Swish_alpha(A) * B`` with ``Swish_alpha(a) = a * sigmoid(alpha * a)``.

A (the gate) and B (the value) have the same shape; nothing is broadcast.
float16 and bfloat16 are computed through float32 and rounded once at the
end. One version.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def swi_glu(a: np.ndarray, b: np.ndarray, *, alpha: float = 1.0, **_attrs: Any) -> np.ndarray:
    if a.shape != b.shape:
        raise ValueError(f"A {list(a.shape)} and B {list(b.shape)} must have the same shape")
    work = np.float64 if a.dtype == np.float64 else np.float32
    av = a.astype(work)
    with np.errstate(over="ignore"):
        gate = av / (1 + np.exp(np.multiply(av, -float(alpha))))
    return (gate * b.astype(work)).astype(a.dtype)


KERNELS = (Kernel("SwiGLU", (28,), swi_glu),)
