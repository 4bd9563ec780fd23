"""SplitToSequence: a tensor cut along ``axis`` into a sequence of parts.

Without ``split`` every part has length 1, and ``keepdims`` = 0 then drops the
split axis from each part. A scalar ``split`` cuts parts of that length (the
last one shorter when it does not divide the dimension; an empty axis gives
no part); a 1-D ``split`` gives each part's length, adding up to the dimension.
[Non-normative: the text asks for positive lengths, but onnx's own model case
test_sequence_model8 splits an empty axis into parts of length 0, so lengths
0 are accepted.] Version 24 only admits one more element type (bfloat16).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def split_to_sequence(
    x: np.ndarray, split: np.ndarray | None = None, *, axis: int = 0, keepdims: int = 1, **_attrs: Any
) -> list[np.ndarray]:
    """Versions 11 and 24."""
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis {axis} is outside rank {x.ndim}")
    ax = axis + x.ndim if axis < 0 else axis
    n = x.shape[ax]
    if split is None:
        parts = np.split(x, n, axis=ax) if n else []
        return [p if keepdims else np.squeeze(p, axis=ax) for p in parts]
    if not np.issubdtype(split.dtype, np.integer) or split.ndim > 1:
        raise ValueError(f"split must be an integer scalar or 1-D tensor, got {split.dtype}{list(split.shape)}")
    if split.ndim == 0:
        size = int(split)
        if size <= 0:
            raise ValueError(f"split must be positive, got {size}")
        if n == 0:
            return []
        bounds = list(range(size, n, size))
    else:
        lengths = split.astype(np.int64)
        if (lengths < 0).any() or int(lengths.sum()) != n:
            raise ValueError(f"split lengths {lengths.tolist()} must be non-negative and add up to dimension {n}")
        bounds = np.cumsum(lengths)[:-1].tolist()
    return list(np.split(x, bounds, axis=ax))


KERNELS = (Kernel("SplitToSequence", (11, 24), split_to_sequence),)
