"""Range: start, start + delta, start + 2 * delta, ... up to ``limit`` (exclusive).

The count is max(ceil((limit - start) / delta), 0), computed exactly (Python
integers for integer types, float64 from the given values for floating types);
element i is start + i * delta. Integers compute exactly; float32 and float64
compute in their own type; float16 and bfloat16 (version 27) compute in
float32 when ``stash_type`` is 1 (FLOAT, the default) and in their own type
otherwise, the result rounded to the input type. A zero ``delta`` is refused.
Version 11 has no ``stash_type`` and no float16/bfloat16.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from onnx import TensorProto

from ._convert import is_float
from .base import Kernel


def _scalar(t: np.ndarray, name: str) -> np.ndarray:
    if t.size != 1:
        raise ValueError(f"Range: {name} must be a scalar, got shape {t.shape}")
    return t.reshape(())


def range_(
    start: np.ndarray, limit: np.ndarray, delta: np.ndarray, stash_type: int = TensorProto.FLOAT, **_attrs: Any
) -> np.ndarray:
    """Versions 11 and 27."""
    s, lim, d = _scalar(start, "start"), _scalar(limit, "limit"), _scalar(delta, "delta")
    dtype = s.dtype
    if lim.dtype != dtype or d.dtype != dtype:
        raise ValueError(f"Range: start, limit and delta differ in type ({dtype}, {lim.dtype}, {d.dtype})")
    if is_float(dtype):
        fs, fl, fd = (float(v.astype(np.float64)) for v in (s, lim, d))
        if fd == 0:
            raise ValueError("Range: delta is 0")
        if not all(math.isfinite(v) for v in (fs, fl, fd)):
            raise ValueError(f"Range: non-finite start, limit or delta ({fs}, {fl}, {fd})")
        count = max(math.ceil((fl - fs) / fd), 0)
        work = np.float32 if dtype.itemsize < 4 and stash_type == TensorProto.FLOAT else dtype
        ws, wd = s.astype(work), d.astype(work)
        return np.asarray(ws + np.arange(count).astype(work) * wd).astype(dtype)
    si, li, di = int(s), int(lim), int(d)
    if di == 0:
        raise ValueError("Range: delta is 0")
    count = max(-((si - li) // di), 0)  # ceil((li - si) / di) in integers
    return (si + np.arange(count, dtype=np.int64) * di).astype(dtype)


KERNELS = (Kernel("Range", (11, 27), range_),)
