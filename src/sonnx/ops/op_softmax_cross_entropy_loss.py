"""SoftmaxCrossEntropyLoss: the negative log-likelihood loss of ``log(softmax(scores))`` over the class axis 1.

``log_prob = scores - max_c - log(sum_c exp(scores - max_c))`` (shape of
``scores``, the optional second output), then the loss of NegativeLogLikelihoodLoss
on it with the same ``weights``, ``ignore_index`` and ``reduction``
(``mean``: sum over the sum of the applied weights). Versions 12 and 13 differ
only in the element types (13 adds bfloat16).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._loss import log_softmax_classes, nll_loss
from .base import Kernel


def softmax_cross_entropy_loss(
    scores: np.ndarray,
    labels: np.ndarray,
    weights: np.ndarray | None = None,
    **attrs: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """SoftmaxCrossEntropyLoss-12, -13: (loss, log_prob); ``reduction``, ``ignore_index`` as ``nll_loss`` reads them."""
    op = "SoftmaxCrossEntropyLoss"
    if scores.ndim < 2:
        raise ValueError(f"{op}: scores must have shape (N, C, d1, ..., dk), got rank {scores.ndim}")
    log_prob = log_softmax_classes(scores)
    loss = nll_loss(log_prob, labels, weights, op, **attrs)
    return loss.astype(scores.dtype, copy=False), log_prob.astype(scores.dtype, copy=False)


KERNELS = (Kernel("SoftmaxCrossEntropyLoss", (12, 13), softmax_cross_entropy_loss),)
