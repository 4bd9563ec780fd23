"""NegativeLogLikelihoodLoss: ``loss[n, d] = -input[n, target[n, d], d] * weight[target[n, d]]``, reduced.

``input`` holds log-probabilities (N, C, d1, ..., dk), ``target`` the class of
each (N, d1, ..., dk) position; the optional ``weight`` (C) scales each class;
a target equal to ``ignore_index`` contributes 0 and weighs 0. ``reduction``:
``none`` (the loss tensor), ``sum``, ``mean`` (sum over the sum of the applied
weights). See ``_loss`` for the details. Versions 12, 13 and 22 compute the
same (13 rewrites the text; 22 adds bfloat16).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._loss import nll_loss
from .base import Kernel


def negative_log_likelihood_loss(
    x: np.ndarray,
    target: np.ndarray,
    weight: np.ndarray | None = None,
    **attrs: Any,
) -> np.ndarray:
    """NegativeLogLikelihoodLoss-12, -13, -22 (``reduction`` and ``ignore_index`` as ``_loss.nll_loss`` reads them)."""
    return nll_loss(x, target, weight, "NegativeLogLikelihoodLoss", **attrs)


KERNELS = (Kernel("NegativeLogLikelihoodLoss", (12, 13, 22), negative_log_likelihood_loss),)
