"""LinearClassifier (ai.onnx.ml): class scores ``X W^T + b`` and the top class of each example.

W holds one row of F coefficients per class (``coefficients``, row after
row), b the ``intercepts`` (one per class, or none: 0). With E >= 2 rows,
the label is the class label of the largest score (the first of equal ones)
and Z is ``post_transform(scores)``, [N, E].

One row with two class labels is a binary classifier on one score s: the
label is the second class when s > 0, else the first, and Z is
``[1 - p, p]`` with p = s transformed element-wise (LOGISTIC, PROBIT; the
softmax variants leave a lone score as it is). [Non-normative: this is
onnxruntime's convention; the operator's text does not describe the case.]
``multi_class`` does not change the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._linear import affine_scores
from ._ml import class_labels
from ._ml import post_transform as transform
from .base import Kernel


def linear_classifier(
    x: np.ndarray,
    *,
    coefficients: Sequence[float] | None = None,
    intercepts: Sequence[float] | None = None,
    classlabels_ints: Sequence[int] | None = None,
    classlabels_strings: Sequence[str] | None = None,
    post_transform: str = "NONE",
    **_attrs: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """Version 1 (the only one)."""
    labels = class_labels(classlabels_ints, classlabels_strings)
    outputs = len(intercepts) if intercepts else None
    scores = affine_scores(x, coefficients, intercepts, outputs)
    if scores.shape[1] == 1:
        if len(labels) != 2:
            raise ValueError(f"one row of coefficients is a binary classifier: it needs 2 labels, not {len(labels)}")
        s = scores[:, 0]
        chosen = labels[(s > 0).astype(np.int64)]
        single = scores.astype(np.float32)
        p = transform(single, post_transform) if post_transform in ("LOGISTIC", "PROBIT") else single
        return chosen, np.concatenate([np.float32(1) - p, p], axis=1)
    if len(labels) != scores.shape[1]:
        raise ValueError(f"{scores.shape[1]} rows of coefficients but {len(labels)} class labels")
    chosen = labels[np.argmax(scores, axis=1)] if scores.shape[0] else labels[:0]
    return chosen, transform(scores.astype(np.float32), post_transform)


KERNELS = (Kernel("LinearClassifier", (1,), linear_classifier, domain="ai.onnx.ml"),)
