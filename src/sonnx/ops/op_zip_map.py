"""ZipMap (ai.onnx.ml): each row of a float32 [N, C] tensor as a map from the C class labels to its values.

The keys are ``classlabels_strings`` or ``classlabels_int64s`` (exactly one,
C of them); the result is a sequence of N maps, ``{label_j: X[i, j]}``. A 1-D
input is one row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._ml import class_labels
from .base import Kernel


def zip_map(
    x: np.ndarray,
    *,
    classlabels_int64s: Sequence[int] | None = None,
    classlabels_strings: Sequence[str] | None = None,
    **_attrs: Any,
) -> list[dict[Any, Any]]:
    """Version 1 (the only one)."""
    labels = class_labels(classlabels_int64s, classlabels_strings).tolist()
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    if rows.ndim != 2 or rows.shape[1] != len(labels):
        raise ValueError(f"the input has shape {list(x.shape)}; it needs {len(labels)} columns, one per label")
    # one map per row: building the Python dicts is the operator's output format
    return [dict(zip(labels, row, strict=True)) for row in rows.astype(np.float32)]


KERNELS = (Kernel("ZipMap", (1,), zip_map, domain="ai.onnx.ml"),)
