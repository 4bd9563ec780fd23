"""OneHotEncoder (ai.onnx.ml): each element replaced by a one-hot float32 vector over the categories.

``Y[..., j] = 1`` where ``X[...]`` equals category j (``cats_strings`` for a
string input, ``cats_int64s`` otherwise; floats are truncated toward zero to
integers first), 0 elsewhere; Y has X's shape plus one last axis of the
number of categories. An element in no category gives zeros when ``zeros`` is
1 and is refused when it is 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._ml import texts
from .base import Kernel


def one_hot_encoder(
    x: np.ndarray,
    *,
    cats_int64s: Sequence[int] | None = None,
    cats_strings: Sequence[str] | None = None,
    zeros: int = 1,
    **_attrs: Any,
) -> np.ndarray:
    """Version 1 (the only one)."""
    if x.dtype == object:
        if not cats_strings:
            raise ValueError("a string input needs cats_strings")
        cats: np.ndarray = texts(list(cats_strings))
        values = texts(x)
    else:
        if not cats_int64s:
            raise ValueError(f"a {x.dtype} input needs cats_int64s")
        cats = np.asarray(cats_int64s, dtype=np.int64)
        values = np.trunc(x).astype(np.int64) if x.dtype.kind == "f" else x.astype(np.int64)
    hot = values[..., None] == cats
    if not zeros and not hot.any(axis=-1).all():
        missing = values[~hot.any(axis=-1)].reshape(-1)[0]
        raise ValueError(f"{missing!r} is in no category and zeros is 0")
    return hot.astype(np.float32)


KERNELS = (Kernel("OneHotEncoder", (1,), one_hot_encoder, domain="ai.onnx.ml"),)
